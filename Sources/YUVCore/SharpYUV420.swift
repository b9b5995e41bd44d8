import CSIMD

// One file of ~420 lines on purpose: the filter's passes, its wavefront over the bands and the fixed-point
// arithmetic they share read together; the passes are private to it.

/// How the 4:2:0 chroma planes are made from RGB (`--chroma-filter`).
public enum ChromaFilter: String, Sendable, CaseIterable {
    /// The contract's box: each chroma sample the exact mean of its 2×2 block, luma exact (the default;
    /// bit-exact to `yuvref.py`).
    case box
    /// Sharp chroma (`SharpYUV420`): chroma and luma chosen so that the picture a player rebuilds with
    /// bilinear chroma comes closer to the source. Deterministic integer arithmetic, outside the contract.
    case sharp

    public init?(name: String) { self.init(rawValue: name.lowercased()) }
}

/// Sharp chroma, in the spirit of libwebp's sharpyuv: instead of the box average, the chroma planes (and
/// luma with them) are chosen so that the RGB a player rebuilds from the 4:2:0 planes is close to the source.
///
/// The player modelled is the usual one for 4:2:0 — a GPU sampling the half-size chroma plane with linear
/// filtering, libjpeg's "fancy" upsampling, sharpyuv's own model: **bilinear interpolation of centre-sited
/// chroma**, i.e. luma pixel x takes ¾ of chroma sample ⌊x/2⌋ and ¼ of its neighbour on x's side (x/2 − ¼ in
/// chroma units), the edge sample repeated; the same down the rows; then the inverse matrix, clamped to 0…255.
///
/// Starting from the box (chroma) and the exact luma, each of `passes` passes rebuilds every pixel that way
/// and takes the residual r = source − rebuilt RGB (after the clamp, so a channel pinned at 0 or 255 asks for
/// nothing): luma moves by the mean of r's three channels — the luma that best fits the pixel for the chroma
/// it gets — and, in all but the last pass, chroma moves by the adjoint of the bilinear upsampler applied
/// to r's own chroma, ×7/4, plus half the previous move (momentum): a preconditioned gradient step on
/// the squared RGB error. The luma-only last pass fits luma to the final chroma. An odd last row or column
/// is solved as if repeated (as the box repeats it) and the repeat is not written.
///
/// Every value is an integer: samples in 1/64 of a code value in 16 bits; in the passes one kind of
/// multiply, mulhrs(x, q) = (x·q + 2¹⁴) >> 15 with a Q15 coefficient (one instruction on AVX2 and AVX-512);
/// the luma and box chroma at the start in 32 bits with Q14 coefficients; one division per output sample.
/// The bytes are the same on every CPU and for either `KernelChoice`. Every row is C
/// (`CSIMD/yc_sharp_rows_body.h`, one copy per CPU tier, whole vectors of 32 samples); this class keeps the
/// wavefront and the rings.
///
/// Bounds (why 16 bits never wrap): samples and luma lie in 0…16320; chroma in −8192…8160 (the box reaches
/// ±127.5 code values; every move clamps to −8192…8128); a vertical or horizontal blend 3a + b + 2 stays
/// within −32766…32642; a rebuilt channel within −15413…31672 before its clamp (B = Y + Cb + fB·Cb with
/// fB < 0.89); a residual channel within ±16320, two of them summed within ±32640; the residual's chroma and
/// the adjoint's means within ±16320 (their weights sum to 1 in magnitude). The chroma move adds the step with saturation (its clamp cuts there anyway).
///
/// It streams as a wavefront. Pass k works on row pair j once pass k − 1 has moved the chroma of pairs up to
/// j + 1 (which it does after reaching j + 2), so the passes run one behind the other, two pairs apart, each
/// pair handled once by each pass, in the order the whole picture solved pass after pass would handle it —
/// the same bytes whatever the bands. What is held is the rows between the last pass and the rows pushed:
/// `lagRows` rows behind the input, plus a band.
public final class SharpYUV420 {
    /// Passes over every row: five, four of which also move chroma (the prototype found four
    /// chroma iterations enough).
    public static let passes = 5
    /// Rows a written row lags the rows pushed: the last pass runs 2·(passes − 1) pairs behind the first,
    /// which runs one pair behind the input.
    public static let lagRows = 2 * (2 * (passes - 1) + 1)

    public let spec: ConversionSpec
    public let source: SourceFormat
    public let width: Int, height: Int
    /// Most rows a `write` hands out (the pipeline's band).
    public let bandRows: Int
    /// Chroma samples a row, and row pairs (the working picture is 2·cw × 2·pairs, odd edges repeated).
    let cw: Int, pairs: Int
    /// The matrix's coefficients for the C rows (`Coefficients`); a var, as the rows take its address.
    private var kRows: yc_sharp_coefficients

    /// Samples a plane row: `cw` rounded up to whole vectors of 32 (the C rows run in whole vectors).
    let stride: Int
    /// Samples a chroma row: `stride` and room for the padding samples −1 and `cw` and for the vectors that
    /// read around them; the row starts `chromaOffset` in.
    let chromaStride: Int
    static let chromaOffset = 32

    /// Rows held, in a ring by row number: the source, 1/64 code values as six planes of Int16 samples
    /// (R, G, B of the even columns, then of the odd ones), and the luma being solved (even, odd).
    private let ringRows: Int
    private let sourceRows: UnsafeMutablePointer<Int16>
    private let lumaRows: UnsafeMutablePointer<Int16>
    /// Chroma by pair, in a ring: three generations (pass k reads k mod 3, keeps k − 1 for momentum, writes
    /// k + 1) × Cb, Cr, C′ in 1/64, each row padded (`chromaStride`).
    private let chroma: UnsafeMutablePointer<Int16>
    /// Per chroma-moving pass, the adjoint across each row (Cb, Cr) of the last six rows, by row mod 6 (a
    /// pair's move reads four: its own and one on each side); then one row's vertical chroma blends (padded by
    /// one sample each side) and residual chroma at even and odd columns (padded for the adjoint).
    private let scratch: UnsafeMutablePointer<Int16>
    private let scratchCount: Int
    /// Rows pushed (the repeat of an odd last row counted) and written; per pass, the next pair it handles
    /// and the pairs whose chroma it has moved.
    private var pushed = 0, written = 0
    private var front: [Int], moved: [Int]

    /// The coefficients, each the exact ratio of the matrix's 1/10000 weights rounded half up. Q14 (32-bit
    /// products, at the start): luma and the box chroma. Q15 (the passes): the inverse, R = Y + Cr + fR·Cr,
    /// G = Y − gCb·Cb − gCr·Cr, B = Y + Cb + fB·Cb (2(1 − Kr) and 2(1 − Kb) lie between 1 and 2, so their
    /// fractions are the coefficients), and the residual's chroma (Cb = rB·dR + gB·dG + dB/2, Cr likewise).
    struct Coefficients {
        let yR: Int32, yG: Int32, yB: Int32
        let cbR: Int32, cbG: Int32, crG: Int32, crB: Int32
        let fR: Int16, fB: Int16, gCb: Int16, gCr: Int16
        let rB: Int16, gB: Int16, gR: Int16, bR: Int16

        init(_ m: ColorMatrix) {
            let s = ColorMatrix.scale, kr = m.kr, kb = m.kb, kg = m.kg
            /// ⌊one·num/den + ½⌋.
            func q(_ num: Int, _ den: Int, one: Int = 16384) -> Int { (2 * one * num + den) / (2 * den) }
            yR = Int32(q(kr, s))
            yB = Int32(q(kb, s))
            yG = 16384 - yR - yB                    // grey stays grey: the weights sum to 1 exactly
            cbR = -Int32(q(kr, 2 * (s - kb)))
            cbG = -8192 - cbR                       // Cb′ = B/2 − (Kr·R + Kg·G)/(2(1 − Kb)): sums to 0
            crB = -Int32(q(kb, 2 * (s - kr)))
            crG = -8192 - crB
            fR = Int16(q(2 * (s - kr), s, one: 32768) - 32768)
            fB = Int16(q(2 * (s - kb), s, one: 32768) - 32768)
            gCb = Int16(q(2 * kb * (s - kb), s * kg, one: 32768))
            gCr = Int16(q(2 * kr * (s - kr), s * kg, one: 32768))
            rB = -Int16(q(kr, 2 * (s - kb), one: 32768))
            gB = -16384 - rB                        // grey residual, no chroma
            bR = -Int16(q(kb, 2 * (s - kr), one: 32768))
            gR = -16384 - bR
        }

        /// The same for the C rows.
        var rows: yc_sharp_coefficients {
            yc_sharp_coefficients(yR: yR, yG: yG, yB: yB, cbR: cbR, cbG: cbG, crG: crG, crB: crB, fR: fR, fB: fB,
                                  gCb: gCb, gCr: gCr, rB: rB, gB: gB, gR: gR, bR: bR)
        }
    }

    /// 255 in 1/64 code values: luma and RGB lie in 0…top; chroma C′ in −128…127 (×64).
    static let top: Int32 = 255 << 6
    static let chromaLow: Int32 = -128 << 6, chromaHigh: Int32 = 127 << 6

    public init(spec: ConversionSpec, source: SourceFormat, width: Int, height: Int, bandRows: Int) {
        precondition(source != .rgba16, "16-bit RGBA rows are reduced to rgb16 before conversion")
        precondition(width > 0 && height > 0 && bandRows >= 2 && bandRows & 1 == 0)
        self.spec = spec
        self.source = source
        self.width = width
        self.height = height
        self.bandRows = bandRows
        cw = (width + 1) / 2
        pairs = (height + 1) / 2
        kRows = Coefficients(spec.matrix).rows
        stride = (cw + 31) & ~31
        chromaStride = stride + 2 * Self.chromaOffset + 64
        // In flight: at most a band and `lagRows` rows (and an odd height's repeated row), with a little slack.
        ringRows = min(bandRows + Self.lagRows + 4, 2 * pairs)
        // Zeroed: the vectors past `cw` read leftovers, never data, but nothing uninitialised.
        sourceRows = .allocate(capacity: ringRows * 6 * stride)
        sourceRows.initialize(repeating: 0, count: ringRows * 6 * stride)
        lumaRows = .allocate(capacity: ringRows * 2 * stride)
        lumaRows.initialize(repeating: 0, count: ringRows * 2 * stride)
        chroma = .allocate(capacity: ringRows / 2 * 6 * chromaStride)
        chroma.initialize(repeating: 0, count: ringRows / 2 * 6 * chromaStride)
        scratchCount = (Self.passes - 1) * 12 * stride + 2 * chromaStride + 4 * chromaStride
        scratch = .allocate(capacity: scratchCount)
        scratch.initialize(repeating: 0, count: scratchCount)
        front = Array(repeating: 0, count: Self.passes)
        moved = Array(repeating: 0, count: Self.passes)
    }

    deinit {
        sourceRows.deallocate()
        lumaRows.deallocate()
        chroma.deallocate()
        scratch.deallocate()
    }

    /// Bytes held, for a conversion's ledger.
    public var byteCount: Int { Self.byteCount(width: width, height: height, bandRows: bandRows) }

    /// What an instance for this picture holds (`byteCount`), before one is made: asked for first under an
    /// address-space limit, where its allocations would stop the process.
    public static func byteCount(width: Int, height: Int, bandRows: Int) -> Int {
        let cw = (width + 1) / 2, pairs = (height + 1) / 2
        let stride = (cw + 31) & ~31, chromaStride = stride + 2 * chromaOffset + 64
        let ringRows = min(bandRows + lagRows + 4, 2 * pairs)
        let scratchCount = (passes - 1) * 12 * stride + 2 * chromaStride + 4 * chromaStride
        return 2 * (ringRows * 8 * stride + ringRows / 2 * 6 * chromaStride + scratchCount)
    }

    /// Takes the next `count` source rows (`rowBytes` apart, in `source`'s format): an even count unless they
    /// end the picture.
    public func push(_ band: UnsafeRawPointer, rowBytes: Int, count: Int) {
        precondition(pushed + count <= height && (count & 1 == 0 || pushed + count == height))
        for r in 0..<count {
            let row = pushed
            importRow(band + r * rowBytes, into: sourceRow(row))
            take(row)
            if row == height - 1 && height & 1 == 1 {       // the odd last row, repeated
                sourceRow(row + 1).update(from: sourceRow(row), count: 6 * stride)
                take(row + 1)
            }
            if pushed & 1 == 0 { advance() }
        }
    }

    /// Every pass as far as the rows pushed allow, after each pair: the wavefront's rows stay in the caches
    /// whatever the band.
    private func advance() {
        for pass in 0..<Self.passes {
            while front[pass] < pairs && canHandle(pass, front[pass]) { handle(pass, front[pass]) }
        }
    }

    /// The rows that can be written now: those the last pass can reach, at most `bandRows`.
    public var ready: Range<Int> {
        let end = pushed >= height ? height : max(written, pushed - Self.lagRows)
        return written..<min(end, written + bandRows)
    }

    /// Writes the `ready` rows (luma rows and the chroma rows they start) into `t`, which must hold them (the
    /// passes have run as far as the rows pushed allow).
    public func write(into t: PlaneTargets) {
        let out = ready
        guard !out.isEmpty else { return }
        precondition(t.width == width && t.height == height)
        advance()
        precondition(front[Self.passes - 1] >= (out.upperBound + 1) / 2, "the last pass reaches every ready row")
        writeRows(out, into: t)
        written = out.upperBound
    }

    /// A whole picture in memory, pushed `bandRows` rows at a time (tests and benchmarks).
    public static func convert(pixels: UnsafeRawPointer, rowBytes: Int, width: Int, height: Int, layout: PixelLayout,
                               spec: ConversionSpec, source: SourceFormat, bandRows: Int = 64) -> YUVImage {
        var image = YUVImage(width: width, height: height, layout: layout)
        image.bytes.withUnsafeMutableBufferPointer { out in
            convert(pixels: pixels, rowBytes: rowBytes, width: width, height: height, output: out.baseAddress!,
                    layout: layout, spec: spec, source: source, bandRows: bandRows)
        }
        return image
    }

    /// The same into `output`, which holds the picture in `layout`.
    public static func convert(pixels: UnsafeRawPointer, rowBytes: Int, width: Int, height: Int,
                               output: UnsafeMutablePointer<UInt8>, layout: PixelLayout, spec: ConversionSpec,
                               source: SourceFormat, bandRows: Int = 64) {
        let sharp = SharpYUV420(spec: spec, source: source, width: width, height: height, bandRows: bandRows)
        let t = PlaneTargets(picture: output, width: width, height: height, layout: layout)
        var row = 0
        while row < height {
            let n = min(bandRows, height - row)
            sharp.push(pixels + row * rowBytes, rowBytes: rowBytes, count: n)
            row += n
            sharp.write(into: t)
        }
        while !sharp.ready.isEmpty { sharp.write(into: t) }
    }

    // MARK: the rows

    @inline(__always) func sourceRow(_ row: Int) -> UnsafeMutablePointer<Int16> { sourceRows + row % ringRows * 6 * stride }
    @inline(__always) func lumaRow(_ row: Int) -> UnsafeMutablePointer<Int16> { lumaRows + row % ringRows * 2 * stride }
    /// Generation `g` (mod 3) of chroma component `c` (0 Cb, 1 Cr) of pair `j`: sample 0 (−1 and `cw` are
    /// its padding).
    @inline(__always) func chromaRow(_ g: Int, _ c: Int, _ j: Int) -> UnsafeMutablePointer<Int16> {
        chroma + ((j % (ringRows / 2)) * 6 + (g % 3) * 2 + c) * chromaStride + Self.chromaOffset
    }
    /// Pass `pass`'s adjoint across row `row` (component `c`), rows outside the working picture (−1 and
    /// 2·pairs) being its edge rows repeated.
    @inline(__always) func adjointRow(_ pass: Int, _ c: Int, _ row: Int) -> UnsafeMutablePointer<Int16> {
        let r = min(max(row, 0), 2 * pairs - 1)
        return scratch + ((pass * 6 + r % 6) * 2 + c) * stride
    }

    /// One source row as six planes of 1/64 code values (8-bit: ×64; 16-bit: ×16320/65535, rounded): R, G, B
    /// of the even columns, then of the odd ones; an odd last column is repeated as the odd one.
    private func importRow(_ src: UnsafeRawPointer, into dst: UnsafeMutablePointer<Int16>) {
        switch source {
        case .rgb8, .rgba8:
            yc_sharp_import8(src.assumingMemoryBound(to: UInt8.self), source.bytesPerPixel, width, dst, stride)
        case .rgb16, .rgba16:
            yc_sharp_import16(src.assumingMemoryBound(to: UInt16.self), width, dst, stride)
        }
    }

    /// A source row just imported: its exact luma, and — when it completes a pair — the pair's box chroma (the
    /// mean of the block's chroma, one rounding), as generation 0 and as the generation before (no momentum
    /// at first).
    private func take(_ row: Int) {
        let s = UnsafePointer(sourceRow(row))
        yc_sharp_luma(s, s + 2 * stride, s + 4 * stride, lumaRow(row), 2 * stride, &kRows)
        pushed = row + 1
        guard row & 1 == 1 else { return }
        let j = row / 2, cb = chromaRow(0, 0, j), cr = chromaRow(0, 1, j)
        yc_sharp_box(sourceRow(row - 1), s, cb, cr, cw, stride, &kRows)
        (chromaRow(2, 0, j) - 1).update(from: cb - 1, count: cw + 2)
        (chromaRow(2, 1, j) - 1).update(from: cr - 1, count: cw + 2)
    }

    // MARK: the passes

    /// Whether pass `pass` can handle pair `j`: the chroma it reads (pairs j − 1 … j + 1) is there — pushed
    /// for the first pass, moved by the pass before for the others.
    private func canHandle(_ pass: Int, _ j: Int) -> Bool {
        let below = min(j + 1, pairs - 1)
        return pass == 0 ? pushed >= 2 * below + 2 : moved[pass - 1] > below
    }

    /// Pass `pass` on pair `j`: each row rebuilt and its luma moved; for a chroma-moving pass, each row's
    /// adjoint across, and the chroma of the pair before moved (of this pair too when it is the last).
    private func handle(_ pass: Int, _ j: Int) {
        let cw = self.cw, stride = self.stride, moveChroma = pass < Self.passes - 1
        let cvB = scratch + (Self.passes - 1) * 12 * stride, cvR = cvB + chromaStride
        let ebE = cvR + chromaStride, ebO = ebE + chromaStride, erE = ebO + chromaStride, erO = erE + chromaStride
        for y in 2 * j...2 * j + 1 {
            // The vertical half of the bilinear upsampler: (3·C(j) + C(j ∓ 1)) / 4, padded by repetition.
            let other = y & 1 == 0 ? max(j - 1, 0) : min(j + 1, pairs - 1)
            yc_sharp_blend(chromaRow(pass, 0, j), chromaRow(pass, 0, other), cvB, stride + 32)
            yc_sharp_blend(chromaRow(pass, 1, j), chromaRow(pass, 1, other), cvR, stride + 32)
            let s = UnsafePointer(sourceRow(y))
            guard moveChroma else {
                yc_sharp_reconstruct(s, lumaRow(y), cvB, cvR, nil, nil, nil, nil, stride, &kRows)
                continue
            }
            yc_sharp_reconstruct(s, lumaRow(y), cvB, cvR, ebE, ebO + 1, erE, erO + 1, stride, &kRows)
            // The adjoint across the row, as a mean: h(i) = (e(2i−1) + 3e(2i) + 3e(2i+1) + e(2i+2)) / 8, the edge
            // pixels repeated (x = −1 is x = 0; x = 2cw is 2cw − 1). Down the rows, in the move.
            ebO[0] = ebE[0]
            ebE[cw] = ebO[cw]
            yc_sharp_adjoint(ebE, ebO, adjointRow(pass, 0, y), stride)
            erO[0] = erE[0]
            erE[cw] = erO[cw]
            yc_sharp_adjoint(erE, erO, adjointRow(pass, 1, y), stride)
        }
        front[pass] = j + 1
        guard moveChroma else { return }
        if j > 0 { moveChromaRow(pass, j - 1) }
        if j == pairs - 1 { moveChromaRow(pass, j) }
    }

    /// Chroma of pair j for the next pass, once the adjoint across rows 2j−1 … 2j+2 is in: their mean down the
    /// rows (weights 1, 3, 3, 1; the edge rows repeated), ×7/4, plus half the previous move.
    private func moveChromaRow(_ pass: Int, _ j: Int) {
        for c in 0..<2 {
            yc_sharp_move(adjointRow(pass, c, 2 * j - 1), adjointRow(pass, c, 2 * j), adjointRow(pass, c, 2 * j + 1),
                          adjointRow(pass, c, 2 * j + 2), chromaRow(pass, c, j), chromaRow(pass + 2, c, j),
                          chromaRow(pass + 1, c, j), cw)
        }
        moved[pass] = j + 1
    }

    /// Rows `out` (the last pass has handled them) as code values of the range; the chroma is the last pass's.
    private func writeRows(_ out: Range<Int>, into t: PlaneTargets) {
        let full: Int32 = spec.range == .full ? 1 : 0
        for row in out {
            let even = lumaRow(row)
            yc_sharp_write_luma(even, even + stride, t.lumaRow(row), width, full)
        }
        for j in (out.lowerBound / 2)..<((out.upperBound + 1) / 2) {
            let cb = chromaRow(Self.passes - 1, 0, j), cr = chromaRow(Self.passes - 1, 1, j)
            if t.layout.isBiPlanar {
                let row = t.biPlanarRow(j), uFirst = t.layout == .nv12
                yc_sharp_write_chroma(cb, cr, uFirst ? row : row + 1, uFirst ? row + 1 : row, 2, cw, full)
            } else {
                let (u, v) = t.chromaRows(j)
                yc_sharp_write_chroma(cb, cr, u, v, 1, cw, full)
            }
        }
    }
}
