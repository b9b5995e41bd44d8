#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims

/// An opened input: a C `FILE*` positioned at the start, and the format its first bytes name.
/// A regular file is streamed from disk. Anything else — standard input (`-`), a pipe, a FIFO, a device —
/// is read as a stream too: its first bytes are read to sniff the format (so `/dev/zero` or random bytes
/// fail at once), then handed back to the decoder ahead of the rest (`yc_stream`), and at most
/// `streamLimit(maxPixels:)` bytes are read from it in all. Nothing is buffered whole, and opening never
/// blocks (a FIFO's first read waits a few seconds for a writer, `fifoNotWritten`).
public final class InputSource {
    public let path: String
    /// The pixel limit the stream's byte limit was derived from.
    public let maxPixels: Int
    let file: UnsafeMutablePointer<FILE>
    let format: yc_format
    /// Bytes on disk (a regular file's size).
    private let fileSize: Int
    /// A stream's reader (nil for a regular file): the JPEG decoder reads it directly (`yc_stream_read_some`).
    private(set) var stream: OpaquePointer?
    private var streamBuffer: UnsafeMutableRawPointer?
    static let streamBufferBytes = 1 << 18

    /// The name to print for this input: `-` reads standard input and is shown as `<stdin>`.
    public var displayName: String { displayPath(path) }

    /// Whether the input is a regular file named by its path (not standard input, not a pipe): one that can be
    /// read again.
    public var isRegularFile: Bool { stream == nil && path != "-" }

    /// The file as it was opened — which file, its size and modification time — to tell a second reading of the
    /// same name from a reading of another file (`boxBilinearPSNR`).
    public let version: FileVersion

    /// Whether the file is still as it was opened (`version`): nothing wrote into it while it was read.
    public var unchangedSinceOpen: Bool {
        guard let st = FileStatus(descriptor: fileno(file)) else { return false }
        // Not by its inode number: overlayfs copies a file up (a new number under the same descriptor) when another
        // process changes its mode or opens it for writing, and an unchanged picture failed.
        return st.holdsTheBytes(of: version)
    }

    /// Bytes read so far from a stream, or the regular file's size.
    public var byteCount: Int { stream.map { Int(yc_stream_bytes($0)) } ?? fileSize }

    /// What a stream may deliver: the largest uncompressed 16-bit RGBA picture the pixel limit allows, plus
    /// 16 MiB for metadata. A real image never needs more; an endless source is cut off there.
    /// The decoders read a file no further (`yc_read_limit`, the one formula).
    public static func streamLimit(maxPixels: Int) -> UInt64 { yc_read_limit(UInt64(max(maxPixels, 0))) }

    /// `listed`: the identities of the inputs the run listed (`DecodeOptions.listed`).
    public init(path: String, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                listed: (any FileIdentitySet)? = nil) throws(DecodeError) {
        self.path = path
        self.maxPixels = maxPixels
        let (fd, taken, ended) = try Self.openHeld(path)
        /// Every failure from here closes what was opened (standard input stays open).
        func failure(_ error: DecodeError) -> DecodeError {
            if path != "-" { close(fd) }
            return error
        }
        guard let status = FileStatus(descriptor: fd) else { throw failure(.cannotOpen(errnoMessage())) }
        version = FileVersion(identity: status.identity, size: status.size, modified: status.modified)
        if status.kind == .directory { throw failure(.isDirectory) }
        if let listed, path != "-", status.kind.isStream, !(status.streamIdentity.map(listed.contains) ?? false) {
            throw failure(.cannotOpen("is now \(status.kind == .fifo ? "a FIFO" : "a device"), not the file the run listed "
                                      + "at this name; it is not read"))
        }
        // Standard input may be a file already part read (`{ head -c 9; yuvconv -; } < f`): start there.
        let start = status.kind == .regular ? max(0, lseek(fd, 0, SEEK_CUR)) : 0
        // From a stream, what a peek already took comes first.
        var head = taken
        if head.count < 8 && !ended {
            var more = [UInt8](repeating: 0, count: 8 - head.count)
            let n = yc_read_full(fd, &more, more.count)
            if n < 0 && head.isEmpty { throw failure(.cannotOpen("read failed: \(errnoMessage())")) }
            if n > 0 { head += more[0..<Int(n)] }
        }
        if head.isEmpty {
            // A named FIFO is opened without waiting for a writer, whose coming its first read waits for a while
            // (`yc_stream`'s wait_readable); standard input's pipe was simply empty.
            throw failure(status.kind == .fifo && path != "-" ? .cannotOpen(Self.fifoNotWritten) : .empty)
        }
        if let problem = Self.formatProblem(head: head) { throw failure(problem) }
        format = yc_sniff(head, min(head.count, 8))
        if status.kind == .regular {
            // Back to the start, and a stdio stream with larger reads than stdio's 4 KiB: fewer system calls
            // under libjpeg's and libpng's small ones (glibc ignores the size unless given the buffer).
            lseek(fd, start, SEEK_SET)
            let dupFd = path == "-" ? dup(fd) : fd
            guard let f = fdopen(dupFd, "rb") else {
                let why = errnoMessage()
                close(dupFd)
                throw .cannotOpen(why)
            }
            streamBuffer = malloc(Self.streamBufferBytes)
            if let streamBuffer { setvbuf(f, streamBuffer.assumingMemoryBound(to: CChar.self), _IOFBF, Self.streamBufferBytes) }
            file = f
            fileSize = status.size - Int(start)
        } else {
            var s: OpaquePointer?
            guard let f = yc_stream_open(fd, path == "-" ? 0 : 1, head, head.count, Self.streamLimit(maxPixels: maxPixels), &s) else {
                throw failure(.cannotOpen(errnoMessage()))
            }
            if ended, let s { yc_stream_mark_ended(s) }
            file = f
            stream = s
            fileSize = 0
        }
    }

    /// Why a FIFO named as an input gave no byte: its writer closed it without writing, or none opened it in the
    /// time its first read waits for one.
    public static let fifoNotWritten = "nothing was written to the FIFO (its writer closed it without writing, or no writer "
        + "opened it within \(YC_FIFO_WRITER_WAIT_MS / 1000) s)"

    /// True when a stream was cut off at its limit (the decoder then says the read failed).
    public var exceededStreamLimit: Bool { stream.map { yc_stream_over_limit($0) != 0 } ?? false }

    /// A descriptor for `path`, the bytes a peek already read from it (`StandardInput`) and whether it found the
    /// end: the peek's own descriptor for a FIFO or device it looked at, standard input's for `-` (from a pipe;
    /// none from a file, which a peek reads in place), else one opened now (`openDescriptor`).
    static func openHeld(_ path: String) throws(DecodeError) -> (fd: Int32, bytes: [UInt8], ended: Bool) {
        if path == "-" {
            let fd = try openDescriptor(path)
            if FileStatus(descriptor: fd)?.kind == .regular { return (fd, [], false) }
            let (bytes, ended) = StandardInput.takeConsumed()
            return (fd, bytes, ended)
        }
        if let held = StandardInput.take(path) { return held }
        return (try openDescriptor(path), [], false)
    }

    /// A descriptor for `path` (standard input's own for `-`). A FIFO is opened without waiting for a
    /// writer; blocking reads are restored once it is open.
    static func openDescriptor(_ path: String) throws(DecodeError) -> Int32 {
        // Closed at the start, standard input is /dev/null now (under `-` and `/dev/stdin` alike): "empty file"
        // would hide why.
        if readsStandardInput(path) && yc_standard_descriptor_was_closed(STDIN_FILENO) != 0 {
            throw .cannotOpen("standard input is closed")
        }
        // A picture is not typed in: read from a terminal it would wait for bytes no one sends (a list naming
        // /dev/stdin reaches here; the command line's `-` is refused before anything looks at it).
        if readsStandardInput(path) && isatty(STDIN_FILENO) != 0 {
            throw .cannotOpen("standard input is a terminal: pipe or redirect a picture into it")
        }
        if path == "-" { return STDIN_FILENO }
        let fd = openWithoutWaiting(path, O_RDONLY)
        if fd < 0 {
            if errno == EISDIR { throw .isDirectory }
            // Standard input under another name (/dev/stdin on a socket): `-` reads it.
            let remedy = readsStandardInput(path) ? "name it - to read standard input" : Self.socketRemedy
            if let why = socketRefusal(path, remedy: remedy) { throw .cannotOpen(why) }
            throw .cannotOpen(errnoMessage())
        }
        // A terminal by name (/dev/tty) as `-` on one: nothing would come but what is typed.
        if isatty(fd) != 0 {
            close(fd)
            throw .cannotOpen("is a terminal, and a picture is not typed in: pipe or redirect one")
        }
        // A FIFO (or `<(…)`'s pipe) opened here is this process's own: left non-blocking, its read waits for a
        // writer to come (a few seconds at most, then says the end) and for an idle one, in a way a stopping batch
        // can end (`yc_stream`). Standard input is shared with the shell and stays as it was given.
        if FileStatus(descriptor: fd)?.kind == .fifo {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
        return fd
    }

    /// Why a file starting with `head` (its first 8 bytes, or all of a shorter file) is not a picture this opens
    /// — empty, a Y4M stream, or no JPEG or PNG signature — or nil: the run's decision, which a batch's dry run
    /// makes from the same bytes.
    public static func formatProblem(head: [UInt8]) -> DecodeError? {
        if head.isEmpty { return .empty }
        if yc_sniff(head, min(head.count, 8)) != YC_FORMAT_UNKNOWN { return nil }
        if head.starts(with: Array("YUV4MPEG".utf8)) { return .yuvStream }
        // PNG's signature holds CR LF, LF and a DOS end-of-file so that a text-mode copy shows: said as such.
        if head.count >= 8, head[0] == 0x89, head[1...3].elementsEqual(Array("PNG".utf8)) {
            return .decoder("a PNG whose signature was changed by a text-mode transfer (its line ends converted, as FTP's "
                            + "ASCII mode does): the file is damaged; copy it again in binary mode")
        }
        if let what = otherFormat(head) { return .otherFormat(what) }
        // A bare JPEG XL codestream (what cjxl writes by default): two bytes, which raw samples may spell too, so
        // said beside raw YUV's advice rather than instead of it.
        return .unknownFormat(maybe: head.starts(with: [0xFF, 0x0A]) ? "a JPEG XL codestream (FF 0A)" : nil)
    }

    /// What a file is by its first 8 bytes, among the formats people hand an image converter that it does not
    /// read (said as such rather than as "unrecognised", with raw YUV's advice), or nil.
    static func otherFormat(_ h: [UInt8]) -> String? {
        func starts(_ s: String) -> Bool { h.starts(with: Array(s.utf8)) }
        func bytes(_ b: [UInt8]) -> Bool { h.starts(with: b) }
        if starts("GIF87a") || starts("GIF89a") { return "a GIF file" }
        if starts("RIFF") { return "a RIFF file (WebP, or AVI/WAV)" }
        if h.count >= 8, h[4...7].elementsEqual(Array("ftyp".utf8)) { return "an ISO media file (HEIC, AVIF or MP4)" }
        if bytes([0x49, 0x49, 0x2A, 0x00]) || bytes([0x4D, 0x4D, 0x00, 0x2A]) { return "a TIFF file (or a camera raw file)" }
        if bytes([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || bytes([0xFF, 0x4F, 0xFF, 0x51]) { return "a JPEG 2000 file" }
        // (Two-byte signatures alone would name raw YUV whose first samples spell them: a BMP's reserved bytes
        // must be zero too, and a bare JPEG XL codestream, FF 0A, is left unnamed.)
        if bytes([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return "a JPEG XL file" }
        if starts("BM") && h.count >= 8 && h[6] == 0 && h[7] == 0 { return "a BMP file" }
        if starts("8BPS") { return "a Photoshop (PSD) file" }
        if starts("qoif") { return "a QOI file" }
        if starts("%PDF") { return "a PDF file" }
        return nil
    }

    /// What to do instead of naming a socket as an input (`socketReason`).
    static let socketRemedy = "pipe its data to standard input"

    /// Why a run could not take `path` as an input, found as the run finds it, with one open (`openDescriptor`)
    /// closed at once: it cannot be opened (a socket, a permission, a loop of links), or, with `sniffs`, a
    /// regular file's first bytes are no JPEG or PNG (`formatProblem`). Nil when it would do. A dry run's check,
    /// so that both say the same; not for a FIFO or a device, whose opening has effects (a writer waiting on a
    /// FIFO would be let in, then cut off). A file replaced by one between the caller's look and this open is
    /// opened but not read: that race is accepted. The first bytes are read in place (`pread`), leaving a
    /// shared offset where it was (macOS's /dev/stdin is standard input's own descriptor, duplicated).
    public static func openProblem(_ path: String, sniffs: Bool = false) -> DecodeError? {
        let fd: Int32
        do throws(DecodeError) { fd = try openDescriptor(path) } catch { return error }
        defer { if fd != STDIN_FILENO { close(fd) } }
        guard sniffs, FileStatus(descriptor: fd)?.kind == .regular else { return nil }
        var head = [UInt8](repeating: 0, count: 8)
        let n = pread(fd, &head, head.count, max(0, lseek(fd, 0, SEEK_CUR)))
        if n < 0 { return .cannotOpen("read failed: \(errnoMessage())") }
        return formatProblem(head: Array(head[0..<Int(n)]))
    }

    deinit {
        fclose(file)
        free(streamBuffer)
    }
}
