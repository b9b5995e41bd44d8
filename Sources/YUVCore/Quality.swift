import CSIMD
/// What a conversion costs in quality, measured against its source picture (see README, "The report"):
///
/// - the source is the decoded picture's R, G, B (8-bit, or 16-bit scaled by 255/65535), taken as exact;
/// - **Y PSNR**: output Y against the exact (unrounded) Y of every source pixel, in code values of the range;
/// - **Cb, Cr PSNR**: the output chroma sample covering each pixel against that pixel's own exact chroma —
///   so it counts what 4:2:0 loses, not only rounding;
/// - **RGB PSNR**: the round trip — output Y with the covering chroma sample, through the exact inverse
///   matrix and range, rounded half up and clamped to 0…255 — against the source R, G, B (all three channels);
/// - **bilinear RGB PSNR**: the same round trip as a player makes it — chroma interpolated bilinearly at each
///   pixel (centre-sited: ¾ of the nearer sample and ¼ of the next, across and down, the edge sample
///   repeated), unrounded, then the exact inverse — which is what sharp chroma is made for;
/// - **SSIM** of luma: output Y against the exact Y, on 8×8 windows every 4 pixels (as FFmpeg's `ssim`
///   filter places them; the whole picture when it is smaller), C1 = (0.01·255)², C2 = (0.03·255)², mean over
///   the windows.
/// PSNR = 10·log10(255² / MSE); an identical plane has MSE 0 and PSNR +∞.
public struct QualityReport: Sendable, Equatable {
    public var psnrY: Double
    public var psnrCb: Double
    public var psnrCr: Double
    public var psnrRGB: Double
    public var ssimY: Double
    /// The bilinear round trip; nil for figures kept from before it was measured (`--update`'s manifest).
    public var psnrRGBBilinear: Double?

    public init(psnrY: Double, psnrCb: Double, psnrCr: Double, psnrRGB: Double, ssimY: Double,
                psnrRGBBilinear: Double? = nil) {
        self.psnrY = psnrY
        self.psnrCb = psnrCb
        self.psnrCr = psnrCr
        self.psnrRGB = psnrRGB
        self.ssimY = ssimY
        self.psnrRGBBilinear = psnrRGBBilinear
    }

    /// PSNR of a mean squared error; below 1e-12 (only floating-point dust: every source value is a multiple
    /// of 1/65535 at worst) the planes are identical and the PSNR is +∞.
    public static func psnr(mse: Double) -> Double {
        mse < 1e-12 ? .infinity : 10 * log10Exact(255 * 255 / mse)
    }
}

/// log10 without Foundation.
@inlinable
func log10Exact(_ x: Double) -> Double {
    // ln(x) by reducing to m·2^e, m in [1, 2), then a series on (m−1)/(m+1); accurate to ~1e-15.
    precondition(x > 0)
    var e = 0
    var m = x
    while m >= 2 { m /= 2; e += 1 }
    while m < 1 { m *= 2; e -= 1 }
    let t = (m - 1) / (m + 1), t2 = t * t
    var term = t, sum = 0.0
    var k = 1.0
    while abs(term / k) > 1e-18 {
        sum += term / k
        term *= t2
        k += 2
    }
    let ln = 2 * sum + Double(e) * 0.693_147_180_559_945_309_4
    return ln / 2.302_585_092_994_045_684
}

/// Accumulates the measures above row by row, as a conversion streams: each source row with the output's
/// luma row and the chroma rows covering it, keeping only a few rows (SSIM's 4-row blocks, the chroma rows
/// before the current one, and an odd row waiting for the chroma row below it: its bilinear chroma blends
/// that row in), so measuring costs no whole picture and no second decode.
///
/// For 8-bit sources every sum is an exact integer, computed by loops over planar rows that vectorise (plain
/// integer and `Double` lanes, no CPU-specific code):
/// - Y, Cb, Cr: the exact value is a fraction with a fixed denominator Q (full range: Y′ = N/S with
///   N = kr·R + kg·G + kb·B and S = `ColorMatrix.scale`; Cb − 128 = (S·B − N)/(2(S − kb)); limited range scales
///   by 73/85 and 112/255). `Q·output − numerator` fits 32 bits; its square (below 2^59) is summed in 64
///   bits — split at bit 24 where a row could overflow them — into a 128-bit total. MSE = Σ/(Q²·pixels), so
///   Y, Cb and Cr are the exact figures the reference approximates in `Double` (equal to ~1e-15).
/// - RGB round trips: the reference's `Double` expressions, rounded half up and clamped without a call
///   (`quantised`). In full range the luma term is the luma itself, so each channel is the luma plus a whole
///   offset that depends on the chroma alone (`offsetConstants`): computed exactly, and where the exact value
///   is a rounding tie (where the reference's last bits decide) the reference's expressions are evaluated for
///   that pixel. Every squared error is the reference's integer, and so is their sum: these figures are the
///   reference's, bit for bit.
/// - SSIM: 8×8 windows every 4 pixels from exact integer sums of a = output Y and b = Q·exact Y, built as 4-row
///   blocks of column sums and 4-column groups (each pixel summed once); each window's variances and
///   covariance from exact integer numerators (k·Σa² − (Σa)², …), then the formula in `Double`. Equal to the
///   reference's figure to ~1e-15.
/// 16-bit sources go through `ReferenceQualityAccumulator` whole.
public struct QualityAccumulator {
    public let width: Int, height: Int
    let spec: ConversionSpec
    let full: Bool
    /// The matrix in `Double`, as the reference has it (for the round trips).
    let kr: Double, kg: Double, kb: Double
    /// 2(1 − kr) and 2(1 − kb) as the reference's `2 * (1 - kr) * crp` evaluates them.
    let ar: Double, ab: Double
    /// Y offset and scale, chroma scale (the reference's yo, ys, cs).
    let yo: Double, ys: Double, cs: Double
    /// Integer matrix (sum S).
    let ikr: Int64, ikg: Int64, ikb: Int64
    /// Exact Y × qY = yOff + yMul·N; Cb error × cbMul = cbMul·(cb − 128) − cK·(S·B − N) (Cr alike, crMul).
    let qY: Int64, yOff: Int64, yMul: Int64
    let cbMul: Int64, crMul: Int64, cK: Int64
    var exactY: UInt128 = 0, exactCb: UInt128 = 0, exactCr: UInt128 = 0
    var sumRGB: UInt64 = 0, sumBilinear: UInt64 = 0
    var row = 0
    /// The rows kept (`Rows`): shared by copies of an accumulator, so measure with one.
    let rows: Rows
    var ssimSum = 0.0, ssimCount = 0
    /// Set on the first 16-bit row: the picture is measured by the reference.
    var reference: ReferenceQualityAccumulator?

    public init(width: Int, height: Int, spec: ConversionSpec) {
        self.width = width
        self.height = height
        self.spec = spec
        full = spec.range == .full
        let s = Double(ColorMatrix.scale)
        kr = Double(spec.matrix.kr) / s
        kb = Double(spec.matrix.kb) / s
        kg = Double(spec.matrix.kg) / s
        ar = 2 * (1 - kr)
        ab = 2 * (1 - kb)
        ys = full ? 1.0 : 219.0 / 255
        cs = full ? 1.0 : 224.0 / 255
        yo = full ? 0.0 : 16
        let S = Int64(ColorMatrix.scale)
        ikr = Int64(spec.matrix.kr)
        ikg = Int64(spec.matrix.kg)
        ikb = Int64(spec.matrix.kb)
        if full {
            // Y = N/S; Cb − 128 = (S·B − N)/(2(S − kb)).
            (qY, yOff, yMul) = (S, 0, 1)
            (cbMul, crMul, cK) = (2 * (S - ikb), 2 * (S - ikr), 1)
        } else {
            // Y = 16 + N·219/(255·S) = (1360·S + 73·N)/(85·S); Cb − 128 = 224·(S·B − N)/(510·(S − kb)), over 2.
            (qY, yOff, yMul) = (85 * S, 1360 * S, 73)
            (cbMul, crMul, cK) = (255 * (S - ikb), 255 * (S - ikr), 112)
        }
        rows = Rows(width: width, rings: min(8, width, height) < 8)
    }

    /// What an accumulator keeps, allocated once as one block: U, V of the current chroma row pair and of the
    /// one before (⌈w/2⌉ each), the current row planar, the waiting odd row, the bilinear filter's sums, the
    /// nearest round trip's full-range offsets; for SSIM's 8×8 windows the current 4-row block's column sums and
    /// the last two blocks' 4-column groups, or — for windows under 8 (`rings`: a picture under 8 pixels wide or
    /// high) — the output luma and Q·exact luma of the last 8 rows (row r in slot r % 8) with one window row's
    /// column sums. About 80 bytes a pixel of width.
    final class Rows {
        let chroma: UnsafeMutablePointer<UInt8>
        var now: UnsafeMutablePointer<UInt8>, before: UnsafeMutablePointer<UInt8>
        /// One row's planar R, G, B and per-pixel U, V; the waiting row's R, G, B and luma (bytes).
        let r, g, b, u, v, wr, wg, wb, wy: UnsafeMutablePointer<UInt8>
        /// Pixels a round trip marked to take again with G's division.
        let marks: UnsafeMutablePointer<UInt8>
        /// Full range: what the nearest round trip adds to the luma for R, G and B (`offsets`) per chroma sample of
        /// the current chroma row, and its marks.
        let nR, nG, nB: UnsafeMutablePointer<Int32>
        let nMarks: UnsafeMutablePointer<UInt8>
        /// Column sums 3·own + other (Cb, Cr; padded), and per pixel 3·near + far (16× the bilinear chroma).
        let columnSums, c16b, c16r: UnsafeMutablePointer<Int32>
        let aRing: UnsafeMutablePointer<UInt8>, bRing: UnsafeMutablePointer<Int32>
        let sums: UnsafeMutablePointer<Int64>
        /// 8×8 windows: the current 4-row block's column sums of a, a², b (32-bit: 4·b < 8.2·10^8) and b², ab
        /// (64-bit), and the last two blocks reduced to 4-column groups (5 sums each).
        let colA, colAA, colB: UnsafeMutablePointer<Int32>
        let colBB, colAB: UnsafeMutablePointer<Int64>
        let groups: UnsafeMutablePointer<Int64>
        /// One block row's window values.
        let windows: UnsafeMutablePointer<Double>
        private let base: UnsafeMutableRawPointer
        let bytes: Int

        init(width w: Int, rings: Bool) {
            let cw = (w + 1) / 2
            // One block: 64-byte aligned parts; the rings or the blocks, not both.
            let (r8, b8) = (rings ? 1 : 0, rings ? 0 : 1)
            let parts = [4 * cw, 10 * w, 4 * 2 * (cw + 2), 4 * 2 * w, r8 * 8 * w, r8 * 4 * 8 * w, r8 * 8 * 5 * w,
                         b8 * 4 * 3 * w, b8 * 8 * 2 * w, b8 * 8 * 10 * (w / 4 + 1), 4 * 3 * cw, cw,
                         b8 * 8 * (w / 4 + 1)].map { ($0 + 63) & ~63 }
            bytes = parts.reduce(0, +)
            base = .allocate(byteCount: bytes, alignment: 64)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            var at = base
            func take(_ n: Int) -> UnsafeMutableRawPointer { defer { at += n }; return at }
            chroma = take(parts[0]).assumingMemoryBound(to: UInt8.self)
            now = chroma
            before = chroma + 2 * cw
            let planes = take(parts[1]).assumingMemoryBound(to: UInt8.self)
            (r, g, b, u, v) = (planes, planes + w, planes + 2 * w, planes + 3 * w, planes + 4 * w)
            (wr, wg, wb, wy) = (planes + 5 * w, planes + 6 * w, planes + 7 * w, planes + 8 * w)
            marks = planes + 9 * w
            columnSums = take(parts[2]).assumingMemoryBound(to: Int32.self)
            let c16 = take(parts[3]).assumingMemoryBound(to: Int32.self)
            (c16b, c16r) = (c16, c16 + w)
            aRing = take(parts[4]).assumingMemoryBound(to: UInt8.self)
            bRing = take(parts[5]).assumingMemoryBound(to: Int32.self)
            sums = take(parts[6]).assumingMemoryBound(to: Int64.self)
            colA = take(parts[7]).assumingMemoryBound(to: Int32.self)
            (colAA, colB) = (colA + w, colA + 2 * w)
            colBB = take(parts[8]).assumingMemoryBound(to: Int64.self)
            colAB = colBB + w
            groups = take(parts[9]).assumingMemoryBound(to: Int64.self)
            nR = take(parts[10]).assumingMemoryBound(to: Int32.self)
            (nG, nB) = (nR + cw, nR + 2 * cw)
            nMarks = take(parts[11]).assumingMemoryBound(to: UInt8.self)
            windows = take(parts[12]).assumingMemoryBound(to: Double.self)
        }

        deinit { base.deallocate() }
    }

    public var byteCount: Int { rows.bytes }

    var window: Int { min(8, width, height) }

    /// Whether every row was added.
    public var isComplete: Bool { reference?.isComplete ?? (row == height) }

    /// Adds the next source row (`format`: R,G,B[,X] bytes or 16-bit R,G,B) with the output's luma row `y`
    /// and the U and V rows (⌈width/2⌉ samples) of the chroma row that covers it (the same for both rows of a
    /// pair: the nearest round trip keeps what it worked out from the first).
    public mutating func add(row src: UnsafeRawPointer, format: SourceFormat, y: UnsafePointer<UInt8>,
                             u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        if row == 0 && reference == nil && (format == .rgb16 || format == .rgba16) {
            reference = ReferenceQualityAccumulator(width: width, height: height, spec: spec)
        }
        if reference != nil {
            reference!.add(row: src, format: format, y: y, u: u, v: v)
            return
        }
        precondition(format == .rgb8 || format == .rgba8, "a 16-bit row in an 8-bit picture")
        splitRGB(src.assumingMemoryBound(to: UInt8.self), bpp: format.bytesPerPixel)
        addSplitRow(y: y, u: u, v: v)
    }

    /// Where the next row's R, G and B go (a byte a sample, `width` each) for `addPlanarRow`: a caller that
    /// makes the row itself (the direct path's `DecoderRGB`) writes it there, planar, instead of interleaving it
    /// for `add` to split.
    public var planarRow: (r: UnsafeMutablePointer<UInt8>, g: UnsafeMutablePointer<UInt8>, b: UnsafeMutablePointer<UInt8>) {
        (rows.r, rows.g, rows.b)
    }

    /// Adds the next source row, written into `planarRow` (8-bit), with the output's luma row `y` and the U
    /// and V rows of the chroma row that covers it.
    public mutating func addPlanarRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        precondition(reference == nil, "planar rows are 8-bit")
        addSplitRow(y: y, u: u, v: v)
    }

    /// Adds the row in `Rows.r`, `.g`, `.b`.
    mutating func addSplitRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        precondition(row < height)
        let w = width, cw = (w + 1) / 2
        let slot = row % 8
        if row % 2 == 0 {
            // A new row pair: its chroma rows become the current ones, and the odd row waiting for them is done.
            swap(&rows.before, &rows.now)
            rows.now.update(from: u, count: cw)
            (rows.now + cw).update(from: v, count: cw)
            if row > 0 { sumBilinear &+= waitingError(own: rows.before, below: rows.now) }
            if full { nearestOffsets() }
        } else {
            assert((0..<cw).allSatisfy { rows.now[$0] == u[$0] && rows.now[cw + $0] == v[$0] }, "a row pair has one chroma row")
        }
        expandChroma(u: u, v: v)
        if window < 8 { (rows.aRing + slot * w).update(from: y, count: w) }
        addExact(y: y, exactY: rows.bRing + slot * w, block: window == 8 ? (row % 4 == 0 ? 1 : 2) : 0)
        sumRGB &+= roundTripError(y: y)
        if row % 2 == 0 {
            // An even row blends its own chroma row with the one above (itself at the top).
            sumBilinear &+= bilinearError(rows.r, rows.g, rows.b, y, own: rows.now, other: row == 0 ? rows.now : rows.before)
        } else {
            rows.wr.update(from: rows.r, count: w)
            rows.wg.update(from: rows.g, count: w)
            rows.wb.update(from: rows.b, count: w)
            rows.wy.update(from: y, count: w)
        }
        row += 1
        if window == 8 {
            finishBlock(row - 1)
        } else if row >= window && (row - window) % 4 == 0 {
            addSSIM(lastRow: row - 1)
        }
    }

    /// Y, Cb and Cr: the exact squared errors of one row (numerators over qY, cbMul, crMul) from its planar
    /// R, G, B and per-pixel U, V (`Rows`), and the row's exact luma numerators into `exactY` (for SSIM), and
    /// — with 8×8 SSIM windows — the row added to its 4-row block's column sums (`block`: 0 none, 1 the
    /// block's first row, 2 a later one). Every term fits 32 bits (|Cb error numerator| < 6.2·10^8 in limited
    /// range); squares are 64-bit. In full range a square is below 2.7·10^13, so a row under 2^19 pixels sums
    /// them in 64 bits; otherwise each square is summed split at bit 24.
    mutating func addExact(y: UnsafePointer<UInt8>, exactY: UnsafeMutablePointer<Int32>, block: Int) {
        let split = !full || width >= 1 << 19
        switch (split, block) {
        case (false, 0): addExact(y: y, exactY: exactY, split: false, block: 0)
        case (false, 1): addExact(y: y, exactY: exactY, split: false, block: 1)
        case (false, _): addExact(y: y, exactY: exactY, split: false, block: 2)
        case (true, 0): addExact(y: y, exactY: exactY, split: true, block: 0)
        case (true, 1): addExact(y: y, exactY: exactY, split: true, block: 1)
        case (true, _): addExact(y: y, exactY: exactY, split: true, block: 2)
        }
    }

    /// The loop is C (`CSIMD/yc_quality_rows_body.h`), one copy per CPU tier: its 64-bit squares are 32×32-bit
    /// products there, which every x86-64 vector unit has (Swift's 64-bit multiplies vectorise only with
    /// AVX-512, so the portable build ran them scalar).
    mutating func addExact(y: UnsafePointer<UInt8>, exactY: UnsafeMutablePointer<Int32>, split: Bool, block: Int) {
        var k = yc_quality_exact_k(kr: Int32(ikr), kg: Int32(ikg), kb: Int32(ikb), s: Int32(ColorMatrix.scale),
                                   qY: Int32(qY), yOff: Int32(yOff), yMul: Int32(yMul), cbMul: Int32(cbMul),
                                   crMul: Int32(crMul), cK: Int32(cK))
        var sums: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &sums) { p in
            yc_quality_exact_row(rows.r, rows.g, rows.b, rows.u, rows.v, y, exactY, width, &k, Int32(block),
                                 split ? 1 : 0, rows.colA, rows.colAA, rows.colB, rows.colBB, rows.colAB,
                                 p.baseAddress!.assumingMemoryBound(to: UInt64.self))
        }
        if split {
            Self.add(&self.exactY, sums.0, sums.1)
            Self.add(&exactCb, sums.2, sums.3)
            Self.add(&exactCr, sums.4, sums.5)
        } else {
            self.exactY &+= UInt128(sums.1)
            exactCb &+= UInt128(sums.3)
            exactCr &+= UInt128(sums.5)
        }
    }

    /// Adds a row's squares, summed as their bits from 24 up (`hi`) and below (`lo`), to a total: neither
    /// part can overflow on a row of any width below 2^29 pixels.
    @inline(__always)
    static func add(_ total: inout UInt128, _ hi: UInt64, _ lo: UInt64) {
        total &+= UInt128(hi) << 24 &+ UInt128(lo)
    }

    /// A source row as planar R, G, B bytes (`Rows.r`, `.g`, `.b`): the loops after it read contiguous lanes.
    func splitRGB(_ s: UnsafePointer<UInt8>, bpp: Int) {
        let pr = rows.r, pg = rows.g, pb = rows.b
        @inline(__always) func planes(_ k: Int) {
            for x in 0..<width {
                pr[x] = s[k &* x]; pg[x] = s[k &* x &+ 1]; pb[x] = s[k &* x &+ 2]
            }
        }
        if bpp == 3 { planes(3) } else { planes(4) }
    }

    /// The chroma samples covering each pixel of a row (`Rows.u`, `.v`).
    func expandChroma(u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        let pu = rows.u, pv = rows.v
        let pairs = width / 2
        for i in 0..<pairs {
            pu[2 &* i] = u[i]; pu[2 &* i &+ 1] = u[i]
            pv[2 &* i] = v[i]; pv[2 &* i &+ 1] = v[i]
        }
        if width % 2 == 1 { pu[width - 1] = u[pairs]; pv[width - 1] = v[pairs] }
    }

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
        var sum: UInt64 = 0, marked: UInt8 = 0
        for x in 0..<width {
            let (yl, cbp, crp) = terms(x)
            let e = Self.rebuiltErrorFast(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k, invKg: invKg)
            sum &+= e.error
            marks[x] = e.near ? 1 : 0
        }
        for x in 0..<width { marked |= marks[x] }
        if marked != 0 {
            for x in 0..<width where marks[x] != 0 {
                let (yl, cbp, crp) = terms(x)
                sum &-= Self.rebuiltErrorFast(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k, invKg: invKg).error
                sum &+= Self.rebuiltError(yl: yl, cbp: cbp, crp: crp, r: r[x], g: g[x], b: b[x], k)
            }
        }
        return sum
    }

    /// The round trip in full range, where the luma term is the luma itself: each rebuilt channel is the luma
    /// plus a whole offset that depends on the chroma alone — R: ⌊x_r + ½⌋ with x_r = 2(1 − kr)·(Cr − 128), B
    /// alike, G: ⌊−(kr·x_r + kb·x_b)/kg + ½⌋ — then clamped. That is the reference's rounding, whose `Double`
    /// terms are within 10^-11 of these exact fractions, except where a fraction is an exact tie (its distance
    /// to an integer is otherwise at least 1/(16·S·kg) ≈ 9·10^-10): those pixels are marked and measured
    /// again with the reference's expressions. `cb16`, `cr16`: 16 × the chroma at each pixel.
    func roundTripFull(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                       cb16: UnsafePointer<Int32>, cr16: UnsafePointer<Int32>) -> UInt64 {
        // The row in C, one copy per CPU tier (`yc_quality_rows_body.h`): the marked pixels are left out of
        // its sum, and measured here with the reference's expressions.
        var k = offsetConstants, marked: UInt8 = 0
        let marks = rows.marks
        var sum = yc_quality_full_errors(y, r, g, b, cb16, cr16, width, &k, marks, &marked)
        if marked != 0 {
            let k = (kr: kr, kb: kb, kg: kg, ar: ar, ab: ab)
            for x in 0..<width where marks[x] != 0 {
                sum &+= Self.rebuiltError(yl: Double(y[x]), cbp: Double(cb16[x]) / 16 - 128, crp: Double(cr16[x]) / 16 - 128,
                                          r: r[x], g: g[x], b: b[x], k)
            }
        }
        return sum
    }

    /// The constants of the full-range offsets (`roundTripFull`; computed by `yc_quality_rows_body.h`):
    /// R, B: ⌊(2(S − k)(c16 − 2048) + 8S) / 16S⌋, kept positive by 256·16S, exact in 32 bits (`aR`, `aB`, `bias`);
    /// G: (−2kr(S − kr)(cr16 − 2048) − 2kb(S − kb)(cb16 − 2048) + 8S·kg) / (16S·kg), the numerator an exact
    /// integer in Double (below 2^37), the quotient (+256) within 10^-13 (`gR`, `gB`, `gBias`, `invG`).
    var offsetConstants: yc_quality_offset_k {
        let S = Int32(ColorMatrix.scale), s64 = Int64(S)
        precondition(16 * S == 160_000, "the offsets divide by the literal 16·S (a constant divisor vectorises)")
        return yc_quality_offset_k(aR: 2 &* (S &- Int32(ikr)), aB: 2 &* (S &- Int32(ikb)), bias: 8 &* S &+ 256 &* 16 &* S,
                                   gR: Double(-2 * ikr * (s64 - ikr)), gB: Double(-2 * ikb * (s64 - ikb)),
                                   gBias: Double(8 * s64 * ikg), invG: 1 / Double(16 * s64 * ikg))
    }

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
        let r = rows.r, g = rows.g, b = rows.b, oR = rows.nR, oG = rows.nG, oB = rows.nB, marks = rows.nMarks
        let cw = (width + 1) / 2
        // The row in C, one copy per CPU tier (`yc_quality_rows_body.h`), the marked samples' pixels left out
        // and measured here with the reference's expressions.
        var sum = yc_quality_pair_errors(y, r, g, b, oR, oG, oB, marks, width), marked: UInt8 = 0
        for i in 0..<cw { marked |= marks[i] }
        if marked != 0 {
            let k = (kr: kr, kb: kb, kg: kg, ar: ar, ab: ab), u = rows.now, v = rows.now + cw
            for x in 0..<width where marks[x / 2] != 0 {
                let i = x / 2
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
        return roundTrip(rows.r, rows.g, rows.b, y, scale: 1, cb: { Int32(pu[$0]) }, cr: { Int32(pv[$0]) })
    }

    /// The round trip with bilinear chroma of a row (planar `r`, `g`, `b`, luma `y`): `own` is the chroma row
    /// pair (U then V) covering it, `other` the one blended in with weight ¼ (above an even row, below an odd
    /// one). Per chroma column the vertical sum 3·own + other, padded with the edge column; per pixel
    /// 3·near + far, over 16 — the reference's `(3 * near + far) / 16`, exact in `Double`.
    func bilinearError(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                       own o: UnsafePointer<UInt8>, other t: UnsafePointer<UInt8>) -> UInt64 {
        let cw = (width + 1) / 2
        let cb = rows.columnSums, cr = cb + (cw + 2)
        let cb1 = cb + 1, cr1 = cr + 1, ov = o + cw, tv = t + cw
        for i in 0..<cw {
            cb1[i] = 3 &* Int32(o[i]) &+ Int32(t[i])
            cr1[i] = 3 &* Int32(ov[i]) &+ Int32(tv[i])
        }
        cb[0] = cb[1]; cb[cw + 1] = cb[cw]
        cr[0] = cr[1]; cr[cw + 1] = cr[cw]
        // Per pixel: column i is padded column i + 1; the even pixel blends in the column before, the odd one after.
        let fb = rows.c16b, fr = rows.c16r, cb2 = cb + 2, cr2 = cr + 2
        let pairs = width / 2
        for i in 0..<pairs {
            fb[2 &* i] = 3 &* cb1[i] &+ cb[i]; fb[2 &* i &+ 1] = 3 &* cb1[i] &+ cb2[i]
            fr[2 &* i] = 3 &* cr1[i] &+ cr[i]; fr[2 &* i &+ 1] = 3 &* cr1[i] &+ cr2[i]
        }
        if width % 2 == 1 {
            fb[width - 1] = 3 &* cb[pairs + 1] &+ cb[pairs]
            fr[width - 1] = 3 &* cr[pairs + 1] &+ cr[pairs]
        }
        if full { return roundTripFull(r, g, b, y, cb16: fb, cr16: fr) }
        return roundTrip(r, g, b, y, scale: 16, cb: { fb[$0] }, cr: { fr[$0] })
    }

    /// The waiting odd row's error, with its own chroma row and the one below it.
    func waitingError(own: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>) -> UInt64 {
        bilinearError(rows.wr, rows.wg, rows.wb, rows.wy, own: own, other: below)
    }

    /// SSIM's 8×8 windows, every 4 rows and columns: each picture row was added to its 4-row block's column
    /// sums (`addExact`); after row `r`, a finished block is reduced to 4-column groups, and with the block
    /// before it gives the windows whose rows are those 8 (a window is 2×2 groups). Each row is summed once,
    /// where summing each window's 64 pixels would take every pixel 4 times.
    mutating func finishBlock(_ r: Int) {
        let w = width
        let ca = rows.colA, caa = rows.colAA, cb = rows.colB, cbb = rows.colBB, cab = rows.colAB
        guard r % 4 == 3 else { return }
        let m = r / 4, n4 = w / 4, stride = w / 4 + 1
        let g = rows.groups + (m % 2) * 5 * stride
        let ga = g, gb = g + stride, gaa = gb + stride, gbb = gaa + stride, gab = gbb + stride
        for j in 0..<n4 {
            let c = 4 &* j, c1 = c &+ 1, c2 = c &+ 2, c3 = c &+ 3
            ga[j] = Int64(ca[c] &+ ca[c1] &+ ca[c2] &+ ca[c3])
            gaa[j] = Int64(caa[c] &+ caa[c1] &+ caa[c2] &+ caa[c3])
            gb[j] = Int64(cb[c]) &+ Int64(cb[c1]) &+ Int64(cb[c2]) &+ Int64(cb[c3])
            gbb[j] = cbb[c] &+ cbb[c1] &+ cbb[c2] &+ cbb[c3]
            gab[j] = cab[c] &+ cab[c1] &+ cab[c2] &+ cab[c3]
        }
        guard m >= 1 else { return }
        let p = rows.groups + ((m - 1) % 2) * 5 * stride
        let pa = p, pb = p + stride, paa = pb + stride, pbb = paa + stride, pab = pbb + stride
        // Each window's SSIM into a row of values (a loop that vectorises), then their sum in order.
        let nw = (w - 8) / 4 + 1, out = rows.windows
        let qd = Double(qY), invKQ = 1 / (64 * qd), invK2Q = 1 / (4096 * qd), invK2Q2 = 1 / (4096 * qd * qd)
        @inline(__always) func windows(full: Bool) {
            for j in 0..<nw {
                let j1 = j &+ 1
                out[j] = Self.ssim8(full: full, invKQ: invKQ, invK2Q: invK2Q, invK2Q2: invK2Q2,
                                    a: ga[j] &+ ga[j1] &+ pa[j] &+ pa[j1], b: gb[j] &+ gb[j1] &+ pb[j] &+ pb[j1],
                                    aa: gaa[j] &+ gaa[j1] &+ paa[j] &+ paa[j1], bb: gbb[j] &+ gbb[j1] &+ pbb[j] &+ pbb[j1],
                                    ab: gab[j] &+ gab[j1] &+ pab[j] &+ pab[j1])
            }
        }
        if full { windows(full: true) } else { windows(full: false) }
        var total = 0.0
        for j in 0..<nw { total += out[j] }
        ssimSum += total
        ssimCount += nw
    }

    /// `ssim` for an 8×8 window, with its divisions by 64, 64·Q, 64²·Q and 64²·Q² as products by reciprocals.
    /// In full range every numerator fits 64 bits (b below 2.6·10^6: k·Σb² and (Σb)² below 2.8·10^16), so the
    /// loop vectorises; limited range takes k·Σb² − (Σb)² in 128 bits.
    @inline(__always)
    static func ssim8(full: Bool, invKQ: Double, invK2Q: Double, invK2Q2: Double,
                      a: Int64, b: Int64, aa: Int64, bb: Int64, ab: Int64) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let ma = Double(a) * (1.0 / 64), mb = Double(b) * invKQ
        let va = Double(64 &* aa &- a &* a) * (1.0 / 4096)
        let vbn: Double
        if full {
            vbn = Double(64 &* bb &- b &* b)
        } else {
            let v = Int128(64) * Int128(bb) - Int128(b) * Int128(b)
            vbn = Double(UInt64(truncatingIfNeeded: v >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: v))
        }
        let vb = vbn * invK2Q2, cov = Double(64 &* ab &- a &* b) * invK2Q
        return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    }

    /// SSIM windows smaller than 8 (a picture under 8 pixels wide or high) whose last row is `lastRow`: column
    /// sums over the window's rows (from the rings), then windows of n columns every 4.
    mutating func addSSIM(lastRow: Int) {
        let n = window, w = width
        let first = lastRow - n + 1
        guard first >= 0 else { return }
        var total = 0.0, count = 0
        let sa = rows.sums, sb = sa + w, saa = sb + w, sbb = saa + w, sab = sbb + w
        sa.update(repeating: 0, count: 5 * w)
        for r in first...lastRow {
            let a = rows.aRing + (r % 8) * w, b = rows.bRing + (r % 8) * w
            for x in 0..<w {
                let av = Int64(a[x]), bv = Int64(b[x])
                sa[x] &+= av; sb[x] &+= bv; saa[x] &+= av &* av; sbb[x] &+= bv &* bv; sab[x] &+= av &* bv
            }
        }
        var x = 0
        while x + n <= w {
            var a: Int64 = 0, b: Int64 = 0, aa: Int64 = 0, bb: Int64 = 0, ab: Int64 = 0
            for i in x..<(x + n) { a &+= sa[i]; b &+= sb[i]; aa &+= saa[i]; bb &+= sbb[i]; ab &+= sab[i] }
            total += Self.ssim(n: n, q: qY, a: a, b: b, aa: aa, bb: bb, ab: ab)
            count += 1
            x += 4
        }
        ssimSum += total
        ssimCount += count
    }

    /// One window's SSIM from its exact sums (a: output luma, b: Q·exact luma, over k = n² pixels): the means,
    /// variances and covariance from integer numerators, C1 = (0.01·255)², C2 = (0.03·255)².
    @inline(__always)
    static func ssim(n: Int, q: Int64, a: Int64, b: Int64, aa: Int64, bb: Int64, ab: Int64) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let k = Int64(n * n), kd = Double(k), qd = Double(q)
        let ma = Double(a) / kd, mb = Double(b) / (kd * qd)
        let va = Double(k &* aa &- a &* a) / (kd * kd)
        // k·Σb² and (Σb)² pass 2^63 in limited range: 128 bits, then the difference (≥ 0) as a Double.
        let vbn = Int128(k) * Int128(bb) - Int128(b) * Int128(b)
        let vb = (Double(UInt64(truncatingIfNeeded: vbn >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: vbn)))
            / (kd * kd * qd * qd)
        let cov = Double(k &* ab &- a &* b) / (kd * kd * qd)
        return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    }

    /// The measures, once every row was added.
    public func result() -> QualityReport {
        if let reference { return reference.result() }
        precondition(row == height, "every source row must be added")
        let px = Double(width * height)
        // An even height leaves its last row waiting: there is no chroma row below it, so its own is repeated.
        let bilinear = sumBilinear &+ (height % 2 == 0 ? waitingError(own: rows.now, below: rows.now) : 0)
        func mse(_ sum: UInt128, _ q: Int64) -> Double { Double(sum) / (Double(q) * Double(q)) / px }
        return QualityReport(psnrY: QualityReport.psnr(mse: mse(exactY, qY)),
                             psnrCb: QualityReport.psnr(mse: mse(exactCb, cbMul)),
                             psnrCr: QualityReport.psnr(mse: mse(exactCr, crMul)),
                             psnrRGB: QualityReport.psnr(mse: Double(sumRGB) / (3 * px)),
                             ssimY: ssimCount == 0 ? 1 : ssimSum / Double(ssimCount),
                             psnrRGBBilinear: QualityReport.psnr(mse: Double(bilinear) / (3 * px)))
    }
}
