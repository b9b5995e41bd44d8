import YUVCore

// Writing values and text into each format: numbers with fixed decimals, JSON strings, CSV fields, HTML text,
// padded table cells. No Foundation.

/// `v` with `d` decimals; ±∞ as "inf" / "-inf".
public func fixed(_ v: Double, _ d: Int) -> String { v.isFinite ? formatFixed(v, decimals: d) : v.isNaN ? "nan" : (v > 0 ? "inf" : "-inf") }

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

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break — looked for by scalar: a
/// comma or quote a combining mark joins into one Character is still one to a spreadsheet (such a name split
/// its row, and the next cell began with `=` unguarded).
public func csvField(_ s: String) -> String {
    if s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
        return "\"" + escapingScalars(s) { $0 == "\"" ? "\"\"" : nil } + "\""
    }
    return s
}

/// HTML text: markup characters as entities, and control characters (and the invisible reordering ones) as
/// `\xNN`, as the terminal and CSV reports show them (`CellStyle.shown`).
/// By scalar: a `<` that a prepended or combining scalar joins into one Character is markup to a browser.
public func htmlEscape(_ s: String) -> String {
    escapingScalars(CellStyle.shown(s)) { u in
        switch u {
        case "&": return "&amp;"
        case "<": return "&lt;"
        case ">": return "&gt;"
        case "\"": return "&quot;"
        default: return nil
        }
    }
}

/// The columns a terminal gives `c`: 2 for the characters Unicode's East Asian Width calls wide or full-width (W, F:
/// CJK, kana, hangul, full-width forms, most emoji; the table below is Unicode 14's assigned ones, as Python's
/// `unicodedata` gives them) and for an emoji sequence (U+FE0F, a joiner or a skin tone after an emoji: one glyph),
/// else 1. A character of several scalars otherwise takes what glibc's wcswidth gives its scalars: a combining mark
/// (Mn, Me), a format character and a Hangul medial or final jamo after the first scalar none (a lone jamo, a
/// character of its own, is drawn as a glyph: one column), every other scalar its own width — a
/// Devanagari spacing vowel sign (Mc: "कि") or a conjunct's second consonant ("क्ष", with the virama between)
/// a column of its own (counted as one character's, a Devanagari name's chart label ran past the HTML chart's edge
/// and text-table rows were out of line).
func columns(_ c: Character) -> Int {
    let scalars = c.unicodeScalars
    guard let first = scalars.first else { return 1 }
    guard scalars.count > 1 else { return scalarColumns(first) }
    if first.properties.isEmoji,
       scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D || (0x1F3FB...0x1F3FF).contains($0.value) }) {
        return 2
    }
    if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
    var total = 0
    for (i, s) in scalars.enumerated() {
        switch s.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: continue
        default: total += i > 0 && (0x1160...0x11FF).contains(s.value) ? 0 : scalarColumns(s)
        }
    }
    return max(1, total)
}

/// One scalar's columns: 0 for the zero-width ones, 2 for the wide, else 1.
private func scalarColumns(_ s: Unicode.Scalar) -> Int {
    switch s.value {
    // Zero-width characters standing alone (a terminal gives them no column, as wcwidth does): the zero-width
    // space, the word joiner and its invisible operators, the BOM.
    case 0x200B, 0x2060...0x2064, 0xFEFF:
        return 0
    case
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E,
        0x3041...0x3247, 0x3250...0x4DBF, 0x4E00...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAD9,
        0xFE10...0xFE19, 0xFE30...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x1B2FB, 0x1F004...0x1F004,
        0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F320, 0x1F32D...0x1F335,
        0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0,
        0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D,
        0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A, 0x1F595...0x1F596, 0x1F5A4...0x1F5A4,
        0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6DF,
        0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945,
        0x1F947...0x1F9FF, 0x1FA70...0x1FAF6, 0x20000...0x3134A:
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
    // The escapes are found among the scalars, not the characters: a mark after one joins its last character
    // (`}́`), a prepended character (U+0600) its backslash, and either hid it from a search by character.
    let scalars = Array(s.unicodeScalars)
    let at = chars[..<cut].reduce(0) { $0 + $1.unicodeScalars.count }
    var i = 0
    while i < at {
        guard scalars[i] == "\\", i + 1 < scalars.count else {
            i += 1
            continue
        }
        switch scalars[i + 1] {
        case "x": i += 4
        case "u": i = (scalars[(i + 1)...].firstIndex(of: "}") ?? i + 1) + 1
        default: i += 2
        }
    }
    // From the first whole character there: a mark that followed the escape goes with it, not onto the "…".
    var start = 0
    for c in chars where start < i { start += c.unicodeScalars.count }
    var rest = String.UnicodeScalarView()
    rest.append(contentsOf: scalars[min(start, scalars.count)...])
    return "…" + String(rest)
}
