#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims

/// File names are bytes; Swift strings are Unicode. A name that is not valid UTF-8 (`caf\xe9.jpg` from a
/// Latin-1 system) must still convert under its own name, so every path crosses between the two through
/// this one reversible mapping, in the spirit of Python's `surrogateescape` (PEP 383):
///
/// - valid UTF-8 decodes as itself;
/// - every byte that is not part of valid UTF-8 becomes the private-use scalar U+10FF00 + byte;
/// - so that the mapping stays one-to-one, a name that really contains U+10FF00…U+10FFFF (4-byte sequences
///   F4 8F BC 80 … F4 8F BF BF) has each of those four bytes escaped the same way.
///
/// `encode(decode(b)) == b` for every byte string. Paths live as `String` everywhere above this file, and
/// every system call that takes a path goes through `withFileSystemPath` (never `String`'s own C string,
/// which would write the escapes as UTF-8). Messages show escaped bytes as `\xNN` (`displayPath`).
public enum PathBytes {
    /// Why the system cannot hold `path` as a file's name — a part (file or folder name) of more than 255 bytes,
    /// or more than 4095 bytes in all — or nil. Asked before any work, of every output.
    public static func lengthProblem(_ path: String) -> String? {
        let longest = path.pathParts.map { encode($0).count }.max() ?? 0
        if longest > 255 { return "a part of its name is \(longest) bytes; a file or folder name can have at most 255" }
        let length = encode(path).count
        if length > 4095 { return "its path is \(length) bytes; a path can have at most 4095" }
        return nil
    }

    static let escapeBase: UInt32 = 0x10FF00

    /// The string for a file name's bytes (no NUL inside).
    public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        if !b.contains(where: { $0 >= 0x80 }) { return String(decoding: b, as: UTF8.self) }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            let (scalar, length) = decodeScalar(b, at: i)
            if let scalar, scalar.value < escapeBase {
                out.append(scalar)
                i += length
            } else {
                // Invalid here, or a real U+10FFxx: escape this byte (and, for the latter, the next three).
                for k in 0..<(scalar == nil ? 1 : length) { out.append(Unicode.Scalar(escapeBase + UInt32(b[i + k]))!) }
                i += scalar == nil ? 1 : length
            }
        }
        return String(out)
    }

    /// The bytes of a path string (the inverse of `decode`).
    public static func encode(_ s: String) -> [UInt8] {
        // An escaped byte is a scalar from U+10FF00, whose UTF-8 starts with 0xF4: without one, the bytes are
        // the string's UTF-8 (every path a batch plans, stats and opens goes through here).
        if !s.utf8.contains(0xF4) { return Array(s.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            if scalar.value >= escapeBase {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        return out
    }

    /// The path as a message shows it: escaped bytes, and control characters (which a terminal would act
    /// on), as `\xNN`, and a backslash as `\\` — so that every shown name stands for one name (`a\x0A.jpg`
    /// typed as such shows as `a\\x0A.jpg`, a name holding a line feed as `a\x0A.jpg`), and can be unescaped.
    public static func display(_ s: String) -> String {
        escaping(s) { $0 == "\\" || $0.value >= escapeBase || isControl($0.value) }
    }

    /// Text for a message with its control characters shown as `\xNN` (a backslash left as it is: unlike a
    /// name, a message is not unescaped); `keepLayout`, newlines and tabs stay (a message's own lines). A byte
    /// that is not UTF-8, which `decode` made a scalar from U+10FF00, shows as its `\xNN` too: an option's value
    /// quoted as given (`--matrix $'bt\xff'`) showed as U+10FFFF, where a name showed `\xFF`.
    public static func escapingControls(_ s: String, keepLayout: Bool = true) -> String {
        escaping(s) { isControl($0.value) && !(keepLayout && ($0 == "\n" || $0 == "\t")) || $0.value >= escapeBase }
    }

    /// C0, DEL and C1 — what a terminal would act on — and the invisible characters that split a line or
    /// reorder it where it is shown (U+2028 and U+2029, the bidirectional marks, embeddings, overrides and
    /// isolates: a name holding U+202E shows `rtl\u{202E}gnp.exe.png` as `rtlexe.png…`, in a terminal or a CI log).
    static func isControl(_ v: UInt32) -> Bool {
        v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x061C || v == 0x200E || v == 0x200F
            || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// `s` with each scalar `escaped` picks shown as `\xNN` (an escaped byte as its byte, a C0 control or DEL
    /// as itself; a backslash as `\\`; a character from U+0080 as `\u{NNNN}`).
    static func escaping(_ s: String, _ escaped: (Unicode.Scalar) -> Bool) -> String {
        guard s.unicodeScalars.contains(where: escaped) else { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            if !escaped(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar == "\\" {
                out += "\\\\"
            } else {
                let v = Int(scalar.value >= escapeBase ? scalar.value - escapeBase : scalar.value)
                // A character from U+0080 (C1 controls: U+0085 is the bytes C2 85) as \u{NN}, so it never
                // shows as the byte 0x85 of a name that is not UTF-8 does (\x85): two names, two texts.
                if scalar.value < escapeBase && v >= 0x80 {
                    out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
                    continue
                }
                out += "\\x" + String(v >> 4, radix: 16, uppercase: true) + String(v & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// One UTF-8 scalar at `i`: the scalar and its length, or nil when the bytes there are not valid UTF-8
    /// (overlong forms, surrogates and values above U+10FFFF included).
    static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let c0 = b[i]
        if c0 < 0x80 { return (Unicode.Scalar(c0), 1) }
        let length: Int, minimum: UInt32
        var value: UInt32
        switch c0 {
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(c0 & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(c0 & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x10000, UInt32(c0 & 0x07))
        default: return (nil, 1)
        }
        guard i + length <= b.count else { return (nil, 1) }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }
}

/// Calls `body` with the path's bytes as a C string: the one way a path reaches the system.
public func withFileSystemPath<R, E: Error>(_ path: String, _ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
    var bytes = PathBytes.encode(path).map { CChar(bitPattern: $0) }
    bytes.append(0)
    return try bytes.withUnsafeBufferPointer { (p) throws(E) -> R in try body(p.baseAddress!) }
}

/// A path as messages show it: `<stdin>` for `-`, escaped bytes as `\xNN`.
public func displayPath(_ path: String) -> String {
    path == "-" ? "<stdin>" : PathBytes.display(path)
}

/// An output path as messages name it: `-` is standard output there.
public func displayOutputPath(_ path: String) -> String {
    path == "-" ? "<stdout>" : PathBytes.display(path)
}
