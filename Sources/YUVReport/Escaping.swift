import YUVCore

// Writing values and text into each format: numbers with fixed decimals, JSON strings, CSV fields, HTML text,
// padded table cells. No Foundation.

/// `v` with `d` decimals; ±∞ as "inf" / "-inf".
public func fixed(_ v: Double, _ d: Int) -> String { v.isFinite ? formatFixed(v, decimals: d) : (v > 0 ? "inf" : "-inf") }

public func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
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
public func shorten(_ s: String, _ n: Int) -> String {
    s.count <= n ? s : "…" + String(s.suffix(n - 1))
}
