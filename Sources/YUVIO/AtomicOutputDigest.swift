#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

// The output's size and SHA-256 for a report or `--update`'s manifest: hashed as it is written, the rest read
// back once at `commit` (AtomicOutput.swift writes and names the file).

/// What was written to an output: its size and SHA-256 (64 lowercase hex digits, as `sha256sum` prints).
public struct OutputDigest: Sendable, Equatable {
    public let bytes: Int
    public let sha256: String
    /// The written file's inode and modification time, from its own descriptor before it was named (nil for a
    /// stream): what `--update`'s manifest records, so that the file at the name later is known to be this one
    /// — not one another run put there in the same clock tick, or between this run's naming and a look by name.
    public var inode: UInt64?
    public var modified: Double?

    public init(bytes: Int, sha256: String, inode: UInt64? = nil, modified: Double? = nil) {
        (self.bytes, self.sha256, self.inode, self.modified) = (bytes, sha256, inode, modified)
    }
}

extension AtomicOutput {
    /// Follows a write of `bytes` at `offset` with the hash. Bytes that continue the hashed part are hashed
    /// now; bytes further on are left for `commit` to read back once (a raw frame's chroma, written band by
    /// band beside its luma: a third of an NV12 file). A gap no longer than the write after it, in a
    /// temporary file nothing has yet been written past, is row padding and reads back as zeros: it is hashed
    /// as zeros, so a padded luma plane is hashed as it is written too. Bytes written again over hashed ones
    /// lose the hash (`hashLost`): still correct, at the price of a whole read back.
    func hash(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard hasher != nil, !hashLost else { return }
        defer { end = max(end, offset + bytes.count) }
        if offset < hashed {
            hashLost = true
            return
        }
        if offset > hashed {
            guard seekable, end <= hashed, offset - hashed <= bytes.count else { return }
            Self.zeros.withUnsafeBytes { z in
                while hashed < offset {
                    let n = min(z.count, offset - hashed)
                    hasher!.update(UnsafeRawBufferPointer(rebasing: z[0..<n]))
                    hashed += n
                }
            }
        }
        hasher!.update(bytes)
        hashed += bytes.count
    }

    static let zeros = [UInt8](repeating: 0, count: 4096)

    /// The digest of the finished temporary file: the part hashed as it was written, then the rest read back
    /// once from the file (just written, so from the page cache) — never a second read of the whole unless
    /// the hash was lost. The rest (a raw frame's chroma: a third of an NV12 file) is read with `pread`, 64 KiB
    /// at a time: a mapping of the page cache saved 0.2 ms of 4.2 on 6 MiB of NV12 chroma, but a mapped file
    /// that something else truncates meanwhile kills the process with SIGBUS.
    func finishDigest() throws(WriteError) {
        guard var h = hasher else { return }
        guard let written = FileStatus(descriptor: fd) else { throw .system("cannot read back: \(errnoMessage())") }
        let size = written.size
        if hashLost || hashed > size {
            h = SHA256()
            hashed = 0
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        // On FUSE, through a descriptor of its own: fusefat read the last bytes written through the writing
        // descriptor back as zeros (a report's output_sha256 and --update's manifest held another file's digest,
        // and every --update replaced the output), and read them right through a new one.
        var from = fd
        if hashed < size, onFUSE(descriptor: fd) {
            // By its temporary name in its folder (FUSE files always have one: no unnamed files there), which
            // works where /proc does not (macOS); else through /proc.
            let again = tempName.map { t in withFileSystemPath(t) { openat(folderFD, $0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) } }
                ?? open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
            if again >= 0 { from = again }
        }
        defer { if from != fd { close(from) } }
        while hashed < size {
            let n = buffer.withUnsafeMutableBytes { pread(from, $0.baseAddress!, min($0.count, size - hashed), off_t(hashed)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .system("cannot read back to hash it: \(errnoMessage())") }
            if n == 0 { throw .system("cannot read back to hash it: the file is shorter than written") }
            h.update(buffer[0..<n])
            hashed += n
        }
        digest = OutputDigest(bytes: size, sha256: h.finalize(), inode: written.inode, modified: written.modified)
    }
}
