#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVIO
import YUVCore

/// `--update`'s journal: each output a run makes, recorded as it is made, so that a run that ends before
/// writing its manifest — killed (SIGKILL: the OOM killer, a CI job's hard timeout), or its write failed or was
/// interrupted — does not leave its outputs unrecorded, which the next run could replace only with `--force`.
///
/// One file a run in the output folder, `.yuvconv-manifest.journal.` and six letters (`AtomicOutput.makeOwnFile`;
/// a name no output may take), made before the run's first output — its first line `yuvconv-journal<TAB>1`, and
/// held under an exclusive `flock` from before it has a name — then a line a made output, the manifest's own line
/// for it, written whole just before the output is named. The run removes it once its manifest is written. The
/// next run (`recover`) puts the lines of every journal no live run holds into the manifest before it reads it,
/// then removes them. Only a file of a journal's exact name whose first line is the journal's is one: anything
/// else is left alone, and so is an input of the run. A line is recorded only when the file at its name is the
/// one it describes (`readLines`).
public final class ManifestJournal: @unchecked Sendable {
    static let magic = Array("yuvconv-journal\t1\n".utf8)
    /// The most journals a run records (`orphans`): 64, fewer under a low descriptor limit (each is held open until
    /// the manifest is written, which needs descriptors of its own).
    static var most: Int {
        guard let soft = openFileLimit(), soft < 1 << 20 else { return 64 }
        return max(1, min(64, (Int(soft) - 48) / 2))
    }
    static var stem: String { AtomicOutput.manifestJournalPrefix }
    private struct State {
        var fd: Int32 = -1
        var path: String?
        var offset = 0
        /// Why the journal could not be kept (said once), or nil.
        var failed: String?
    }
    private let folder: String
    private let state = Mutex(State())
    private let warn: @Sendable (String) -> Void

    /// The journal of a run writing into `folder`; `warn` says, once, why it could not be kept.
    public init(folder: String, warn: @escaping @Sendable (String) -> Void) {
        self.folder = folder
        self.warn = warn
    }

    /// An exclusive lock on `fd`, waited for a little (a recovering run that opened a journal just named holds it a
    /// moment; an interrupted wait is tried again): whether it is held. A journal without its lock could be taken
    /// for a dead run's.
    static func lock(_ fd: Int32) -> Bool {
        for _ in 0..<300 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR else { return false }
            usleep(10_000)
        }
        return false
    }

    /// All of `bytes` at `offset` (a short write or EINTR taken again): nil, or why not. `pwrite`, at the journal's
    /// own offset.
    static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int) -> String? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            if n == 0 { errno = ENOSPC }
            if n <= 0 { return systemMessage() }
            done += n
        }
        return nil
    }

    /// Makes the journal, if not made yet (or said failed): before the run's first output is named, so that every
    /// output made is followed by its line with nothing between (a journal made after the first output's naming
    /// left that output unrecorded when the run was killed in between). Nil, or why it could not be made.
    private func made(_ s: inout State) -> String? {
        if s.failed != nil || s.fd >= 0 { return nil }
        do throws(WriteError) {
            let (fd, path) = try AtomicOutput.makeOwnFile(prefix: Self.place(folder) + Self.stem) { fd in
                // Held by this run before anyone can see it with its first line: no journal without its lock.
                Self.lock(fd) && Self.write(fd, Self.magic, at: 0) == nil
            }
            (s.fd, s.path, s.offset) = (fd, path, Self.magic.count)
            return nil
        } catch {
            s.failed = error.reason
            return s.failed
        }
    }

    /// Before an output is converted: the journal made, ready for its line. Nil, or why the output may not be
    /// made (`refusal`).
    public func prepare() -> String? { answer(state.withLock { s in made(&s).map { ($0, true) } ?? s.failed.map { ($0, false) } }) }

    /// Records `entry` (an output about to be named). Nil, or why it cannot be (`refusal`): the journal could not
    /// be made or written, now or before — said once (`warn`). The output is then not named, and the run starts
    /// no more files (`failed`): every output named is recorded here first, so none is left for the next run to
    /// refuse as not recorded, whatever becomes of the manifest's write. A line written in part is cut off again.
    public func append(_ entry: ManifestEntry) -> String? {
        let line = entry.line + [10]
        return answer(state.withLock { s -> (String, Bool)? in
            if let failed = s.failed { return (failed, false) }
            if let why = made(&s) { return (why, true) }
            guard let why = Self.write(s.fd, line, at: s.offset) else {
                s.offset += line.count
                return nil
            }
            _ = ftruncate(s.fd, off_t(s.offset))
            s.failed = why
            return (why, true)
        })
    }

    /// Whether the journal could not be kept: the run starts no more files.
    public var failed: Bool { state.withLock { $0.failed != nil } }

    /// What an output the journal cannot take fails with.
    public static func refusal(_ why: String) -> String {
        "cannot record it in --update's journal (\(why)): it is not made, so that no output of the run is left unrecorded"
    }

    /// The failure (said, the first time), as `refusal`.
    private func answer(_ failure: (why: String, first: Bool)?) -> String? {
        guard let failure else { return nil }
        if failure.first {
            warn("cannot keep --update's journal in \(displayPath(folder)) (\(failure.why)): the run starts no more files, and "
                 + "names no more outputs, so that none it makes is left unrecorded")
        }
        return Self.refusal(failure.why)
    }

    /// The run's end: the journal removed when the manifest is written (`remove`), else kept for the next run.
    public func finish(remove: Bool) {
        state.withLock { s in
            guard s.fd >= 0 else { return }
            if remove, let path = s.path { _ = withFileSystemPath(path) { unlink($0) } }
            close(s.fd)
            s.fd = -1
        }
    }

    /// The folder as a prefix of its files' paths.
    static func place(_ folder: String) -> String { joinedPath(folder, "") }

    /// A journal found: its path and descriptor (locked), its lines read into the changes.
    struct Found {
        let path: String
        let fd: Int32
    }

    /// What the journals no live run holds record: found (each locked, open), their entries as manifest changes,
    /// how many, how many lines could not be read, and what could not be looked at.
    struct Orphans {
        var found: [Found] = []
        let changes = Spool()
        var entries = 0, unread = 0
        var problems: [String] = []

        func release() { for f in found { close(f.fd) } }
    }

    /// The journals in `folder`: files of a journal's exact name, regular (not through a link), not an input of
    /// the run (`protected`), whose first line is the journal's and whose lock no live run holds — each read once,
    /// a block at a time, its lines put in the changes as they come (no line longer than a manifest's longest).
    static func orphans(in folder: String, protected: any FileIdentitySet) -> Orphans {
        var o = Orphans()
        guard let dir = withFileSystemPath(place(folder), { opendir($0) }) else { return o }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in PathBytes.decode(Array(raw.prefix { $0 != 0 })[...]) }
            guard AtomicOutput.ownFileName(name, stem: stem) else { continue }
            let path = place(folder) + name
            guard FileStatus(path: path, follow: false)?.kind == .regular else { continue }
            // For writing where it can be (a lock on NFS needs it), never through a link, never waiting.
            var fd = withFileSystemPath(path) { open($0, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            if fd < 0 && (errno == EACCES || errno == EROFS) {
                fd = withFileSystemPath(path) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            }
            guard fd >= 0 else {
                // (Gone meanwhile: another run recorded it.)
                if errno != ENOENT { o.problems.append("\(displayPath(path)): named as a journal of --update's, cannot be opened (\(systemMessage()))") }
                continue
            }
            // What was opened, not what the name led to a moment before: a regular file, not an input of the run.
            var own = stat()
            let view = fileSystemView(descriptor: fd)
            guard fstat(fd, &own) == 0, let st = FileStatus(descriptor: fd), st.kind == .regular,
                  !protected.holds(st, onOverlay: view.overlay, onFUSE: view.fuse) else {
                close(fd)
                continue
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                // A live run's (EWOULDBLOCK): its own to write. Any other failure is said: it is left as it is.
                if errno != EWOULDBLOCK { o.problems.append("\(displayPath(path)): named as a journal of --update's, cannot be locked (\(systemMessage()))") }
                close(fd)
                continue
            }
            // Recorded and removed by another run between the open and the lock: its lines are in the manifest.
            var now = stat()
            guard fstat(fd, &now) == 0, now.st_nlink > 0 else {
                close(fd)
                continue
            }
            var head = [UInt8](repeating: 0, count: magic.count)
            guard head.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, 0) }) == magic.count, head == magic else {
                close(fd)   // not a journal: someone's file of that name
                continue
            }
            // Another user's (a shared folder, mode 1777, where anyone may make files): not this user's runs' to
            // record — its lines would make this user's files at those names replaceable.
            guard own.st_uid == geteuid() else {
                o.problems.append("\(displayPath(path)): a journal of --update's that belongs to another user (uid \(own.st_uid)), not recorded")
                close(fd)
                continue
            }
            // A killed run leaves one: a few dozen is already many. More are left for later runs (each held open
            // while the manifest is written).
            guard o.found.count < Self.most else {
                o.problems.append("\(displayPath(path)): a journal of --update's past the \(Self.most) a run records at once, left for the next run")
                close(fd)
                continue
            }
            // (A second descriptor for the reader, which closes it: the lock stays with the first.)
            let copy = dup(fd)
            guard copy >= 0 else {
                o.problems.append("\(displayPath(path)): a journal of --update's, cannot be read now (\(systemMessage())); left for the next run")
                close(fd)
                continue
            }
            o.found.append(Found(path: path, fd: fd))
            readLines(ManifestBytes(descriptor: copy, size: Int(now.st_size)), from: magic.count, folder: folder, into: &o)
        }
        return o
    }

    /// The lines of the journal `file` after `start` (`LineReader`, a block at a time), streamed into `o`'s
    /// changes — each only when the file at its name in `folder` is the one it describes (not through a link; the
    /// same inode, size and time): a line written before its output's naming whose file never got the name (a kill
    /// in between, a naming that failed because someone's file appeared there) must not make whatever is at that
    /// name yuvconv's. A line too long to be an entry, and a last one without its newline (each is written with
    /// its newline, so that one was cut short: a full disk), count as unread.
    static func readLines(_ file: ManifestBytes, from start: Int, folder: String, into o: inout Orphans) {
        var reader = LineReader(file, at: start)
        while let (line, lineStart) = reader.next() {
            guard let line, reader.position > lineStart + line.count,
                  let entry = try? ManifestEntry(fields: Manifest.fields(line[...])) else {
                if line?.isEmpty != true { o.unread += 1 }
                continue
            }
            guard let st = FileStatus(path: place(folder) + entry.output, follow: false), st.kind == .regular,
                  st.inode == entry.outputInode, st.size == entry.outputBytes, st.modified == entry.outputModified else {
                continue
            }
            ManifestChange.write(name: entry.output, entry: entry, to: o.changes)
            o.entries += 1
        }
    }

    /// Puts the lines of the journals in `folder` that no live run holds (runs that ended before writing the
    /// manifest at `manifest`) into that manifest, then removes those journals. Nothing is written nor removed
    /// when the manifest's place holds a file that is not a manifest (without `force`): the run refuses it. How
    /// many outputs were recorded, how many lines could not be read, what could not be looked at; or the
    /// manifest's write error, the journals then left in place.
    public static func recover(folder: String, manifest: String, protected: any FileIdentitySet, force: Bool,
                               notice: (String) -> Void) -> (recorded: Int, unread: Int, problems: [String], error: FileError?) {
        let o = orphans(in: folder, protected: protected)
        defer { o.release() }
        guard !o.found.isEmpty else { return (0, 0, o.problems, nil) }
        if o.entries > 0 {
            do throws(FileError) {
                let file = try ManifestFile(path: manifest)
                if file.foreign && !force { return (0, 0, o.problems, nil) }
                if let error = file.write(to: manifest, changes: o.changes, protected: protected, force: force, notice: notice) {
                    return (0, 0, o.problems, error)
                }
            } catch {
                return (0, 0, o.problems, error)
            }
        }
        for f in o.found { _ = withFileSystemPath(f.path) { unlink($0) } }
        return (o.entries, o.unread, o.problems, nil)
    }

    /// For a dry run, which writes nothing in the folder: a private copy of the manifest at `manifest` (a file of
    /// the run's in the temporary folder, `Spool.folder`, which no ending leaves behind) with the lines of the
    /// journals no live run holds put in, as the run will put them first — and how many outputs they record; nil
    /// when they record none, or no copy could be made. `DryCopy.remove` removes it.
    public static func dryRunCopy(folder: String, manifest: String, protected: any FileIdentitySet,
                                  force: Bool) -> (copy: DryCopy?, recorded: Int, unread: Int, problems: [String]) {
        let o = orphans(in: folder, protected: protected)
        defer { o.release() }
        guard o.entries > 0 else { return (nil, 0, o.unread, o.problems) }
        guard let (out, path, slot) = AtomicOutput.makePrivate(in: Spool.folder) else { return (nil, o.entries, o.unread, o.problems) }
        let copy = DryCopy(path: path, slot: slot)
        // The manifest's bytes as they are, or (none there) an empty manifest's first lines.
        var ok = true, at = 0
        let source = withFileSystemPath(manifest) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        if source >= 0 {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while ok {
                let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { ok = false }
                if n <= 0 { break }
                ok = write(out, Array(buffer[0..<n]), at: at) == nil
                at += n
            }
            close(source)
        } else {
            ok = errno == ENOENT && write(out, Manifest.head, at: 0) == nil
        }
        close(out)
        guard ok, let file = try? ManifestFile(path: path),
              file.write(to: path, changes: o.changes, protected: protected, force: force, locking: false, notice: { _ in }) == nil else {
            copy.remove()
            return (nil, o.entries, o.unread, o.problems)
        }
        return (copy, o.entries, o.unread, o.problems)
    }

    /// A dry run's private copy of the manifest (`dryRunCopy`).
    public struct DryCopy: Sendable {
        public let path: String
        let slot: Int32
        public func remove() { AtomicOutput.removePrivate(path: path, slot: slot) }
    }
}
