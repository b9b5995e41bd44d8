import YUVCore
import YUVIO

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
    /// The tool's own command-line text (`-f rawvideo …`, ffmpeg's arguments): written as `text`, but never given a
    /// CSV formula's `'` (it starts with `-` to be pasted after `ffmpeg`).
    case arguments(String)
    /// Text a file chose — its name, an error naming it, its profile's description — written as `text`,
    /// except that a CSV cell starting as a spreadsheet formula would (`=`, `+`, `-`, `@`, a tab or carriage
    /// return: `=HYPERLINK(…).png`) gets a `'` before it, which spreadsheets show as text (OWASP's advice).
    case name(String)
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

/// A CSV text cell: shown (`CellStyle.shown`), with a `'` before it when it starts as a formula (`=`, `+`, `-`,
/// `@`): no text of this tool's starts so but its command-line text (`Cell.arguments`), and an `--update` run's
/// kept lines come from its manifest, which anyone who can write in the output folder can edit.
func csvText(_ s: String) -> String {
    let t = CellStyle.shown(s)
    guard let c = t.unicodeScalars.first, "=+-@".unicodeScalars.contains(c) else { return t }
    return "'" + t
}

/// `s` with a `'` before it when a spreadsheet would take it for a formula (or it starts with `'` itself).
func csvDefused(_ s: String) -> String {
    // A name that starts with ' gets one too, so that a shown name stands for one name: drop exactly one.
    // "-" alone (standard output, in the output column) is no formula.
    guard s != "-", let c = s.unicodeScalars.first, "=+-@\t\r'".unicodeScalars.contains(c) else { return s }
    return "'" + s
}

/// How one format writes cells: its quoting of text, its numbers, and its precision for each kind of value.
struct CellStyle: Sendable {
    let text: @Sendable (String) -> String
    /// Text a file chose (`Cell.name`): defused for a spreadsheet (CSV), else as `text`.
    var defuse = false
    func name(_ s: String) -> String { defuse ? csvDefused(Self.shown(s)) : text(s) }
    /// `Cell.arguments`: as `text`, but in CSV without the formula guard.
    func arguments(_ s: String) -> String { defuse ? Self.shown(s) : text(s) }
    let number: @Sendable (Double, Int) -> String
    let bytes: @Sendable (Int) -> String
    let percent: (decimals: Int, suffix: String)
    let decibels: Int
    let similarity: Int
    let unmeasured: String
    /// Between W and H, and between the two PSNRs of a pair.
    let by: String, pair: String

    /// Text as a table, a CSV field or a JSON value shows it: a control character (C0, DEL, C1) or an invisible reordering one
    /// as `\xNN`, whatever its source — a file's name, a profile's description, or a field of `--update`'s
    /// manifest (a file in the output folder, which anyone who can write there can edit): no cell drives the
    /// terminal that shows the report, breaks a CSV line, or reorders what is shown around it.
    static func shown(_ s: String) -> String { PathBytes.escapingControls(s, keepLayout: false) }

    /// JSON's own escapes keep a line valid, not a terminal safe: `jq -r` turns `\u001b` back into ESC. So its
    /// text is shown first, as every other format's is.
    static let json = CellStyle(text: { jsonString(shown($0)) }, number: jsonNumber, bytes: { "\($0)" }, percent: (2, ""), decibels: 4,
                                similarity: 6, unmeasured: "null", by: "x", pair: "/")
    static let csv = CellStyle(text: csvText, defuse: true, number: fixed, bytes: { "\($0)" }, percent: (2, ""),
                               decibels: 4, similarity: 6, unmeasured: "", by: "x", pair: "/")
    static let textTable = CellStyle(text: shown, number: fixed, bytes: formatBytes, percent: (1, "%"), decibels: 1,
                                     similarity: 4, unmeasured: "-", by: "x", pair: "/")
    static let htmlTable = CellStyle(text: htmlEscape, number: fixed, bytes: formatBytes, percent: (1, "%"), decibels: 2,
                                     similarity: 4, unmeasured: "–", by: "×", pair: " / ")
}

extension Cell {
    /// The cell as `style` writes it; nil when it does not apply.
    func written(_ style: CellStyle) -> String? {
        switch self {
        case .absent: return nil
        case .unmeasured: return style.unmeasured
        case .text(let s): return style.text(s)
        case .arguments(let s): return style.arguments(s)
        case .name(let s): return style.name(s)
        case .flag(let b): return b ? "true" : "false"
        case .count(let n): return "\(n)"
        case .bytes(let n): return style.bytes(n)
        case .percent(let v): return style.number(v, style.percent.decimals) + style.percent.suffix
        case .decibels(let v): return style.number(v, style.decibels)
        case .similarity(let v): return style.number(v, style.similarity)
        case .size(let w, let h): return style.text("\(w)\(style.by)\(h)")
        case .decibelPair(let a, let b): return style.number(a, style.decibels) + style.pair + style.number(b, style.decibels)
        }
    }

    /// Text of either kind (the HTML table lets it wrap).
    var isText: Bool {
        switch self {
        case .text, .name, .arguments: return true
        default: return false
        }
    }

    /// As a JSON value; nil leaves the key out.
    var json: String? { written(.json) }
    /// As a CSV field, before quoting.
    var csv: String { written(.csv) ?? "" }
    /// As a cell of the terminal's table.
    var text: String { written(.textTable) ?? "" }
    /// As the content of an HTML table cell, escaped.
    var html: String { written(.htmlTable) ?? "" }
}
