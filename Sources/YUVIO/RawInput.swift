#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

/// YUV as input: raw 4:2:0 planes (a size and a layout needed) or a YUV4MPEG2 stream (its header has them).
public enum RawInput {
    /// A regular file, whose start is read in place; the start of anything else is read once and kept for its
    /// reader (`StandardInput.peek`), or not at all.
    public static func isRegular(_ path: String) -> Bool {
        path != "-" && FileStatus(path: path)?.kind == .regular
    }

    /// The first bytes of a regular file (fewer when it is shorter), or of standard input (`-`) or a FIFO or
    /// device named as the input, kept for its reader (`StandardInput.peek`); none for anything else.
    public static func head(_ path: String, _ count: Int) -> [UInt8] {
        guard isRegular(path) else { return StandardInput.peek(path, count) }
        let fd = openWithoutWaiting(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: count)
        let n = yc_read_full(fd, &head, count)
        return n > 0 ? Array(head[0..<Int(n)]) : []
    }

    /// The last bytes of a regular file (all of it when it is shorter); none for anything else.
    public static func tail(_ path: String, _ count: Int) -> [UInt8] {
        guard isRegular(path), let size = FileStatus(path: path)?.size else { return [] }
        let fd = openWithoutWaiting(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        let want = min(count, max(size, 0))
        var tail = [UInt8](repeating: 0, count: want)
        let n = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(size - want)) }
        return n == want ? tail : []
    }

    /// True when the file (or standard input, `-`) starts like a Y4M stream.
    public static func isY4M(path: String) -> Bool { isY4M(head: head(path, 10)) }

    /// True when these first bytes are a Y4M stream's, or an attempt at one (`YUV4MPEG` and anything): such a
    /// file goes to the Y4M reader, whose error says what is wrong with its header.
    public static func isY4M(head h: [UInt8]) -> Bool { h.starts(with: Array("YUV4MPEG".utf8)) }

    /// True when the file (or stream, as `head` reads one) starts with a JPEG or PNG signature.
    public static func isImage(path: String) -> Bool { isImage(head: head(path, 8)) }

    /// True when these first bytes are a JPEG's (the decoder's own sniff).
    public static func isJPEG(head h: [UInt8]) -> Bool { yc_sniff(h, h.count) == YC_FORMAT_JPEG }

    /// True when these first bytes are a JPEG's or a PNG's.
    public static func isImage(head h: [UInt8]) -> Bool { !h.isEmpty && yc_sniff(h, h.count) != YC_FORMAT_UNKNOWN }

    /// The bytes of one tightly packed 8-bit 4:2:0 frame, with every product checked: a size from a command
    /// line or a header (4294967296x4294967296) is refused, never trapped on.
    public static func frameBytes(width: Int, height: Int, layout: PixelLayout = .yuv420p,
                                  maxPixels: Int) throws(DecodeError) -> Int {
        guard width > 0, height > 0 else { throw .decoder("the size must be at least 1x1") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        // Int.max / 8 bounds any layout's bytes (at most 3 a pixel, and a row's padding) whatever
        // --max-pixels allows, so the byte count below cannot overflow either.
        if overflow || pixels > maxPixels { throw .tooLarge(width: width, height: height, limit: maxPixels) }
        guard pixels <= Int.max / 8 else {
            throw .decoder("\(width)x\(height) is more pixels than any frame can hold (2^60 or more), whatever --max-pixels allows")
        }
        return FrameLayout(width: width, height: height, pixelLayout: layout).byteCount
    }

    /// A stream over an input's descriptor; bytes a peek already took from a pipe come first (`yc_stream`,
    /// the one mechanism that hands a peek's bytes back, as `InputSource` uses it).
    final class Reader {
        let file: UnsafeMutablePointer<FILE>
        /// A regular file's size (not standard input's, which may be part read): the most `read` reserves.
        let fileSize: Int?
        /// A FIFO named as the input (not standard input): nothing from it means no writer came, not a short frame.
        let namedFIFO: Bool
        /// A large look's bytes (the first MiB of a stream read to tell a raw frame from a JPEG), served before the
        /// stream's from `preloadedAt` on: not copied into the stream first (they were held twice).
        private var preloaded: [UInt8]
        private var preloadedAt = 0

        init(file: UnsafeMutablePointer<FILE>, fileSize: Int?, namedFIFO: Bool, preloaded: [UInt8] = []) {
            (self.file, self.fileSize, self.namedFIFO, self.preloaded) = (file, fileSize, namedFIFO, preloaded)
        }

        /// Exactly `count` bytes (fewer only at the end of the input). Memory follows the bytes that arrive, never
        /// the count a header or a command line claims: a 40-byte file that says its frame holds 15 GB takes 40
        /// bytes. It is reserved up front — up to `fileSize` for a file; for a stream the whole count, which
        /// `checkHeld` has admitted under `--max-memory` (a reservation is address space: its pages cost memory as
        /// the bytes arrive) — and filled 16 MiB at a time. Grown from 64 MiB by doubling, a 137 MiB frame from a
        /// pipe held 266 MiB at its last growth, twice the limit it was admitted under.
        func read(_ count: Int) throws(DecodeError) -> [UInt8] {
            var bytes: [UInt8] = []
            if preloadedAt < preloaded.count {
                let end = min(preloaded.count, preloadedAt + count)
                // All of them, from the start: handed over as they are; else the part asked for.
                bytes = preloadedAt == 0 && end == preloaded.count ? preloaded : Array(preloaded[preloadedAt..<end])
                preloadedAt = end
                if preloadedAt == preloaded.count { (preloaded, preloadedAt) = ([], 0) }
                if bytes.count == count { return bytes }   // else the rest from the stream, below
            }
            // Every growth asked of the system first: refused, the file fails (a Swift array would stop the process).
            let first = max(0, min(count, fileSize ?? count))
            guard Ledger.ifAvailable(first, { bytes.reserveCapacity(first) }) != nil else {
                throw .decoder(Ledger.outOfMemoryUnderALimit(first, for: "the frame"))
            }
            while bytes.count < count {
                let start = bytes.count, want = min(1 << 24, count - start)
                if start + want > bytes.capacity {
                    // Grown by hand to what is needed (doubled, at most the frame), so the probe asks for what is taken.
                    let grown = min(count, max(2 * bytes.capacity, start + want))
                    guard Ledger.ifAvailable(grown, { bytes.reserveCapacity(grown) }) != nil else {
                        throw .decoder(Ledger.outOfMemoryUnderALimit(grown, for: "the frame"))
                    }
                }
                bytes.append(contentsOf: repeatElement(0, count: want))
                let n = bytes.withUnsafeMutableBufferPointer { fread($0.baseAddress! + start, 1, want, file) }
                if n < want {
                    if ferror(file) != 0 { throw .cannotOpen("read failed: \(errnoMessage())") }
                    bytes.removeLast(want - n)
                    break
                }
            }
            return bytes
        }

        /// One header line (up to and without its newline, LF or CR LF), at most `limit` bytes.
        /// `missing`: the error when the input ends before the line's first byte. `word`: what the line must begin
        /// with, followed by its end or a space — a line that does not is returned as soon as that shows, with up
        /// to 17 bytes of it (a Y4M header followed by the frame's samples without a FRAME line: its first bytes
        /// say so, where a line end searched for among the samples said "no end" or "longer than 4096 bytes").
        func line(limit: Int, what: String, missing: String? = nil, word: [UInt8] = []) throws(DecodeError) -> [UInt8] {
            var line: [UInt8] = []
            var diverged = false
            while line.count <= limit {
                if diverged && line.count > 16 { return line }
                let c: Int32
                if preloadedAt < preloaded.count {
                    c = Int32(preloaded[preloadedAt])
                    preloadedAt += 1
                } else {
                    c = getc(file)
                }
                if c == EOF {
                    if ferror(file) != 0 { throw .cannotOpen("read failed: \(errnoMessage())") }
                    if line.isEmpty, let missing { throw .decoder(missing) }
                    if diverged { return line }
                    throw .decoder("\(what) has no end (the input ends inside it)")
                }
                if c == 10 {
                    if line.last == 13 { line.removeLast() }   // CR LF (written on Windows) ends a line as LF does
                    return line
                }
                let i = line.count
                line.append(UInt8(c))
                if !word.isEmpty && !diverged {
                    diverged = i < word.count ? UInt8(c) != word[i] : i == word.count && c != 32 && c != 13
                }
            }
            throw .decoder("\(what) is longer than \(limit) bytes")
        }
    }

    /// An open input for the readers below (standard input's own descriptor for `-`, with what a peek took).
    static func withInput<T>(_ path: String, _ body: (Reader, FileStatus?) throws(DecodeError) -> T) throws(FileError) -> T {
        let name = path   // FileError shows it (displayPath)
        do throws(DecodeError) {
            let (fd, head, ended) = try InputSource.openHeld(path)
            let st = FileStatus(descriptor: fd)
            if st?.kind == .directory {
                if path != "-" { close(fd) }
                throw .isDirectory
            }
            var stream: OpaquePointer?
            // A look of a MiB or more (a frame's worth) is handed to the reader as it is; a short one goes through
            // the stream.
            let large = head.count >= 1 << 20
            guard let file = yc_stream_open(fd, path == "-" ? 0 : 1, head, large ? 0 : head.count, UInt64.max, &stream) else {
                if path != "-" { close(fd) }
                throw .cannotOpen(errnoMessage())
            }
            if ended, let stream { yc_stream_mark_ended(stream) }
            defer { fclose(file) }
            let left = bytesLeft(fd, st, standardInput: path == "-")
            let result = try body(Reader(file: file, fileSize: left, namedFIFO: st?.kind == .fifo && path != "-",
                                         preloaded: large ? head : []),
                                  left == nil ? nil : st)
            // A file written into while it was read gave a frame of two versions of it (as an image input's would).
            if left != nil, let st, let now = FileStatus(descriptor: fd), !now.holdsTheBytes(of: FileVersion(st, born: nil)) {
                throw .changedWhileRead
            }
            return result
        } catch {
            throw FileError(path: name, error)
        }
    }

    /// What is left to read of the input open on `fd` (`st` its status), or nil where it is read by what comes: a
    /// regular file's size, from where its offset stands for standard input (`- < f`, a file part read); a file
    /// of /proc or /sys says 0 or 4096 bytes whatever it holds, so it is a stream.
    static func bytesLeft(_ fd: Int32, _ st: FileStatus?, standardInput: Bool) -> Int? {
        guard let st, st.kind == .regular, yc_is_pseudo_file(fd) == 0 else { return nil }
        return standardInput ? st.size - Int(max(lseek(fd, 0, SEEK_CUR), 0)) : st.size
    }

    /// A regular file's size against the one frame it must hold (`what`: the size and layout, and `need` bytes).
    static func sizeProblem(fileSize: Int?, need: Int, what: String) -> DecodeError? {
        guard let size = fileSize.map({ max(0, $0) }), size != need else { return nil }   // past its end: 0 left
        return .frameSize("is \(size) bytes, but \(what)")
    }

    /// A frame is held whole (it is read before it is converted): `--max-memory` refuses one larger, before it is
    /// read. From a file (`fileSize`, its bytes left) the default never refuses it: the budget is taken as for
    /// a file as large as the frame at least (the file is the frame; one shorter is refused for its size, or cut
    /// short, not for memory); from a stream (nil: a pipe, a FIFO), whose bytes are not known, the default is the
    /// stream's, 256 MiB — a header piped in declaring 16384×16384 10-bit held 1 GiB before.
    /// `besides`: what the caller will hold whole beside the frame (a JPEG output's planes), counted with it
    /// under the same limit, so that a frame it cannot convert is refused before it is read.
    static func checkHeld(_ need: Int, maxMemory: Int?, fileSize: Int?, besides: (HeldBeside, Frame)? = nil) throws(DecodeError) {
        var whole = ImageDecoder.WholeCount(maxMemory: maxMemory, inputBytes: fileSize.map { max($0, need) } ?? 0)
        try whole.check(need, for: "holding the YUV frame")
        // What is held beside the frame once it is read, in the budget the caller counts it in then (`besideCount`):
        // from a stream, that of a file the frame's size, not the stream's default (a 108 MP frame piped to a
        // 10-bit pipe converted with the check after the read and was refused by one before it).
        if let (beside, frame) = besides, let held = beside.held(frame) {
            var after = besideCount(maxMemory: maxMemory, frameBytes: need, fileSize: fileSize)
            try after.check(need + held.bytes, for: held.what)
        }
    }

    /// The budget what is held beside a frame is counted in, with the frame: that of a file as large as the
    /// frame at least (read, a stream's frame is its bytes). One rule for the check before the read and the one
    /// after it.
    public static func besideCount(maxMemory: Int?, frameBytes: Int, fileSize: Int?) -> ImageDecoder.WholeCount {
        ImageDecoder.WholeCount(maxMemory: maxMemory, inputBytes: max(frameBytes, fileSize ?? 0))
    }

    /// A frame as its header (or --size and --pix-fmt) describes it, before it is read: its size, its layout, and
    /// a Y4M header's range (XCOLORRANGE; nil when it names none, and for a raw frame).
    public struct Frame: Sendable {
        public let width: Int, height: Int
        public let layout: PixelLayout
        public var range: ColorRange?
        public init(width: Int, height: Int, layout: PixelLayout, range: ColorRange? = nil) {
            (self.width, self.height, self.layout, self.range) = (width, height, layout, range)
        }
    }

    /// What a caller holds whole beside a frame it reads (`checkHeld`): bytes for the frame, and what they are
    /// for (nil: nothing).
    public struct HeldBeside: Sendable {
        public let held: @Sendable (Frame) -> (bytes: Int, what: String)?
        public init(_ held: @escaping @Sendable (Frame) -> (bytes: Int, what: String)?) { self.held = held }
    }

    /// What `read` would refuse of a raw frame at `path` before reading it — its size, or a regular file's byte
    /// count against it — or nil: a dry run's check, from the file's status alone.
    public static func frameProblem(path: String, width: Int, height: Int, layout: PixelLayout, maxPixels: Int,
                                    maxMemory: Int? = nil, besides: HeldBeside? = nil) -> FileError? {
        do throws(DecodeError) {
            let need = try frameBytes(width: width, height: height, layout: layout, maxPixels: maxPixels)
            // Sized as `read` sizes it (`bytesLeft`): standard input by its own descriptor, a regular file by one
            // opened for the look (a FIFO or device is not opened: that has effects).
            var left: Int?
            if path == "-" {
                left = bytesLeft(STDIN_FILENO, FileStatus(descriptor: STDIN_FILENO), standardInput: true)
            } else if FileStatus(path: path)?.kind == .regular {
                let fd = openWithoutWaiting(path, O_RDONLY)
                if fd >= 0 {
                    left = bytesLeft(fd, FileStatus(descriptor: fd), standardInput: false)
                    close(fd)
                }
            }
            try checkHeld(need, maxMemory: maxMemory, fileSize: left,
                          besides: besides.map { ($0, Frame(width: width, height: height, layout: layout)) })
            return sizeProblem(fileSize: left, need: need,
                               what: "\(width)x\(height) \(layout.rawValue) needs \(need) bytes").map { FileError(path: path, $0) }
        } catch {
            return FileError(path: path, error)
        }
    }

    /// Raw planes of `layout`, tightly packed: exactly one frame of the size given. The frame is read by
    /// the size it needs — never more, whatever the input holds — and an input that is shorter or longer
    /// is refused (a regular file by its size, before anything is read).
    public static func read(path: String, width: Int, height: Int, layout: PixelLayout,
                            maxPixels: Int, maxMemory: Int? = nil, besides: HeldBeside? = nil) throws(FileError) -> YUVImage {
        try withInput(path) { (input, _) throws(DecodeError) -> YUVImage in
            let need = try frameBytes(width: width, height: height, layout: layout, maxPixels: maxPixels)
            try checkHeld(need, maxMemory: maxMemory, fileSize: input.fileSize,
                          besides: besides.map { ($0, Frame(width: width, height: height, layout: layout)) })
            let what = "\(width)x\(height) \(layout.rawValue) needs \(need) bytes"
            if let problem = sizeProblem(fileSize: input.fileSize, need: need, what: what) { throw problem }
            let bytes = try input.read(need)
            // Nothing at all, said as for an image: a named FIFO's writer never came or closed it unwritten;
            // standard input or a stream was empty. (Not a frame size to check.)
            if bytes.isEmpty { throw input.namedFIFO ? .cannotOpen(InputSource.fifoNotWritten) : .empty }
            guard bytes.count == need else { throw .frameSize("ends after \(bytes.count) bytes, but \(what)") }
            if try !input.read(1).isEmpty { throw .frameSize("goes on past one frame: \(what)") }
            try checkSamples(bytes, layout: layout)
            return YUVImage(width: width, height: height, layout: layout, bytes: bytes)
        }
    }

    /// A yuv420p10le frame holds 10-bit values in 16-bit words: a word above 1023 is not such data (16-bit
    /// samples, or P010's high-bit values read as the wrong layout), refused rather than copied on or clamped.
    /// P010 keeps its value in the high 10 bits, so any word is one — but a frame whose every word is below
    /// 1024 is yuv420p10le data given as P010, refused too.
    static func checkSamples(_ bytes: [UInt8], layout: PixelLayout) throws(DecodeError) {
        if layout == .p010 {
            // P010 keeps a sample in the high 10 bits: its chroma is near 0x8000 (512 << 6). Every word below
            // 1024 is yuv420p10le data (the low 10 bits) given as P010, which would come out near black.
            let low = bytes.withUnsafeBufferPointer { b in
                var i = 1
                while i < b.count, b[i] <= 3 { i += 2 }
                return i >= b.count
            }
            if low && bytes.contains(where: { $0 != 0 }) {
                throw .decoder("every sample is below 1024, as in yuv420p10le data: P010 keeps a sample in the high 10 "
                               + "bits (use --pix-fmt yuv420p10le if that is what it is)")
            }
        }
        guard layout == .yuv420p10le else { return }
        // Above 1023 exactly when the high byte of the little-endian word is above 3.
        let i = bytes.withUnsafeBufferPointer { b in
            var i = 1
            while i < b.count, b[i] <= 3 { i += 2 }
            return i
        }
        if i < bytes.count {
            let value = Int(bytes[i - 1]) | Int(bytes[i]) << 8
            throw .decoder("sample \(i / 2) is \(value), above 1023: not 10-bit yuv420p10le data")
        }
    }
}
