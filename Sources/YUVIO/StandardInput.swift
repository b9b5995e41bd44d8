#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Synchronization

/// Standard input's first bytes, looked at before anything reads it (is it a Y4M stream, a JPEG, a PNG?)
/// without losing them: a file is read at its offset with `pread`, leaving it where it was; from a pipe the
/// bytes are read and kept, and whoever reads `-` next gets them back first.
public enum StandardInput {
    private static let consumed = Mutex<[UInt8]>([])

    /// Up to `count` first bytes (from a pipe they are held until read: a sniff takes a few, the raw-frame
    /// check one frame, which raw input holds whole anyway).
    public static func peek(_ count: Int) -> [UInt8] {
        if yc_standard_descriptor_was_closed(STDIN_FILENO) != 0 { return [] }
        if let st = FileStatus(descriptor: STDIN_FILENO), st.kind == .regular {
            let at = max(lseek(STDIN_FILENO, 0, SEEK_CUR), 0)
            // What the file holds, not what was asked (a frame's size for a small file).
            let want = max(0, min(count, st.size - Int(at)))
            var bytes = [UInt8](repeating: 0, count: want)
            let n = want > 0 ? pread(STDIN_FILENO, &bytes, want, at) : 0
            return n > 0 ? Array(bytes[0..<n]) : []
        }
        return consumed.withLock { kept in
            // A mebibyte at a time: the memory follows what came, not what was asked.
            while kept.count < count {
                let want = min(count - kept.count, 1 << 20)
                var more = [UInt8](repeating: 0, count: want)
                let n = yc_read_full(STDIN_FILENO, &more, want)
                if n > 0 { kept += more[0..<Int(n)] }
                if n < want { break }
            }
            return Array(kept.prefix(count))
        }
    }

    /// The bytes a peek took from a pipe, handed out once (to the reader that then reads on from the pipe).
    static func takeConsumed() -> [UInt8] {
        consumed.withLock { kept in
            defer { kept = [] }
            return kept
        }
    }
}
