// Text helpers without Foundation, for the libraries that build names and render reports.
//
// By scalar, not by Character: Swift compares Strings and their Characters by canonical equivalence, and a combining
// mark after a scalar (U+0301) or a prepended one before it (U+06DD) makes one Character of the two, so
// `"a,\u{301}b".contains(",")` is false, `"\u{6DD}<x".hasPrefix("\u{6DD}")` is false and a `<` inside such a cluster was
// never escaped in an HTML report (a file name ran script there). Text a file, a file system or a user chose —
// names, templates, manifest fields, option words — is searched, cut and compared by these.

extension String {
    /// Every occurrence of `a` replaced with `b`, scalar by scalar.
    public func replacingAll(_ a: String, _ b: String) -> String {
        let s = Array(unicodeScalars), p = Array(a.unicodeScalars)
        guard !p.isEmpty else { return self }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if s.holds(p, at: i) {
                out.append(contentsOf: b.unicodeScalars)
                i += p.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }

    /// The text of these scalars.
    public init<S: Sequence>(scalars: S) where S.Element == Unicode.Scalar {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: scalars)
        self = String(v)
    }
}

extension StringProtocol {
    /// Whether the text begins with the scalars of `p`.
    public func hasScalarPrefix(_ p: String) -> Bool { unicodeScalars.starts(with: p.unicodeScalars) }

    /// Whether the text ends with the scalars of `s`.
    public func hasScalarSuffix(_ s: String) -> Bool { unicodeScalars.reversed().starts(with: s.unicodeScalars.reversed()) }

    /// Whether the scalars of `s` occur in the text.
    public func containsScalars(_ s: String) -> Bool {
        let t = Array(unicodeScalars), p = Array(s.unicodeScalars)
        guard !p.isEmpty else { return true }
        guard p.count <= t.count else { return false }
        return (0...(t.count - p.count)).contains { t.holds(p, at: $0) }
    }

    /// Whether the two texts are the same scalars (`==` takes one name in NFC and NFD as equal).
    public func sameScalars<T: StringProtocol>(_ other: T) -> Bool { unicodeScalars.elementsEqual(other.unicodeScalars) }

    /// The first `n` scalars, and the text after them.
    public func scalarPrefix(_ n: Int) -> String { String(scalars: unicodeScalars.prefix(n)) }
    public func droppingScalars(_ n: Int) -> String { String(scalars: unicodeScalars.dropFirst(n)) }
}

extension Array where Element == Unicode.Scalar {
    /// Whether the scalars `p` stand here from index `i` on: the one match `replacingAll` and `containsScalars` make.
    fileprivate func holds(_ p: [Unicode.Scalar], at i: Int) -> Bool {
        i + p.count <= count && self[i..<(i + p.count)].elementsEqual(p)
    }
}
