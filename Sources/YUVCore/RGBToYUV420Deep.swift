/// The contract's 10-bit rows, exact: RGB (8-bit, or 16-bit at full precision) to 10-bit 4:2:0 with
/// BT.2100/H.273 scaling, one rounding (`yuvref.py convert --depth 10`):
///
///     full:     Y = ⌊(Y′·1023/M) + ½⌋,          C = ⌊512 + C′·1023/M + ½⌋
///     limited:  Y = ⌊64 + Y′·876/M + ½⌋,        C = ⌊512 + C′·896/M + ½⌋        (clamped to 0…1023)
///
/// with Y′ = (Kr·R + Kg·G + Kb·B)/S and C′ the contract's chroma on the source's 0…M scale (M = 255 or
/// 65535), a chroma sample being the mean of its 2×2 block (the edge pixel repeated). Every value is a
/// ratio of 64-bit integers, rounded half up by one integer division — no floating point, so the bytes are
/// the same on every CPU. Written as 16-bit little-endian words, the value shifted as the layout says
/// (P010: high bits; yuv420p10le: low bits). Scalar: 10-bit outputs are for encoders, not the hot path.
public struct RGBToYUV420Deep: Sendable {
    public let spec: ConversionSpec
    public let source: SourceFormat
    let kr: Int64, kg: Int64, kb: Int64
    /// Y = ⌊(yBias + ysum·ys)/yDen + ½⌋ with ysum = S·Y′.
    let yBias: Int64, ys: Int64, yDen: Int64
    /// C = ⌊(cBias + n·cs)/cDen + ½⌋ with n the block's sum of S·B − ysum (Cb) or S·R − ysum (Cr).
    let cs: Int64, cbBias: Int64, cbDen: Int64, crBias: Int64, crDen: Int64

    public init(spec: ConversionSpec, source: SourceFormat) {
        precondition(source != .rgba16, "16-bit RGBA rows are reduced to rgb16 before conversion")
        self.spec = spec
        self.source = source
        let s = Int64(ColorMatrix.scale), m: Int64 = source == .rgb16 ? 65535 : 255
        kr = Int64(spec.matrix.kr)
        kg = Int64(spec.matrix.kg)
        kb = Int64(spec.matrix.kb)
        let full = spec.range == .full
        let yo: Int64 = full ? 0 : 64, co: Int64 = 512
        ys = full ? 1023 : 876
        cs = full ? 1023 : 896
        yBias = yo * s * m
        yDen = s * m
        // A block of four: Cb′ = n / (4·2·(S − Kb)), so C = co + n·cs/(8(S − Kb)·M).
        cbDen = 8 * (s - kb) * m
        crDen = 8 * (s - kr) * m
        cbBias = co * cbDen
        crBias = co * crDen
    }

    /// ⌊num/den + ½⌋ for num ≥ 0, clamped to 1023.
    @inline(__always)
    static func code(_ num: Int64, _ den: Int64) -> UInt16 { UInt16(min((2 * num + den) / (2 * den), 1023)) }

    @inline(__always)
    func pixel(_ row: UnsafeRawPointer, _ x: Int) -> (r: Int64, g: Int64, b: Int64) {
        switch source {
        case .rgb8, .rgba8:
            let p = row.assumingMemoryBound(to: UInt8.self) + x * source.bytesPerPixel
            return (Int64(p[0]), Int64(p[1]), Int64(p[2]))
        case .rgb16, .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self) + x * (source.bytesPerPixel / 2)
            return (Int64(p[0]), Int64(p[1]), Int64(p[2]))
        }
    }

    /// Converts source rows `firstRow ..< firstRow + rowCount` (`firstRow` even; an odd count only at the
    /// picture's end, whose last row then pairs with itself), `rowBytes` apart, into 10-bit rows of `layout`
    /// (`p010` or `yuv420p10le`), tightly packed: luma rows at `y`, chroma rows at `u` (interleaved U,V for
    /// P010) and `v` (yuv420p10le).
    public func convert(band: UnsafeRawPointer, rowBytes: Int, rowCount: Int, width: Int, layout: PixelLayout,
                        y: UnsafeMutableRawPointer, u: UnsafeMutableRawPointer, v: UnsafeMutableRawPointer?) {
        precondition(layout.bitDepth == 10)
        let shift = UInt16(layout.sampleShift), cw = (width + 1) / 2, s = Int64(ColorMatrix.scale)
        @inline(__always) func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ value: UInt16) {
            p.storeBytes(of: (value << shift).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
        }
        var r = 0
        while r < rowCount {
            let row0 = band + r * rowBytes, row1 = band + min(r + 1, rowCount - 1) * rowBytes
            let y0 = y + r * 2 * width, y1: UnsafeMutableRawPointer? = r + 1 < rowCount ? y0 + 2 * width : nil
            let c = r / 2
            for i in 0..<cw {
                var cbn: Int64 = 0, crn: Int64 = 0
                // The block's four pixels (the last column or row repeated at an odd edge); luma for each
                // pixel that exists, once.
                @inline(__always) func take(_ src: UnsafeRawPointer, _ out: UnsafeMutableRawPointer?, _ x: Int, _ own: Bool) {
                    let (pr, pg, pb) = pixel(src, x)
                    let ysum = kr * pr + kg * pg + kb * pb
                    cbn += s * pb - ysum
                    crn += s * pr - ysum
                    if own, let out { store(out, x, Self.code(yBias + ysum * ys, yDen)) }
                }
                let x1 = min(2 * i + 1, width - 1), second = 2 * i + 1 < width
                take(row0, y0, 2 * i, true)
                take(row0, y0, x1, second)
                take(row1, y1, 2 * i, true)
                take(row1, y1, x1, second)
                let cb = Self.code(cbBias + cbn * cs, cbDen), cr = Self.code(crBias + crn * cs, crDen)
                if let v {
                    store(u + c * 2 * cw, i, cb)
                    store(v + c * 2 * cw, i, cr)
                } else {
                    store(u + c * 4 * cw, 2 * i, cb)
                    store(u + c * 4 * cw, 2 * i + 1, cr)
                }
            }
            r += 2
        }
    }
}
