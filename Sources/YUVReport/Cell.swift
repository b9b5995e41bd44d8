import YUVCore

/// One column's value for one image or for the totals, typed: each format writes a kind its own way
/// (a byte count is digits in JSON and CSV, "1.5 MiB" in the tables; a PSNR has 4 decimals in JSON and
/// CSV, 1 in the terminal's narrow table and 2 in HTML).
public enum Cell: Sendable, Equatable {
    /// Does not apply (a failed image's measures, a converted image's error): JSON leaves the key out,
    /// the other formats leave the cell empty.
    case absent
    /// Applies but was not measured: JSON null, CSV empty, a dash in the tables.
    case unmeasured
    case text(String)
    case flag(Bool)
    case count(Int)
    case bytes(Int)
    /// A saving, in percent: 2 decimals in JSON and CSV, 1 and "%" in the tables.
    case percent(Double)
    /// A PSNR: 4 decimals in JSON and CSV, 1 in the text table, 2 in HTML; +∞ (identical planes) is "inf"
    /// (JSON: null).
    case decibels(Double)
    /// An SSIM: 6 decimals in JSON and CSV, 4 in the tables.
    case similarity(Double)
    /// W×H.
    case size(width: Int, height: Int)
    /// Two PSNRs side by side (Cb / Cr).
    case decibelPair(Double, Double)
}

extension Cell {
    /// As a JSON value; nil leaves the key out.
    var json: String? {
        switch self {
        case .absent: return nil
        case .unmeasured: return "null"
        case .text(let s): return jsonString(s)
        case .flag(let b): return b ? "true" : "false"
        case .count(let n), .bytes(let n): return "\(n)"
        case .percent(let v): return jsonNumber(v, 2)
        case .decibels(let v): return jsonNumber(v, 4)
        case .similarity(let v): return jsonNumber(v, 6)
        case .size, .decibelPair: return jsonString(csv)
        }
    }

    /// As a CSV field, before quoting.
    var csv: String {
        switch self {
        case .absent, .unmeasured: return ""
        case .text(let s): return s
        case .flag(let b): return b ? "true" : "false"
        case .count(let n), .bytes(let n): return "\(n)"
        case .percent(let v): return fixed(v, 2)
        case .decibels(let v): return fixed(v, 4)
        case .similarity(let v): return fixed(v, 6)
        case .size(let w, let h): return "\(w)x\(h)"
        case .decibelPair(let a, let b): return fixed(a, 4) + "/" + fixed(b, 4)
        }
    }

    /// As a cell of the terminal's table.
    var text: String {
        switch self {
        case .absent: return ""
        case .unmeasured: return "-"
        case .text(let s): return s
        case .flag(let b): return b ? "yes" : "no"
        case .count(let n): return "\(n)"
        case .bytes(let n): return formatBytes(n)
        case .percent(let v): return fixed(v, 1) + "%"
        case .decibels(let v): return fixed(v, 1)
        case .similarity(let v): return fixed(v, 4)
        case .size(let w, let h): return "\(w)x\(h)"
        case .decibelPair(let a, let b): return fixed(a, 1) + "/" + fixed(b, 1)
        }
    }

    /// As the content of an HTML table cell, escaped.
    var html: String {
        switch self {
        case .absent: return ""
        case .unmeasured: return "–"
        case .text(let s): return htmlEscape(s)
        case .flag, .count, .bytes, .percent, .similarity: return text
        case .decibels(let v): return fixed(v, 2)
        case .size(let w, let h): return "\(w)×\(h)"
        case .decibelPair(let a, let b): return fixed(a, 2) + " / " + fixed(b, 2)
        }
    }
}
