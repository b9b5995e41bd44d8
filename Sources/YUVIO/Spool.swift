import CShims
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What a batch would otherwise hold per file — its sorted input list, its output names for the clash check,
// its inputs' identities, the HTML report's rows, the quality figures for the median — is set aside on disk
// here, so that a batch's memory does not grow with the number of files: a small buffer in front of an
// anonymous temporary file, an external merge sort in bounded runs, and a sorted identity file looked up
// with pread.

/// An append-only run of bytes kept on disk: an anonymous temporary file in `$TMPDIR` (else `/tmp`), made
/// only when the first 64 KiB buffer fills (a small spool never touches the disk) and unlinked as soon as it
/// is made, so nothing is left behind whatever ends the process. Written by one thread; once written, read
/// back through `SpoolReader`s (pread: any thread, any number at once).
///
/// Errors do not interrupt the writer: the first one is kept (`failure`) and `seal()` throws it, so a reader
/// never reads a spool whose writing failed.
public final class Spool: @unchecked Sendable {
    private var fd: Int32 = -1
    /// Bytes not yet written to the file (all of them while the spool is small).
    private var pending: [UInt8] = []
    /// Bytes in the file.
    private var written = 0
    /// Bytes appended after the spool failed, let go unwritten (`flush`).
    private var dropped = 0
    /// The first error met writing or reading, as `FileError` reasons.
    public private(set) var failure: FileError?
    static let bufferSize = 1 << 15

    public init() {}

    deinit { if fd >= 0 { close(fd) } }

    /// Every byte appended so far.
    public var count: Int { written + dropped + pending.count }

    /// Bytes held in memory (tests).
    var buffered: Int { pending.count }

    /// Where the temporary files go: `$TMPDIR` when set, else `/tmp`.
    public static var folder: String {
        // By its bytes (`PathBytes`): a name that is not UTF-8 is made as it is and shown as \xNN, not as U+FFFD.
        if let t = getenv("TMPDIR"), t.pointee != 0 { return PathBytes.decode(UnsafeRawBufferPointer(start: t, count: strlen(t))) }
        return "/tmp"
    }

    /// Why no temporary file can be made in `folder` (missing, not a folder, not writable), tried as `makeFile`
    /// makes one; nil when one can.
    public static func folderProblem() -> String? {
        let fd = makeFile()
        if fd >= 0 {
            close(fd)
            return nil
        }
        return "cannot make a temporary file in \(displayPath(folder))\(folderIsTMPDIR ? " ($TMPDIR)" : ""): \(systemMessage())"
    }

    /// Whether `folder` comes from `$TMPDIR`.
    static var folderIsTMPDIR: Bool { getenv("TMPDIR").map { $0.pointee != 0 } ?? false }

    /// Room for `n` more bytes in the buffer: written out first when they would not fit, so the buffer keeps
    /// its one size (a record larger than it goes through a larger one, once).
    @inline(__always)
    private func room(_ n: Int) {
        if pending.count + n > Self.bufferSize && !pending.isEmpty { flush() }
        if pending.capacity == 0 { pending.reserveCapacity(Self.bufferSize) }
    }

    public func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        room(bytes.count)
        pending.append(contentsOf: bytes)
    }

    public func append(_ byte: UInt8) {
        room(1)
        pending.append(byte)
    }

    /// A 64-bit number, most significant byte first (so records compare as their numbers do).
    public func append(bigEndian v: UInt64) {
        room(8)
        for shift in stride(from: 56, through: 0, by: -8) { pending.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    /// One record: its length (4 bytes, little-endian), then its bytes; `SpoolReader.nextRecord` reads it back.
    public func appendRecord<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        appendLength(bytes.count)
        append(bytes)
    }

    /// A record put together from parts, without joining them first.
    public func appendRecord(parts: [ArraySlice<UInt8>]) {
        appendLength(parts.reduce(0) { $0 + $1.count })
        for p in parts { append(p) }
    }

    private func appendLength(_ n: Int) {
        room(4)
        let v = UInt32(n)
        for shift in [0, 8, 16, 24] as [UInt32] { pending.append(UInt8(truncatingIfNeeded: v >> shift)) }
    }

    /// Writes the buffer to the file (made now if it is not yet). Once the spool has failed, the buffer is let go
    /// instead (counted in `count`, so offsets taken from it stay in order): `seal` throws, nothing reads it, and
    /// a batch that goes on listing its files must not hold them all in memory (a full `$TMPDIR` under a list of
    /// 3 million names held 280 MB until the list ended).
    private func flush() {
        guard !pending.isEmpty else { return }
        if failure != nil { return drop() }
        if fd < 0 {
            fd = Self.makeFile()
            if fd < 0 {
                fail("cannot make a temporary file in \(displayPath(Self.folder))\(Self.folderIsTMPDIR ? " ($TMPDIR)" : ""): \(systemMessage())")
                return drop()
            }
        }
        let ok = pending.withUnsafeBytes { buf -> Bool in
            var done = 0
            while done < buf.count {
                let n = pwrite(fd, buf.baseAddress! + done, buf.count - done, off_t(written + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        if !ok {
            fail("cannot write a temporary file in \(displayPath(Self.folder))\(Self.folderIsTMPDIR ? " ($TMPDIR)" : ""): \(systemMessage())")
            return drop()
        }
        written += pending.count
        pending.removeAll(keepingCapacity: pending.capacity <= 2 * Self.bufferSize)
    }

    private func drop() {
        dropped += pending.count
        pending.removeAll(keepingCapacity: pending.capacity <= 2 * Self.bufferSize)
    }

    private func fail(_ reason: String) {
        if failure == nil { failure = FileError(path: Self.folder, reason: reason) }
    }

    /// An unlinked temporary file, or -1 (errno set): one without a name where the system makes such files (so a
    /// signal can leave nothing behind), else a private file registered with the signal handlers before it is made
    /// (`AtomicOutput.makePrivate`) and unlinked at once (an `mkstemp` name, unregistered, was left by a signal in
    /// between on a file system without unnamed files).
    static func makeFile() -> Int32 {
        let unnamed = withFileSystemPath(folder) { yc_open_unnamed($0) }
        if unnamed >= 0 { return unnamed }
        guard let made = AtomicOutput.makePrivate(in: folder) else { return -1 }
        AtomicOutput.removePrivate(path: made.path, slot: made.slot)
        return made.fd
    }

    /// Ends the writing: a spool that went to disk writes its buffer out and lets it go (only a small one stays
    /// in memory), and the first error met is thrown. Nothing more may be appended.
    public func seal() throws(FileError) {
        if fd >= 0 && !pending.isEmpty {
            flush()
            pending = []
        }
        if let failure { throw failure }
    }

    /// Reads `count` bytes at `offset` into `into` (bytes still in the buffer included); the bytes read.
    public func read(at offset: Int, count: Int, into buffer: UnsafeMutableRawPointer) -> Int {
        var done = 0
        // From the file first, then from what is still buffered after it.
        while done < count && offset + done < written {
            let n = pread(fd, buffer + done, min(count - done, written - offset - done), off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                fail("cannot read back a temporary file: \(systemMessage())")
                return done
            }
            done += n
        }
        // A spool that let bytes go (`drop`) holds only what reached its file: its buffer is no longer the bytes
        // after it (read so, a batch's list of failures was misread as records gigabytes long).
        if done < count && offset + done >= written && dropped == 0 {
            let from = offset + done - written
            let n = min(count - done, pending.count - from)
            if n > 0 {
                pending.withUnsafeBytes { (buffer + done).copyMemory(from: $0.baseAddress! + from, byteCount: n) }
                done += n
            }
        }
        return done
    }

    /// A reader of `range` (all of it by default) through a buffer of `bufferSize` bytes.
    public func reader(_ range: Range<Int>? = nil, bufferSize: Int = 1 << 14) -> SpoolReader {
        SpoolReader(self, range ?? 0..<count, bufferSize: bufferSize)
    }
}

/// Reads a spool's bytes in order through a small buffer. A read error ends the reading early and is kept
/// in the spool's `failure`.
public struct SpoolReader {
    let spool: Spool
    private var offset: Int
    let end: Int
    private var buffer: [UInt8]
    private var start = 0, filled = 0

    init(_ spool: Spool, _ range: Range<Int>, bufferSize: Int) {
        self.spool = spool
        offset = range.lowerBound
        end = range.upperBound
        buffer = [UInt8](repeating: 0, count: max(16, bufferSize))
    }

    /// True when every byte of the range has been read.
    public var atEnd: Bool { start == filled && offset == end }

    /// Makes at least `n` bytes available in the buffer (fewer only at the end); the bytes available.
    private mutating func fill(_ n: Int) -> Int {
        if filled - start >= n { return filled - start }
        if start > 0 {
            let keep = filled - start
            buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + start, keep) }
            (start, filled) = (0, keep)
        }
        if buffer.count < n { buffer += [UInt8](repeating: 0, count: n - buffer.count) }
        while filled < n && offset < end {
            let want = min(buffer.count - filled, end - offset)
            let got = buffer.withUnsafeMutableBytes { spool.read(at: offset, count: want, into: $0.baseAddress! + filled) }
            if got == 0 {
                offset = end   // an error: the spool keeps it
                break
            }
            offset += got
            filled += got
        }
        return filled - start
    }

    /// The next `n` bytes, or nil at the end.
    public mutating func read(_ n: Int) -> ArraySlice<UInt8>? {
        guard fill(n) >= n else { return nil }
        defer { start += n }
        return buffer[start..<(start + n)]
    }

    /// The next 64-bit number written with `append(bigEndian:)`.
    public mutating func readBigEndian() -> UInt64? {
        guard let b = read(8) else { return nil }
        return b.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The next record written by `appendRecord`, or nil at the end.
    public mutating func nextRecord() -> ArraySlice<UInt8>? {
        guard fill(4) >= 4 else { return nil }
        let i = start
        let n = Int(buffer[i]) | Int(buffer[i + 1]) << 8 | Int(buffer[i + 2]) << 16 | Int(buffer[i + 3]) << 24
        start += 4
        return read(n)
    }

    /// Up to `n` bytes (fewer only at the end), for copying a spool through.
    public mutating func readSome(_ n: Int) -> ArraySlice<UInt8>? {
        let got = fill(min(n, buffer.count))
        guard got > 0 else { return nil }
        let k = min(got, n)
        defer { start += k }
        return buffer[start..<(start + k)]
    }
}

/// memcmp order: byte by byte, a prefix before what it prefixes.
@inline(__always)
func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    let n = min(a.count, b.count)
    if n > 0 {
        let c = memcmp(a.baseAddress!, b.baseAddress!, n)
        if c != 0 { return c < 0 }
    }
    return a.count < b.count
}

func precedes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
    a.withUnsafeBytes { x in b.withUnsafeBytes { y in precedes(x, y) } }
}

extension Spool {
    /// The records of this spool (`appendRecord`) in a new spool, sorted by their bytes (memcmp order; equal
    /// records in any order). External merge sort: runs of at most `runBytes` are sorted in memory and
    /// written out, then merged `fanIn` at a time, each run read through a 4 KiB buffer — memory stays near
    /// `runBytes + fanIn × 4 KiB` whatever the number of records.
    public func sortedRecords(runBytes: Int = 1 << 16, fanIn: Int = 16) throws(FileError) -> Spool {
        try seal()
        let runs = Spool()
        var ranges: [Range<Int>] = []
        do {
            var reader = self.reader()
            var chunk: [UInt8] = []
            chunk.reserveCapacity(runBytes + 4096)
            var spans: [(start: Int, count: Int)] = []
            func writeRun() {
                guard !spans.isEmpty else { return }
                chunk.withUnsafeBytes { all in
                    spans.sort { a, b in
                        precedes(UnsafeRawBufferPointer(rebasing: all[a.start..<(a.start + a.count)]),
                                 UnsafeRawBufferPointer(rebasing: all[b.start..<(b.start + b.count)]))
                    }
                }
                let from = runs.count
                for s in spans { runs.appendRecord(chunk[s.start..<(s.start + s.count)]) }
                ranges.append(from..<runs.count)
                chunk.removeAll(keepingCapacity: true)
                spans.removeAll(keepingCapacity: true)
            }
            while let r = reader.nextRecord() {
                if !spans.isEmpty && chunk.count + r.count > runBytes { writeRun() }
                spans.append((chunk.count, r.count))
                chunk.append(contentsOf: r)
            }
            writeRun()
        }
        try seal()
        try runs.seal()
        var current = runs
        while ranges.count > 1 {
            let next = Spool()
            var merged: [Range<Int>] = []
            for group in stride(from: 0, to: ranges.count, by: fanIn) {
                let from = next.count
                current.merge(Array(ranges[group..<min(group + fanIn, ranges.count)]), into: next)
                merged.append(from..<next.count)
            }
            try current.seal()
            try next.seal()
            (current, ranges) = (next, merged)
        }
        return current
    }

    /// Merges sorted runs of records into `out`.
    private func merge(_ runs: [Range<Int>], into out: Spool) {
        var readers = runs.map { reader($0, bufferSize: 1 << 12) }
        var heads: [[UInt8]?] = readers.indices.map { readers[$0].nextRecord().map(Array.init) }
        while true {
            var best = -1
            for i in heads.indices {
                guard let h = heads[i] else { continue }
                if best < 0 || precedes(h[...], heads[best]![...]) { best = i }
            }
            if best < 0 { return }
            out.appendRecord(heads[best]!)
            heads[best] = readers[best].nextRecord().map(Array.init)
        }
    }
}
