// One file of ~430 lines on purpose: the plan, its exactness argument below and every row that relies on
// it (4:2:0 and the per-pixel rows of the other samplings) read together; the lane helpers are private to it.

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
    }
}

public enum SIMDDirectRows {
    typealias D16 = SIMD16<Double>
    typealias I16 = SIMD16<Int32>
    /// Chroma samples a step (32 pixels).
    static let step = 16

    /// One 4:2:0 row pair. `cbPadded`/`crPadded` are the source chroma rows with one sample replicated on
    /// the left and at least 17 on the right (`padChromaRow`); `y1In` is `y0In` again, and `y1 = nil`, for
    /// an odd last row.
    public static func rowPair(_ y0In: UnsafePointer<UInt8>, _ y1In: UnsafePointer<UInt8>,
                               _ cbPadded: UnsafePointer<UInt8>, _ crPadded: UnsafePointer<UInt8>,
                               _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                               _ chroma: SIMDKernels.ChromaOut, _ width: Int, _ plan: DirectRowPlan) {
        let (u, v, uv) = chroma.rows
        // Whole steps: 32 pixels that all exist.
        let whole = (width / 2) & ~(step - 1)
        dispatch(y0In, y1In, cbPadded, crPadded, y0, y1, u, v, uv, whole, plan)
        let cw = (width + 1) / 2
        if whole == cw { return }
        // The tail (at most 16 chroma samples, 31 pixels) through the same code on padded copies.
        let pixels = width - 2 * whole, rest = cw - whole
        PaddedTail.run(step: 2 * step, inputs: [PaddedTail.Input(y0In + 2 * whole, count: pixels),
                                                PaddedTail.Input(y1In + 2 * whole, count: pixels)],
                       outputs: [PaddedTail.Output(y0 + 2 * whole, bytes: pixels, capacity: 2 * step),
                                 PaddedTail.Output(y1.map { $0 + 2 * whole }, bytes: pixels, capacity: 2 * step)]
                           + chromaTail(u, v, uv, at: whole, rest)) { a, o in
            dispatch(bytes(a[0]), bytes(a[1]), cbPadded + whole, crPadded + whole, bytes(o[0])!, bytes(o[1]),
                     bytes(o[2]), bytes(o[3]), bytes(o[4]), step, plan)
        }
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
                                          _ chroma: SIMDKernels.ChromaOut, _ width: Int, _ plan: DirectRowPlan) {
        lumaPixels(y0In, cb0, cr0, y0, width, plan)
        if let y1 { lumaPixels(y1In, cb1, cr1, y1, width, plan) }
        let (u, v, uv) = chroma.rows
        let whole = (width / 2) & ~(step - 1), cw = (width + 1) / 2
        quadChroma(cb0, cr0, cb1, cr1, u, v, uv, whole, plan)
        if whole == cw { return }
        // The tail reads the per-pixel chroma rows directly (they are padded) and writes through scratch.
        let x = 2 * whole
        PaddedTail.run(step: 2 * step, inputs: [], outputs: chromaTail(u, v, uv, at: whole, cw - whole)) { _, o in
            quadChroma(cb0 + x, cr0 + x, cb1 + x, cr1 + x, bytes(o[0]), bytes(o[1]), bytes(o[2]), step, plan)
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
    @inline(never)
    static func lumaPixels(_ src: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                           _ dst: UnsafeMutablePointer<UInt8>, _ width: Int, _ plan: DirectRowPlan) {
        func run(_ s: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ r: UnsafePointer<UInt8>,
                 _ d: UnsafeMutablePointer<UInt8>, _ count: Int) {
            if plan.full {
                lumaPixelsBody(s, b, r, d, count, plan, full: true)
            } else {
                lumaPixelsBody(s, b, r, d, count, plan, full: false)
            }
        }
        let whole = width & ~(step - 1)
        run(src, cb, cr, dst, whole)
        if whole == width { return }
        PaddedTail.run(step: step, inputs: [PaddedTail.Input(src + whole, count: width - whole)],
                       outputs: [PaddedTail.Output(dst + whole, bytes: width - whole, capacity: step)]) { a, o in
            run(bytes(a[0]), cb + whole, cr + whole, bytes(o[0])!, step)
        }
    }

    @inline(__always)
    static func lumaPixelsBody(_ src: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                               _ dst: UnsafeMutablePointer<UInt8>, _ count: Int, _ plan: DirectRowPlan, full: Bool) {
        let lo = Splat(plan.lumaOffset), ll = Splat(plan.lumaLimited), wy = D16(repeating: plan.wy)
        var x = 0
        while x < count {
            let y = UnsafeRawPointer(src + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let b = toDouble(UnsafeRawPointer(cb + x).loadUnaligned(as: SIMD16<UInt8>.self))
            let r = toDouble(UnsafeRawPointer(cr + x).loadUnaligned(as: SIMD16<UInt8>.self))
            let out = lumaLanes(y, b, r, lo, ll, wy, full: full)
            UnsafeMutableRawPointer(dst + x).storeBytes(of: clampByte(out), as: SIMD16<UInt8>.self)
            x += step
        }
    }

    /// Chroma of `count` (a multiple of 16) samples from the four pixels' per-pixel chroma.
    @inline(never)
    static func quadChroma(_ cb0: UnsafePointer<UInt8>, _ cr0: UnsafePointer<UInt8>, _ cb1: UnsafePointer<UInt8>,
                           _ cr1: UnsafePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>?,
                           _ v: UnsafeMutablePointer<UInt8>?, _ uv: UnsafeMutablePointer<UInt8>?, _ count: Int,
                           _ plan: DirectRowPlan) {
        let pu = Splat(plan.u4), pv = Splat(plan.v4)
        /// Sixteen sums of horizontal pixel pairs of two rows (each pair a 16-bit word: low + high byte).
        @inline(__always)
        func sums(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> I16 {
            let p = UnsafeRawPointer(a).loadUnaligned(as: SIMD16<UInt16>.self)
            let q = UnsafeRawPointer(b).loadUnaligned(as: SIMD16<UInt16>.self)
            var s = I16()
            for i in 0..<16 { s[i] = Int32(p[i] & 0xFF) &+ Int32(p[i] &>> 8) &+ Int32(q[i] & 0xFF) &+ Int32(q[i] &>> 8) }
            return s
        }
        var c = 0
        while c < count {
            let b = toDouble(sums(cb0 + 2 * c, cb1 + 2 * c)), r = toDouble(sums(cr0 + 2 * c, cr1 + 2 * c))
            storeChroma(chromaLanes(b, r, pu), chromaLanes(b, r, pv), at: c, u, v, uv)
            c += step
        }
    }

    /// One loop per range and chroma shape, so the flags are constants inside each.
    @inline(never)
    static func dispatch(_ y0In: UnsafePointer<UInt8>, _ y1In: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>,
                         _ cr: UnsafePointer<UInt8>, _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                         _ u: UnsafeMutablePointer<UInt8>?, _ v: UnsafeMutablePointer<UInt8>?,
                         _ uv: UnsafeMutablePointer<UInt8>?, _ count: Int, _ plan: DirectRowPlan) {
        if count == 0 { return }
        switch (plan.full, uv != nil) {
        case (true, true): body(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, plan, full: true, nv12: true)
        case (true, false): body(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, plan, full: true, nv12: false)
        case (false, true): body(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, plan, full: false, nv12: true)
        case (false, false): body(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, plan, full: false, nv12: false)
        }
    }

    /// Sixteen bytes as Doubles.
    @inline(__always)
    static func toDouble(_ a: SIMD16<UInt8>) -> D16 {
        var r = D16()
        for i in 0..<16 { r[i] = Double(a[i]) }
        return r
    }

    @inline(__always)
    static func toDouble(_ a: I16) -> D16 {
        var r = D16()
        for i in 0..<16 { r[i] = Double(a[i]) }
        return r
    }

    @inline(__always)
    static func widen(_ a: SIMD16<UInt8>) -> I16 {
        var r = I16()
        for i in 0..<16 { r[i] = Int32(a[i]) }
        return r
    }

    /// A quotient's constants splatted to sixteen lanes.
    struct Splat {
        let c: D16, wb: D16, wr: D16, d: D16, inv: D16
        @inline(__always)
        init(_ q: DirectRowPlan.Quotient) {
            c = D16(repeating: q.c)
            wb = D16(repeating: q.wb)
            wr = D16(repeating: q.wr)
            d = D16(repeating: q.d)
            inv = D16(repeating: q.inv)
        }
    }

    /// c + wb·b + wr·r (exact: see the type's comment).
    @inline(__always)
    static func affine(_ q: Splat, _ b: D16, _ r: D16) -> D16 { q.c + q.wb * b + q.wr * r }

    /// ⌊n/d⌋ of sixteen exact numerators (see the type's comment), as Int32 lanes, without branches:
    /// e = round(n·(1/d)) is the quotient or one more (the product errs by less than 10⁻¹³, far below ½), and
    /// the sign of the exact remainder n − e·d says which.
    @inline(__always)
    static func quotient(_ n: D16, _ q: Splat) -> I16 {
        // 1.5·2^52 added: a Double whose unit is 1, whose low 32 bits are the whole value (two's complement).
        let magic = D16(repeating: 6_755_399_441_055_744.0)
        let t = n * q.inv + magic
        let rem = n - (t - magic) * q.d
        let over = unsafeBitCast(rem, to: SIMD16<Int64>.self) &>> 63                // −1 when rem < 0
        let e = unsafeBitCast(t, to: SIMD16<Int64>.self) &+ over
        var out = I16()
        for i in 0..<16 { out[i] = Int32(truncatingIfNeeded: e[i]) }
        return out
    }

    /// Luma of sixteen pixels, each under its own source Cb, Cr (as Doubles), unclamped: full range adds the
    /// offset quotient to Y, limited range divides with Y in the numerator.
    @inline(__always)
    static func lumaLanes(_ y: SIMD16<UInt8>, _ b: D16, _ r: D16, _ lo: Splat, _ ll: Splat, _ wy: D16,
                          full: Bool) -> I16 {
        full ? widen(y) &+ quotient(affine(lo, b, r), lo) : quotient(affine(ll, b, r) + wy * toDouble(y), ll)
    }

    /// Sixteen output chroma samples of one plane from the source chroma sums, clamped to 0…255.
    @inline(__always)
    static func chromaLanes(_ b: D16, _ r: D16, _ q: Splat) -> I16 { clamp8(quotient(affine(q, b, r), q)) }

    /// Sixteen U and V values (0…255) stored at chroma sample `c`: interleaved into `uv`, or into `u` and `v`.
    @inline(__always)
    static func storeChroma(_ ou: I16, _ ov: I16, at c: Int, _ u: UnsafeMutablePointer<UInt8>?,
                            _ v: UnsafeMutablePointer<UInt8>?, _ uv: UnsafeMutablePointer<UInt8>?) {
        if let uv {
            let packed = ou | ov &<< 8
            var w = SIMD16<UInt16>()
            for i in 0..<16 { w[i] = UInt16(truncatingIfNeeded: packed[i]) }
            UnsafeMutableRawPointer(uv + 2 * c).storeBytes(of: w, as: SIMD16<UInt16>.self)
        } else if let u, let v {
            UnsafeMutableRawPointer(u + c).storeBytes(of: bytes(ou), as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(v + c).storeBytes(of: bytes(ov), as: SIMD16<UInt8>.self)
        }
    }

    /// Each lane clamped to 0…255 with shifts and masks (lanes within ±2^30): the stdlib's `min`/`max` in a
    /// lane loop compile to branches here.
    @inline(__always)
    static func clamp8(_ a: I16) -> I16 {
        let low = a & ~(a &>> 31)                                    // negatives → 0
        return (low | ((I16(repeating: 255) &- low) &>> 31)) & I16(repeating: 255)  // above 255 → 255
    }

    /// Sixteen lanes already within 0…255 as bytes.
    @inline(__always)
    static func bytes(_ a: I16) -> SIMD16<UInt8> {
        var r = SIMD16<UInt8>()
        for i in 0..<16 { r[i] = UInt8(truncatingIfNeeded: a[i]) }
        return r
    }

    @inline(__always)
    static func clampByte(_ a: I16) -> SIMD16<UInt8> { bytes(clamp8(a)) }

    @inline(__always)
    static func body(_ y0In: UnsafePointer<UInt8>, _ y1In: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>,
                     _ cr: UnsafePointer<UInt8>, _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                     _ u: UnsafeMutablePointer<UInt8>?, _ v: UnsafeMutablePointer<UInt8>?,
                     _ uv: UnsafeMutablePointer<UInt8>?, _ count: Int, _ plan: DirectRowPlan, full: Bool, nv12: Bool) {
        let lo = Splat(plan.lumaOffset), ll = Splat(plan.lumaLimited), wy = D16(repeating: plan.wy)
        let pu = Splat(plan.u), pv = Splat(plan.v)
        let six = I16(repeating: 6)

        /// One row's 32 pixels under the step's sixteen chroma samples: even and odd pixels apart (the low
        /// and high bytes of 16-bit words), converted, and woven back.
        @inline(__always)
        func lumaRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ x: Int,
                     _ offset: I16, _ base: D16) {
            let p = UnsafeRawPointer(src + x).loadUnaligned(as: SIMD16<UInt16>.self)
            var e = I16(), o = I16()
            for i in 0..<16 {
                e[i] = Int32(p[i] & 0xFF)
                o[i] = Int32(p[i] &>> 8)
            }
            let oe: I16, oo: I16
            if full {
                oe = e &+ offset
                oo = o &+ offset
            } else {
                oe = quotient(base + wy * toDouble(e), ll)
                oo = quotient(base + wy * toDouble(o), ll)
            }
            let packed = clamp8(oe) | clamp8(oo) &<< 8
            var w = SIMD16<UInt16>()
            for i in 0..<16 { w[i] = UInt16(truncatingIfNeeded: packed[i]) }
            UnsafeMutableRawPointer(dst + x).storeBytes(of: w, as: SIMD16<UInt16>.self)
        }

        var c = 0
        while c < count {
            let cbL = widen(UnsafeRawPointer(cb + c).loadUnaligned(as: SIMD16<UInt8>.self))
            let cbC = UnsafeRawPointer(cb + c + 1).loadUnaligned(as: SIMD16<UInt8>.self)
            let cbR = widen(UnsafeRawPointer(cb + c + 2).loadUnaligned(as: SIMD16<UInt8>.self))
            let crL = widen(UnsafeRawPointer(cr + c).loadUnaligned(as: SIMD16<UInt8>.self))
            let crC = UnsafeRawPointer(cr + c + 1).loadUnaligned(as: SIMD16<UInt8>.self)
            let crR = widen(UnsafeRawPointer(cr + c + 2).loadUnaligned(as: SIMD16<UInt8>.self))
            let cbD = toDouble(cbC), crD = toDouble(crC)
            // Luma: the pixel's own (unfiltered) chroma sample.
            var offset = I16(), base = D16()
            if full {
                offset = quotient(affine(lo, cbD, crD), lo)
            } else {
                base = affine(ll, cbD, crD)
            }
            lumaRow(y0In, y0, 2 * c, offset, base)
            if let y1 { lumaRow(y1In, y1, 2 * c, offset, base) }
            // Chroma: the [1 6 1] sums along the row.
            let b = toDouble(cbL &+ six &* widen(cbC) &+ cbR), r = toDouble(crL &+ six &* widen(crC) &+ crR)
            storeChroma(chromaLanes(b, r, pu), chromaLanes(b, r, pv), at: c, u, v, nv12 ? uv : nil)
            c += step
        }
    }

    // MARK: for the exhaustive tests

    /// Output Cb and Cr for sixteen pairs of sums through the rows' own arithmetic: `count` 8 for the 4:2:0
    /// rows' [1 6 1] sums (0…2040), 4 for the other samplings' four-pixel sums (0…1020).
    public static func chromaValues(_ b: SIMD16<Int32>, _ r: SIMD16<Int32>, _ plan: DirectRowPlan,
                                    count: Int) -> (SIMD16<UInt8>, SIMD16<UInt8>) {
        precondition(count == 8 || count == 4)
        let pu = Splat(count == 8 ? plan.u : plan.u4), pv = Splat(count == 8 ? plan.v : plan.v4)
        let bd = toDouble(b), rd = toDouble(r)
        return (bytes(chromaLanes(bd, rd, pu)), bytes(chromaLanes(bd, rd, pv)))
    }

    /// Output luma for sixteen source luma values under one chroma sample's Cb, Cr bytes.
    public static func lumaValues(_ y: SIMD16<UInt8>, cb: UInt8, cr: UInt8, _ plan: DirectRowPlan) -> SIMD16<UInt8> {
        clampByte(lumaLanes(y, D16(repeating: Double(cb)), D16(repeating: Double(cr)), Splat(plan.lumaOffset),
                            Splat(plan.lumaLimited), D16(repeating: plan.wy), full: plan.full))
    }
}
