import YUVCore

/// Keeps the whole picture in memory, tightly packed in its layout (tests, JPEG encoding, the quality
/// measures, and callers that want the bytes).
public final class MemorySink: BandSink {
    public private(set) var image: YUVImage?
    /// The alpha plane, when the conversion kept one.
    public private(set) var alpha: [UInt8]?
    private var frame: FrameLayout?

    public init() {}

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        let tight = frame.tight
        self.frame = tight
        image = YUVImage(width: frame.width, height: frame.height, layout: frame.pixelLayout)
        if frame.alpha { alpha = [UInt8](repeating: 0, count: tight.planeBytes(.a)) }
        ledger.record(tight.byteCount)
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        let f = frame!
        for run in band.runs(firstRow: firstRow, rows: rows) {
            let count = run.rows * f.rowBytes(run.plane)
            if run.plane == .a {
                alpha!.withUnsafeMutableBufferPointer { a in
                    (a.baseAddress! + run.firstRow * f.stride(.a)).update(from: run.source, count: count)
                }
            } else {
                image!.bytes.withUnsafeMutableBufferPointer { out in
                    (out.baseAddress! + f.offset(of: run.plane, row: run.firstRow)).update(from: run.source, count: count)
                }
            }
        }
    }

    public func end() throws(WriteError) {}
}

/// Writes every band to two sinks (a file and memory, when a report needs the picture afterwards).
public final class TeeSink: BandSink {
    let a: BandSink, b: BandSink

    public init(_ a: BandSink, _ b: BandSink) {
        self.a = a
        self.b = b
    }

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        try a.begin(frame, ledger: ledger)
        try b.begin(frame, ledger: ledger)
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        try a.consume(band, firstRow: firstRow, rows: rows)
        try b.consume(band, firstRow: firstRow, rows: rows)
    }

    public func end() throws(WriteError) {
        try a.end()
        try b.end()
    }
}

/// Consumes bands and keeps nothing: a conversion measured for its memory and speed alone (`report`
/// without quality metrics), streaming as a file conversion does.
public final class DiscardSink: BandSink {
    public init() {}
    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {}
    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {}
    public func end() throws(WriteError) {}
}
