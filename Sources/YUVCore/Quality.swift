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
///   filter places them; under 8 pixels wide or high, n×n windows, n the smaller side, at every pixel, so that
///   every pixel is in one), means and population variances (over the n² pixels), C1 = (0.01·255)²,
///   C2 = (0.03·255)², mean over the windows.
/// PSNR = 10·log10(255² / MSE); an identical plane has MSE 0 and PSNR +∞.
public struct QualityReport: Sendable, Equatable {
    public var psnrY: Double
    public var psnrCb: Double
    public var psnrCr: Double
    public var psnrRGB: Double
    public var ssimY: Double
    /// The bilinear round trip; nil for figures kept from before it was measured (`--update`'s manifest).
    public var psnrRGBBilinear: Double?
    /// Sharp chroma only: the same round trip of the box filter's planes, converted from the same RGB — what
    /// sharp chroma gained is `psnrRGBBilinear` less this (`sharpGain`). Nil otherwise, and when not measured
    /// (an input read once, a pipe; figures an `--update` manifest kept).
    public var psnrRGBBilinearBox: Double?

    public init(psnrY: Double, psnrCb: Double, psnrCr: Double, psnrRGB: Double, ssimY: Double,
                psnrRGBBilinear: Double? = nil, psnrRGBBilinearBox: Double? = nil) {
        self.psnrY = psnrY
        self.psnrCb = psnrCb
        self.psnrCr = psnrCr
        self.psnrRGB = psnrRGB
        self.ssimY = ssimY
        self.psnrRGBBilinear = psnrRGBBilinear
        self.psnrRGBBilinearBox = psnrRGBBilinearBox
    }

    /// Sharp chroma's gain through a bilinear player over the box filter, in dB; nil unless both are measured
    /// and finite (a flat picture's planes are exact either way).
    public var sharpGain: Double? {
        guard let s = psnrRGBBilinear, let b = psnrRGBBilinearBox, s.isFinite, b.isFinite else { return nil }
        return s - b
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
    /// The current row's planar R, G, B: `Rows.r`, `.g`, `.b`, or the caller's (`addPlanarRow(r:g:b:…)`).
    var source: (r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>)

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
        rows = Rows(width: width, rings: Self.rings(width: width, height: height))
        source = (UnsafePointer(rows.r), UnsafePointer(rows.g), UnsafePointer(rows.b))
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

        /// The block's 64-byte aligned parts; the rings or the blocks, not both.
        static func parts(width w: Int, rings: Bool) -> [Int] {
            let cw = (w + 1) / 2
            let (r8, b8) = (rings ? 1 : 0, rings ? 0 : 1)
            return [4 * cw, 10 * w, 4 * 2 * (cw + 2), 4 * 2 * w, r8 * 8 * w, r8 * 4 * 8 * w, r8 * 8 * 5 * w,
                    b8 * 4 * 3 * w, b8 * 8 * 2 * w, b8 * 8 * 10 * (w / 4 + 1), 4 * 3 * cw, cw,
                    b8 * 8 * (w / 4 + 1)].map { ($0 + 63) & ~63 }
        }

        init(width w: Int, rings: Bool) {
            let cw = (w + 1) / 2
            // One block.
            let parts = Self.parts(width: w, rings: rings)
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

    /// What an accumulator for a picture of this size holds (`byteCount`), before one is made: asked for first
    /// under an address-space limit, where its allocation would stop the process.
    public static func byteCount(width: Int, height: Int) -> Int {
        Rows.parts(width: width, rings: rings(width: width, height: height)).reduce(0, +)
    }

    /// SSIM's windows under 8 pixels (a picture under 8 wide or high) keep rings of rows instead of blocks.
    static func rings(width: Int, height: Int) -> Bool { min(8, width, height) < 8 }

    var window: Int { min(8, width, height) }
    /// How far apart the windows are, across and down: 4 for 8×8 windows, as FFmpeg's `ssim` filter places them;
    /// 1 for smaller ones (a picture under 8 pixels wide or high), so that every pixel is in one. Every 4 left
    /// most of such a picture out: a 1-wide strip was measured at every fourth pixel, a 3×5 picture on its top
    /// three rows (a hostile round: `ssim_y` 1.0 beside a PSNR of 62.8 dB).
    var ssimStep: Int { window < 8 ? 1 : 4 }

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
        source = (UnsafePointer(rows.r), UnsafePointer(rows.g), UnsafePointer(rows.b))
        addSplitRow(y: y, u: u, v: v)
    }

    /// Adds the next source row from the caller's planar rows `r`, `g`, `b` (8-bit, `width` each; read during
    /// the call only), with the output's luma row `y` and the U and V rows of the chroma row that covers it: a
    /// caller that makes the row itself (the direct path's `DecoderRGB`) writes it planar rather than
    /// interleaving it for `add` to split.
    public mutating func addPlanarRow(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>,
                                      y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        precondition(reference == nil, "planar rows are 8-bit")
        source = (r, g, b)
        addSplitRow(y: y, u: u, v: v)
    }

    /// Adds the row in `source`.
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
            sumBilinear &+= bilinearError(source.r, source.g, source.b, y, own: rows.now, other: row == 0 ? rows.now : rows.before)
        } else {
            rows.wr.update(from: source.r, count: w)
            rows.wg.update(from: source.g, count: w)
            rows.wb.update(from: source.b, count: w)
            rows.wy.update(from: y, count: w)
        }
        row += 1
        if window == 8 {
            finishBlock(row - 1)
        } else if row >= window && (row - window) % ssimStep == 0 {
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
            yc_quality_exact_row(source.r, source.g, source.b, rows.u, rows.v, y, exactY, width, &k, Int32(block),
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
