import YUVCore

/// Applies the alpha mode to a band of source rows and returns the rows to convert (and their stride):
/// 8-bit rows in place — flatten C′ = ⌊(C·a + bg·(255 − a))/255 + ½⌋, premultiply C′ = ⌊C·a/255 + ½⌋;
/// 16-bit R,G,B,A rows packed to R,G,B in place, the same with 65535 and bg·257 (so the colour keeps 16 bits
/// until the conversion's one rounding). With `alphaRows` (keep) the alpha goes there as 8 bits
/// (⌊a·255/65535 + ½⌋ for 16-bit; 255 for sources without alpha).
func applyAlpha(_ mode: AlphaMode, rows: UnsafeMutableRawPointer, rowBytes: Int, width: Int, count: Int,
                format: SourceFormat, into alphaRows: UnsafeMutablePointer<UInt8>?) -> (UnsafeMutableRawPointer, Int) {
    if format == .rgba16 {
        applyAlpha16(mode, rows: rows, rowBytes: rowBytes, width: width, count: count, into: alphaRows)
        return (rows, rowBytes)
    }
    if let alphaRows {
        guard format == .rgba8 else {
            alphaRows.update(repeating: 255, count: count * width)
            return (rows, rowBytes)
        }
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width { alphaRows[r * width + x] = p[4 * x + 3] }
        }
        return (rows, rowBytes)
    }
    guard format == .rgba8 else { return (rows, rowBytes) }
    @inline(__always) func round255(_ n: Int) -> UInt8 { UInt8((2 * n + 255) / 510) }   // ⌊n/255 + ½⌋
    switch mode {
    case .ignore, .keep: break
    case .premultiply:
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width {
                let a = Int(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = round255(Int(p[4 * x + c]) * a) }
            }
        }
    case .flatten(let br, let bg, let bb):
        let bgc = [Int(br), Int(bg), Int(bb)]
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width {
                let a = Int(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = round255(Int(p[4 * x + c]) * a + bgc[c] * (255 - a)) }
            }
        }
    }
    return (rows, rowBytes)
}

/// Whether a band of RGBA rows (8- or 16-bit) holds a pixel less than opaque; false for other formats.
func hasTransparency(_ rows: UnsafeRawPointer, rowBytes: Int, width: Int, count: Int, format: SourceFormat) -> Bool {
    /// Whether some row's fourth samples (alpha, of `T`) are not all at their most.
    func anyBelowMost<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> Bool {
        for r in 0..<count {
            let p = (rows + r * rowBytes).assumingMemoryBound(to: T.self)
            var all = T.max
            for x in 0..<width { all &= p[4 * x + 3] }
            if all != T.max { return true }
        }
        return false
    }
    switch format {
    case .rgba8: return anyBelowMost(UInt8.self)
    case .rgba16: return anyBelowMost(UInt16.self)
    default: return false
    }
}

/// 16-bit R,G,B,A rows → R,G,B rows of the same stride, in place (each pixel moves left, never over one
/// not yet read), with the alpha mode applied.
func applyAlpha16(_ mode: AlphaMode, rows: UnsafeMutableRawPointer, rowBytes: Int, width: Int, count: Int,
                  into alphaRows: UnsafeMutablePointer<UInt8>?) {
    @inline(__always) func round65535(_ n: Int) -> UInt16 { UInt16((2 * n + 65535) / 131070) }   // ⌊n/65535 + ½⌋
    var bg = [0, 0, 0], flatten = false
    if case .flatten(let r, let g, let b) = mode { (bg, flatten) = ([Int(r) * 257, Int(g) * 257, Int(b) * 257], true) }
    let premultiply = mode == .premultiply
    for r in 0..<count {
        let p = (rows + r * rowBytes).assumingMemoryBound(to: UInt16.self)
        for x in 0..<width {
            let a = Int(p[4 * x + 3])
            alphaRows?[r * width + x] = UInt8((2 * a + 257) / 514)   // ⌊a·255/65535 + ½⌋ = ⌊a/257 + ½⌋
            for c in 0..<3 {
                let v = Int(p[4 * x + c])
                p[3 * x + c] = flatten ? round65535(v * a + bg[c] * (65535 - a))
                             : premultiply ? round65535(v * a) : UInt16(v)
            }
        }
    }
}
