import YUVCore

/// Writes bands as a raw frame, or a one-frame YUV4MPEG2 stream, to an `AtomicOutput`, every byte where
/// the `FrameLayout` puts it (padded rows included). To a file, each band goes to its offsets with
/// `pwrite`, so nothing but the band is held; to a pipe, luma rows go out in order and everything after the
/// luma plane (chroma, alpha) is held until the luma plane has gone out (½ byte a pixel, tight).
public final class OutputSink: BandSink {
    let output: AtomicOutput
    let container: Container
    private var frame: FrameLayout?
    private var held: UnsafeMutablePointer<UInt8>?
    private var heldBytes = 0
    private var base = 0
    private var ledger: Ledger?

    /// What wraps the planes: nothing (raw), or a one-frame YUV4MPEG2 stream.
    public enum Container: Sendable {
        case raw
        /// `YUV4MPEG2 W H F1:1 Ip A1:1 C420jpeg XCOLORRANGE=…`, a `FRAME` line, then Y, U, V (yuv420p), the
        /// colour-space tag saying the siting (`C420jpeg` centre, `C420mpeg2` left, `C420paldv` top-left); for a
        /// 10-bit frame (yuv420p10le) `C420p10 XYSCSS=420P10`, as FFmpeg writes it (Y4M has no 10-bit siting tags).
        /// The interlacing tag is `Ip` unless the frame came from an interlaced Y4M whose samples are copied; the
        /// frame rate and pixel aspect are 1:1 unless the frame came from a Y4M, whose own are kept.
        case y4m(ColorRange, ChromaLocation = .center, Y4MTiming = Y4MTiming())

        func header(_ f: FrameLayout) -> [UInt8] {
            switch self {
            case .raw: return []
            case .y4m(let range, let siting, let timing):
                let colour = f.bytesPerSample == 2 ? "C420p10 XYSCSS=420P10" : siting.y4mTag
                return Array(("YUV4MPEG2 W\(f.width) H\(f.height) F\(timing.frameRate) I\(timing.interlacing.rawValue) "
                              + "A\(timing.aspect) \(colour) XCOLORRANGE="
                              + (range == .full ? "FULL" : "LIMITED") + "\nFRAME\n").utf8)
            }
        }
    }

    public init(output: AtomicOutput, container: Container = .raw) {
        self.output = output
        self.container = container
    }

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        self.frame = frame
        self.ledger = ledger
        let header = container.header(frame)
        base = header.count
        if !output.isSeekable {
            // Everything after the luma plane waits, padding included (zeros).
            // Fresh zero pages: they cost memory as the bands fill them, not as the header claims.
            heldBytes = frame.byteCount - frame.planeBytes(.y)
            guard let pages = ledger.allocateZeroedPages(heldBytes) else {
                throw .system("cannot hold \(heldBytes) bytes of chroma for a stream: \(errnoMessage())")
            }
            held = pages
            if !header.isEmpty { try output.write(header) }
        } else {
            try output.reserve(base + frame.byteCount)   // padding reads back as zeros
            if !header.isEmpty {
                let failure: WriteError? = header.withUnsafeBytes { b in
                    do throws(WriteError) { try output.write(b, at: 0) } catch { return error }
                    return nil
                }
                if let failure { throw failure }
            }
        }
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        let f = frame!
        for run in band.runs(firstRow: firstRow, rows: rows) {
            let rowBytes = f.rowBytes(run.plane), stride = f.stride(run.plane)
            let at = f.offset(of: run.plane, row: run.firstRow)
            if let held, run.plane != .y {
                let lumaBytes = f.planeBytes(.y)
                for r in 0..<run.rows {
                    (held + at - lumaBytes + r * stride).update(from: run.source + r * rowBytes, count: rowBytes)
                }
            } else if held != nil {
                // Luma to a pipe, in order; each padded row followed by its zero padding.
                if stride == rowBytes {
                    try output.write(UnsafeRawBufferPointer(start: run.source, count: run.rows * rowBytes))
                } else {
                    let pad = [UInt8](repeating: 0, count: stride - rowBytes)
                    for r in 0..<run.rows {
                        try output.write(UnsafeRawBufferPointer(start: run.source + r * rowBytes, count: rowBytes))
                        try output.write(pad)
                    }
                }
            } else if stride == rowBytes {
                try output.write(UnsafeRawBufferPointer(start: run.source, count: run.rows * rowBytes), at: base + at)
            } else {
                for r in 0..<run.rows {
                    try output.write(UnsafeRawBufferPointer(start: run.source + r * rowBytes, count: rowBytes),
                                     at: base + at + r * stride)
                }
            }
        }
    }

    public func end() throws(WriteError) {
        guard let held, let f = frame else { return }
        // To a pipe: the luma plane's padding rows (zeros), then everything held after it.
        let padding = (f.rows(.y) - f.height) * f.stride(.y)
        if padding > 0 { try output.write([UInt8](repeating: 0, count: padding)) }
        try output.write(UnsafeRawBufferPointer(start: held, count: heldBytes))
    }

    deinit { if let held { ledger?.deallocatePages(held, bytes: heldBytes) } }
}
