#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

// `ManifestFile`'s write: the file as it is now merged with the run's changes and replaced, under the folder's
// lock (`FolderLock`), through an external sort of `MergeRecord`s. Reading and searching are ManifestFile.swift's.

extension ManifestFile {
    /// What a manifest not written leaves: the outputs made are in place, their lines in the run's journal
    /// (`ManifestJournal`), which the next run records first.
    public static let notRecorded = "what this run converted is in place, and its journal keeps the new outputs' "
        + "lines: the next --update records them first"

    /// Writes the manifest at `path` back (atomically, replacing it): as it is on disk now — or, when it cannot
    /// be read now, as it was read at the start — with `changes` (`ManifestChange` records) put in: an entry
    /// replaced or added, or dropped. Entries sorted by name; lines that cannot be read (or two for one name) are
    /// kept as they are for names no change touches, and replaced where one does. Not
    /// written when that changes no entry. What is at `path` must still be what the run accepted at its start:
    /// a regular file, a manifest (or, when it was not one then and `force` let it be replaced, anything
    /// regular) — a link or another file put there meanwhile is left alone and the manifest not written (the
    /// outputs are in place, the new ones unrecorded: `notRecorded`). Nil, or the error.
    /// `locking` false: a private copy no other run can reach (a dry run's, in the temporary folder), not locked —
    /// the lock file its folder may need would be left there under the copy's random name, one a run.
    public func write(to path: String, changes: Spool, protected: any FileIdentitySet, force: Bool = false,
                      locking: Bool = true, notice: (String) -> Void = { _ in }) -> FileError? {
        // From the read of the file as it is now to its replacement, no other run's write may come between:
        // two runs finishing together would each merge into the same old file, and the later rename would drop
        // the other's entries. The folder is the lock (the file itself is replaced, so it cannot be).
        // A signal that stopped the batch before this write does not stop it (the files that finished are
        // recorded; a second signal still ends the process at once), nor the wait for the lock: writing without
        // it beside the run that holds it could drop that run's entries. A first signal during either stops it.
        let signalledBefore = interruptSignal()
        let lock = locking ? FolderLock(folderOf: path, waiting: notice, stopOnSignal: signalledBefore == nil) : FolderLock()
        defer { lock.release() }
        do throws(FileError) {
            let merged = Spool()
            var order: UInt64 = 0
            // The lines now (their entries rendered again, as `Manifest` renders them), then the changes.
            var now: ManifestBytes? = source, nowStart = dataStart
            let replaced = "was replaced during the run by "
            let kept = "; it is left as it is and the manifest is not written (" + Self.notRecorded + ")"
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
                                + "and the manifest is not written (" + Self.notRecorded + ")")
            }
            // A signal (SIGINT, SIGTERM) during the wait or a merge of many lines: the manifest is left as it was.
            func interruptedNow() -> Bool { lock.interrupted || (signalledBefore == nil && interruptSignal() != nil) }
            let interruption = FileError(path: path, reason: "interrupted: the manifest is not written (" + Self.notRecorded + ")")
            func stopIfInterrupted() throws(FileError) {
                if interruptedNow() { throw interruption }
            }
            try stopIfInterrupted()
            if let now {
                var reader = LineReader(now, at: nowStart)
                while let (line, _) = reader.next() {
                    order += 1
                    if order & 4095 == 0 { try stopIfInterrupted() }
                    // A line too long to keep (`LineReader.cutName`) stays as its name alone, unusable: the next
                    // run converts its output again, as the warning says (dropped, it was refused as unrecorded).
                    if line == nil, let cut = reader.cutName {
                        MergeRecord.write(name: cut[...], order: order, change: false, line: ([0] + cut)[...], to: merged)
                        continue
                    }
                    guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
                    guard let entry = try? ManifestEntry(fields: try Manifest.fields(line[...])) else {
                        // Counted (beside a readable line of its name, the name has two lines, and neither is
                        // trusted) and kept as it is, marked by a leading NUL (no rendered line starts so): a name
                        // this run does not change keeps its unusable lines, so the next run still takes the output
                        // as yuvconv's (dropped, it was refused as unrecorded).
                        MergeRecord.write(name: Self.name(line), order: order, change: false, line: ([0] + line)[...], to: merged)
                        continue
                    }
                    let rendered = entry.line
                    MergeRecord.write(name: Self.name(rendered), order: order, change: false, line: rendered[...], to: merged)
                }
            }
            // git's "racily clean" rule for the outputs: a change time not settled by now is not recorded. An edit
            // in place in the same clock tick as the naming (a whole second on some file systems), its time set
            // back, leaves the change time as recorded, so no later run could tell; unrecorded, the next run
            // reads the output once (its SHA-256 decides) and records the time then. An edit after this write
            // gets a later change time than one settled now.
            let writtenAt = ManifestEntry.wallClock()
            try ManifestChange.forEach(in: changes) { name, change in
                order += 1
                var entry = change
                if let c = entry?.outputChanged, !ManifestEntry.settled(c, at: writtenAt) { entry?.outputChanged = nil }
                MergeRecord.write(name: Manifest.escaped(PathBytes.encode(name))[...], order: 1 << 62 | order, change: true,
                                  line: entry?.line[...] ?? [], to: merged)
            }
            try stopIfInterrupted()
            let sorted = try merged.sortedRecords()
            try stopIfInterrupted()
            // Of each name: the last change, else the line there was; changed when a change differs from it. A
            // name with two lines there, or an unusable one, and no change keeps them all as they are: still
            // untrusted (`secondEntry`), still naming the output as yuvconv's — keeping one would make the next run
            // trust it, dropping them would make it refuse the output as unrecorded.
            let text = Spool()
            text.append(Manifest.head)
            var changed = false, records = sorted.reader(), count = 0
            // Of the name's lines there: the readable one (rendered), and all of them as they are to keep (`raw`).
            var group: (name: [UInt8], old: ArraySlice<UInt8>?, raw: [ArraySlice<UInt8>], new: ArraySlice<UInt8>??)?
            func finish() {
                guard let g = group else { return }
                if let new = g.new {
                    if new.map({ !$0.elementsEqual(g.old ?? []) || g.old == nil }) ?? (g.old != nil) || g.raw.count > 1 { changed = true }
                    if let line = new { text.append(line); text.append(10) }
                } else if g.raw.count > 1 || (g.raw.count == 1 && g.old == nil) {
                    for line in g.raw { text.append(line); text.append(10) }
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
                    group = (Array(record.name), nil, [], nil)
                }
                if record.change {
                    group!.new = .some(record.line.isEmpty ? nil : Array(record.line)[...])
                } else {
                    // An unusable line as it was (its NUL mark taken off); a readable one as rendered.
                    let unusable = record.line.first == 0
                    let line = Array(unusable ? record.line.dropFirst() : record.line)[...]
                    if !unusable { group!.old = line }
                    group!.raw.append(line)
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
            // (A folder gone from its path — moved mid-run — is said by the write below, as such: no lock is the
            // least of it.)
            if let why = lock.unlocked, FileStatus(path: splitPath(path).folder)?.kind == .directory {
                notice("\(displayPath(path)) is replaced without its lock (\(why)): entries another run writes at "
                       + "the same moment may be lost (those files unrecorded: the next --update replaces them only with --force)")
            }
            do throws(WriteError) {
                // No link followed, whatever was put there since the look above: a rename replaces a name.
                let out = try AtomicOutput(path: path, force: true, protected: protected, plainFileOnly: true)
                do throws(WriteError) {
                    var copy = text.reader(bufferSize: 1 << 16)
                    while let chunk = copy.readSome(1 << 16) { try out.write(Array(chunk)) }
                    if let failure = text.failure { throw WriteError.system("cannot read back a temporary file: \(failure.reason)") }
                    // The last moment a signal can stop it: one during the copy (a large manifest's) was not
                    // looked at, and the new manifest replaced the old with exit 0.
                    if interruptedNow() {
                        out.abort()
                        return interruption
                    }
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

/// A line of a manifest (or a change) keyed for the merge: its name as a key (`key`), 0, its order (8 bytes,
/// big-endian), whether it is a change (1) or a line there was (0), the line (empty: an entry dropped), and
/// the key's length (4 bytes).
struct MergeRecord {
    /// The name as a key (`key`): equal for equal names, in their order.
    let name: ArraySlice<UInt8>
    let change: Bool
    let line: ArraySlice<UInt8>

    static func write(name: ArraySlice<UInt8>, order: UInt64, change: Bool, line: ArraySlice<UInt8>, to spool: Spool) {
        let key = Self.key(name)
        spool.appendRecord(parts: [key, [0], InputRecord.bigEndian(order)[...], [change ? 1 : 0], line,
                                   InputRecord.length(key.count)[...]])
    }

    /// A name as bytes without 0 (0 as 1 1, 1 as 1 2), so that the 0 after it ends it: records sort by name
    /// first, as the search of the sorted copy (`ManifestFile.lookup`) compares names. A rendered name holds
    /// neither byte, but the name of a damaged line is what it holds: "p1.nv12" and a NUL, keyed as the bytes
    /// themselves, sorted between the records of "p1.nv12" by their order, and split its group (a hostile round:
    /// the output was refused as unrecorded on every later run).
    static func key(_ name: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard name.contains(where: { $0 <= 1 }) else { return name }
        var key: [UInt8] = []
        key.reserveCapacity(name.count + 8)
        for b in name {
            if b <= 1 { key += [1, b + 1] } else { key.append(b) }
        }
        return key[...]
    }

    init(_ r: ArraySlice<UInt8>) {
        let n = InputRecord.pathLength(r), s = r.startIndex
        name = r[s..<(s + n)]
        change = r[s + n + 9] == 1
        line = r[(s + n + 10)..<(r.endIndex - 4)]
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

    /// No lock: nothing to wait for or release.
    init() {
        (fd, unlocked, interrupted) = (-1, nil, false)
    }

    /// Unlocks (closing the descriptor).
    func release() {
        if fd >= 0 { close(fd) }
    }
}
