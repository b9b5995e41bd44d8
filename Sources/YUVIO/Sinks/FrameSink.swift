import YUVCore

/// Writes bands as a raw frame, or a one-frame YUV4MPEG2 stream, to an `AtomicOutput`, every byte where
/// the `FrameLayout` puts it (padded rows included). To a file, each band goes to its offsets with
/// `pwrite`, so nothing but the band is held; to a pipe, luma rows go out in order and everything after the
/// luma plane (chroma, alpha) is held until the luma plane has gone out — tight (½ byte a pixel), its padding
/// added as it goes out, so `--align 4096` on a 1-pixel-wide picture holds its samples, not 4 KiB a row.
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

    /// To a stream, what follows the luma plane, held until the luma plane has gone out (`begin`): a picture
    /// held whole in part, under the same limit as the decoder's (a 522 KB PNG of 16384×16384 grey and alpha
    /// held 402 MB of chroma and alpha for a pipe, whatever `--max-memory` said).
    public func wholeBytes(_ frame: FrameLayout) -> Int {
        output.isSeekable ? 0 : Self.streamHeldBytes(frame)
    }

    public func wholeWhat(_ frame: FrameLayout) -> String { Self.streamHeldWhat(frame) }

    /// What an output written in order holds of `frame` (`wholeBytes` when the output is a stream), for a caller
    /// that must count it before the output is opened (a YUV input's frame, checked before it is read).
    public static func streamHeldBytes(_ frame: FrameLayout) -> Int {
        frame.tight.byteCount - frame.tight.planeBytes(.y)
    }

    public static func streamHeldWhat(_ frame: FrameLayout) -> String {
        "holding the chroma\(frame.alpha ? " and alpha" : "") planes until the luma plane has gone out (an output "
            + "written in order: a pipe, a device or standard output)"
    }

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        self.frame = frame
        self.ledger = ledger
        let header = container.header(frame)
        base = header.count
        if !output.isSeekable {
            // Everything after the luma plane waits, tight (the padding is written with it at the end).
            // Fresh zero pages: they cost memory as the bands fill them, not as the header claims.
            heldBytes = frame.tight.byteCount - frame.tight.planeBytes(.y)
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
        if let why = band.problem(into: frame, firstRow: firstRow, rows: rows) { throw .system(why) }
        let f = frame!
        for run in band.runs(firstRow: firstRow, rows: rows) {
            let rowBytes = f.rowBytes(run.plane), stride = f.stride(run.plane)
            let at = f.offset(of: run.plane, row: run.firstRow)
            if let held, run.plane != .y {
                let t = f.tight
                (held + t.offset(of: run.plane, row: run.firstRow) - t.planeBytes(.y))
                    .update(from: run.source, count: run.rows * rowBytes)
            } else if held != nil {
                // Luma to a pipe, in order; each padded row followed by its zero padding.
                try writeRows(run.source, rows: run.rows, rowBytes: rowBytes, stride: stride)
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
        // To a pipe: the luma plane's padding rows (zeros), then each plane held after it, its rows padded.
        try writeZeros((f.rows(.y) - f.height) * f.stride(.y))
        let t = f.tight
        for plane in f.planes.dropFirst() {
            try writeRows(held + t.offset(of: plane) - t.planeBytes(.y), rows: t.rows(plane), rowBytes: f.rowBytes(plane),
                          stride: f.stride(plane))
            try writeZeros((f.rows(plane) - t.rows(plane)) * f.stride(plane))
        }
        try flushStaged()
    }

    /// Rows to a pipe, in order, each followed by its padding (zeros) to `stride`: through a staging buffer of
    /// 1 MiB, so a padded 2-byte row is not two system calls.
    private func writeRows(_ source: UnsafePointer<UInt8>, rows: Int, rowBytes: Int, stride: Int) throws(WriteError) {
        if stride == rowBytes {
            try flushStaged()
            try output.write(UnsafeRawBufferPointer(start: source, count: rows * rowBytes))
            return
        }
        for r in 0..<rows {
            try stage(UnsafeRawBufferPointer(start: source + r * rowBytes, count: rowBytes))
            try writeZeros(stride - rowBytes)
        }
    }

    /// `count` zero bytes to a pipe, a staging buffer at a time (never an array of them all: padding rows of a
    /// wide picture run to gigabytes).
    private func writeZeros(_ count: Int) throws(WriteError) {
        var left = count
        if left > 0 { reserveStage() }
        while left > 0 {
            let n = min(left, Self.stageSize - staged.count)
            staged.append(contentsOf: repeatElement(0, count: n))
            left -= n
            if staged.count == Self.stageSize { try flushStaged() }
        }
    }

    private func stage(_ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        reserveStage()
        if staged.count + bytes.count > Self.stageSize { try flushStaged() }
        if bytes.count >= Self.stageSize {
            try output.write(bytes)
        } else {
            staged.append(contentsOf: bytes)
        }
    }

    private func flushStaged() throws(WriteError) {
        guard !staged.isEmpty else { return }
        let failure: WriteError? = staged.withUnsafeBytes { b in
            do throws(WriteError) { try output.write(b) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        staged.removeAll(keepingCapacity: true)
    }

    /// The staging buffer, counted in the conversion's ledger when it is first used.
    private func reserveStage() {
        guard staged.capacity == 0 else { return }
        staged.reserveCapacity(Self.stageSize)
        ledger?.record(Self.stageSize)
    }

    private var staged: [UInt8] = []
    private static let stageSize = 1 << 20

    deinit {
        if let held { ledger?.deallocatePages(held, bytes: heldBytes) }
        if staged.capacity > 0 { ledger?.record(-Self.stageSize) }
    }
}
