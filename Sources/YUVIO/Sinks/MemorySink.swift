import YUVCore

/// Keeps the whole picture in memory, tightly packed in its layout (tests, JPEG encoding, the quality
/// measures, and callers that want the bytes).
public final class MemorySink: BandSink {
    /// The picture, once a conversion has ended well (`end`); nil from the moment a conversion begins writing
    /// (`begin`), so a failure there leaves none (its storage, reserved and not all written, held whatever
    /// memory it was given). A conversion that fails before it writes (no such file, a picture refused from its
    /// header) leaves the sink as it was.
    public private(set) var image: YUVImage?
    /// The alpha plane, when the conversion kept one.
    public private(set) var alpha: [UInt8]?
    /// The picture and alpha being written, until `end`.
    private var building: YUVImage?, buildingAlpha: [UInt8]?
    private var frame: FrameLayout?

    /// The format the picture is kept for (a JPEG to encode): its size is checked against it (`accepts`).
    private let fitting: OutputFormat?

    public init(fitting: OutputFormat? = nil) { self.fitting = fitting }

    /// The picture, and for a JPEG the encoder's padded luma plane of an odd-sized one.
    public func wholeBytes(_ frame: FrameLayout) -> Int {
        frame.tight.byteCount + (fitting == .jpeg ? paddedJPEGLumaBytes(width: frame.width, height: frame.height) : 0)
    }

    public func accepts(_ frame: FrameLayout) throws(WriteError) {
        if let why = fitting?.sizeProblem(width: frame.width, height: frame.height) { throw .unfit(why) }
    }

    /// The picture's storage is reserved, not filled: a large allocation is fresh pages from the system, which
    /// cost memory only as the bands write them, so a short input whose header claims a large picture costs
    /// what it holds (zeroing it up front made a 116-byte PNG claiming 16384×16384 cost 393 MiB on its way to
    /// JPEG). A smaller one may reuse memory an earlier picture of the run held; either way a whole conversion
    /// writes every byte of the tight layout before the picture is read (`tools/hostile.sh` runs the JPEG
    /// output under `MALLOC_PERTURB_` and compares the bytes).
    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        let tight = frame.tight
        self.frame = tight
        (image, alpha, building, buildingAlpha) = (nil, nil, nil, nil)
        let made: Void? = Ledger.ifAvailable(tight.byteCount) {
            building = YUVImage(width: frame.width, height: frame.height, layout: frame.pixelLayout,
                                bytes: Self.reserved(FrameLayout(width: frame.width, height: frame.height,
                                                                 pixelLayout: frame.pixelLayout).byteCount))
            if frame.alpha { buildingAlpha = Self.reserved(tight.planeBytes(.a)) }
        }
        guard made != nil else { throw .outOfMemory(Ledger.outOfMemoryUnderALimit(tight.byteCount, for: "the picture")) }
        ledger.record(tight.byteCount)
    }

    /// `count` bytes whose pages are not touched until written (a large allocation is fresh pages from the
    /// system; nothing is read before the conversion has written it).
    static func reserved(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        if let why = band.problem(into: building == nil ? nil : frame, firstRow: firstRow, rows: rows) { throw .system(why) }
        let f = frame!
        for run in band.runs(firstRow: firstRow, rows: rows) {
            let count = run.rows * f.rowBytes(run.plane)
            if run.plane == .a {
                buildingAlpha!.withUnsafeMutableBufferPointer { a in
                    (a.baseAddress! + run.firstRow * f.stride(.a)).update(from: run.source, count: count)
                }
            } else {
                building!.bytes.withUnsafeMutableBufferPointer { out in
                    (out.baseAddress! + f.offset(of: run.plane, row: run.firstRow)).update(from: run.source, count: count)
                }
            }
        }
    }

    public func end() throws(WriteError) {
        (image, alpha, building, buildingAlpha) = (building, buildingAlpha, nil, nil)
    }
}

/// Writes every band to two sinks (a file and memory, when a report needs the picture afterwards).
public final class TeeSink: BandSink {
    let a: BandSink, b: BandSink

    public init(_ a: BandSink, _ b: BandSink) {
        self.a = a
        self.b = b
    }

    public func accepts(_ frame: FrameLayout) throws(WriteError) {
        try a.accepts(frame)
        try b.accepts(frame)
    }

    public func wholeBytes(_ frame: FrameLayout) -> Int { a.wholeBytes(frame) + b.wholeBytes(frame) }
    public func wholeWhat(_ frame: FrameLayout) -> String {
        let held = [a, b].filter { $0.wholeBytes(frame) > 0 }.map { $0.wholeWhat(frame) }
        return held.isEmpty ? a.wholeWhat(frame) : held.joined(separator: " and ")
    }

    public func label(_ primaries: Primaries) {
        a.label(primaries)
        b.label(primaries)
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
    /// The format the conversion is measured for (`report -f jpeg`): a picture it cannot hold is refused, as the
    /// file's sink refuses it.
    private let fitting: OutputFormat?

    public init(fitting: OutputFormat? = nil) { self.fitting = fitting }

    public func accepts(_ frame: FrameLayout) throws(WriteError) {
        if let why = fitting?.sizeProblem(width: frame.width, height: frame.height) { throw .unfit(why) }
    }

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {}
    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {}
    public func end() throws(WriteError) {}
}
