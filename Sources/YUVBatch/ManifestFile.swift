#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

/// `--update`'s manifest as a batch uses it, in memory that does not grow with its lines (`Manifest` holds
/// them all, for small folders and the tests):
///
/// - read: the file as it was when the batch began — its descriptor kept open, so a run that replaces the
///   file meanwhile replaces another one — checked line by line once (what cannot be read is counted and
///   described, as `Manifest` does), then searched for each output by name with pread: the lines are sorted
///   by their escaped name (as this version writes them); a file whose lines are not (written by hand, or by
///   an earlier version with names outside ASCII) is searched in a sorted copy on disk instead;
/// - written: the file as it is at the end (another run into the folder may have written it), with this
///   run's changes put in, merged in name order through an external sort — and only when that changes it.
public final class ManifestFile: @unchecked Sendable {
    private let source: ManifestBytes?
    /// Where the lines after the first start.
    private let dataStart: Int
    /// The first lines that could not be read, described (at most `problemsKept`), and how many there were.
    public let problems: [String]
    public let problemCount: Int
    /// A file is there that is not a manifest (its first line is not the magic one): not ours to replace.
    public let foreign: Bool
    static let problemsKept = 10
    /// A line longer than this is not an entry (and is not held).
    static let longestLine = 1 << 20

    /// The lock file of the manifest at `path` where its folder cannot be locked (`FolderLock`).
    public static func lockPath(of path: String) -> String { path + ".lock" }

    /// An empty manifest.
    public init() {
        (source, dataStart, problems, problemCount, foreign) = (nil, 0, [], 0, false)
    }

    /// The manifest at `path`: none yet is an empty one; one that is not a regular file or cannot be opened or
    /// read, an error.
    public init(path: String) throws(FileError) {
        let fd = openWithoutWaiting(path, O_RDONLY)
        if fd < 0 {
            if errno != ENOENT { throw FileError(path: path, reason: "cannot open: \(systemMessage())") }
            (source, dataStart, problems, problemCount, foreign) = (nil, 0, [], 0, false)
            return
        }
        guard let st = FileStatus(descriptor: fd), st.kind == .regular else {
            close(fd)
            throw FileError(path: path, reason: "not a regular file")
        }
        let file = ManifestBytes(descriptor: fd, size: st.size)
        var reader = LineReader(file, at: 0)
        guard let first = reader.next(), first.line.map({ $0.elementsEqual(Manifest.magic) }) == true else {
            if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
            (source, dataStart, problems, problemCount, foreign) = (nil, 0, ["not a yuvconv manifest of version 1 (its first line differs)"], 1, true)
            return
        }
        let start = reader.position
        var problems: [String] = [], count = 0, sorted = true, previous: [UInt8]?, number = 1, adjacent = 0
        func problem(_ why: String) {
            count += 1
            if problems.count < Self.problemsKept { problems.append("line \(number): \(why)") }
        }
        while let (line, _) = reader.next() {
            number += 1
            guard let line else {
                problem("longer than 1 MiB")
                continue
            }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            do throws(Malformed) { _ = try ManifestEntry(fields: try Manifest.fields(line[...])) } catch { problem(error.why) }
            let name = Self.name(line)
            if let p = previous, name.lexicographicallyPrecedes(p) { sorted = false }
            // Counted here while the lines are in order; once they are not, the sorted copy counts them all.
            if sorted, let p = previous, name.elementsEqual(p) { problem(Self.secondEntry); adjacent += 1 }
            previous = Array(name)
        }
        if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
        if sorted {
            (self.problems, problemCount, foreign) = (problems, count, false)
            (source, dataStart) = (file, start)
            return
        }
        // Out of order: a sorted copy to search, where the lines of one name come together (and are counted:
        // above, only lines next to each other were).
        let (copy, seconds) = try Self.sortedLines(file, from: start, path: path)
        if adjacent > 0 {
            count -= adjacent
            problems.removeAll { $0.hasSuffix(Self.secondEntry) }
        }
        if seconds > 0 {
            count += seconds
            if problems.count < Self.problemsKept {
                problems.append("\(seconds) more entr\(seconds == 1 ? "y" : "ies") for outputs that have one already")
            }
        }
        (self.problems, problemCount, foreign) = (problems, count, false)
        (source, dataStart) = (ManifestBytes(spool: copy), 0)
    }

    /// Two lines for one output: which was written last cannot be told (a hand edit, a merge of two
    /// manifests), so neither is trusted.
    static let secondEntry = "a second entry for the same output"

    /// The escaped name a line starts with (its first field).
    static func name(_ line: [UInt8]) -> ArraySlice<UInt8> { line.prefix { $0 != 9 } }

    /// The lines of `file` after `start` (but comments and those too long), sorted by name (stable), and how many
    /// lines have the name of the one before.
    private static func sortedLines(_ file: ManifestBytes, from start: Int, path: String) throws(FileError) -> (Spool, Int) {
        let keyed = Spool()
        var reader = LineReader(file, at: start), order: UInt64 = 0
        while let (line, _) = reader.next() {
            order += 1
            guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
            MergeRecord.write(name: name(line), order: order, change: false, line: line[...], to: keyed)
        }
        if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
        let sorted = try keyed.sortedRecords()
        let copy = Spool()
        var records = sorted.reader(), previous: [UInt8]?, seconds = 0
        while let r = records.nextRecord() {
            let record = MergeRecord(r)
            if previous.map({ $0.elementsEqual(record.name) }) == true { seconds += 1 }
            previous = Array(record.name)
            copy.append(record.line)
            copy.append(10)
        }
        try sorted.seal()
        try copy.seal()
        return (copy, seconds)
    }

    /// The entry for the output `name`, or nil (none, or its line cannot be read: the output is converted
    /// again, the safe side). A binary search over the lines: a few preads.
    public func entry(named name: String) -> ManifestEntry? {
        guard let source else { return nil }
        let target = Manifest.escaped(PathBytes.encode(name))
        // Every line that starts before `lo` has a smaller name; the line at `hi` (or the end) has no smaller one.
        var lo = dataStart, hi = source.size
        search: while hi - lo > 1 << 14 {
            let mid = lo + (hi - lo) / 2
            var reader = LineReader(source, at: mid - 1)
            _ = reader.next()   // the rest of the line that holds mid - 1
            while reader.position < hi, let (line, start) = reader.next() {
                guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
                if Self.name(line).lexicographicallyPrecedes(target) { lo = reader.position } else { hi = start }
                continue search
            }
            break
        }
        var reader = LineReader(source, at: lo), found: ManifestEntry?, seen = false
        while let (line, _) = reader.next() {
            guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
            let n = Self.name(line)
            if n.lexicographicallyPrecedes(target) { continue }
            if !n.elementsEqual(target) { break }
            // Two lines for one output: neither is trusted (`secondEntry`).
            if seen { return nil }
            seen = true
            found = try? ManifestEntry(fields: try Manifest.fields(line[...]))
        }
        return found
    }

    /// What `--update` does with `item` (`Manifest.check`'s decision, from this manifest's entry).
    public func check(_ item: BatchItem, optionsKey: String) -> (action: BatchAction, entry: ManifestEntry?) {
        Manifest.decide(item, entry: entry(named: item.name), optionsKey: optionsKey)
    }

    /// Writes the manifest at `path` back (atomically, replacing it): as it is on disk now — or, when it cannot
    /// be read now, as it was read at the start — with `changes` (`ManifestChange` records) put in: an entry
    /// replaced or added, or dropped. Entries sorted by name; lines that cannot be read are left out. Not
    /// written when that changes no entry. What is at `path` must still be what the run accepted at its start:
    /// a regular file, a manifest (or, when it was not one then and `force` let it be replaced, anything
    /// regular) — a link or another file put there meanwhile is left alone and the manifest not written (the
    /// outputs are in place; the next run converts them again). Nil, or the error.
    public func write(to path: String, changes: Spool, protected: any FileIdentitySet, force: Bool = false,
                      notice: (String) -> Void = { _ in }) -> FileError? {
        // From the read of the file as it is now to its replacement, no other run's write may come between:
        // two runs finishing together would each merge into the same old file, and the later rename would drop
        // the other's entries. The folder is the lock (the file itself is replaced, so it cannot be).
        // A signal that stopped the batch before this write does not stop it (the files that finished are
        // recorded; a second signal still ends the process at once), nor the wait for the lock: writing without
        // it beside the run that holds it could drop that run's entries. A first signal during either stops it.
        let signalledBefore = interruptSignal()
        let lock = FolderLock(folderOf: path, waiting: notice, stopOnSignal: signalledBefore == nil)
        defer { lock.release() }
        do throws(FileError) {
            let merged = Spool()
            var order: UInt64 = 0
            // The lines now (their entries rendered again, as `Manifest` renders them), then the changes.
            var now: ManifestBytes? = source, nowStart = dataStart
            let replaced = "was replaced during the run by "
            let kept = "; it is left as it is and the manifest is not written (the outputs are in place, and the next "
                + "--update converts them again)"
            if let st = FileStatus(path: path, follow: false), st.kind != .regular {
                throw FileError(path: path, reason: replaced + (st.kind == .symlink ? "a symbolic link" : "something that is not a regular file") + kept)
            }
            let fd = openWithoutWaiting(path, O_RDONLY | O_NOFOLLOW)
            let openError = errno
            // What was read now, by identity: the same file must still be there when the new one replaces it
            // (a merge of a large manifest takes seconds).
            var seen: FileIdentity?
            if fd >= 0, let st = FileStatus(descriptor: fd), st.kind == .regular {
                seen = st.identity
                let file = ManifestBytes(descriptor: fd, size: st.size)
                var reader = LineReader(file, at: 0)
                let first = reader.next()
                if first?.line.map({ $0.elementsEqual(Manifest.magic) }) == true {
                    (now, nowStart) = (file, reader.position)
                } else if foreign && force {
                    (now, nowStart) = (nil, 0)
                } else {
                    throw FileError(path: path, reason: replaced + "a file that is not a yuvconv manifest" + kept)
                }
            } else if fd >= 0 {
                close(fd)
                throw FileError(path: path, reason: replaced + "something that is not a regular file" + kept)
            } else if openError == ENOENT {
                now = nil
            } else if openError == ELOOP {
                throw FileError(path: path, reason: replaced + "a symbolic link" + kept)
            } else {
                // Unreadable now (its mode changed during the run): merging into the start's copy would drop
                // what other runs wrote since, and the new file would keep the mode.
                throw FileError(path: path, reason: "cannot be read now (\(String(cString: strerror(openError)))); it is left as it is "
                                + "and the manifest is not written (the outputs are in place, and the next --update "
                                + "converts them again)")
            }
            // A signal (SIGINT, SIGTERM) during the wait or a merge of many lines: the manifest is left as it was.
            func stopIfInterrupted() throws(FileError) {
                if lock.interrupted || (signalledBefore == nil && interruptSignal() != nil) {
                    throw FileError(path: path, reason: "interrupted: the manifest is not written (the outputs are in "
                                    + "place, and the next --update converts them again)")
                }
            }
            try stopIfInterrupted()
            if let now {
                var reader = LineReader(now, at: nowStart)
                while let (line, _) = reader.next() {
                    order += 1
                    if order & 4095 == 0 { try stopIfInterrupted() }
                    guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
                    guard let entry = try? ManifestEntry(fields: try Manifest.fields(line[...])) else {
                        // Not written again, but counted: beside a readable line of its name, the name has two
                        // lines, and neither is trusted.
                        MergeRecord.write(name: Self.name(line), order: order, change: false, line: [], to: merged)
                        continue
                    }
                    let rendered = entry.line
                    MergeRecord.write(name: Self.name(rendered), order: order, change: false, line: rendered[...], to: merged)
                }
            }
            try ManifestChange.forEach(in: changes) { name, entry in
                order += 1
                MergeRecord.write(name: Manifest.escaped(PathBytes.encode(name))[...], order: 1 << 62 | order, change: true,
                                  line: entry?.line[...] ?? [], to: merged)
            }
            try stopIfInterrupted()
            let sorted = try merged.sortedRecords()
            try stopIfInterrupted()
            // Of each name: the last change, else the line there was; changed when a change differs from it. A
            // name with two lines there and no change is dropped: neither is trusted (`secondEntry`), and keeping
            // one would make the next run trust it.
            let text = Spool()
            text.append(Manifest.head)
            var changed = false, records = sorted.reader(), count = 0
            var group: (name: [UInt8], old: ArraySlice<UInt8>?, olds: Int, new: ArraySlice<UInt8>??)?
            func finish() {
                guard let g = group else { return }
                if let new = g.new {
                    if new.map({ !$0.elementsEqual(g.old ?? []) || g.old == nil }) ?? (g.old != nil) || g.olds > 1 { changed = true }
                    if let line = new { text.append(line); text.append(10) }
                } else if g.olds > 1 {
                    changed = true
                } else if let old = g.old {
                    text.append(old)
                    text.append(10)
                }
            }
            while let r = records.nextRecord() {
                count += 1
                if count & 4095 == 0 { try stopIfInterrupted() }
                let record = MergeRecord(r)
                if group.map({ !$0.name.elementsEqual(record.name) }) ?? true {
                    finish()
                    group = (Array(record.name), nil, 0, nil)
                }
                if record.change {
                    group!.new = .some(record.line.isEmpty ? nil : Array(record.line)[...])
                } else {
                    if !record.line.isEmpty { group!.old = Array(record.line)[...] }
                    group!.olds += 1
                }
            }
            finish()
            try sorted.seal()
            try text.seal()
            guard changed else { return nil }
            try stopIfInterrupted()
            // The file read above must still be the one at the name (or none still none): another file put there
            // meanwhile — the lock keeps other runs out — is not replaced.
            let there = FileStatus(path: path, follow: false)
            if there?.identity != seen || (there.map { $0.kind != .regular } ?? false) {
                throw FileError(path: path, reason: replaced + (there?.kind == .symlink ? "a symbolic link"
                    : there.map { $0.kind == .regular ? "another file" : "something that is not a regular file" }
                    ?? "nothing (it was removed)") + kept)
            }
            if let why = lock.unlocked {
                notice("\(displayPath(path)) is replaced without its lock (\(why)): entries another run writes at "
                       + "the same moment may be lost, and the next --update converts those files again")
            }
            do throws(WriteError) {
                // No link followed, whatever was put there since the look above: a rename replaces a name.
                let out = try AtomicOutput(path: path, force: true, protected: protected, plainFileOnly: true)
                do throws(WriteError) {
                    var copy = text.reader(bufferSize: 1 << 16)
                    while let chunk = copy.readSome(1 << 16) { try out.write(Array(chunk)) }
                    if let failure = text.failure { throw WriteError.system("cannot read back a temporary file: \(failure.reason)") }
                    try out.commit()
                } catch {
                    out.abort()
                    throw error
                }
            } catch {
                return FileError(path: path, error)
            }
            return nil
        } catch {
            return error
        }
    }
}

/// A line of a manifest (or a change) keyed for the merge: its escaped name, 0, its order (8 bytes,
/// big-endian), whether it is a change (1) or a line there was (0), the line (empty: an entry dropped), and
/// the name's length (4 bytes).
struct MergeRecord {
    let name: ArraySlice<UInt8>
    let change: Bool
    let line: ArraySlice<UInt8>

    static func write(name: ArraySlice<UInt8>, order: UInt64, change: Bool, line: ArraySlice<UInt8>, to spool: Spool) {
        spool.appendRecord(parts: [name, [0], InputRecord.bigEndian(order)[...], [change ? 1 : 0], line,
                                   InputRecord.length(name.count)[...]])
    }

    init(_ r: ArraySlice<UInt8>) {
        let n = InputRecord.pathLength(r), s = r.startIndex
        name = r[s..<(s + n)]
        change = r[s + n + 9] == 1
        line = r[(s + n + 10)..<(r.endIndex - 4)]
    }
}

/// A manifest's bytes: a file's descriptor (closed with it), or a spool.
final class ManifestBytes: @unchecked Sendable {
    let size: Int
    private let fd: Int32
    private let spool: Spool?
    /// A read failed.
    private(set) var failed = false

    init(descriptor: Int32, size: Int) {
        (fd, self.size, spool) = (descriptor, size, nil)
    }

    init(spool: Spool) {
        (fd, size, self.spool) = (-1, spool.count, spool)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Up to `count` bytes at `offset`; 0 at the end or on an error.
    func read(at offset: Int, count: Int, into buffer: UnsafeMutableRawPointer) -> Int {
        guard offset < size else { return 0 }
        if let spool { return spool.read(at: offset, count: min(count, size - offset), into: buffer) }
        while true {
            let n = pread(fd, buffer, min(count, size - offset), off_t(offset))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failed = true }
            return max(n, 0)
        }
    }
}

/// Reads lines from an offset through a 16 KiB buffer.
struct LineReader {
    let source: ManifestBytes
    /// Where the next line starts.
    private(set) var position: Int
    private var fetch: Int
    private var buffer = [UInt8](repeating: 0, count: 1 << 14)
    private var start = 0, filled = 0

    init(_ source: ManifestBytes, at offset: Int) {
        self.source = source
        position = offset
        fetch = offset
    }

    /// The next line without its newline (nil when it is longer than `ManifestFile.longestLine`, whose bytes
    /// are not kept) and where it starts; nil at the end.
    mutating func next() -> (line: [UInt8]?, start: Int)? {
        let lineStart = position
        var line: [UInt8] = [], tooLong = false
        while true {
            if start == filled {
                let n = buffer.withUnsafeMutableBytes { source.read(at: fetch, count: $0.count, into: $0.baseAddress!) }
                if n == 0 { break }
                (start, filled) = (0, n)
                fetch += n
            }
            let newline = buffer[start..<filled].firstIndex(of: 10)
            let end = newline ?? filled
            if !tooLong {
                line += buffer[start..<end]
                if line.count > ManifestFile.longestLine { (tooLong, line) = (true, []) }
            }
            position += end - start + (newline == nil ? 0 : 1)
            start = newline.map { $0 + 1 } ?? filled
            if newline != nil { return (tooLong ? nil : line, lineStart) }
        }
        return position == lineStart ? nil : (tooLong ? nil : line, lineStart)
    }
}

/// An exclusive `flock` for a read-modify-replace of a file between processes: on the folder that holds it, or —
/// where that folder cannot be opened for reading (a drop folder, mode 0300) or locked (a network file system,
/// whose `flock` needs a descriptor open for writing) — on a lock file beside it (`PATH.lock`, left there).
/// It waits at most `patience` seconds for another holder (saying so after a second), and not past an
/// interrupt; then, or when nothing can be locked, it goes on without the lock and says why in `unlocked`, for a
/// warning: a stuck holder must not hang a batch.
struct FolderLock {
    private let fd: Int32
    /// Why the file is replaced without the lock, if it is.
    let unlocked: String?
    static let patience = 120.0

    /// The wait was cut short by a signal (`stopOnSignal`).
    let interrupted: Bool

    init(folderOf path: String, waiting: (String) -> Void, stopOnSignal: Bool = true) {
        enum Attempt { case locked, busy, unusable }
        func attempt(_ fd: Int32) -> Attempt {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return .locked }
            return errno == EWOULDBLOCK || errno == EINTR ? .busy : .unusable
        }
        var fd = openWithoutWaiting(splitPath(path).folder, O_RDONLY | O_DIRECTORY)
        var state = fd >= 0 ? attempt(fd) : .unusable
        if state == .unusable {
            if fd >= 0 { close(fd) }
            fd = withFileSystemPath(ManifestFile.lockPath(of: path)) { open($0, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o644) }
            state = fd >= 0 ? attempt(fd) : .unusable
        }
        var why: String? = state == .unusable ? "neither its folder nor \(displayPath(ManifestFile.lockPath(of: path))) can be locked" : nil
        let start = monotonicSeconds()
        var said = false, stopped = false
        while state == .busy {
            let waited = monotonicSeconds() - start
            if stopOnSignal && interruptSignal() != nil { why = "interrupted while another run held the lock"; stopped = true; break }
            if waited >= Self.patience { why = "another run held the lock for \(Int(Self.patience)) s"; break }
            if !said && waited >= 1 {
                waiting("waiting for another yuvconv run to finish writing \(displayPath(path))")
                said = true
            }
            usleep(10_000)
            state = attempt(fd)
        }
        if state != .locked && fd >= 0 {
            close(fd)
            fd = -1
        }
        self.fd = fd
        unlocked = state == .locked ? nil : why
        interrupted = stopped
    }

    /// Unlocks (closing the descriptor).
    func release() {
        if fd >= 0 { close(fd) }
    }
}
