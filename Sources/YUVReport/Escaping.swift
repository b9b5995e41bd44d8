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

/// `s` padded with spaces to `n` characters, on the right (or on the left: right-aligned).
public func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
    if s.count >= n { return s }
    let p = String(repeating: " ", count: n - s.count)
    return right ? p + s : s + p
}

/// `s` cut to its last `n` characters, the cut marked with "…".
/// A name as messages show it (`displayPath`: `\\`, `\xNN`, `\u{NNNN}`) is cut between escapes, never inside
/// one (`…FFb` from `\xFFb` named no byte): the result is then shorter.
public func shorten(_ s: String, _ n: Int) -> String {
    guard s.count > n else { return s }
    let chars = Array(s), cut = chars.count - (n - 1)
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
