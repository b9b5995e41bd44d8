import YUVCore

/// A YUV frame already in memory (raw planes or a Y4M frame, tightly packed in its own layout), handed out
/// in bands of the output's layout: the pipeline then writes it as any layout, padded or not, Y4M or PNG.
final class RawFrameSource: BandSource {
    let geometry: PlaneGeometry
    let bandRows: Int
    let pathName = "YUV"
    private let image: YUVImage
    private let frame: FrameLayout
    /// The frame's range: what an 8 ↔ 10-bit rescale keeps.
    private let range: ColorRange

    init(_ image: YUVImage, range: ColorRange) {
        self.image = image
        self.range = range
        frame = image.frameLayout
        geometry = image.geometry
        bandRows = rowsPerBand(rowBytes: 3 * image.width)
    }

    func prepare(slots: Int, ledger: Ledger) throws { ledger.record(image.bytes.count) }   // read before the pipeline

    func produce(slot: Int, row: Int, count: Int) throws {}

    func measure(with probe: QualityProbe, ledger: Ledger) throws(WriteError) {}   // no picture to measure against

    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int> {
        let f = frame, out = band.frame, cw = f.chromaWidth, c0 = row / 2, cn = (count + 1) / 2
        let depth = DepthMap(from: f.pixelLayout, to: out.pixelLayout, range: range)
        let shift = UInt16(out.pixelLayout.sampleShift), wide = out.bytesPerSample == 2
        @inline(__always) func put(_ dst: UnsafeMutablePointer<UInt8>, _ i: Int, _ value: Int) {
            if wide {
                UnsafeMutableRawPointer(dst).storeBytes(of: (UInt16(value) << shift).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
            } else {
                dst[i] = UInt8(value)
            }
        }
        image.bytes.withUnsafeBufferPointer { b in
            let src = SampleReader(base: b.baseAddress!, frame: f)
            for r in 0..<count {
                let dst = band.y + r * out.rowBytes(.y), luma = src.row(.y, row + r)
                for x in 0..<f.width { put(dst, x, depth.luma(luma.sample(x))) }
            }
            for r in c0..<(c0 + cn) {
                let k = r - c0
                let (uRow, vRow) = src.chromaRows(r)
                for i in 0..<cw {
                    let u = depth.chroma(uRow.sample(i)), v = depth.chroma(vRow.sample(i))
                    if out.isBiPlanar {
                        let dst = band.u + k * out.rowBytes(.uv), uFirst = out.pixelLayout != .nv21
                        put(dst, 2 * i, uFirst ? u : v)
                        put(dst, 2 * i + 1, uFirst ? v : u)
                    } else {
                        put(band.u + k * out.rowBytes(.u), i, u)
                        put(band.v + k * out.rowBytes(.v), i, v)
                    }
                }
            }
        }
        return row..<(row + count)
    }

    func finish() throws {}
}

/// Reads samples of a tightly packed frame in its own layout (8-bit bytes, or 16-bit little-endian words with
/// the layout's shift), a row at a time: where a row starts is worked out once, not per sample.
struct SampleReader {
    let base: UnsafePointer<UInt8>
    let frame: FrameLayout

    /// One row's samples: sample `i` is at `first + i·step` (in samples).
    struct Row {
        let start: UnsafeRawPointer
        let first: Int, step: Int
        let wide: Bool, shift: UInt16

        @inline(__always)
        func sample(_ i: Int) -> Int {
            let at = first + i * step
            guard wide else { return Int(start.load(fromByteOffset: at, as: UInt8.self)) }
            return Int(UInt16(littleEndian: start.loadUnaligned(fromByteOffset: 2 * at, as: UInt16.self)) >> shift)
        }
    }

    func row(_ plane: FrameLayout.Plane, _ row: Int, first: Int = 0, step: Int = 1) -> Row {
        Row(start: UnsafeRawPointer(base + frame.offset(of: plane, row: row)), first: first, step: step,
            wide: frame.bytesPerSample == 2, shift: UInt16(frame.pixelLayout.sampleShift))
    }

    /// The U and V samples of chroma row `row`, whatever the layout (interleaved ones read every other sample).
    func chromaRows(_ row: Int) -> (u: Row, v: Row) {
        guard frame.isBiPlanar else { return (self.row(.u, row), self.row(.v, row)) }
        let uFirst = frame.pixelLayout != .nv21
        return (self.row(.uv, row, first: uFirst ? 0 : 1, step: 2), self.row(.uv, row, first: uFirst ? 1 : 0, step: 2))
    }
}

/// One frame's samples to another bit depth, in the same range (BT.2100/H.273 scaling, rounded half up):
/// full range Y₁₀ = ⌊Y₈·1023/255 + ½⌋, C₁₀ = ⌊512 + (C₈ − 128)·1023/255 + ½⌋ and back with 255/1023;
/// limited range ×4 (exact) and ⌊v/4 + ½⌋ back. The same depth is the identity.
struct DepthMap {
    let from: Int, to: Int, full: Bool

    init(from: PixelLayout, to: PixelLayout, range: ColorRange) {
        self.from = from.bitDepth
        self.to = to.bitDepth
        full = range == .full
    }

    @inline(__always) func luma(_ v: Int) -> Int { map(v, centre: false) }
    @inline(__always) func chroma(_ v: Int) -> Int { map(v, centre: true) }

    @inline(__always)
    private func map(_ v: Int, centre: Bool) -> Int {
        if from == to { return v }
        if from == 8 {
            guard full else { return v * 4 }
            // ⌊(v − c8)·1023/255 + c10 + ½⌋ over 510 (c8 = 128, c10 = 512 for chroma; 0 for luma), clamped: a
            // chroma byte of 0 is −1.5 there (it trapped as a negative UInt16), 255 is 1022.
            let n = centre ? (2 * ((v - 128) * 1023 + 512 * 255) + 255) / 510 : (2 * v * 1023 + 255) / 510
            return min(max(n, 0), 1023)
        }
        guard full else { return min((v + 2) >> 2, 255) }
        let n = centre ? (2 * ((v - 512) * 255 + 128 * 1023) + 1023) / 2046 : (2 * v * 255 + 1023) / 2046
        return min(max(n, 0), 255)
    }
}
