#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Synchronization

/// The first bytes of an input that is read as a stream, looked at before anything reads it (is it a Y4M
/// stream, a JPEG, a PNG?) without losing them: standard input (`-`), and a FIFO or character device named as
/// the input (a named pipe, `/dev/stdin` or `/proc/self/fd/N` on a pipe, bash's `<(…)`). Standard input
/// redirected from a file is read at its offset with `pread`, leaving it where it was; from a stream the bytes
/// are read and kept — for a named one on a descriptor opened once — and whoever opens that input next gets
/// the descriptor and the bytes back first (`take`), so the route it took and the reader see the same bytes.
public enum StandardInput {
    /// A stream looked at: its descriptor (standard input's own for `-`), the bytes read from it so far, and
    /// whether a read found its end (a FIFO's first read waits a while for a writer: not twice).
    private struct Held {
        var fd: Int32
        var bytes: [UInt8]
        var ended = false
    }
    private static let held = Mutex<[String: Held]>([:])
    /// Whether a FIFO or device named as the input may be opened to look at it: off unless the caller turns it
    /// on — a single conversion that will go ahead (`main`), once its output is accepted. A dry run, a batch
    /// and a run refused for its output or its options open none: opening has effects (a writer waiting on a
    /// FIFO is let in, then cut off by the close; a writer that never writes holds the reader).
    public static let opensStreams = Atomic<Bool>(false)

    /// Up to `count` first bytes of the input `path` when it is standard input or a stream (see above); none
    /// for anything else, and none when it cannot be opened (its reader then says why). A stream looked at
    /// already is found by its name first, even when that name is gone meanwhile (a FIFO removed once open).
    public static func peek(_ path: String, _ count: Int) -> [UInt8] { withPeek(path, count, waitsForAll: true) { Array($0) } }

    /// `peek`'s bytes handed to `body` where they are kept, but from a stream that has fewer than `count` bytes kept
    /// it reads on only while bytes keep coming (within 50 ms) and until what it holds has doubled, rather than
    /// until it has them all: a look that stops when it has seen enough does not wait for bytes a live writer has
    /// not sent (a small JPEG on a pipe kept open). The same bytes when none came: the end.
    public static func withPeekMore<T>(_ path: String, _ count: Int, _ body: (ArraySlice<UInt8>) -> T) -> T {
        withPeek(path, count, waitsForAll: false, body)
    }

    private static func withPeek<T>(_ path: String, _ count: Int, waitsForAll: Bool, _ body: (ArraySlice<UInt8>) -> T) -> T {
        let none: ArraySlice<UInt8> = []
        if path != "-", held.withLock({ $0[path] == nil }) {
            // `/dev/stdin` and its kin on a pipe: standard input under another name, looked at as `-` is.
            guard opensStreams.load(ordering: .relaxed) || readsStandardInput(path),
                  let kind = FileStatus(path: path)?.kind, kind == .fifo || kind == .characterDevice else { return body(none) }
        }
        if path == "-" {
            if yc_standard_descriptor_was_closed(STDIN_FILENO) != 0 { return body(none) }
            if let st = FileStatus(descriptor: STDIN_FILENO), st.kind == .regular {
                let at = max(lseek(STDIN_FILENO, 0, SEEK_CUR), 0)
                // What the file holds, not what was asked (a frame's size for a small file).
                let want = max(0, min(count, st.size - Int(at)))
                var bytes = [UInt8](repeating: 0, count: want)
                let n = want > 0 ? pread(STDIN_FILENO, &bytes, want, at) : 0
                return body(n > 0 ? bytes[0..<n] : none)
            }
        }
        return held.withLock { streams in
            if streams[path] == nil {
                let fd: Int32
                do throws(DecodeError) { fd = try InputSource.openDescriptor(path) } catch { return body(none) }
                streams[path] = Held(fd: fd, bytes: [])
            }
            if streams[path]!.ended { return body(streams[path]!.bytes.prefix(count)) }
            // A mebibyte at a time: the memory follows what came, not what was asked — and the room for a larger
            // count (a frame) is taken once, not doubled as it grows (its pages are used only as bytes come); asked
            // of the system first: refused, the look stops at what it has (a Swift array would stop the process).
            let start = streams[path]!.bytes.count
            if count > 1 << 20 && streams[path]!.bytes.capacity < count {
                guard Ledger.ifAvailable(count, thenWork: false, { streams[path]!.bytes.reserveCapacity(count) }) != nil else {
                    return body(streams[path]!.bytes.prefix(count))
                }
            }
            while streams[path]!.bytes.count < count {
                let want = min(count - streams[path]!.bytes.count, 1 << 20)
                var more = [UInt8](repeating: 0, count: want)
                let n = waitsForAll ? yc_read_full(streams[path]!.fd, &more, want) : yc_read_some(streams[path]!.fd, &more, want)
                if n > 0 { streams[path]!.bytes += more[0..<Int(n)] }
                if !waitsForAll {
                    if n == 0 { streams[path]!.ended = true }
                    // More while it keeps coming (within 50 ms) and until the bytes kept have doubled: a writer
                    // that trickles a byte at a time gets a look every doubling or pause, not after every byte
                    // (each look parses what came: a header of many tiny segments, parsed after each byte, was
                    // quadratic).
                    if n <= 0 { break }
                    let target = min(count, max(2 * start, start + 4096))
                    var fds = pollfd(fd: streams[path]!.fd, events: Int16(POLLIN), revents: 0)
                    while streams[path]!.bytes.count < target, poll(&fds, 1, 50) > 0 {
                        let more = min(target - streams[path]!.bytes.count, 1 << 20)
                        var chunk = [UInt8](repeating: 0, count: more)
                        let m = yc_read_some(streams[path]!.fd, &chunk, more)
                        if m > 0 { streams[path]!.bytes += chunk[0..<Int(m)] }
                        if m <= 0 {
                            if m == 0 { streams[path]!.ended = true }
                            break
                        }
                    }
                    break
                }
                if n < want {
                    // The end read; a failed read (n < 0) is not the end, and its reader says what failed.
                    if n >= 0 { streams[path]!.ended = true }
                    break
                }
            }
            return body(streams[path]!.bytes.prefix(count))
        }
    }

    /// The bytes a peek took from a pipe on standard input, handed out once (to the reader that then reads on
    /// from the pipe).
    static func takeConsumed() -> (bytes: [UInt8], ended: Bool) { take("-").map { ($0.bytes, $0.ended) } ?? ([], false) }

    /// The descriptor a peek opened for `path` and the bytes it read, handed out once: the reader owns the
    /// descriptor from then on (standard input's aside). Nil when nothing looked at it.
    static func take(_ path: String) -> (fd: Int32, bytes: [UInt8], ended: Bool)? {
        held.withLock { streams in streams.removeValue(forKey: path).map { ($0.fd, $0.bytes, $0.ended) } }
    }
}
