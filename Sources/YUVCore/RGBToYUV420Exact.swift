/// The contract computed directly, in 64-bit integers: RGB (8-bit, or 16-bit at full precision) to 4:2:0 of
/// any depth and chroma siting, one rounding (`yuvref.py convert --depth 8|10 --chroma-loc …`):
///
///     8-bit  full:     Y = ⌊Y′·255/M + ½⌋,           C = ⌊128 + C′·255/M + ½⌋
///     8-bit  limited:  Y = ⌊16 + Y′·219/M + ½⌋,      C = ⌊128 + C′·224/M + ½⌋
///     10-bit full:     Y = ⌊Y′·1023/M + ½⌋,          C = ⌊512 + C′·1023/M + ½⌋     (BT.2100/H.273)
///     10-bit limited:  Y = ⌊64 + Y′·876/M + ½⌋,      C = ⌊512 + C′·896/M + ½⌋      (clamped to the depth)
///
/// with Y′ = (Kr·R + Kg·G + Kb·B)/S and C′ the contract's chroma on the source's 0…M scale (M = 255 or
/// 65535), a chroma sample being the weighted mean of the unrounded C′ at its siting's taps (`ChromaLocation`;
/// coordinates outside the picture clamped to the edge). Every value is a ratio of 64-bit integers rounded
/// half up by one integer division: no floating point, the same bytes on every CPU and for both kernel
/// choices. This is the route for 10-bit outputs and for left and top-left siting; the SIMD rows
/// (`RGBToYUV420`) are the fast route for 8-bit centre-sited output, and equal this one there.
public struct RGBToYUV420Exact: Sendable {
    public let spec: ConversionSpec
    public let source: SourceFormat
    public let siting: ChromaLocation
    public let bitDepth: Int
    let kr: Int64, kg: Int64, kb: Int64
    /// Y = ⌊(yBias + ysum·ys)/yDen + ½⌋ with ysum = S·Y′.
    let yBias: Int64, ys: Int64, yDen: Int64
    /// C = ⌊(cBias + n·cs)/cDen + ½⌋ with n the taps' weighted sum of S·B − ysum (Cb) or S·R − ysum (Cr).
    let cs: Int64, cbBias: Int64, cbDen: Int64, crBias: Int64, crDen: Int64
    let top: Int64

    public init(spec: ConversionSpec, source: SourceFormat, siting: ChromaLocation = .center, bitDepth: Int = 8) {
        precondition(source != .rgba16, "16-bit RGBA rows are reduced to rgb16 before conversion")
        precondition(bitDepth == 8 || bitDepth == 10)
        self.spec = spec
        self.source = source
        self.siting = siting
        self.bitDepth = bitDepth
        let s = Int64(ColorMatrix.scale), m: Int64 = source == .rgb16 ? 65535 : 255
        kr = Int64(spec.matrix.kr)
        kg = Int64(spec.matrix.kg)
        kb = Int64(spec.matrix.kb)
        let full = spec.range == .full, deep = bitDepth == 10
        let yo: Int64 = full ? 0 : (deep ? 64 : 16), co: Int64 = deep ? 512 : 128
        ys = deep ? (full ? 1023 : 876) : (full ? 255 : 219)
        cs = deep ? (full ? 1023 : 896) : (full ? 255 : 224)
        top = deep ? 1023 : 255
        yBias = yo * s * m
        yDen = s * m
        // The taps' weights sum to w: Cb′ = n / (w·2·(S − Kb)), so C = co + n·cs/(w·2(S − Kb)·M).
        let w = Int64(siting.weightSum)
        cbDen = w * 2 * (s - kb) * m
        crDen = w * 2 * (s - kr) * m
        cbBias = co * cbDen
        crBias = co * crDen
    }

    /// ⌊num/den + ½⌋ for num ≥ 0, clamped to the depth's top.
    @inline(__always)
    func code(_ num: Int64, _ den: Int64) -> Int64 { min((2 * num + den) / (2 * den), top) }

    @inline(__always)
    func pixel(_ row: UnsafeRawPointer, _ x: Int) -> (r: Int64, g: Int64, b: Int64) {
        let p = source.samples(row, x)
        return (Int64(p.r), Int64(p.g), Int64(p.b))
    }

    /// Converts source rows `firstRow ..< firstRow + rowCount` of a picture `height` rows tall (`firstRow`
    /// even; `rowBytes` apart) into rows of `layout` (8-bit, or 10-bit `p010`/`yuv420p10le`), tightly packed:
    /// luma rows at `y`, chroma rows at `u` (interleaved for bi-planar layouts) and `v` (planar). `above` is
    /// picture row `firstRow − 1` (the previous band's last row), which top-left siting reads; nil at the top.
    public func convert(band: UnsafeRawPointer, rowBytes: Int, firstRow: Int, rowCount: Int, height: Int, width: Int,
                        above: UnsafeRawPointer?, layout: PixelLayout, y: UnsafeMutableRawPointer,
                        u: UnsafeMutableRawPointer, v: UnsafeMutableRawPointer?) {
        precondition(layout.bitDepth == bitDepth && firstRow & 1 == 0)
        let shift = UInt16(layout.sampleShift), cw = (width + 1) / 2, s = Int64(ColorMatrix.scale)
        let bytes = layout.bytesPerSample
        @inline(__always) func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ value: Int64) {
            if bytes == 2 {
                p.storeBytes(of: (UInt16(value) << shift).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
            } else {
                p.storeBytes(of: UInt8(value), toByteOffset: i, as: UInt8.self)
            }
        }
        /// Picture row `r` (clamped to the picture), from this band or the row above it.
        @inline(__always) func row(_ r: Int) -> UnsafeRawPointer {
            let c = min(max(r, 0), height - 1)
            if c < firstRow { return above ?? band }
            return band + min(c - firstRow, rowCount - 1) * rowBytes
        }
        @inline(__always) func ysum(_ p: (r: Int64, g: Int64, b: Int64)) -> Int64 { kr * p.r + kg * p.g + kb * p.b }
        // Luma: each pixel of the band.
        for r in 0..<rowCount {
            let src = band + r * rowBytes, out = y + r * width * bytes
            for x in 0..<width { store(out, x, code(yBias + ysum(pixel(src, x)) * ys, yDen)) }
        }
        // Chroma: each chroma row of the band, from its taps.
        let (hTaps, vTaps) = siting.taps
        let uFirst = layout != .nv21
        for c in 0..<((rowCount + 1) / 2) {
            let j = firstRow / 2 + c
            for i in 0..<cw {
                var cbn: Int64 = 0, crn: Int64 = 0
                for (oy, wy) in vTaps {
                    let src = row(2 * j + oy)
                    for (ox, wx) in hTaps {
                        let p = pixel(src, min(max(2 * i + ox, 0), width - 1))
                        let w = Int64(wy * wx), t = ysum(p)
                        cbn += w * (s * p.b - t)
                        crn += w * (s * p.r - t)
                    }
                }
                let cb = code(cbBias + cbn * cs, cbDen), cr = code(crBias + crn * cs, crDen)
                if let v {
                    store(u + c * cw * bytes, i, cb)
                    store(v + c * cw * bytes, i, cr)
                } else {
                    store(u + c * 2 * cw * bytes, 2 * i, uFirst ? cb : cr)
                    store(u + c * 2 * cw * bytes, 2 * i + 1, uFirst ? cr : cb)
                }
            }
        }
    }
}
