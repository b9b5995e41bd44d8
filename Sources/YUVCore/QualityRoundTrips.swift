import CSIMD

// The quality accumulator's round trips: the RGB a player rebuilds from the output (nearest chroma, and
// bilinear), against the source. Split from Quality.swift by role; the accumulator and its rows are there.
extension QualityAccumulator {
    /// A rebuilt channel rounded half up and clamped to 0…255, as the reference's
    /// `min(max((t + 0.5).rounded(.down), 0), 255)` gives it — that is ⌊min(max(t + 0.5, 0), 255)⌋ — without a
    /// rounding instruction (a call on SSE2): adding 2^52 rounds to the nearest integer, which is one too many
    /// when it rounded up.
    @inline(__always)
    static func quantised(_ t: Double) -> Int64 {
        let c = min(max(t + 0.5, 0), 255)
        let m = c + 0x1p52
        let q = Int64(bitPattern: m.bitPattern) &- 0x4330_0000_0000_0000   // the integer m − 2^52
        return (m - 0x1p52) > c ? q &- 1 : q
    }

    /// The squared error of the three channels rebuilt from luma `yl` and the chroma terms `cbp`, `crp` — the
    /// reference's `Double` expressions, operation for operation — against the source's R, G, B.
    @inline(__always)
    static func rebuiltError(yl: Double, cbp: Double, crp: Double, r: UInt8, g: UInt8, b: UInt8,
                             _ k: (kr: Double, kb: Double, kg: Double, ar: Double, ab: Double)) -> UInt64 {
        let rr = yl + k.ar * crp, bb = yl + k.ab * cbp
        let gg = (yl - k.kr * rr - k.kb * bb) / k.kg
        let er = quantised(rr) &- Int64(r), eg = quantised(gg) &- Int64(g), eb = quantised(bb) &- Int64(b)
        return UInt64(bitPattern: er &* er &+ eg &* eg &+ eb &* eb)
    }

    /// `rebuiltError` with G's division by kg replaced by a product with 1/kg, which may differ from the quotient
    /// in the last bits: `near` says whether G + ½ came within 10^-9 of an integer, where those bits could
    /// move the rounding (the caller then takes `rebuiltError`). Elsewhere the result is the same.
    @inline(__always)
    static func rebuiltErrorFast(yl: Double, cbp: Double, crp: Double, r: UInt8, g: UInt8, b: UInt8,
                                 _ k: (kr: Double, kb: Double, kg: Double, ar: Double, ab: Double), invKg: Double)
        -> (error: UInt64, near: Bool) {
        let rr = yl + k.ar * crp, bb = yl + k.ab * cbp
        let gg = (yl - k.kr * rr - k.kb * bb) * invKg
        let t = gg + 0.5, nearest = (t + 0x1p52) - 0x1p52   // |t| < 2^51: t rounded to an integer
        let er = quantised(rr) &- Int64(r), eg = quantised(gg) &- Int64(g), eb = quantised(bb) &- Int64(b)
        return (UInt64(bitPattern: er &* er &+ eg &* eg &+ eb &* eb), (t - nearest).magnitude < 1e-9)
    }

    /// The round trip of one row in limited range (planar R, G, B in `r`, `g`, `b`, output luma `y`): chroma
    /// `c(x)` per pixel, as the chroma code value times `scale` (1, or 16 for the bilinear filter's sums). The
    /// reference's expressions, in one vectorised pass with G's division replaced by a product
    /// (`rebuiltErrorFast`), then the few pixels it marks again with the division.
    @inline(__always)
    func roundTrip(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                   scale: Double, cb: (Int) -> Int32, cr: (Int) -> Int32) -> UInt64 {
        let k = (kr: kr, kb: kb, kg: kg, ar: ar, ab: ab), yo = yo, ys = ys, cs = cs, invKg = 1 / kg
        let marks = rows.marks
        @inline(__always) func terms(_ x: Int) -> (yl: Double, cbp: Double, crp: Double) {
            let cbv = Double(cb(x)) / scale, crv = Double(cr(x)) / scale
            return ((Double(y[x]) - yo) / ys, (cbv - 128) / cs, (crv - 128) / cs)
        }
        var sum: UInt64 = 0
        for x in 0..<width {
            let (yl, cbp, crp) = terms(x)
            let e = Self.rebuiltErrorFast(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k, invKg: invKg)
            sum &+= e.error
            marks[x] = e.near ? 1 : 0
        }
        Self.forEachMark(marks, width) { x in
            let (yl, cbp, crp) = terms(x)
            sum &-= Self.rebuiltErrorFast(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k, invKg: invKg).error
            sum &+= Self.rebuiltError(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k)
        }
        return sum
    }

    /// The round trip in full range, where the luma term is the luma itself: each rebuilt channel is the luma
    /// plus a whole offset that depends on the chroma alone — R: ⌊x_r + ½⌋ with x_r = 2(1 − kr)·(Cr − 128), B
    /// alike, G: ⌊−(kr·x_r + kb·x_b)/kg + ½⌋ — then clamped. That is the reference's rounding, whose `Double`
    /// terms are within 10^-11 of these exact fractions, except where a fraction is an exact tie (its distance
    /// to an integer is otherwise at least 1/(16·S·kg) ≈ 9·10^-10). R and B are computed exactly; G in `float`,
    /// within `offsetMargin` of the exact fraction. Exact ties, and G values within the margin of a whole
    /// number, are marked and measured again with the reference's expressions. `cb16`, `cr16`: 16 × the
    /// chroma at each pixel.
    func roundTripFull(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                       cb16: UnsafePointer<Int32>, cr16: UnsafePointer<Int32>) -> UInt64 {
        // The row in C, one copy per CPU tier (`yc_quality_rows_body.h`): the marked pixels are left out of
        // its sum, and measured here with the reference's expressions.
        var k = offsetConstants, marked: UInt8 = 0
        let marks = rows.marks
        var sum = yc_quality_full_errors(y, r, g, b, cb16, cr16, width, &k, marks, &marked)
        if marked != 0 {
            let k = (kr: kr, kb: kb, kg: kg, ar: ar, ab: ab)
            Self.forEachMark(marks, width) { x in
                sum &+= Self.rebuiltError(yl: Double(y[x]), cbp: Double(cb16[x]) / 16 - 128, crp: Double(cr16[x]) / 16 - 128,
                                          r: r[x], g: g[x], b: b[x], k)
            }
        }
        return sum
    }

    /// Calls `body` with each x below `count` where `marks[x]` is not 0, reading eight marks at a time (a row
    /// with a mark has about one: most of its words are 0).
    @inline(__always)
    static func forEachMark(_ marks: UnsafePointer<UInt8>, _ count: Int, _ body: (Int) -> Void) {
        var x = 0
        while x + 8 <= count {
            if UnsafeRawPointer(marks + x).loadUnaligned(as: UInt64.self) != 0 {
                for i in x..<(x + 8) where marks[i] != 0 { body(i) }
            }
            x += 8
        }
        for i in x..<count where marks[i] != 0 { body(i) }
    }

    /// The constants of the full-range offsets (`roundTripFull`; computed by `yc_quality_rows_body.h`):
    /// R, B: ⌊(2(S − k)(c16 − 2048) + 8S) / 16S⌋, kept positive by 256·16S, exact in 32 bits (`aR`, `aB`, `bias`);
    /// G: ⌊(−2kr(S − kr)(cr16 − 2048) − 2kb(S − kb)(cb16 − 2048) + 8S·kg) / 16S·kg⌋, in `float` as
    /// ⌊gR·(cr16 − 2048) + gB·(cb16 − 2048) + ½⌋, marked within `offsetMargin` of a whole number.
    var offsetConstants: yc_quality_offset_k {
        let S = Int32(ColorMatrix.scale), s64 = Int64(S), d = Double(16 * s64 * ikg)
        precondition(16 * S == 160_000, "the offsets divide by the literal 16·S (a constant divisor vectorises)")
        return yc_quality_offset_k(aR: 2 &* (S &- Int32(ikr)), aB: 2 &* (S &- Int32(ikb)), bias: 8 &* S &+ 256 &* 16 &* S,
                                   gR: Float(Double(-2 * ikr * (s64 - ikr)) / d),
                                   gB: Float(Double(-2 * ikb * (s64 - ikb)) / d), margin: Self.offsetMargin)
    }

    /// How close G's `float` value may come to a whole number before the pixel is measured the reference's way:
    /// its error is below 2·10^-5 on every chroma pair of every matrix (`QualityOffsetTests` measures it and
    /// checks every unmarked pair against the exact quotient); the margin is twice that. About 1 pixel in
    /// 10,000 is marked.
    static let offsetMargin: Float = 4e-5

    /// The 16 × chroma values a round trip's offsets are taken for: 0 … 16·255.
    static let offsetCount = 16 * 255 + 1

    /// The full-range offsets of `count` chroma values (16 × Cb and Cr), and a mark where the reference's
    /// rounding must be taken instead.
    func offsets(cb16: UnsafePointer<Int32>, cr16: UnsafePointer<Int32>, count: Int, r oR: UnsafeMutablePointer<Int32>,
                 g oG: UnsafeMutablePointer<Int32>, b oB: UnsafeMutablePointer<Int32>, marks: UnsafeMutablePointer<UInt8>) {
        var k = offsetConstants
        yc_quality_offsets(cb16, cr16, count, &k, oR, oG, oB, marks)   // C, one copy per CPU tier
    }

    /// Full range, a new chroma row (`Rows.now`): the nearest round trip's offsets per chroma sample, for both
    /// of its luma rows.
    func nearestOffsets() {
        let cw = (width + 1) / 2, fb = rows.c16b, fr = rows.c16r, u = rows.now, v = rows.now + cw
        for i in 0..<cw { fb[i] = 16 &* Int32(u[i]); fr[i] = 16 &* Int32(v[i]) }
        offsets(cb16: fb, cr16: fr, count: cw, r: rows.nR, g: rows.nG, b: rows.nB, marks: rows.nMarks)
    }

    /// The nearest round trip in full range: two pixels a chroma sample, its offsets from `nearestOffsets`.
    func nearestFull(y: UnsafePointer<UInt8>) -> UInt64 {
        let r = source.r, g = source.g, b = source.b, oR = rows.nR, oG = rows.nG, oB = rows.nB, marks = rows.nMarks
        let cw = (width + 1) / 2
        // The row in C, one copy per CPU tier (`yc_quality_rows_body.h`), the marked samples' pixels left out
        // and measured here with the reference's expressions.
        var sum = yc_quality_pair_errors(y, r, g, b, oR, oG, oB, marks, width)
        let k = (kr: kr, kb: kb, kg: kg, ar: ar, ab: ab), u = rows.now, v = rows.now + cw
        Self.forEachMark(marks, cw) { i in
            for x in (2 * i)..<min(2 * i + 2, width) {
                sum &+= Self.rebuiltError(yl: Double(y[x]), cbp: Double(u[i]) - 128, crp: Double(v[i]) - 128,
                                          r: r[x], g: g[x], b: b[x], k)
            }
        }
        return sum
    }

    /// The round trip with the covering chroma sample (nearest), the row in `Rows`.
    func roundTripError(y: UnsafePointer<UInt8>) -> UInt64 {
        let pu = rows.u, pv = rows.v
        if full { return nearestFull(y: y) }
        return roundTrip(source.r, source.g, source.b, y, scale: 1, cb: { Int32(pu[$0]) }, cr: { Int32(pv[$0]) })
    }

    /// The round trip with bilinear chroma of a row (planar `r`, `g`, `b`, luma `y`): `own` is the chroma row
    /// pair (U then V) covering it, `other` the one blended in with weight ¼ (above an even row, below an odd
    /// one). Per chroma column the vertical sum 3·own + other, padded with the edge column; per pixel
    /// 3·near + far, over 16 — the reference's `(3 * near + far) / 16`, exact in `Double`.
    func bilinearError(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                       own o: UnsafePointer<UInt8>, other t: UnsafePointer<UInt8>) -> UInt64 {
        // The sums in C, one copy per CPU tier (`yc_quality_rows_body.h`).
        let fb = rows.c16b, fr = rows.c16r
        yc_quality_bilinear16(o, t, width, rows.columnSums, fb, fr)
        if full { return roundTripFull(r, g, b, y, cb16: fb, cr16: fr) }
        return roundTrip(r, g, b, y, scale: 16, cb: { fb[$0] }, cr: { fr[$0] })
    }

    /// The waiting odd row's error, with its own chroma row and the one below it.
    func waitingError(own: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>) -> UInt64 {
        bilinearError(rows.wr, rows.wg, rows.wb, rows.wy, own: own, other: below)
    }
}
