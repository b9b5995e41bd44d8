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
/// The player modelled is the default for 4:2:0 everywhere — GPU texture sampling, FFmpeg's and mpv's
/// scalers, libjpeg's "fancy" upsampling: **bilinear interpolation of centre-sited chroma**, i.e. luma
/// pixel x takes ¾ of chroma sample ⌊x/2⌋ and ¼ of its neighbour on x's side (x/2 − ¼ in chroma units),
/// the edge sample repeated; the same down the rows; then the exact inverse matrix, clamped to 0…255.
///
/// Starting from the box (chroma) and the exact luma, each of `passes` passes rebuilds every pixel that way
/// and takes the residual r = source − rebuilt RGB (after the clamp, so a channel pinned at 0 or 255 asks for
/// nothing): luma moves by the mean of r's three channels — the luma that best fits the pixel for the chroma
/// it gets — and, in all but the last pass, chroma moves by the adjoint of the bilinear upsampler applied
/// to r's own chroma, ×7/4, plus half the previous move (momentum): a preconditioned gradient step on
/// the squared RGB error. The luma-only last pass fits luma to the final chroma.
///
/// Every value is an integer (1/64 of a code value, Q14 coefficients, shifts and one division per output
/// sample): the bytes are the same on every CPU and for either `KernelChoice`. The picture streams: a
/// pass moves each value from its neighbours within one chroma row, so after `passes` passes a row depends
/// on `contextRows` rows either side and no further. Rows are written `contextRows` rows behind the rows
/// pushed; each band is solved on itself plus that context, recomputed, which gives exactly the bytes of
/// the whole picture solved at once. An odd last row or column is solved as if repeated (as the box
/// repeats it) and the repeat is not written.
public final class SharpYUV420 {
    /// Passes over every row: five, four of which also move chroma (the prototype found four
    /// chroma iterations enough).
    public static let passes = 5
    /// Luma rows either side that an output row depends on: one chroma row (two luma rows) a pass.
    public static let contextRows = 2 * passes

    public let spec: ConversionSpec
    public let source: SourceFormat
    public let width: Int, height: Int
    /// Most rows a `write` hands out (the pipeline's band).
    public let bandRows: Int
    /// Chroma samples a row (the working width, 2·cw, has the odd last column repeated).
    let cw: Int
    let k: Coefficients

    /// Source rows pushed and still needed, 1/64 code values, each as six planes of `cw` Int16 samples: R, G,
    /// B of the even columns, then of the odd ones.
    private let rows: RowWindow
    /// Luma of the rows being solved (row-major, `2·cw` a row: even columns, then odd), 1/64 code values.
    private let luma: UnsafeMutablePointer<Int16>
    private let lumaCapacity: Int
    /// Chroma: three states (current, next, previous) × Cb, Cr × `chromaCapacity` rows × `cw`, C′ in 1/64.
    private let chroma: UnsafeMutablePointer<Int32>
    private let chromaCapacity: Int
    /// One row's vertical chroma blends (padded by one sample each side), the residual's Cb and Cr at even and
    /// odd columns (padded for the adjoint), and eight rows of the adjoint's horizontal sums (Cb, Cr).
    private let scratch: UnsafeMutablePointer<Int32>
    private let scratchCount: Int
    private var written = 0, pushed = 0

    /// Q14 coefficients: luma, the residual's chroma, and the inverse (R = Y + rCr·Cr, G = Y − gCb·Cb − gCr·Cr,
    /// B = Y + bCb·Cb).
    struct Coefficients {
        let yR: Int32, yG: Int32, yB: Int32
        let cbR: Int32, cbG: Int32, crG: Int32, crB: Int32
        let rCr: Int32, gCb: Int32, gCr: Int32, bCb: Int32

        init(_ m: ColorMatrix) {
            let s = Double(ColorMatrix.scale), kr = Double(m.kr) / s, kb = Double(m.kb) / s, kg = 1 - kr - kb
            // Computed once from the exact 1/10000 weights; rounded to Q14 the same way everywhere (the ties
            // of `.toNearestOrAwayFromZero` do not occur for these values).
            func q(_ x: Double) -> Int32 { Int32((x * 16384).rounded()) }
            yR = q(kr)
            yB = q(kb)
            yG = 16384 - yR - yB                    // grey stays grey: the weights sum to 1 exactly
            cbR = -q(kr / (2 * (1 - kb)))
            cbG = -8192 - cbR                       // Cb′ = B/2 − (Kr·R + Kg·G)/(2(1 − Kb)): sums to 0
            crB = -q(kb / (2 * (1 - kr)))
            crG = -8192 - crB
            rCr = q(2 * (1 - kr))
            bCb = q(2 * (1 - kb))
            gCb = q(2 * kb * (1 - kb) / kg)
            gCr = q(2 * kr * (1 - kr) / kg)
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
        k = Coefficients(spec.matrix)
        let held = min(bandRows + 2 * Self.contextRows, height)
        rows = RowWindow(rowBytes: 12 * cw, capacity: held)
        lumaCapacity = held + 1                 // and the repeat of an odd last row
        luma = .allocate(capacity: lumaCapacity * 2 * cw)
        chromaCapacity = (held + 1) / 2
        chroma = .allocate(capacity: 6 * chromaCapacity * cw)
        scratchCount = 2 * (cw + 2) + 4 * (cw + 1) + 16 * cw
        scratch = .allocate(capacity: scratchCount)
    }

    deinit {
        luma.deallocate()
        chroma.deallocate()
        scratch.deallocate()
    }

    /// Bytes held, for a conversion's ledger.
    public var byteCount: Int {
        rows.byteCount + 2 * lumaCapacity * 2 * cw + 4 * 6 * chromaCapacity * cw + 4 * scratchCount
    }

    /// Takes the next `count` source rows (`rowBytes` apart, in `source`'s format): an even count unless they
    /// end the picture.
    public func push(_ band: UnsafeRawPointer, rowBytes: Int, count: Int) {
        precondition(pushed + count <= height && (count & 1 == 0 || pushed + count == height))
        rows.drop(before: written - Self.contextRows)
        let dst = rows.append(count).assumingMemoryBound(to: Int16.self)
        for r in 0..<count { importRow(band + r * rowBytes, into: dst + r * 6 * cw) }
        pushed += count
    }

    /// The rows that can be written now: those with all their context pushed, at most `bandRows`.
    public var ready: Range<Int> {
        let end = pushed == height ? height : max(written, pushed - Self.contextRows)
        return written..<min(end, written + bandRows)
    }

    /// Writes the `ready` rows (luma rows and the chroma rows they start) into `t`, which must hold them.
    public func write(into t: PlaneTargets) {
        let out = ready
        guard !out.isEmpty else { return }
        precondition(t.width == width && t.height == height)
        solve(out, into: t)
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

    // MARK: the solve

    /// Solves rows `out` on themselves and `contextRows` rows either side (as many as the picture has), and
    /// writes them.
    private func solve(_ out: Range<Int>, into t: PlaneTargets) {
        let w0 = max(0, out.lowerBound - Self.contextRows), w1 = min(height, out.upperBound + Self.contextRows)
        let n = w1 - w0, ch = (n + 1) / 2, cw = self.cw
        // Row y of the window (its odd last row repeated), as six planes.
        func src(_ y: Int) -> UnsafePointer<Int16> {
            UnsafePointer(rows.row(w0 + min(y, n - 1)).assumingMemoryBound(to: Int16.self))
        }
        func lumaRow(_ y: Int) -> UnsafeMutablePointer<Int16> { luma + y * 2 * cw }
        func state(_ s: Int, _ c: Int, _ j: Int) -> UnsafeMutablePointer<Int32> {
            chroma + ((s * 2 + c) * chromaCapacity + j) * cw
        }
        let cvB = scratch, cvR = cvB + (cw + 2)
        let ebE = cvR + (cw + 2), ebO = ebE + (cw + 1), erE = ebO + (cw + 1), erO = erE + (cw + 1)
        let ring = erO + (cw + 1)
        func adjointRow(_ y: Int, _ c: Int) -> UnsafeMutablePointer<Int32> { ring + ((y & 7) * 2 + c) * cw }

        // The start: exact luma, and the box's chroma (the mean of each block's chroma, one rounding).
        let k = self.k
        let (yR, yG, yB) = (k.yR, k.yG, k.yB)
        @inline(__always) func exactLuma(_ s: UnsafePointer<Int16>, _ y: UnsafeMutablePointer<Int16>) {
            let g = s + 2 * cw, b = s + 4 * cw     // (offsets taken out of the loop, which then vectorises)
            for x in 0..<(2 * cw) {
                y[x] = Int16(truncatingIfNeeded: (yR &* Int32(s[x]) &+ yG &* Int32(g[x]) &+ yB &* Int32(b[x]) &+ 8192) &>> 14)
            }
        }
        for j in 0..<ch {
            let a = src(2 * j), b = src(2 * j + 1)
            exactLuma(a, lumaRow(2 * j))
            exactLuma(b, lumaRow(2 * j + 1))
            let cb = state(0, 0, j), cr = state(0, 1, j)
            @inline(__always) func sums(_ p: Int) -> (UnsafePointer<Int16>, UnsafePointer<Int16>, UnsafePointer<Int16>,
                                                      UnsafePointer<Int16>) {
                (a + p * cw, a + (p + 1) * cw, b + p * cw, b + (p + 1) * cw)
            }
            let (r0, r1, r2, r3) = sums(0), (g0, g1, g2, g3) = sums(2), (b0, b1, b2, b3) = sums(4)
            for i in 0..<cw {
                let r = Int32(r0[i]) &+ Int32(r1[i]) &+ Int32(r2[i]) &+ Int32(r3[i])
                let g = Int32(g0[i]) &+ Int32(g1[i]) &+ Int32(g2[i]) &+ Int32(g3[i])
                let bl = Int32(b0[i]) &+ Int32(b1[i]) &+ Int32(b2[i]) &+ Int32(b3[i])
                cb[i] = (k.cbR &* r &+ k.cbG &* g &+ 8192 &* bl &+ 32768) &>> 16
                cr[i] = (8192 &* r &+ k.crG &* g &+ k.crB &* bl &+ 32768) &>> 16
            }
            state(2, 0, j).update(from: cb, count: cw)      // the previous state: no momentum at first
            state(2, 1, j).update(from: cr, count: cw)
        }

        var (current, next, previous) = (0, 1, 2)
        /// Chroma row j of the next state: the adjoint's vertical half over rows 2j−1 … 2j+2 (edge rows
        /// repeated), ×7/4 (the sums are ×64), plus half the previous move.
        func moveChromaRow(_ j: Int) {
            let rowsIn = 2 * ch
            let r0 = max(2 * j - 1, 0), r3 = min(2 * j + 2, rowsIn - 1)
            for c in 0..<2 {
                let h0 = adjointRow(r0, c), h1 = adjointRow(2 * j, c), h2 = adjointRow(2 * j + 1, c), h3 = adjointRow(r3, c)
                let old = state(current, c, j), before = state(previous, c, j), new = state(next, c, j)
                for i in 0..<cw {
                    let t = h0[i] &+ 3 &* h1[i] &+ 3 &* h2[i] &+ h3[i]
                    let v = old[i] &+ ((7 &* t &+ 128 &* (old[i] &- before[i]) &+ 128) &>> 8)
                    new[i] = min(max(v, Self.chromaLow), Self.chromaHigh)
                }
            }
        }

        for pass in 0..<Self.passes {
            let moveChroma = pass < Self.passes - 1
            for j in 0..<ch {
                for y in [2 * j, 2 * j + 1] {
                    // The vertical half of the bilinear upsampler: 3·C(j) + C(j ∓ 1), ×4, padded by repetition.
                    let other = y & 1 == 0 ? max(j - 1, 0) : min(j + 1, ch - 1)
                    for (c, cv) in [(0, cvB), (1, cvR)] {
                        let own = state(current, c, j), near = state(current, c, other)
                        for i in 0..<cw { cv[i + 1] = 3 &* own[i] &+ near[i] }
                        cv[0] = cv[1]
                        cv[cw + 1] = cv[cw]
                    }
                    let s = src(y)
                    if moveChroma {
                        reconstructRow(s, lumaRow(y), cvB, cvR, residual: (ebE, ebO + 1, erE, erO + 1), cw)
                        // The horizontal half of the adjoint: h(i) = e(2i−1) + 3e(2i) + 3e(2i+1) + e(2i+2), the
                        // edge pixels repeated (x = −1 is x = 0; x = 2cw is 2cw − 1).
                        for (c, e, o) in [(0, ebE, ebO), (1, erE, erO)] {
                            o[0] = e[0]
                            e[cw] = o[cw]
                            let h = adjointRow(y, c)
                            for i in 0..<cw { h[i] = o[i] &+ 3 &* e[i] &+ 3 &* o[i + 1] &+ e[i + 1] }
                        }
                    } else {
                        reconstructRow(s, lumaRow(y), cvB, cvR, residual: nil, cw)
                    }
                }
                if moveChroma && j > 0 { moveChromaRow(j - 1) }
            }
            if moveChroma {
                moveChromaRow(ch - 1)
                (current, next, previous) = (next, previous, current)
            }
        }

        writeRows(out, window: w0, chroma: { c, j in state(current, c, j) }, into: t)
    }

    /// Rebuilds one row as the player would — bilinear chroma from the vertical blends `cvB`, `cvR` (×4,
    /// padded), the inverse matrix, clamped — and moves its luma by the mean residual. With `residual`, also
    /// the residual's Cb and Cr at even and odd columns.
    @inline(__always)
    private func reconstructRow(_ s: UnsafePointer<Int16>, _ y: UnsafeMutablePointer<Int16>,
                                _ cvB: UnsafePointer<Int32>, _ cvR: UnsafePointer<Int32>,
                                residual: (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>,
                                           UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>)?, _ cw: Int) {
        let k = self.k, top = Self.top
        @inline(__always) func clamp(_ v: Int32) -> Int32 { min(max(v, 0), top) }
        @inline(__always) func pixel(_ yv: Int32, _ r: Int32, _ g: Int32, _ b: Int32, _ ub: Int32, _ ur: Int32)
            -> (y: Int32, eb: Int32, er: Int32) {
            let dr = r &- clamp(yv &+ ((k.rCr &* ur &+ 8192) &>> 14))
            let dg = g &- clamp(yv &- ((k.gCb &* ub &+ k.gCr &* ur &+ 8192) &>> 14))
            let db = b &- clamp(yv &+ ((k.bCb &* ub &+ 8192) &>> 14))
            // The mean of the three residuals: ×21845/65536 ≈ ⅓.
            let ny = clamp(yv &+ (((dr &+ dg &+ db) &* 21845 &+ 32768) &>> 16))
            return (ny, (k.cbR &* dr &+ k.cbG &* dg &+ 8192 &* db &+ 8192) &>> 14,
                    (8192 &* dr &+ k.crG &* dg &+ k.crB &* db &+ 8192) &>> 14)
        }
        let rE = s, rO = s + cw, gE = s + 2 * cw, gO = s + 3 * cw, bE = s + 4 * cw, bO = s + 5 * cw
        let yE = y, yO = y + cw
        for i in 0..<cw {
            // The horizontal half: even column ¾·own + ¼·left, odd column ¾·own + ¼·right (÷16 with the rows').
            let b0 = 3 &* cvB[i + 1], r0 = 3 &* cvR[i + 1]
            let even = pixel(Int32(yE[i]), Int32(rE[i]), Int32(gE[i]), Int32(bE[i]),
                             (b0 &+ cvB[i] &+ 8) &>> 4, (r0 &+ cvR[i] &+ 8) &>> 4)
            let odd = pixel(Int32(yO[i]), Int32(rO[i]), Int32(gO[i]), Int32(bO[i]),
                            (b0 &+ cvB[i + 2] &+ 8) &>> 4, (r0 &+ cvR[i + 2] &+ 8) &>> 4)
            yE[i] = Int16(truncatingIfNeeded: even.y)
            yO[i] = Int16(truncatingIfNeeded: odd.y)
            if let (ebE, ebO, erE, erO) = residual {
                ebE[i] = even.eb
                ebO[i] = odd.eb
                erE[i] = even.er
                erO[i] = odd.er
            }
        }
    }

    /// Rows `out` of the solved window (which starts at picture row `window`) as code values of the range.
    private func writeRows(_ out: Range<Int>, window w0: Int, chroma: (Int, Int) -> UnsafeMutablePointer<Int32>,
                           into t: PlaneTargets) {
        let full = spec.range == .full, cw = self.cw
        @inline(__always) func lumaCode(_ v: Int16) -> UInt8 {
            let y = Int32(v)
            return UInt8(truncatingIfNeeded: full ? (y &+ 32) &>> 6 : (y &* 219 &+ 16 &* 16320 &+ 8160) / 16320)
        }
        @inline(__always) func chromaCode(_ c: Int32) -> UInt8 {
            UInt8(truncatingIfNeeded: full ? (c &+ 8192 &+ 32) &>> 6 : (c &* 224 &+ 128 &* 16320 &+ 8160) / 16320)
        }
        for row in out {
            let even = luma + (row - w0) * 2 * cw, odd = even + cw, dst = t.lumaRow(row)
            for i in 0..<(width / 2) {
                dst[2 &* i] = lumaCode(even[i])
                dst[2 &* i &+ 1] = lumaCode(odd[i])
            }
            if width & 1 == 1 { dst[width - 1] = lumaCode(even[cw - 1]) }
        }
        for j in (out.lowerBound / 2)..<((out.upperBound + 1) / 2) {
            let cb = chroma(0, j - w0 / 2), cr = chroma(1, j - w0 / 2)
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
