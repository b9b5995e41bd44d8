#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims

/// An opened input: a C `FILE*` positioned at the start, and the format its first bytes name.
/// A regular file is streamed from disk; standard input (`-`) and anything that cannot seek (a pipe, a FIFO,
/// `/dev/stdin`) is read into memory once and decoded from there, because sniffing the format needs to look
/// ahead and libjpeg/libpng cannot be handed those bytes back.
public final class InputSource {
    public let path: String
    let file: UnsafeMutablePointer<FILE>
    let format: yc_format
    /// Bytes on disk (or read from the pipe).
    public let byteCount: Int
    private var memory: UnsafeMutableRawPointer?
    private var streamBuffer: UnsafeMutableRawPointer?
    static let streamBufferBytes = 1 << 18

    /// The name to print for this input: `-` reads standard input and is shown as `<stdin>`.
    public var displayName: String { path == "-" ? "<stdin>" : path }

    public init(path: String) throws(DecodeError) {
        self.path = path
        var opened: UnsafeMutablePointer<FILE>?
        var size = 0
        if path != "-" {
            var st = stat()
            if stat(path, &st) != 0 { throw .cannotOpen(errnoMessage()) }
            if (st.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory }
            guard let f = fopen(path, "rb") else { throw .cannotOpen(errnoMessage()) }
            if (st.st_mode & S_IFMT) == S_IFREG {
                // Larger reads than stdio's 4 KiB: fewer system calls under libjpeg's and libpng's small ones.
                // glibc ignores the size unless it is given the buffer, so it gets one (freed after fclose).
                streamBuffer = malloc(Self.streamBufferBytes)
                if let streamBuffer {
                    setvbuf(f, streamBuffer.assumingMemoryBound(to: CChar.self), _IOFBF, Self.streamBufferBytes)
                }
                opened = f
                size = Int(st.st_size)
            } else {
                defer { fclose(f) }
                (memory, size) = try Self.slurp(f)
            }
        } else {
            guard let input = fdopen(STDIN_FILENO, "rb") else { throw .cannotOpen(errnoMessage()) }
            defer { fclose(input) }
            (memory, size) = try Self.slurp(input)
        }
        if opened == nil {
            guard let f = fmemopen(memory, max(size, 1), "rb") else {
                free(memory)
                throw .cannotOpen(errnoMessage())
            }
            opened = f
        }
        let f = opened!
        var head = [UInt8](repeating: 0, count: 8)
        let got = fread(&head, 1, 8, f)
        if size == 0 || got == 0 {
            fclose(f); free(memory); free(streamBuffer)
            throw .empty
        }
        rewind(f)
        let sniffed = yc_sniff(head, got)
        if sniffed == YC_FORMAT_UNKNOWN {
            fclose(f); free(memory); free(streamBuffer)
            throw .unknownFormat
        }
        file = f
        byteCount = size
        format = sniffed
    }

    private static func slurp(_ f: UnsafeMutablePointer<FILE>) throws(DecodeError) -> (UnsafeMutableRawPointer?, Int) {
        var capacity = 1 << 16, count = 0
        guard var buf = malloc(capacity) else { throw .cannotOpen("out of memory") }
        while true {
            if count == capacity {
                capacity *= 2
                guard let grown = realloc(buf, capacity) else {
                    free(buf)
                    throw .cannotOpen("out of memory")
                }
                buf = grown
            }
            let n = fread(buf + count, 1, capacity - count, f)
            count += n
            if n == 0 {
                if ferror(f) != 0 {
                    let why = errnoMessage()
                    free(buf)
                    throw .cannotOpen("read failed: \(why)")
                }
                break
            }
        }
        return (buf, count)
    }

    deinit {
        fclose(file)
        free(memory)
        free(streamBuffer)
    }
}
