#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The folders this run made for its outputs (`mkdir -p` of an output folder, a template's subfolder, a
/// mirrored tree), so that a run that wrote nothing into them leaves none behind: a batch whose inputs all
/// failed does not leave an empty output folder, as if something had been written.
public enum MadeFolders {
    private static let made = Mutex<[(path: String, identity: FileIdentity)]>([])

    /// `path` was just made by this run (its `mkdir` succeeded): remembered with its identity.
    public static func note(_ path: String) {
        guard let st = FileStatus(path: path, follow: false), st.kind == .directory else { return }
        made.withLock { $0.append((path, st.identity)) }
    }

    /// Removes the folders this run made that are still empty, the deepest first (each was made after the
    /// folder it is in, so in reverse order of making): `rmdir`, which removes only an empty folder, and only
    /// where the name still holds the folder the run made (not one that took its place). Called once the run
    /// has written and named everything; a folder something is in (an output, a report, another process's
    /// file) stays.
    public static func removeEmpty() {
        let list = made.withLock { l in
            defer { l.removeAll() }
            return l
        }
        for (path, identity) in list.reversed() {
            guard let st = FileStatus(path: path, follow: false), st.kind == .directory, st.identity == identity else { continue }
            _ = withFileSystemPath(path) { rmdir($0) }
        }
    }
}
