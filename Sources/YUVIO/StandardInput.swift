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
            let at = lseek(STDIN_FILENO, 0, SEEK_CUR)
            var bytes = [UInt8](repeating: 0, count: count)
            let n = pread(STDIN_FILENO, &bytes, count, max(at, 0))
            return n > 0 ? Array(bytes[0..<n]) : []
        }
        return consumed.withLock { kept in
            if kept.count < count {
                var more = [UInt8](repeating: 0, count: count - kept.count)
                let n = yc_read_full(STDIN_FILENO, &more, more.count)
                if n > 0 { kept += more[0..<Int(n)] }
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
