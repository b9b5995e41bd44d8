import YUVCore

/// Where finished row bands go.
public protocol BandSink: AnyObject {
    /// Called once, before any band, with where every byte of the frame goes and the ledger to count any
    /// buffer the sink keeps.
    func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError)
    /// Refuses, before any work, a frame this sink cannot take (a JPEG's picture over 65500 a side): called
    /// before the source prepares (which may decode a whole turned picture) and before `begin`; writes nothing.
    func accepts(_ frame: FrameLayout) throws(WriteError)
    /// Luma rows `firstRow ..< firstRow + rows` and their chroma rows, as held by `band`.
    func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError)
    /// After the last band.
    func end() throws(WriteError)
    /// The bytes of `frame` the sink holds whole until its end (a JPEG encoder's picture), 0 when it writes
    /// bands as they come: under the decoder's limit on pictures held whole (`ImageDecoder.checkWhole`).
    func wholeBytes(_ frame: FrameLayout) -> Int
    /// What those bytes are, for the message that refuses them.
    func wholeWhat(_ frame: FrameLayout) -> String
    /// The RGB space the frame's numbers are in, known once the source is read and before `begin`: a sink that
    /// tags its output (a PNG's profile) takes it.
    func label(_ primaries: Primaries)
}

extension BandSink {
    public func label(_ primaries: Primaries) {}
    public func accepts(_ frame: FrameLayout) throws(WriteError) {}
    public func wholeBytes(_ frame: FrameLayout) -> Int { 0 }
    public func wholeWhat(_ frame: FrameLayout) -> String { "holding the picture for the encoder" }
}

/// One band of output rows in the output layout, tightly packed: `rows` luma rows, `rows/2` chroma rows,
/// and as many alpha rows when the frame has an A plane. Allocated from the conversion's ledger. The 8-bit
/// drivers write it through `targets`; the 10-bit ones through the raw plane pointers.
public final class BandBuffer {
    public let frame: FrameLayout
    public let rows: Int
    let y: UnsafeMutablePointer<UInt8>
    /// U rows (planar layouts) or the interleaved chroma rows (bi-planar).
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>
    /// The band's alpha rows (W bytes each) when alpha is kept.
    let alpha: UnsafeMutablePointer<UInt8>?
    public let byteCount: Int
    private let ledger: Ledger

    init(frame: FrameLayout, rows: Int, ledger: Ledger) throws(WriteError) {
        precondition(rows & 1 == 0)
        self.frame = frame
        self.rows = rows
        self.ledger = ledger
        // Samples of the layout's size (16-bit words for 10-bit layouts); an A plane is always 8-bit.
        let lumaBytes = frame.rowBytes(.y) * rows, chromaBytes = frame.chromaWidth * frame.bytesPerSample * rows / 2
        byteCount = lumaBytes + 2 * chromaBytes + (frame.alpha ? frame.width * rows : 0)
        y = try ledger.allocateBytes(byteCount)
        u = y + lumaBytes
        v = u + chromaBytes
        alpha = frame.alpha ? v + chromaBytes : nil
    }

    deinit { ledger.deallocate(UnsafeMutableRawPointer(y), bytes: byteCount) }

    public var geometry: PlaneGeometry { PlaneGeometry(width: frame.width, height: frame.height) }
    public var layout: PixelLayout { frame.pixelLayout }

    /// Why rows `firstRow ..< firstRow + rows` of this band cannot go into `frame` (nil when they can): a band of
    /// another picture's width or layout, more rows than it holds, rows outside the picture, or a sink not begun.
    /// The sinks that copy bands into a frame check it: a library caller's own sink passing bands on with other
    /// numbers wrote past the picture.
    public func problem(into frame: FrameLayout?, firstRow: Int, rows: Int) -> String? {
        guard let frame else { return "a band before the sink's begin" }
        guard self.frame.width == frame.width, self.frame.pixelLayout == frame.pixelLayout, self.frame.alpha == frame.alpha else {
            return "a band of a \(self.frame.width)-wide \(self.frame.pixelLayout.rawValue) picture, not this \(frame.width)-wide \(frame.pixelLayout.rawValue) one"
        }
        guard rows >= 0, rows <= self.rows, firstRow >= 0, firstRow & 1 == 0, firstRow <= frame.height - rows else {
            return "rows \(firstRow) to \(firstRow + rows) of a band of \(self.rows) are not rows of a picture of \(frame.height)"
        }
        return nil
    }

    /// Targets for picture rows starting at `origin` (even).
    func targets(origin: Int) -> PlaneTargets {
        precondition(frame.bytesPerSample == 1, "8-bit targets of a 10-bit band")
        return PlaneTargets(width: frame.width, height: frame.height, layout: frame.pixelLayout, origin: origin, y: y, u: u, v: v)
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
