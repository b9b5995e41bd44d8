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
/// Every value is an integer (1/64 of a code value, Q14 coefficients, shifts, one division per output
/// sample): the bytes are the same on every CPU and for either `KernelChoice`. The hot rows (rebuild,
/// blends, adjoint, chroma move, luma) are C (`CSIMD/yc_sharp_rows_body.h`, one copy per CPU tier); this
/// class keeps the wavefront and the rings.
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
    let k: Coefficients
    private var kRows: yc_sharp_coefficients

    /// Rows held, in a ring by row number: the source, 1/64 code values as six planes of `cw` Int16 samples
    /// (R, G, B of the even columns, then of the odd ones), and the luma being solved (even, odd).
    private let ringRows: Int
    private let sourceRows: UnsafeMutablePointer<Int16>
    private let lumaRows: UnsafeMutablePointer<Int16>
    /// Chroma by pair, in a ring: three generations (pass k reads k mod 3, keeps k − 1 for momentum, writes
    /// k + 1) × Cb, Cr × `cw`, C′ in 1/64.
    private let chroma: UnsafeMutablePointer<Int16>
    /// Per chroma-moving pass, the adjoint's sums (Cb, Cr) of the three pairs its rows reach, by pair mod 3;
    /// then one row's vertical chroma blends (padded by one sample each side) and residual chroma at even and
    /// odd columns (padded for the adjoint).
    private let scratch: UnsafeMutablePointer<Int32>
    private let scratchCount: Int
    /// Rows pushed (the repeat of an odd last row counted) and written; per pass, the next pair it handles
    /// and the pairs whose chroma it has moved.
    private var pushed = 0, written = 0
    private var front: [Int], moved: [Int]

    /// Q14 coefficients: luma, the residual's chroma, and the inverse (R = Y + rCr·Cr, G = Y − gCb·Cb − gCr·Cr,
    /// B = Y + bCb·Cb), each the exact ratio of the matrix's 1/10000 weights rounded half up.
    struct Coefficients {
        let yR: Int32, yG: Int32, yB: Int32
        let cbR: Int32, cbG: Int32, crG: Int32, crB: Int32
        let rCr: Int32, gCb: Int32, gCr: Int32, bCb: Int32

        init(_ m: ColorMatrix) {
            let s = ColorMatrix.scale, kr = m.kr, kb = m.kb, kg = m.kg
            /// ⌊16384·num/den + ½⌋.
            func q(_ num: Int, _ den: Int) -> Int32 { Int32((2 * 16384 * num + den) / (2 * den)) }
            yR = q(kr, s)
            yB = q(kb, s)
            yG = 16384 - yR - yB                    // grey stays grey: the weights sum to 1 exactly
            cbR = -q(kr, 2 * (s - kb))
            cbG = -8192 - cbR                       // Cb′ = B/2 − (Kr·R + Kg·G)/(2(1 − Kb)): sums to 0
            crB = -q(kb, 2 * (s - kr))
            crG = -8192 - crB
            rCr = q(2 * (s - kr), s)
            bCb = q(2 * (s - kb), s)
            gCb = q(2 * kb * (s - kb), s * kg)
            gCr = q(2 * kr * (s - kr), s * kg)
        }

        /// The same for the C rows.
        var rows: yc_sharp_coefficients {
            yc_sharp_coefficients(yR: yR, yG: yG, yB: yB, cbR: cbR, cbG: cbG, crG: crG, crB: crB, rCr: rCr, gCb: gCb,
                                  gCr: gCr, bCb: bCb)
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
        k = Coefficients(spec.matrix)
        kRows = k.rows
        // In flight: at most a band and `lagRows` rows, and the pair before them (the last pass reads it).
        ringRows = min(bandRows + Self.lagRows + 4, 2 * pairs)
        sourceRows = .allocate(capacity: ringRows * 6 * cw)
        lumaRows = .allocate(capacity: ringRows * 2 * cw)
        chroma = .allocate(capacity: ringRows / 2 * 6 * cw)
        scratchCount = (Self.passes - 1) * 6 * cw + 2 * (cw + 2) + 4 * (cw + 1)
        scratch = .allocate(capacity: scratchCount)
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
    public var byteCount: Int { 2 * ringRows * 8 * cw + 2 * ringRows / 2 * 6 * cw + 4 * scratchCount }

    /// Takes the next `count` source rows (`rowBytes` apart, in `source`'s format): an even count unless they
    /// end the picture.
    public func push(_ band: UnsafeRawPointer, rowBytes: Int, count: Int) {
        precondition(pushed + count <= height && (count & 1 == 0 || pushed + count == height))
        for r in 0..<count {
            let row = pushed
            importRow(band + r * rowBytes, into: sourceRow(row))
            take(row)
            if row == height - 1 && height & 1 == 1 {       // the odd last row, repeated
                sourceRow(row + 1).update(from: sourceRow(row), count: 6 * cw)
                take(row + 1)
            }
        }
    }

    /// The rows that can be written now: those the last pass can reach, at most `bandRows`.
    public var ready: Range<Int> {
        let end = pushed >= height ? height : max(written, pushed - Self.lagRows)
        return written..<min(end, written + bandRows)
    }

    /// Runs the passes as far as the rows pushed allow, and writes the `ready` rows (luma rows and the chroma
    /// rows they start) into `t`, which must hold them.
    public func write(into t: PlaneTargets) {
        let out = ready
        guard !out.isEmpty else { return }
        precondition(t.width == width && t.height == height)
        for pass in 0..<(Self.passes - 1) {
            while front[pass] < pairs && canHandle(pass, front[pass]) { handle(pass, front[pass]) }
        }
        let last = Self.passes - 1, end = (out.upperBound + 1) / 2
        while front[last] < end {
            precondition(canHandle(last, front[last]), "the last pass reaches every ready row")
            handle(last, front[last])
        }
        writeRows(out, into: t)
        written = out.upperBound
    }

    /// A whole picture in memory, pushed `bandRows` rows at a time (tests and benchmarks).
    public static func convert(pixels: UnsafeRawPointer, rowBytes: Int, width: Int, height: Int, layout: PixelLayout,
                               spec: ConversionSpec, source: SourceFormat, bandRows: Int = 64) -> YUVImage {
        var image = YUVImage(width: width, height: height, layout: layout)
        let sharp = SharpYUV420(spec: spec, source: source, width: width, height: height, bandRows: bandRows)
        image.bytes.withUnsafeMutableBufferPointer { out in
            let t = PlaneTargets(picture: out.baseAddress!, width: width, height: height, layout: layout)
            var row = 0
            while row < height {
                let n = min(bandRows, height - row)
                sharp.push(pixels + row * rowBytes, rowBytes: rowBytes, count: n)
                row += n
                sharp.write(into: t)
            }
            while !sharp.ready.isEmpty { sharp.write(into: t) }
        }
        return image
    }

    // MARK: the rows

    @inline(__always) func sourceRow(_ row: Int) -> UnsafeMutablePointer<Int16> { sourceRows + row % ringRows * 6 * cw }
    @inline(__always) func lumaRow(_ row: Int) -> UnsafeMutablePointer<Int16> { lumaRows + row % ringRows * 2 * cw }
    /// Generation `g` (mod 3) of chroma component `c` (0 Cb, 1 Cr) of pair `j`.
    @inline(__always) func chromaRow(_ g: Int, _ c: Int, _ j: Int) -> UnsafeMutablePointer<Int16> {
        chroma + ((j % (ringRows / 2)) * 6 + (g % 3) * 2 + c) * cw
    }
    /// Pass `pass`'s adjoint sums (component `c`) for pair `j`.
    @inline(__always) func adjointSums(_ pass: Int, _ j: Int, _ c: Int) -> UnsafeMutablePointer<Int32> {
        scratch + ((pass * 3 + j % 3) * 2 + c) * cw
    }

    /// One source row as six planes of 1/64 code values (8-bit: ×64; 16-bit: ×16320/65535, rounded): R, G, B
    /// of the even columns, then of the odd ones; an odd last column is repeated as the odd one.
    private func importRow(_ src: UnsafeRawPointer, into dst: UnsafeMutablePointer<Int16>) {
        let n = cw, pairs = width / 2
        let rE = dst, rO = dst + n, gE = dst + 2 * n, gO = dst + 3 * n, bE = dst + 4 * n, bO = dst + 5 * n
        switch source {
        case .rgb8, .rgba8:
            let p = src.assumingMemoryBound(to: UInt8.self), step = source.bytesPerPixel
            @inline(__always) func v(_ q: UnsafePointer<UInt8>, _ c: Int) -> Int16 { Int16(q[c]) &<< 6 }
            for i in 0..<pairs {
                let e = p + i &* (2 &* step), o = e + step
                (rE[i], gE[i], bE[i]) = (v(e, 0), v(e, 1), v(e, 2))
                (rO[i], gO[i], bO[i]) = (v(o, 0), v(o, 1), v(o, 2))
            }
            if width & 1 == 1 {
                let e = p + (width - 1) * step
                (rE[pairs], gE[pairs], bE[pairs]) = (v(e, 0), v(e, 1), v(e, 2))
            }
        case .rgb16, .rgba16:
            let p = src.assumingMemoryBound(to: UInt16.self)
            @inline(__always) func v(_ x: Int, _ c: Int) -> Int16 { Int16((Int(p[3 * x + c]) * 16320 + 32767) / 65535) }
            for x in 0..<width {
                let i = x >> 1
                if x & 1 == 0 { (rE[i], gE[i], bE[i]) = (v(x, 0), v(x, 1), v(x, 2)) } else { (rO[i], gO[i], bO[i]) = (v(x, 0), v(x, 1), v(x, 2)) }
            }
        }
        if width & 1 == 1 { (rO[n - 1], gO[n - 1], bO[n - 1]) = (rE[n - 1], gE[n - 1], bE[n - 1]) }
    }

    /// A source row just imported: its exact luma, and — when it completes a pair — the pair's box chroma (the
    /// mean of the block's chroma, one rounding), as generation 0 and as the generation before (no momentum
    /// at first).
    private func take(_ row: Int) {
        let cw = self.cw, s = UnsafePointer(sourceRow(row)), y = lumaRow(row)
        yc_sharp_luma(s, s + 2 * cw, s + 4 * cw, y, 2 * cw, &kRows)
        pushed = row + 1
        guard row & 1 == 1 else { return }
        let j = row / 2, a = UnsafePointer(sourceRow(row - 1))
        @inline(__always) func planes(_ p: Int) -> (UnsafePointer<Int16>, UnsafePointer<Int16>, UnsafePointer<Int16>,
                                                      UnsafePointer<Int16>) {
            (a + p * cw, a + (p + 1) * cw, s + p * cw, s + (p + 1) * cw)
        }
        let (r0, r1, r2, r3) = planes(0), (g0, g1, g2, g3) = planes(2), (b0, b1, b2, b3) = planes(4)
        let cb = chromaRow(0, 0, j), cr = chromaRow(0, 1, j), k = self.k
        for i in 0..<cw {
            let r = Int32(r0[i]) &+ Int32(r1[i]) &+ Int32(r2[i]) &+ Int32(r3[i])
            let g = Int32(g0[i]) &+ Int32(g1[i]) &+ Int32(g2[i]) &+ Int32(g3[i])
            let bl = Int32(b0[i]) &+ Int32(b1[i]) &+ Int32(b2[i]) &+ Int32(b3[i])
            cb[i] = Int16(truncatingIfNeeded: (k.cbR &* r &+ k.cbG &* g &+ 8192 &* bl &+ 32768) &>> 16)
            cr[i] = Int16(truncatingIfNeeded: (8192 &* r &+ k.crG &* g &+ k.crB &* bl &+ 32768) &>> 16)
        }
        chromaRow(2, 0, j).update(from: cb, count: cw)
        chromaRow(2, 1, j).update(from: cr, count: cw)
    }

    // MARK: the passes

    /// Whether pass `pass` can handle pair `j`: the chroma it reads (pairs j − 1 … j + 1) is there — pushed
    /// for the first pass, moved by the pass before for the others.
    private func canHandle(_ pass: Int, _ j: Int) -> Bool {
        let below = min(j + 1, pairs - 1)
        return pass == 0 ? pushed >= 2 * below + 2 : moved[pass - 1] > below
    }

    /// Pass `pass` on pair `j`: each row rebuilt and its luma moved; for a chroma-moving pass, each row's part
    /// of the adjoint added to the sums of the pairs it reaches, and the chroma of the pair before moved (of
    /// this pair too when it is the last).
    private func handle(_ pass: Int, _ j: Int) {
        let cw = self.cw, moveChroma = pass < Self.passes - 1
        let cvB = scratch + (Self.passes - 1) * 6 * cw, cvR = cvB + (cw + 2)
        let ebE = cvR + (cw + 2), ebO = ebE + (cw + 1), erE = ebO + (cw + 1), erO = erE + (cw + 1)
        if moveChroma {
            // The sums of this pair and the next start here (the slot held pair j − 2's, already moved).
            for p in (j == 0 ? 0 : j + 1)..<min(j + 2, pairs) {
                adjointSums(pass, p, 0).update(repeating: 0, count: cw)
                adjointSums(pass, p, 1).update(repeating: 0, count: cw)
            }
        }
        for y in [2 * j, 2 * j + 1] {
            // The vertical half of the bilinear upsampler: 3·C(j) + C(j ∓ 1), ×4, padded by repetition.
            let other = y & 1 == 0 ? max(j - 1, 0) : min(j + 1, pairs - 1)
            yc_sharp_blend(chromaRow(pass, 0, j), chromaRow(pass, 0, other), cvB, cw)
            yc_sharp_blend(chromaRow(pass, 1, j), chromaRow(pass, 1, other), cvR, cw)
            let s = UnsafePointer(sourceRow(y))
            if moveChroma {
                yc_sharp_reconstruct(s, lumaRow(y), cvB, cvR, ebE, ebO + 1, erE, erO + 1, cw, &kRows)
                // The adjoint: across, h(i) = e(2i−1) + 3e(2i) + 3e(2i+1) + e(2i+2), the edge pixels repeated
                // (x = −1 is x = 0; x = 2cw is 2cw − 1); down, 3·h to the row's own pair and h to the pair on its
                // side (its own again at the top and bottom edges).
                for (c, e, o) in [(0, ebE, ebO), (1, erE, erO)] {
                    o[0] = e[0]
                    e[cw] = o[cw]
                    yc_sharp_adjoint(e, o, adjointSums(pass, j, c), other == j ? nil : adjointSums(pass, other, c), cw)
                }
            } else {
                yc_sharp_reconstruct(s, lumaRow(y), cvB, cvR, nil, nil, nil, nil, cw, &kRows)
            }
        }
        front[pass] = j + 1
        guard moveChroma else { return }
        if j > 0 { moveChromaRow(pass, j - 1) }
        if j == pairs - 1 { moveChromaRow(pass, j) }
    }

    /// Chroma of pair j for the next pass, once the adjoint's sums of rows 2j−1 … 2j+2 are in (×64): ×7/4,
    /// plus half the previous move.
    private func moveChromaRow(_ pass: Int, _ j: Int) {
        for c in 0..<2 {
            yc_sharp_move(adjointSums(pass, j, c), chromaRow(pass, c, j), chromaRow(pass + 2, c, j),
                          chromaRow(pass + 1, c, j), cw)
        }
        moved[pass] = j + 1
    }

    /// Rows `out` (the last pass has handled them) as code values of the range; the chroma is the last pass's.
    private func writeRows(_ out: Range<Int>, into t: PlaneTargets) {
        let full = spec.range == .full, cw = self.cw
        @inline(__always) func lumaCode(_ v: Int16) -> UInt8 {
            let y = Int32(v)
            return UInt8(truncatingIfNeeded: full ? (y &+ 32) &>> 6 : (y &* 219 &+ 16 &* 16320 &+ 8160) / 16320)
        }
        @inline(__always) func chromaCode(_ v: Int16) -> UInt8 {
            let c = Int32(v)
            return UInt8(truncatingIfNeeded: full ? (c &+ 8192 &+ 32) &>> 6 : (c &* 224 &+ 128 &* 16320 &+ 8160) / 16320)
        }
        for row in out {
            let even = lumaRow(row), odd = even + cw, dst = t.lumaRow(row)
            for i in 0..<(width / 2) {
                dst[2 &* i] = lumaCode(even[i])
                dst[2 &* i &+ 1] = lumaCode(odd[i])
            }
            if width & 1 == 1 { dst[width - 1] = lumaCode(even[cw - 1]) }
        }
        for j in (out.lowerBound / 2)..<((out.upperBound + 1) / 2) {
            let cb = chromaRow(Self.passes - 1, 0, j), cr = chromaRow(Self.passes - 1, 1, j)
            if t.layout.isBiPlanar {
                let row = t.biPlanarRow(j), uFirst = t.layout == .nv12
                for i in 0..<cw {
                    row[2 * i] = chromaCode(uFirst ? cb[i] : cr[i])
                    row[2 * i + 1] = chromaCode(uFirst ? cr[i] : cb[i])
                }
            } else {
                let (u, v) = t.chromaRows(j)
                for i in 0..<cw {
                    u[i] = chromaCode(cb[i])
                    v[i] = chromaCode(cr[i])
                }
            }
        }
    }
}
