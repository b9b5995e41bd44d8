#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVIO

/// `--update`'s journal: each output a run makes, recorded as it is made, so that a run that ends before
/// writing its manifest — killed (SIGKILL: the OOM killer, a CI job's hard timeout, a power cut), or its write
/// failed — does not leave its outputs unrecorded, which the next run could replace only with `--force`.
///
/// One file a run in the output folder, `.yuvconv-manifest.journal.XXXXXX` (`AtomicOutput.manifestJournalPrefix`,
/// a name no output may take), made at the run's first output and held under an exclusive `flock` while the
/// run lives; a line a made output, the manifest's own line for it, appended in one `write`. The run removes it
/// once its manifest is written. The next run (`recover`) puts the lines of every journal no live run holds into
/// the manifest before it reads it, then removes them. A journal line trusts no more than a manifest line does:
/// the output it names is checked against it (size, time, inode, SHA-256) before it is kept.
public final class ManifestJournal: @unchecked Sendable {
    private struct State {
        var fd: Int32 = -1
        var path: String?
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

    /// Records `entry` (an output just made). Best effort: a journal that cannot be made or written is said once,
    /// and the run goes on (its manifest is still written at its end).
    public func append(_ entry: ManifestEntry) {
        let line = entry.line + [10]
        let said: String? = state.withLock { s -> String? in
            if s.failed != nil { return nil }
            if s.fd < 0 {
                // In the folder the run began with (a folder moved or replaced meanwhile: no journal, said).
                do throws(WriteError) {
                    let (fd, path) = try AtomicOutput.makeOwnFile(prefix: Self.place(folder) + AtomicOutput.manifestJournalPrefix)
                    _ = flock(fd, LOCK_EX | LOCK_NB)   // new, so no one else holds it
                    (s.fd, s.path) = (fd, path)
                } catch {
                    s.failed = error.reason
                    return s.failed
                }
            }
            let written = line.withUnsafeBytes { write(s.fd, $0.baseAddress, $0.count) }
            if written != line.count {
                s.failed = written < 0 ? systemMessage() : "a line was cut short"
                return s.failed
            }
            return nil
        }
        if let said {
            warn("cannot keep --update's journal in \(displayPath(folder)) (\(said)): should this run end before writing its "
                 + "manifest, the outputs it made are left unrecorded")
        }
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
    static func place(_ folder: String) -> String { folder.hasSuffix("/") ? folder : folder + "/" }

    /// The journals in `folder` that no live run holds, each locked (its descriptor open), with their paths.
    static func orphans(in folder: String) -> [(path: String, fd: Int32)] {
        var found: [(String, Int32)] = []
        guard let dir = withFileSystemPath(place(folder), { opendir($0) }) else { return found }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                PathBytes.decode(Array(raw.prefix { $0 != 0 })[...])
            }
            guard name.hasPrefix(AtomicOutput.manifestJournalPrefix) else { continue }
            let path = place(folder) + name
            // A regular file only, never through a link (one put there could lead anywhere).
            let fd = withFileSystemPath(path) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            guard fd >= 0 else { continue }
            guard FileStatus(descriptor: fd)?.kind == .regular, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)   // another kind of file, or a live run's journal
                continue
            }
            found.append((path, fd))
        }
        return found
    }

    /// The entries of a journal, and how many of its lines could not be read (a last line a kill cut short).
    static func entries(_ fd: Int32, into changes: Spool) -> (entries: Int, unread: Int) {
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= 256 << 20 {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        var count = 0, unread = 0
        for line in bytes.split(separator: 10) {
            do throws(Malformed) {
                let entry = try ManifestEntry(fields: try Manifest.fields(line))
                ManifestChange.write(name: entry.output, entry: entry, to: changes)
                count += 1
            } catch {
                unread += 1
            }
        }
        return (count, unread)
    }

    /// Puts the lines of the journals in `folder` that no live run holds (runs that ended before writing the
    /// manifest at `manifest`) into that manifest, then removes them. Returns how many outputs were recorded and
    /// how many lines could not be read; or the manifest's write error, the journals then left in place.
    /// `remove`: false for a dry run's private copy of the manifest (the journals stay for the run).
    public static func recover(folder: String, manifest: String, protected: any FileIdentitySet, force: Bool,
                               remove: Bool = true,
                               notice: (String) -> Void) -> (recorded: Int, unread: Int, error: FileError?) {
        let journals = orphans(in: folder)
        guard !journals.isEmpty else { return (0, 0, nil) }
        defer { for j in journals { close(j.fd) } }
        let changes = Spool()
        var recorded = 0, unread = 0
        for j in journals {
            let (n, bad) = entries(j.fd, into: changes)
            recorded += n
            unread += bad
        }
        if recorded > 0 {
            do throws(FileError) {
                let file = try ManifestFile(path: manifest)
                // Not a manifest there (someone's file): the journals wait; the run refuses that file as it would.
                if file.foreign && !force { return (0, 0, nil) }
                if let error = file.write(to: manifest, changes: changes, protected: protected, force: force, notice: notice) {
                    return (0, 0, error)
                }
            } catch {
                return (0, 0, error)
            }
        }
        if remove { for j in journals { _ = withFileSystemPath(j.path) { unlink($0) } } }
        return (recorded, unread, nil)
    }

    /// For a dry run, which writes nothing in the folder: a private copy of the manifest at `manifest` (in the
    /// temporary folder, `Spool.folder`) with the journals' lines put in, as the run will record them first — its
    /// path (the caller reads and removes it), or nil when there is no journal to record (or no copy could be made).
    public static func dryRunCopy(folder: String, manifest: String, protected: any FileIdentitySet, force: Bool) -> String? {
        guard pending(folder: folder) > 0 else { return nil }
        var template = PathBytes.encode(place(Spool.folder) + "yuvconv-dry-manifest-XXXXXX").map { CChar(bitPattern: $0) } + [0]
        let out = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard out >= 0 else { return nil }
        let copy = PathBytes.decode(template.dropLast().map { UInt8(bitPattern: $0) })
        // The manifest's bytes as they are (none: an empty copy, which the merge makes a manifest).
        let source = withFileSystemPath(manifest) { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        var ok = true
        if source >= 0 {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { ok = false }
                if n <= 0 { break }
                if buffer.withUnsafeBytes({ write(out, $0.baseAddress, n) }) != n { ok = false; break }
            }
            close(source)
        }
        close(out)
        if !ok || FileStatus(path: copy)?.size == 0 { _ = withFileSystemPath(copy) { unlink($0) } }
        guard ok else { return nil }
        let (_, _, error) = recover(folder: folder, manifest: copy, protected: protected, force: force, remove: false) { _ in }
        if error != nil {
            _ = withFileSystemPath(copy) { unlink($0) }
            return nil
        }
        return copy
    }

    /// How many outputs the journals in `folder` that no live run holds record (for a dry run, which writes
    /// nothing: a run records them first).
    public static func pending(folder: String) -> Int {
        let journals = orphans(in: folder)
        defer { for j in journals { close(j.fd) } }
        let changes = Spool()
        return journals.reduce(0) { $0 + entries($1.fd, into: changes).entries }
    }
}
