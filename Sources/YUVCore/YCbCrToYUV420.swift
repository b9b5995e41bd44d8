/// The JPEG direct path's driver: bands of decoder planes (YCbCr as stored, no upsampling) in, 4:2:0 rows
/// in the target matrix, range and layout out (see `YCbCrTransform` for the arithmetic and chroma siting).
public struct YCbCrToYUV420: Sendable {
    public let transform: YCbCrTransform
    public let width: Int
    public let height: Int
    /// Sampling factors: chroma (both components) and the largest (luma's).
    let hC: Int, vC: Int, hMax: Int, vMax: Int
    let grey: Bool
    /// Chroma at half luma resolution both ways: each output chroma sample comes from one source sample
    /// and its two horizontal neighbours.
    public let is420: Bool
    /// The fast rows or the scalar references (`YUV_FORCE_REFERENCE`).
    public let kernels: KernelChoice
    /// For 4:2:0 sources, the SIMD rows' constants.
    let plan: DirectRowPlan
    /// For 4:2:0 sources and full range with the reference rows, per (Cb, Cr) byte pair: the luma offset + 128.
    let table: [UInt8]
    /// For grey sources: output luma per source luma.
    let greyLuma: [UInt8]
    /// The filtered 4:2:0 chroma's constants.
    let plan8: YCbCrTransform.ChromaPlan
    /// Where output chroma sits (`YCbCrSiting.swift`): centre keeps the rows above; left and top-left
    /// resample the source chroma with the contract's weights.
    public let siting: ChromaLocation
    /// Left and top-left: the constants for sums of 8 (left) or 16 (top-left) weighted samples.
    let sitedPlan: YCbCrTransform.ChromaPlan

    /// Whether a JPEG's sampling is one this driver takes: luma at the largest factors and both chroma
    /// components alike (anything else goes through RGB).
    public static func supports(components: Int, h: [Int], v: [Int]) -> Bool {
        if components == 1 { return true }
        // A library caller's factors: three of each, every one from 1 (a 0 was a division by zero; fewer, a trap).
        guard components == 3, h.count == 3, v.count == 3, (h + v).allSatisfy({ $0 >= 1 }) else { return false }
        let hMax = h.max()!, vMax = v.max()!
        return h[0] == hMax && v[0] == vMax && h[1] == h[2] && v[1] == v[2] && hMax % h[1] == 0 && vMax % v[1] == 0
    }

    public init(target: ConversionSpec, width: Int, height: Int, components: Int, h: [Int], v: [Int],
                kernels: KernelChoice = .fast, siting: ChromaLocation = .center) {
        precondition(Self.supports(components: components, h: h, v: v))
        transform = YCbCrTransform(target: target)
        self.kernels = kernels
        plan = DirectRowPlan(transform)
        self.width = width
        self.height = height
        grey = components == 1
        hMax = h.prefix(components).max()!
        vMax = v.prefix(components).max()!
        hC = grey ? hMax : h[1]
        vC = grey ? vMax : v[1]
        is420 = !grey && hC * 2 == hMax && vC * 2 == vMax
        let t = transform
        if is420 && !t.isIdentity && t.target.range == .full && kernels == .reference {
            // Full range: luma = Y + offset for every Y (Y is whole), the offset a function of (Cb, Cr).
            table = (0..<65536).map { i in
                UInt8(Int(t.luma(y: 128, cb: i >> 8 - 128, cr: i & 255 - 128)))
            }
        } else {
            table = []
        }
        greyLuma = grey ? (0..<256).map { t.luma(y: $0, cb: 0, cr: 0) } : []
        plan8 = t.chromaPlan(count: 8)
        // Grey has nothing to site: its chroma is neutral wherever it sits.
        self.siting = grey ? .center : siting
        sitedPlan = self.siting == .topleft ? t.chromaPlan(count: Self.sitedWeight(.topleft)) : plan8
    }

    /// Luma rows of a band (as stored: luma is never subsampled here).
    public var bandRows: Int { vMax * 8 }

    /// Converts one decoder band holding picture rows `firstRow ..< firstRow + rowCount` (the band's first
    /// row is a multiple of `bandRows`; `rowCount` is cropped to the picture) into `t`.
    /// `above`: with top-left siting, the source Cb and Cr rows under picture row `firstRow − 1` (the previous
    /// band's last chroma row); nil for the picture's first band, whose top edge is clamped.
    public func convert(y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>?, cbStride: Int,
                        cr: UnsafePointer<UInt8>?, crStride: Int, firstRow: Int, rowCount: Int,
                        above: (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)? = nil,
                        lumaAbove: UnsafePointer<UInt8>? = nil, into t: PlaneTargets) {
        let cw = t.chromaWidth
        let chromaRows = (rowCount + 1) / 2
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * cw)
        defer { scratch.deallocate() }
        let sited = siting != .center
        // Left and top-left: each component's vertically weighted source row (`sitedColumns`).
        let columns = UnsafeMutablePointer<Int32>.allocate(capacity: sited ? 2 * sourceChromaWidth : 0)
        defer { columns.deallocate() }
        // The row function, chosen once for the band (libyuv's drivers pick `*Row_AVX2`/`_C` the same way).
        let path = rowPath
        // The SIMD rows read each chroma row with its edges replicated.
        let padded = UnsafeMutablePointer<UInt8>.allocate(capacity: path == .simd420 ? 2 * SIMDDirectRows.paddedCount(cw) : 0)
        defer { padded.deallocate() }
        // Other samplings: per-pixel chroma rows (Cb and Cr of both luma rows) for the SIMD rows.
        let pixelCount = SIMDDirectRows.pixelChromaCount(width)
        let pixelRows = UnsafeMutablePointer<UInt8>.allocate(capacity: path == .simdGeneral ? 4 * pixelCount : 0)
        defer { pixelRows.deallocate() }
        for r in 0..<chromaRows {
            let cy = firstRow / 2 + r
            let ly0 = 2 * r, ly1 = min(2 * r + 1, rowCount - 1)      // band-local luma rows of this chroma row
            let (uRow, vRow) = t.layout.isBiPlanar ? (scratch, scratch + cw) : t.chromaRows(cy)
            let yIn0 = y + ly0 * yStride, yIn1 = y + ly1 * yStride
            let yOut0 = t.lumaRow(firstRow + ly0)
            let yOut1: UnsafeMutablePointer<UInt8>? = 2 * r + 1 < rowCount ? t.lumaRow(firstRow + ly1) : nil
            // The SIMD rows write NV12's interleaved row themselves; other layouts take uRow and vRow, and so
            // does sited chroma, which replaces the rows' centre-sited chroma below.
            let simdOut: SIMDKernels.ChromaOut = t.layout == .nv12 && !sited ? .interleaved(t.biPlanarRow(cy)) : .planar(uRow, vRow)
            switch path {
            case .grey:
                for x in 0..<width {
                    yOut0[x] = greyLuma[Int(yIn0[x])]
                    yOut1?[x] = greyLuma[Int(yIn1[x])]
                }
                uRow.update(repeating: 128, count: cw)
                vRow.update(repeating: 128, count: cw)
            case .simd420:
                let cbPad = padded, crPad = padded + SIMDDirectRows.paddedCount(cw)
                SIMDDirectRows.padChromaRow(cb! + r * cbStride, cw, into: cbPad)
                SIMDDirectRows.padChromaRow(cr! + r * crStride, cw, into: crPad)
                SIMDDirectRows.rowPair(yIn0, yIn1, cbPad, crPad, yOut0, yOut1, simdOut, width, plan)
            case .copy420:
                yOut0.update(from: yIn0, count: width)
                yOut1?.update(from: yIn1, count: width)
                uRow.update(from: cb! + r * cbStride, count: cw)
                vRow.update(from: cr! + r * crStride, count: cw)
            case .scalar420:
                convert420Row(yIn0, yIn1, cb! + r * cbStride, cr! + r * crStride, yOut0, yOut1, uRow, vRow)
            case .simdGeneral:
                let ratio = hMax / hC
                let (cb0, cr0) = (pixelRows, pixelRows + pixelCount)
                let (cb1, cr1) = (pixelRows + 2 * pixelCount, pixelRows + 3 * pixelCount)
                let sy0 = ly0 * vC / vMax, sy1 = ly1 * vC / vMax
                SIMDDirectRows.pixelChromaRow(cb! + sy0 * cbStride, ratio: ratio, width: width, into: cb0)
                SIMDDirectRows.pixelChromaRow(cr! + sy0 * crStride, ratio: ratio, width: width, into: cr0)
                SIMDDirectRows.pixelChromaRow(cb! + sy1 * cbStride, ratio: ratio, width: width, into: cb1)
                SIMDDirectRows.pixelChromaRow(cr! + sy1 * crStride, ratio: ratio, width: width, into: cr1)
                SIMDDirectRows.pixelChromaRowPair(yIn0, yIn1, cb0, cr0, cb1, cr1, yOut0, yOut1, simdOut, width, plan)
            case .scalarGeneral:
                convertGeneralRow(y, yStride, cb!, cbStride, cr!, crStride, ly0, ly1, yOut0, yOut1, uRow, vRow)
            }
            if sited {
                sitedChromaRow(cb!, cbStride, cr!, crStride, row: r, rowCount: rowCount, above: above,
                               luma: sitedLumaRows(y, yStride, row: r, rowCount: rowCount, above: lumaAbove),
                               columns: columns, u: uRow, v: vRow)
            }
            // The SIMD rows wrote NV12's interleaved row; everything else merges here for NV12 and NV21.
            let interleaved = t.layout == .nv12 && !sited && (path == .simd420 || path == .simdGeneral)
            if t.layout.isBiPlanar && !interleaved { t.mergeChroma(u: uRow, v: vRow, row: cy) }
        }
    }

    /// The row functions a band runs: one decision from the sampling, the transform and the kernel choice.
    enum RowPath {
        /// Greyscale: a table for luma, neutral chroma.
        case grey
        /// 4:2:0: the SIMD rows, or the decoder's planes as they are (bt601 full), or the scalar reference.
        case simd420, copy420, scalar420
        /// Other samplings: the SIMD rows on per-pixel chroma, or the scalar reference.
        case simdGeneral, scalarGeneral
    }

    var rowPath: RowPath {
        if grey { return .grey }
        if is420 {
            if transform.isIdentity { return .copy420 }
            return kernels == .fast ? .simd420 : .scalar420
        }
        return kernels == .fast ? .simdGeneral : .scalarGeneral
    }

    /// A 4:2:0 row pair, scalar: the reference for `SIMDDirectRows.rowPair` (`YUV_FORCE_REFERENCE`).
    @inline(__always)
    func convert420Row(_ yIn0: UnsafePointer<UInt8>, _ yIn1: UnsafePointer<UInt8>, _ cbRow: UnsafePointer<UInt8>,
                       _ crRow: UnsafePointer<UInt8>, _ yOut0: UnsafeMutablePointer<UInt8>,
                       _ yOut1: UnsafeMutablePointer<UInt8>?, _ uRow: UnsafeMutablePointer<UInt8>,
                       _ vRow: UnsafeMutablePointer<UInt8>) {
        let cw = (width + 1) / 2
        // Chroma: [1 6 1]/8 along the row (edges replicated), through the exact transform's tables.
        let n = 2 * plan8.limit + 1, (dB, dR) = plan8.den
        plan8.table.withUnsafeBufferPointer { tb in
            let t = tb.baseAddress!
            for cx in 0..<cw {
                let l = max(cx - 1, 0), r = min(cx + 1, cw - 1)
                // ΣC′ + limit, with limit = 8·128: the offsets cancel.
                let b = Int(cbRow[l]) &+ 6 &* Int(cbRow[cx]) &+ Int(cbRow[r])
                let rr = Int(crRow[l]) &+ 6 &* Int(crRow[cx]) &+ Int(crRow[r])
                uRow[cx] = YCbCrTransform.ChromaPlan.value(t, n: n, plane: 0, b: b, r: rr, den: dB)
                vRow[cx] = YCbCrTransform.ChromaPlan.value(t, n: n, plane: 1, b: b, r: rr, den: dR)
            }
        }
        if transform.target.range == .full {
            // The luma offset of each chroma sample, spread to its two columns, then one add per pixel
            // (a loop the compiler vectorises).
            let offsets = UnsafeMutablePointer<Int16>.allocate(capacity: 2 * cw)
            defer { offsets.deallocate() }
            table.withUnsafeBufferPointer { lut in
                for cx in 0..<cw {
                    let off = Int16(lut[Int(cbRow[cx]) &<< 8 | Int(crRow[cx])]) &- 128
                    offsets[2 &* cx] = off
                    offsets[2 &* cx &+ 1] = off
                }
            }
            @inline(__always) func addRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>) {
                for x in 0..<width {
                    let v = Int16(src[x]) &+ offsets[x]
                    dst[x] = UInt8(truncatingIfNeeded: min(max(v, 0), 255))
                }
            }
            addRow(yIn0, yOut0)
            if let yOut1 { addRow(yIn1, yOut1) }
            return
        }
        for cx in 0..<cw {
            let cbo = Int(cbRow[cx]) - 128, cro = Int(crRow[cx]) - 128
            let x0 = 2 * cx, x1 = min(2 * cx + 1, width - 1)
            yOut0[x0] = transform.luma(y: Int(yIn0[x0]), cb: cbo, cr: cro)
            yOut0[x1] = transform.luma(y: Int(yIn0[x1]), cb: cbo, cr: cro)
            if let yOut1 {
                yOut1[x0] = transform.luma(y: Int(yIn1[x0]), cb: cbo, cr: cro)
                yOut1[x1] = transform.luma(y: Int(yIn1[x1]), cb: cbo, cr: cro)
            }
        }
    }

    /// Any other sampling: each pixel takes the source chroma sample covering it. Scalar: the reference for
    /// `SIMDDirectRows.pixelChromaRowPair`.
    func convertGeneralRow(_ y: UnsafePointer<UInt8>, _ yStride: Int, _ cb: UnsafePointer<UInt8>, _ cbStride: Int,
                           _ cr: UnsafePointer<UInt8>, _ crStride: Int, _ ly0: Int, _ ly1: Int,
                           _ yOut0: UnsafeMutablePointer<UInt8>, _ yOut1: UnsafeMutablePointer<UInt8>?,
                           _ uRow: UnsafeMutablePointer<UInt8>, _ vRow: UnsafeMutablePointer<UInt8>) {
        let cw = (width + 1) / 2
        let sy0 = ly0 * vC / vMax, sy1 = ly1 * vC / vMax
        for cx in 0..<cw {
            let x0 = 2 * cx, x1 = min(2 * cx + 1, width - 1)
            var cbSum = 0, crSum = 0
            // The four pixels (no array literals here: this loop runs once per chroma sample).
            @inline(__always) func pixel(_ ly: Int, _ sy: Int, _ x: Int, _ out: UnsafeMutablePointer<UInt8>?) {
                let sx = x * hC / hMax
                let cbo = Int(cb[sy * cbStride + sx]) - 128, cro = Int(cr[sy * crStride + sx]) - 128
                cbSum += cbo
                crSum += cro
                out?[x] = transform.luma(y: Int(y[ly * yStride + x]), cb: cbo, cr: cro)
            }
            pixel(ly0, sy0, x0, yOut0)
            pixel(ly0, sy0, x1, yOut0)
            pixel(ly1, sy1, x0, yOut1)
            pixel(ly1, sy1, x1, yOut1)
            let c = transform.chroma(cbSum: cbSum, crSum: crSum)
            uRow[cx] = c.cb
            vRow[cx] = c.cr
        }
    }
}
