#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Synchronization
import YUVCore

// A batch's confinement of its outputs to its output folder: apart from AtomicOutput's file handling, which
// only asks it for the folder an output goes in (`confinedFolder`).
extension AtomicOutput {
    /// A batch's output folder, as the batch found or made it (`confine`): outputs below it are reached from it,
    /// its identity checked, and each folder between it and the output opened in turn and held to the identity
    /// it had before the run wrote anything (`noteFolders`, as the plan's checks saw it) or else when the run
    /// first used it — a folder moved, or replaced by another or by a link while the batch runs (`out/sub` made
    /// a link to elsewhere), fails the output instead of sending it wherever the path now leads. A link that was
    /// there from the start (`out/2024` on another disk) is followed as before — "the start" being when
    /// `noteFolders` walks, after the plan's checks and before the first file is written: a link made between
    /// the two counts as one that was there before, as it would have a moment earlier — and a folder that was not
    /// there (`absent`, or below a folder the run made: `allAbsent`) is made by the run and never reached
    /// through a link. Nil: paths as given.
    /// `seen` and `names` by the folders' bytes: Swift's Strings take one name in NFC and NFD as equal.
    private static let confinement = Mutex<Confinement?>(nil)

    private struct Confinement {
        var root: String
        var identity: FileIdentity
        var seen: [[UInt8]: FileIdentity] = [:]
        var names: [FileIdentity: [UInt8]] = [:]
        /// The top-most folders `noteFolders` found missing (those below them were missing too).
        var absent: Set<[UInt8]> = []
        var allAbsent: Bool
    }

    /// The folders between `root` and `path`'s last component, split on the byte `/` — Swift's Strings take a `/`
    /// followed by a combining mark as one Character, which a String prefix test or split misses — or nil when
    /// `path` is not below `root`.
    static func folderParts(of path: String, under root: String) -> [String]? {
        let p = PathBytes.encode(path), r = PathBytes.encode(root == "/" ? "/" : root + "/")
        guard p.count > r.count, p.starts(with: r) else { return nil }
        return p[r.count...].split(separator: UInt8(ascii: "/")).dropLast().map { PathBytes.decode($0) }
    }

    /// Outputs under `root` (a folder, identity `identity`) are written only inside it (`confinedFolder`).
    /// `madeByRun`: the run made the folder, so nothing below it was there before.
    public static func confine(to root: String, identity: FileIdentity, madeByRun: Bool = false) {
        confinement.withLock { $0 = Confinement(root: root.withoutTrailingSlashes, identity: identity, allAbsent: madeByRun) }
    }

    /// Before the run writes anything: the identity of each folder now on the way to each output (`outputs`, in
    /// the plan's order) inside the confinement, a link followed as the plan's checks followed it — so that one
    /// swapped for a link before the run first writes there fails as one swapped after — and the top-most ones
    /// missing, which the run makes and never reaches through a link made in their place. A folder it did not
    /// see (a path only a link's target names, one it could not open) is treated as before: held to what its
    /// first use finds. The folders of the last walk stay open (up to 256 deep) and the next one starts from
    /// what it shares with them (a batch's outputs come folder by folder): one `openat` a new folder, none for
    /// an output in a folder already walked.
    public static func noteFolders(_ outputs: () -> String?) {
        guard let root = confinement.withLock({ $0.flatMap { $0.allAbsent ? nil : $0.root } }) else { return }
        let rootFolder = withFileSystemPath(root) { yc_open_folder($0) }
        guard rootFolder >= 0 else { return }   // the first use says what is wrong with it
        // The open folders of the last walk (name bytes, descriptor), and the names up to a folder it could not
        // open (missing, or no folder), which the outputs below it need not try again.
        var chain: [(name: [UInt8], fd: Int32)] = []
        var stopped: [[UInt8]]?
        defer {
            for c in chain { close(c.fd) }
            close(rootFolder)
        }
        while let path = outputs() {
            guard let all = folderParts(of: path, under: root) else { continue }
            let parts = Array(all.prefix(256))
            let names = parts.map { PathBytes.encode($0) }
            if let stopped, names.count >= stopped.count, Array(names.prefix(stopped.count)) == stopped { continue }
            var shared = 0
            while shared < min(chain.count, names.count) && chain[shared].name == names[shared] { shared += 1 }
            while chain.count > shared { close(chain.removeLast().fd) }
            var reached = root
            for part in parts.prefix(shared) { reached = joinedPath(reached, part) }
            stopped = nil
            for i in shared..<parts.count {
                reached = joinedPath(reached, parts[i])
                let parent = chain.last?.fd ?? rootFolder
                let next = withFileSystemPath(parts[i]) { yc_open_folder_at(parent, $0, 1) }
                let code = errno
                guard next >= 0, let now = FileStatus(descriptor: next)?.identity else {
                    if next >= 0 { close(next) }
                    // Missing (not a link to nothing, which is there): the run's to make. Anything else (not a
                    // folder, no permission) is left to its first use to say.
                    var entry = stat()
                    if next < 0 && code == ENOENT
                        && withFileSystemPath(parts[i], { fstatat(parent, $0, &entry, AT_SYMLINK_NOFOLLOW) }) != 0 {
                        let key = PathBytes.encode(reached)
                        confinement.withLock { c in _ = c?.absent.insert(key) }
                    }
                    stopped = Array(names.prefix(i + 1))
                    break
                }
                chain.append((names[i], next))
                let key = PathBytes.encode(reached)
                confinement.withLock { c in
                    if c?.seen[key] == nil { c?.seen[key] = now }
                }
            }
        }
    }

    /// The folder of `path` reached from the confinement's root, or nil when `path` is not below it; `making`,
    /// the folders on the way are made where missing (`mkdir -p`, each from the one before).
    static func confinedFolder(of path: String, making: Bool = false) throws(WriteError) -> Int32? {
        guard let (root, identity, allAbsent) = confinement.withLock({ $0.map { ($0.root, $0.identity, $0.allAbsent) } })
        else { return nil }
        guard let parts = folderParts(of: path, under: root) else { return nil }
        let changed = WriteError.system("the output folder \(PathBytes.display(root)) was moved or replaced during the run")
        var folder = withFileSystemPath(root) { yc_open_folder($0) }
        if folder < 0 {
            // Gone, or something else at its name: changed. Any other failure (no descriptors left, no permission)
            // is said as it is: EMFILE was reported as the folder moved.
            let code = errno
            throw code == ENOENT || code == ENOTDIR || code == ELOOP ? changed
                : .system("cannot open the output folder \(PathBytes.display(root)): \(errnoMessage(code))")
        }
        guard FileStatus(descriptor: folder)?.identity == identity else {
            close(folder)
            throw changed
        }
        if parts.isEmpty {
            // An output in the folder itself: the folder is used under its own name (a link to it used as a
            // subfolder would then be a second name).
            let rootKey = PathBytes.encode(root)
            let other = confinement.withLock { c -> [UInt8]? in
                if let o = c?.names[identity], o != rootKey { return o }
                c?.names[identity] = rootKey
                return nil
            }
            if let other {
                close(folder)
                throw .system("the folder \(PathBytes.display(PathBytes.decode(other))) is the folder \(PathBytes.display(root)) "
                              + "(a link or a mount): two outputs of the run could be one file")
            }
        }
        var reached = root, underAbsent = allAbsent
        for part in parts {
            reached = joinedPath(reached, part)
            if making, withFileSystemPath(part, { mkdirat(folder, $0, 0o777) }) != 0, errno != EEXIST {
                let why = errnoMessage()
                close(folder)
                throw .system("cannot make the folder \(PathBytes.display(reached)): \(why)")
            }
            let key = PathBytes.encode(reached)
            // A folder that was missing when the run began (`noteFolders`), or is below one, is the run's own: a
            // link in its place is not followed.
            if !underAbsent { underAbsent = confinement.withLock { $0?.absent.contains(key) ?? false } }
            let wasAbsent = underAbsent
            let next = withFileSystemPath(part) { yc_open_folder_at(folder, $0, wasAbsent ? 0 : 1) }
            let code = errno
            close(folder)
            let replaced = WriteError.system("the folder \(PathBytes.display(reached)) was "
                                             + (code == ENOENT ? "removed" : "replaced") + " during the run")
            guard next >= 0, let now = FileStatus(descriptor: next)?.identity else {
                if next >= 0 { close(next) }
                // (O_NOFOLLOW on a link: ENOTDIR with O_DIRECTORY on Linux, ELOOP on macOS, EMLINK on FreeBSD.)
                if wasAbsent && (code == ENOTDIR || code == ELOOP || code == EMLINK) {
                    if confinement.withLock({ $0?.seen[key] != nil }) { throw replaced }   // the run's own, used before
                    throw .system(notAFolder(PathBytes.display(reached), errno: code, linkNotFollowed: true))
                }
                // What is there at its first use was there before, not replaced: a file, a link to nothing (just
                // made with mkdir -p, so not missing), or a loop of links.
                if next < 0 && (code == ENOTDIR || (code == ENOENT && making) || code == ELOOP)
                    && confinement.withLock({ $0?.seen[key] == nil }) {
                    throw .system(notAFolder(PathBytes.display(reached), errno: code))
                }
                throw next < 0 && code != ENOENT && code != ENOTDIR && code != ELOOP
                    ? .system("cannot open the folder \(PathBytes.display(reached)): \(errnoMessage(code))") : replaced
            }
            // Held to its first identity; and no folder first used under a second name (a link or a bind mount
            // made to another output folder): two outputs of the run could then be one file.
            let alias = confinement.withLock { c -> [UInt8]?? in
                if let was = c?.seen[key], was != now { return nil }
                if let other = c?.names[now], other != key { return .some(other) }
                c?.seen[key] = now
                c?.names[now] = key
                return .some(nil)
            }
            guard let alias else {
                close(next)
                throw replaced
            }
            if let other = alias {
                close(next)
                throw .system("the folder \(PathBytes.display(reached)) is the folder \(PathBytes.display(PathBytes.decode(other))) "
                              + "(a link or a mount): two outputs of the run could be one file")
            }
            folder = next
        }
        return folder
    }

    /// A new file of the run's own named `prefix` and six random letters (`ownFileName` tells such a name), made in
    /// `prefix`'s folder as the confinement reaches it (the folder the run began with: one moved or replaced meanwhile
    /// is an error, not a file made wherever the path now leads) or by path when not confined, never through a link,
    /// mode 0644 less the umask, open for reading and writing. `prepare` fills it before it has a name where the
    /// file system makes unnamed files (`O_TMPFILE`): no one sees it empty; elsewhere right after it is made.
    /// Its descriptor and path.
    public static func makeOwnFile(prefix: String, prepare: (Int32) -> Bool) throws(WriteError) -> (fd: Int32, path: String) {
        let (dir, stem) = splitPath(prefix)
        let folder = try confinedFolder(of: prefix) ?? withFileSystemPath(dir.isEmpty ? "." : dir) { yc_open_folder($0) }
        guard folder >= 0 else { throw .system("cannot open the folder \(PathBytes.display(dir)): \(errnoMessage())") }
        defer { close(folder) }
        func path(_ name: String) -> String { dir.isEmpty ? name : joinedPath(dir, name) }
        func randomName() -> String { stem + randomSuffix() }
        let unnamed = yc_open_unnamed_at(folder, 0o644)
        if unnamed >= 0 {
            guard prepare(unnamed) else {
                let why = errnoMessage()
                close(unnamed)
                throw .system(why)
            }
            for _ in 0..<100 {
                let name = randomName()
                if withFileSystemPath(name, { yc_name_unnamed(unnamed, folder, $0) }) == 0 { return (unnamed, path(name)) }
                if errno != EEXIST { break }
            }
            // (Not named: a file made by name below, as outputs fall back.)
            close(unnamed)
        }
        // By name: registered with the signal handlers from before it is made (`nameTemporary`) until `prepare` has
        // made it what it is to be, so that a signal in between leaves no such file (an empty journal was left for
        // good).
        let (fd, slot, name) = nameTemporary(in: folder, tries: 100, named: { stem + $0 }) {
            openat($0, $1, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else {
            if errno == EINTR { throw .interrupted }   // a signal is ending the run (`nameTemporary`)
            if errno == EEXIST { throw .system("no free name for \(PathBytes.display(prefix))XXXXXX") }
            throw .system(errnoMessage())
        }
        defer { yc_unregister_temp(slot) }
        guard prepare(fd) else {
            let why = errnoMessage()
            _ = withFileSystemPath(name) { unlinkat(folder, $0, 0) }
            close(fd)
            throw .system(why)
        }
        return (fd, path(name))
    }

    /// Whether `name` is one `makeOwnFile` makes for `stem`: the stem and six of its letters.
    public static func ownFileName(_ name: String, stem: String) -> Bool {
        guard name.hasPrefix(stem) else { return false }
        let tail = name.utf8.dropFirst(stem.utf8.count)
        return tail.count == 6 && tail.allSatisfy { nameCharacters.contains(Character(Unicode.Scalar($0))) }
    }

    /// Makes the folders of the output `path` inside the confinement (`confine`), never through a link: true
    /// when done, false when `path` is not confined (the caller makes them by path).
    public static func makeConfinedFolders(for path: String) throws(WriteError) -> Bool {
        guard let folder = try confinedFolder(of: path, making: true) else { return false }
        close(folder)
        return true
    }
}
