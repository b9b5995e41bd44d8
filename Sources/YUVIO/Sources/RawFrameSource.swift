import YUVCore

/// A YUV frame already in memory (raw planes or a Y4M frame, tightly packed in its own layout), handed out
/// in bands of the output's layout: the pipeline then writes it as any layout, padded or not, Y4M or PNG.
final class RawFrameSource: BandSource {
    let geometry: PlaneGeometry
    let bandRows: Int
    let pathName = "YUV"
    private let image: YUVImage
    private let frame: FrameLayout

    init(_ image: YUVImage) {
        self.image = image
        frame = image.frameLayout
        geometry = image.geometry
        bandRows = rowsPerBand(rowBytes: 3 * image.width)
    }

    func prepare(slots: Int, ledger: Ledger) throws { ledger.record(image.bytes.count) }   // read before the pipeline

    func produce(slot: Int, row: Int, count: Int) throws {}

    func measure(with probe: QualityProbe, ledger: Ledger) {}   // no picture to measure against

    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) {
        let f = frame, cw = f.chromaWidth, c0 = row / 2, cn = (count + 1) / 2
        let out = band.targets(origin: row)
        image.bytes.withUnsafeBufferPointer { b in
            let base = b.baseAddress!
            for r in 0..<count { out.lumaRow(row + r).update(from: base + f.offset(of: .y, row: row + r), count: f.width) }
            for r in c0..<(c0 + cn) {
                // The source's U and V samples of chroma row r, whatever its layout.
                let (u, v, step): (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int)
                if f.isBiPlanar {
                    let uv = base + f.offset(of: .uv, row: r)
                    (u, v, step) = image.layout == .nv12 ? (uv, uv + 1, 2) : (uv + 1, uv, 2)
                } else {
                    (u, v, step) = (base + f.offset(of: .u, row: r), base + f.offset(of: .v, row: r), 1)
                }
                if band.layout.isBiPlanar {
                    let dst = out.biPlanarRow(r)
                    let (first, second) = band.layout == .nv12 ? (u, v) : (v, u)
                    for i in 0..<cw {
                        dst[2 * i] = first[i * step]
                        dst[2 * i + 1] = second[i * step]
                    }
                } else {
                    let (du, dv) = out.chromaRows(r)
                    for i in 0..<cw {
                        du[i] = u[i * step]
                        dv[i] = v[i * step]
                    }
                }
            }
        }
    }

    func finish() throws {}
}
