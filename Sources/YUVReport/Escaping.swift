import YUVCore

// Writing values and text into each format: numbers with fixed decimals, JSON strings, CSV fields, HTML text,
// padded table cells. No Foundation.

/// `v` with `d` decimals; ±∞ as "inf" / "-inf".
public func fixed(_ v: Double, _ d: Int) -> String { v.isFinite ? formatFixed(v, decimals: d) : (v > 0 ? "inf" : "-inf") }

/// `s` with the scalars `escape` names replaced by its text (nil: kept): the loop of every escaping here
/// and of the CLI's roff.
public func escapingScalars(_ s: String, _ escape: (Unicode.Scalar) -> String?) -> String {
    var out = ""
    for u in s.unicodeScalars {
        if let e = escape(u) { out += e } else { out.unicodeScalars.append(u) }
    }
    return out
}

/// `v` in hexadecimal, at least `width` digits (zeros in front).
public func hexDigits(_ v: UInt32, width: Int, uppercase: Bool = false) -> String {
    let h = String(v, radix: 16, uppercase: uppercase)
    return String(repeating: "0", count: max(0, width - h.count)) + h
}

public func jsonString(_ s: String) -> String {
    "\"" + escapingScalars(s) { u in
        switch u {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: return u.value < 0x20 ? "\\u" + hexDigits(u.value, width: 4) : nil
        }
    } + "\""
}

/// A JSON number; +∞ (an identical plane) and NaN are written as null.
public func jsonNumber(_ v: Double, _ d: Int = 4) -> String { v.isFinite ? formatFixed(v, decimals: d) : "null" }

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
public func csvField(_ s: String) -> String {
    if s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r") {
        return "\"" + s.replacingAll("\"", "\"\"") + "\""
    }
    return s
}

public func htmlEscape(_ s: String) -> String {
    s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
}

/// The columns a terminal gives `c`: 2 for the East Asian wide and full-width characters (CJK, kana, hangul,
/// full-width forms) and the emoji pictographs, else 1 (a combining mark is part of its character).
func columns(_ c: Character) -> Int {
    guard let v = c.unicodeScalars.first?.value else { return 1 }
    switch v {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
         0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
         0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        return 2
    default:
        return 1
    }
}

/// The columns `s` takes on a terminal (`columns` of each character).
public func displayWidth(_ s: String) -> Int { s.reduce(0) { $0 + columns($1) } }

/// `s` padded with spaces to `n` columns, on the right (or on the left: right-aligned). Columns, not characters:
/// a CJK name took half its width and pushed its row's other cells out of line.
public func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
    let w = displayWidth(s)
    if w >= n { return s }
    let p = String(repeating: " ", count: n - w)
    return right ? p + s : s + p
}

/// `s` cut to its last `n` columns (`displayWidth`), the cut marked with "…".
/// A name as messages show it (`displayPath`: `\\`, `\xNN`, `\u{NNNN}`) is cut between escapes, never inside
/// one (`…FFb` from `\xFFb` named no byte): the result is then shorter.
public func shorten(_ s: String, _ n: Int) -> String {
    guard displayWidth(s) > n else { return s }
    let chars = Array(s)
    // The first character kept: the suffix from it takes at most n − 1 columns.
    var cut = chars.count, kept = 0
    while cut > 0 && kept + columns(chars[cut - 1]) <= n - 1 {
        kept += columns(chars[cut - 1])
        cut -= 1
    }
    var i = 0
    while i < cut {
        guard chars[i] == "\\", i + 1 < chars.count else {
            i += 1
            continue
        }
        switch chars[i + 1] {
        case "x": i += 4
        case "u": i = (chars[(i + 1)...].firstIndex(of: "}") ?? i + 1) + 1
        default: i += 2
        }
    }
    return "…" + String(chars[min(i, chars.count)...])
}
