import CSIMD

/// Explicit-SIMD rows for the JPEG direct path's 4:2:0 transform (the arithmetic and siting are
/// `YCbCrTransform`'s; `YCbCrToYUV420.convert420Row` is the scalar reference): two luma rows and one row
/// each of Cb and Cr as the decoder stores them in; two luma rows and a chroma row (planar or NV12) out.
/// Sixteen chroma samples, 32 pixels of each row, a step.
///
/// Every output is ⌊N/D⌋ for whole numbers N = c + wb·b + wr·r (+ wy·Y for limited-range luma) and D, all
/// terms and partial sums below 2^53 (checked when the plan is made), so N is exact in `Double`. The
/// estimate e = round(N·(1/D)) is the quotient or one more (the product errs by less than 10⁻¹³ on values
/// below 2^9, far less than ½), and the sign of the exact remainder N − e·D (e·D is whole and below 2^53)
/// says which: exact by construction, with no margin to prove. The tests check every input of every quotient
/// anyway, for all matrices and ranges.
public struct DirectRowPlan: Sendable {
    /// ⌊(c + wb·b + wr·r) / d⌋ and its 1/d.
    struct Quotient: Sendable {
        let c: Double, wb: Double, wr: Double, d: Double, inv: Double

        init(c: Int64, wb: Int64, wr: Int64, d: Int64, bMax: Int64, rMax: Int64, extra: Int64 = 0) {
            // Every partial sum of the numerator, and q·d for any q the numerator can give (|N|/d + 1), stay
            // below 2^53: then every Double operation on them is exact.
            let bound = abs(c) + abs(wb) * bMax + abs(wr) * rMax + extra
            precondition(bound + d < 1 << 53 && d > 0, "direct-path quotient out of Double's exact range")
            self.c = Double(c)
            self.wb = Double(wb)
            self.wr = Double(wr)
            self.d = Double(d)
            inv = 1 / Double(d)
        }

        var c_: yc_quotient { yc_quotient(c: c, wb: wb, wr: wr, d: d, inv: inv) }
    }

    public let full: Bool
    /// Output Cb and Cr from the [1 6 1] sums of source Cb and Cr bytes (b, r in 0…2040).
    let u: Quotient, v: Quotient
    /// Output Cb and Cr from the sums of the four pixels' source Cb and Cr bytes (any other sampling; 0…1020).
    let u4: Quotient, v4: Quotient
    /// Full range: the luma offset (signed) from the source Cb and Cr bytes of the pixel's chroma sample.
    let lumaOffset: Quotient
    /// Limited range: luma from ⌊(P + wy·Y)/d⌋, P = c + wb·Cb + wr·Cr per chroma sample.
    let lumaLimited: Quotient
    let wy: Double

    public init(_ t: YCbCrTransform) {
        full = t.target.range == .full
        let span: Int64 = full ? 255 : 224
        // As `chromaPlan(count: k)`: ⌊(257·255·k·D + 2·span·(p·ΣCb′ + q·ΣCr′)) / (2·255·k·D)⌋ with
        // ΣC′ = sum − k·128 (k = 8: the [1 6 1] filter's weights times the 2 of its mean; k = 4: four pixels).
        func chroma(_ p: Int64, _ q: Int64, _ d: Int64, _ k: Int64) -> Quotient {
            let wb = 2 * span * p, wr = 2 * span * q
            return Quotient(c: 257 * 255 * k * d - 128 * k * (wb + wr), wb: wb, wr: wr, d: 2 * 255 * k * d,
                            bMax: 255 * k, rMax: 255 * k)
        }
        u = chroma(t.bCb, t.bCr, t.bDen, 8)
        v = chroma(t.rCb, t.rCr, t.rDen, 8)
        u4 = chroma(t.bCb, t.bCr, t.bDen, 4)
        v4 = chroma(t.rCb, t.rCr, t.rDen, 4)
        // Full: ⌊(2t + aDen)/(2·aDen)⌋, t = aCb·(Cb − 128) + aCr·(Cr − 128).
        lumaOffset = Quotient(c: t.aDen - 256 * (t.aCb + t.aCr), wb: 2 * t.aCb, wr: 2 * t.aCr, d: 2 * t.aDen,
                              bMax: 255, rMax: 255)
        // Limited: ⌊(33·255·aDen + 438·(Y·aDen + t)) / (2·255·aDen)⌋.
        lumaLimited = Quotient(c: 33 * 255 * t.aDen - 438 * 128 * (t.aCb + t.aCr), wb: 438 * t.aCb, wr: 438 * t.aCr,
                               d: 2 * 255 * t.aDen, bMax: 255, rMax: 255, extra: 438 * t.aDen * 255)
        wy = Double(438 * t.aDen)
        rows = yc_direct_plan(u: u.c_, v: v.c_, u4: u4.c_, v4: v4.c_, luma_offset: lumaOffset.c_,
                              luma_limited: lumaLimited.c_, wy: wy, full: full ? 1 : 0)
    }

    /// The same for the C rows.
    let rows: yc_direct_plan
}

/// The JPEG direct path's rows: C (`CSIMD/yc_direct_rows_body.h`), compiled once per CPU tier, called
/// through the tier in use (or a given one: the tests compare tiers). This side pads each row's tail (the
/// same code on a padded copy) and lays out the chroma rows the C rows read.
public enum SIMDDirectRows {
    /// Chroma samples a step (32 pixels).
    static let step = Int(YC_DIRECT_STEP)

    /// One 4:2:0 row pair. `cbPadded`/`crPadded` are the source chroma rows with one sample replicated on
    /// the left and at least 17 on the right (`padChromaRow`); `y1In` is `y0In` again, and `y1 = nil`, for
    /// an odd last row.
    public static func rowPair(_ y0In: UnsafePointer<UInt8>, _ y1In: UnsafePointer<UInt8>,
                               _ cbPadded: UnsafePointer<UInt8>, _ crPadded: UnsafePointer<UInt8>,
                               _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                               _ chroma: SIMDKernels.ChromaOut, _ width: Int, _ plan: DirectRowPlan,
                               tier: CPUTier? = nil) {
        let (u, v, uv) = chroma.rows
        // Whole steps: 32 pixels that all exist.
        let whole = (width / 2) & ~(step - 1)
        var p = plan.rows
        let t = tier?.rawValue ?? -1
        if whole > 0 { checked(yc_direct420_rows(t, y0In, y1In, cbPadded, crPadded, y0, y1, u, v, uv, whole, &p)) }
        let cw = (width + 1) / 2
        if whole == cw { return }
        // The tail (at most 16 chroma samples, 31 pixels) through the same code on padded copies.
        let pixels = width - 2 * whole, rest = cw - whole
        PaddedTail.run(step: 2 * step, inputs: [PaddedTail.Input(y0In + 2 * whole, count: pixels),
                                                PaddedTail.Input(y1In + 2 * whole, count: pixels)],
                       outputs: [PaddedTail.Output(y0 + 2 * whole, bytes: pixels, capacity: 2 * step),
                                 PaddedTail.Output(y1.map { $0 + 2 * whole }, bytes: pixels, capacity: 2 * step)]
                           + chromaTail(u, v, uv, at: whole, rest)) { a, o in
            checked(yc_direct420_rows(t, bytes(a[0]), bytes(a[1]), cbPadded + whole, crPadded + whole, bytes(o[0])!,
                                      bytes(o[1]), bytes(o[2]), bytes(o[3]), bytes(o[4]), step, &p))
        }
    }

    /// A C row's answer: −1 only for a tier this CPU cannot run, a programming error.
    @inline(__always) static func checked(_ status: Int32) {
        precondition(status == 0, "this CPU cannot run the requested tier's rows")
    }

    /// The tail's chroma outputs (U, V, UV; nil where the layout has none) from chroma sample `whole`, `rest`
    /// samples long.
    static func chromaTail(_ u: UnsafeMutablePointer<UInt8>?, _ v: UnsafeMutablePointer<UInt8>?,
                           _ uv: UnsafeMutablePointer<UInt8>?, at whole: Int, _ rest: Int) -> [PaddedTail.Output] {
        [PaddedTail.Output(u.map { $0 + whole }, bytes: rest, capacity: step),
         PaddedTail.Output(v.map { $0 + whole }, bytes: rest, capacity: step),
         PaddedTail.Output(uv.map { $0 + 2 * whole }, bytes: 2 * rest, capacity: 2 * step)]
    }

    @inline(__always) static func bytes(_ p: UnsafeRawPointer) -> UnsafePointer<UInt8> { p.assumingMemoryBound(to: UInt8.self) }
    @inline(__always) static func bytes(_ p: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<UInt8>? {
        p?.assumingMemoryBound(to: UInt8.self)
    }

    /// Bytes a padded chroma row needs for `chromaWidth` samples.
    public static func paddedCount(_ chromaWidth: Int) -> Int { chromaWidth + 2 + step }

    /// `row` with its first sample before it and its last one repeated after it (the [1 6 1] filter's
    /// edges), into `padded` (`paddedCount` bytes).
    public static func padChromaRow(_ row: UnsafePointer<UInt8>, _ count: Int, into padded: UnsafeMutablePointer<UInt8>) {
        padded[0] = row[0]
        (padded + 1).update(from: row, count: count)
        (padded + 1 + count).update(repeating: row[count - 1], count: step + 1)
    }

    /// Any other sampling, from per-pixel chroma: `cb0`, `cr0` (`cb1`, `cr1`) hold, for each pixel of luma row
    /// 0 (1), the source sample that covers it, `width` of them followed by at least 32 copies of the last
    /// (`pixelChromaRow`). Luma uses each pixel's own sample; a chroma sample is the mean over its four pixels.
    public static func pixelChromaRowPair(_ y0In: UnsafePointer<UInt8>, _ y1In: UnsafePointer<UInt8>,
                                          _ cb0: UnsafePointer<UInt8>, _ cr0: UnsafePointer<UInt8>,
                                          _ cb1: UnsafePointer<UInt8>, _ cr1: UnsafePointer<UInt8>,
                                          _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                          _ chroma: SIMDKernels.ChromaOut, _ width: Int, _ plan: DirectRowPlan,
                                          tier: CPUTier? = nil) {
        lumaPixels(y0In, cb0, cr0, y0, width, plan, tier)
        if let y1 { lumaPixels(y1In, cb1, cr1, y1, width, plan, tier) }
        let (u, v, uv) = chroma.rows
        let whole = (width / 2) & ~(step - 1), cw = (width + 1) / 2
        var p = plan.rows
        let t = tier?.rawValue ?? -1
        if whole > 0 { checked(yc_direct_quad_chroma(t, cb0, cr0, cb1, cr1, u, v, uv, whole, &p)) }
        if whole == cw { return }
        // The tail reads the per-pixel chroma rows directly (they are padded) and writes through scratch.
        let x = 2 * whole
        PaddedTail.run(step: 2 * step, inputs: [], outputs: chromaTail(u, v, uv, at: whole, cw - whole)) { _, o in
            checked(yc_direct_quad_chroma(t, cb0 + x, cr0 + x, cb1 + x, cr1 + x, bytes(o[0]), bytes(o[1]), bytes(o[2]),
                                          step, &p))
        }
    }

    /// Bytes a per-pixel chroma row needs for `width` pixels.
    public static func pixelChromaCount(_ width: Int) -> Int { width + 2 * step }

    /// The per-pixel chroma row of a source chroma row whose samples each cover `ratio` pixels across
    /// (nearest), with the last pixel's sample repeated after it (`pixelChromaCount` bytes).
    public static func pixelChromaRow(_ row: UnsafePointer<UInt8>, ratio: Int, width: Int,
                                      into dst: UnsafeMutablePointer<UInt8>) {
        switch ratio {
        case 1: dst.update(from: row, count: width)
        case 2: for x in 0..<width { dst[x] = row[x &>> 1] }
        case 4: for x in 0..<width { dst[x] = row[x &>> 2] }
        default: for x in 0..<width { dst[x] = row[x / ratio] }
        }
        (dst + width).update(repeating: dst[width - 1], count: 2 * step)
    }

    /// Luma of `width` pixels, each under its own chroma sample.
    static func lumaPixels(_ src: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                           _ dst: UnsafeMutablePointer<UInt8>, _ width: Int, _ plan: DirectRowPlan, _ tier: CPUTier?) {
        var p = plan.rows
        let t = tier?.rawValue ?? -1
        let whole = width & ~(step - 1)
        if whole > 0 { checked(yc_direct_luma_pixels(t, src, cb, cr, dst, whole, &p)) }
        if whole == width { return }
        PaddedTail.run(step: step, inputs: [PaddedTail.Input(src + whole, count: width - whole)],
                       outputs: [PaddedTail.Output(dst + whole, bytes: width - whole, capacity: step)]) { a, o in
            checked(yc_direct_luma_pixels(t, bytes(a[0]), cb + whole, cr + whole, bytes(o[0])!, step, &p))
        }
    }

    // MARK: for the exhaustive tests

    /// Output Cb and Cr for pairs of sums through the rows' own arithmetic (`b.count`, a multiple of 16):
    /// `count` 8 for the 4:2:0 rows' [1 6 1] sums (0…2040), 4 for the other samplings' four-pixel sums (0…1020).
    public static func chromaValues(_ b: [Int32], _ r: [Int32], _ plan: DirectRowPlan, count: Int,
                                    tier: CPUTier? = nil) -> (u: [UInt8], v: [UInt8]) {
        precondition((count == 8 || count == 4) && b.count == r.count && b.count % step == 0)
        var p = plan.rows
        var u = [UInt8](repeating: 0, count: b.count), v = u
        for i in stride(from: 0, to: b.count, by: step) {
            b.withUnsafeBufferPointer { bp in
                r.withUnsafeBufferPointer { rp in
                    u.withUnsafeMutableBufferPointer { up in
                        v.withUnsafeMutableBufferPointer { vp in
                            checked(yc_direct_chroma_values(tier?.rawValue ?? -1, bp.baseAddress! + i, rp.baseAddress! + i,
                                                            count == 4 ? 1 : 0, up.baseAddress! + i, vp.baseAddress! + i, &p))
                        }
                    }
                }
            }
        }
        return (u, v)
    }

    /// Output luma of source luma values `y`, each under its own Cb and Cr byte (`y.count` a multiple of 16).
    public static func lumaValues(_ y: [UInt8], cb: [UInt8], cr: [UInt8], _ plan: DirectRowPlan,
                                  tier: CPUTier? = nil) -> [UInt8] {
        precondition(y.count == cb.count && y.count == cr.count && y.count % step == 0)
        var p = plan.rows
        var out = [UInt8](repeating: 0, count: y.count)
        out.withUnsafeMutableBufferPointer { o in
            checked(yc_direct_luma_pixels(tier?.rawValue ?? -1, y, cb, cr, o.baseAddress!, y.count, &p))
        }
        return out
    }
}
