import YUVCore

/// Where finished row bands go.
public protocol BandSink: AnyObject {
    /// Called once, before any band, with where every byte of the frame goes and the ledger to count any
    /// buffer the sink keeps.
    func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError)
    /// Luma rows `firstRow ..< firstRow + rows` and their chroma rows, as held by `band`.
    func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError)
    /// After the last band.
    func end() throws(WriteError)
}

/// One band of output rows in the output layout, tightly packed: `rows` luma rows, `rows/2` chroma rows,
/// and as many alpha rows when the frame has an A plane. Allocated from the conversion's ledger.
public final class BandBuffer {
    public let frame: FrameLayout
    public let rows: Int
    let y: UnsafeMutablePointer<UInt8>
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>
    /// The band's alpha rows (W bytes each) when alpha is kept.
    let alpha: UnsafeMutablePointer<UInt8>?
    public let byteCount: Int
    private let ledger: Ledger

    init(frame: FrameLayout, rows: Int, ledger: Ledger) {
        precondition(rows & 1 == 0)
        self.frame = frame
        self.rows = rows
        self.ledger = ledger
        let lumaBytes = frame.width * rows, chromaBytes = frame.chromaWidth * rows / 2
        byteCount = lumaBytes + 2 * chromaBytes + (frame.alpha ? lumaBytes : 0)
        y = ledger.allocateBytes(byteCount)
        u = y + lumaBytes
        v = u + chromaBytes
        alpha = frame.alpha ? v + chromaBytes : nil
    }

    deinit { ledger.deallocate(UnsafeMutableRawPointer(y), bytes: byteCount) }

    public var geometry: PlaneGeometry { PlaneGeometry(width: frame.width, height: frame.height) }
    public var layout: PixelLayout { frame.pixelLayout }

    /// Targets for picture rows starting at `origin` (even).
    func targets(origin: Int) -> PlaneTargets {
        PlaneTargets(width: frame.width, height: frame.height, layout: frame.pixelLayout, origin: origin, y: y, u: u, v: v)
    }

    /// The runs of one band in the frame: for each plane, where its rows start in the band, the band's row
    /// length (the plane's unpadded row) and the plane's first row.
    func runs(firstRow: Int, rows n: Int) -> [(plane: FrameLayout.Plane, source: UnsafeMutablePointer<UInt8>, firstRow: Int, rows: Int)] {
        let c0 = firstRow / 2, cn = (n + 1) / 2
        var out: [(FrameLayout.Plane, UnsafeMutablePointer<UInt8>, Int, Int)] = [(.y, y, firstRow, n)]
        if frame.isBiPlanar {
            out.append((.uv, u, c0, cn))
        } else {
            out.append((.u, u, c0, cn))
            out.append((.v, v, c0, cn))
        }
        if let alpha { out.append((.a, alpha, firstRow, n)) }
        return out
    }
}
