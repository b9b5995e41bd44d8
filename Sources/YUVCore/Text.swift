// Text helpers without Foundation, for the libraries that build names and render reports.

extension String {
    /// Every occurrence of `a` replaced with `b`.
    public func replacingAll(_ a: String, _ b: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    func range(of s: String) -> Range<Substring.Index>? {
        guard !s.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(s) { return i..<index(i, offsetBy: s.count) }
            i = index(after: i)
        }
        return nil
    }
}
