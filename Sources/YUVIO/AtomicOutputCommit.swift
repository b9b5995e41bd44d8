#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Synchronization
import YUVCore

// Committing a finished output (AtomicOutput.swift opens and writes it; AtomicOutputNaming.swift makes temporary
// names): the unnamed or temporary file linked or moved to its name, replacing only what `--force` may replace —
// with a batch, only what its plan saw there (`Before`).

extension AtomicOutput {
    /// Moves the finished file into place (and, when hashing, finishes `digest` first).
    public func commit() throws(WriteError) {
        if finished { throw Self.afterTheEnd }
        guard seekable else {
            finished = true
            yc_unregister_cut(cutSlot)
            // A descriptor open on a regular file with data where writing started (`1<>old`, `-o /dev/fd/3 3<>old`,
            // which need --force): the file ends where the output does, as a replaced file would. Its old tail was
            // left after the new bytes (a file of the wrong size, exit 0). Decided when it was opened: a file
            // appended to (`>>`) or empty there is never cut, whatever another writer adds meanwhile.
            if cutsTail {
                let end = lseek(fd, 0, SEEK_CUR)
                if end >= 0, let st = FileStatus(descriptor: fd), st.size > Int(end), ftruncate(fd, end) != 0 {
                    throw .system("cannot cut off the old data after the output: \(errnoMessage())")
                }
            }
            if var h = hasher, !hashLost, hashed == position { digest = OutputDigest(bytes: position, sha256: h.finalize()) }
            if direct {
                let closed = close(fd)
                fd = -1
                if closed != 0 { throw .system("write failed: \(errnoMessage())") }
            }
            return
        }
        defer {
            finished = true
            yc_unregister_temp(signalSlot)
        }
        let folder = folderFD, name = targetName
        func remove(_ temp: String) { withFileSystemPath(temp) { _ = unlinkat(folder, $0, 0) } }
        func move(_ temp: String) -> Int32 {
            withFileSystemPath(temp) { t in withFileSystemPath(name) { renameat(folder, t, folder, $0) } }
        }
        do throws(WriteError) { try finishDigest() } catch {
            close(fd)
            fd = -1
            if let temp = tempName { remove(temp) }
            throw error
        }
        if let digest, let why = beforeNaming?(digest) {
            close(fd)
            fd = -1
            if let temp = tempName { remove(temp) }
            throw .system(why)
        }
        try nameIntoPlace(folder: folder, name: name, remove: remove, move: move)
    }

    /// Why a file at the name stops the output: it was there without --force, or it came during the run (`Before`).
    var existing: WriteError { before.replacesNothing ? before.refusal(path, force: asked) : .exists }

    /// What was at an output's name when a batch's plan looked, before any work: `--force` replaces only that
    /// file, and a file that appeared since — another output of the run, whose name the file system takes for this
    /// one (`A.nv12` and `a.nv12` where it does not tell case apart), or another program's — is kept and the output
    /// refused. `unknown`: no plan looked (a single conversion), so no such rule.
    public enum Before: Sendable, Equatable {
        /// `changed`: a file made, moved, linked or changed at the name after the run began, before the look: no
        /// file that was there when the run began (`found`), so nothing `--force` may replace, as with `nothing`.
        case unknown, nothing, file(FileVersion), changed

        /// Nothing there that `--force` may replace: the output is named as without it (a link, which fails if a
        /// file is there).
        public var replacesNothing: Bool { self == .nothing || self == .changed }

        /// What is at `path` now, as a batch's plan records it: a regular file's version, `nothing`, `changed`, or
        /// `unknown` (a device or FIFO, written in place; anything that cannot be looked at). A single conversion
        /// looks at its output's name with it before any work, so that `--force` replaces what was there then and
        /// nothing put there since, as a batch's does.
        /// A standard stream named as the output (`-`, `/dev/stdout`, `/dev/fd/N`) is written in place: `unknown`.
        public static func lookingAt(_ path: String) -> Before {
            if AtomicOutput.standardDescriptor(path) != nil { return .unknown }
            guard let st = FileStatus(path: path) else { return errno == ENOENT ? .nothing : .unknown }
            guard st.kind == .regular else { return .unknown }
            let born = birthTime(path)
            return found(st, links: links(path), born: born, lookedAt: wallClockSeconds())
        }

        /// The symbolic links from `path` to the file it names, each link's own status, in order (the name's last
        /// part followed link by link, up to 40): every one of them is judged, not the first alone (a link further
        /// along the chain re-pointed during the run led --force to another file).
        public static func links(_ path: String) -> [FileStatus] {
            var out: [FileStatus] = [], at = path
            for _ in 0..<40 {
                guard let st = FileStatus(path: at, follow: false), st.kind == .symlink, let next = symlinkTarget(at) else { break }
                out.append(st)
                at = next
            }
            return out
        }

        /// When this run began (`beginRun`), or nil: no run declared its start (a library user that did not), so
        /// no file is known to be newer than the run.
        public static var runBegan: Double? { runStart.withLock { $0 } }
        private static let runStart = Mutex<Double?>(nil)

        /// Marks the run's start (`main` does it first of all): a file made, moved or changed at an output's name
        /// since is no file that was there when the run began (`found`). The precise clock: every file time is the
        /// clock's at or before the moment it was set (Linux's coarse stamps lag by up to a tick, 1–10 ms; its
        /// fine-grained ones do not), so no file set before the start bears a later time. (The coarse clock read
        /// here made files written just before the start, and stamped finely, look newer than it: false refusals.)
        public static func beginRun() { runStart.withLock { $0 = wallClockSeconds() } }

        /// The regular file `st` (made at `born`; `links`: the links on the way to it from the name, `links`), looked
        /// at when the clock said `lookedAt`: the file that was there when the run began, or `changed` when the
        /// name or the file changed since — after this run began and by the look: another shard's or another run's
        /// output named there (perhaps under a name this folder's file system takes for this one), a file moved or
        /// copied there, a link put there — which `--force` keeps, as it keeps one put there after the look.
        /// By the change time (`st_ctime`), which naming a file (a link, a rename), writing it, or setting its
        /// times or mode moves to the clock's time and nothing sets back: a birth time showed when a file was made,
        /// not when it came to the name (a file moved in, or an output made in another run before this one began
        /// and named after, kept its own), and a modification time is restored by `cp -p`, `rsync -a` and `tar x`;
        /// a link was judged by its target. A time after the look (a clock ahead of this one) is no sign.
        public static func found(_ st: FileStatus, links: [FileStatus] = [], born: Double?, lookedAt: Double) -> Before {
            if let began = runBegan, ([st] + links).contains(where: { $0.changed > began && $0.changed <= lookedAt }) {
                return .changed
            }
            return .file(FileVersion(st, born: born))
        }

        /// Whether the file now at the name (`now`, made at `born`) may be taken for the one that was there. Where
        /// both birth times are known: the same birth time, and the same inode — or the same size and modification
        /// time under another number (a FUSE file system without numbers of its own gives a file a new one when the
        /// kernel forgets it: nothing changed). A file removed and another made at its name gets the freed inode
        /// number again at once (ext4, tmpfs), and `--force` replaced the newcomer; its birth time is its own, while
        /// a `touch`, a `chmod` or a hard link made or removed (a sibling output renamed over) leaves it — the change
        /// time, which those move, failed such outputs. Without birth times (ext4 with 128-byte inodes, ext2/3, many
        /// network mounts): the same size and modification time, whatever the inode (so a newcomer under the freed
        /// number is told apart unless it copies both; a `touch` counts as another file there). A device or FIFO:
        /// the same one (its times move as it is written).
        public func allows(_ now: FileStatus, born: Double?) -> Bool {
            switch self {
            case .unknown: return true
            case .nothing, .changed: return false
            case .file(let v):
                // Another kind than it was is another file, whatever its number (a link made where the file was
                // removed gets the freed one on ext4).
                if now.kind != .regular || !v.regular { return now.kind != .regular && !v.regular && v.identity == now.identity }
                let sameContent = v.size == now.size && v.modified == now.modified
                if let was = v.born, let born { return was == born && (v.identity == now.identity || sameContent) }
                return sameContent
            }
        }

        /// Why the file now at `path` is not the one that was there (`allows` false), said as it happened: another
        /// output of the run is named only where the folder folds case, --force only when it was given.
        func refusal(_ path: String, force: Bool) -> WriteError {
            let folder = splitPath(path).folder
            if self == .changed {
                return .system("was made, moved or changed at this name after the run began (another program's, or another run's), "
                               + "and is kept" + (force ? "; --force replaces only what was there, as it was, when the run began" : ""))
            }
            var why = self == .nothing ? "appeared at this name during the run" : "was replaced by another file during the run"
            why += foldsCase(folder)
                ? " (another output of this run, whose name this folder's file system takes for the same: it does not tell "
                  + "upper from lower case; or another program's file), and is kept"
                : " (another program's, or another run's), and is kept"
            if force { why += "; --force replaces only what was there when the run began" }
            return .system(why)
        }
    }

    /// `commit`'s naming: the unnamed file linked at its name (or through a temporary name to replace a file), or
    /// the named temporary file moved there.
    func nameIntoPlace(folder: Int32, name: String, remove: (String) -> Void, move: (String) -> Int32) throws(WriteError) {
        // An unnamed file takes its name directly — a link, which fails if the target is there (appeared
        // meanwhile, or is to be replaced) — or, to replace a file (`force`), a temporary name for the moment
        // the rename below takes.
        // The file is named before it is closed (naming needs the descriptor): a close that fails then removes
        // the name again. Accepted: the file systems with unnamed files (ext4, XFS, Btrfs, tmpfs) report write
        // errors at the write, not at the close, and syncing first would cost a disk write per output.
        if tempName == nil {
            let linked = withFileSystemPath(name) { yc_name_unnamed(fd, folder, $0) }
            let linkErrno = errno
            if linked == 0 || linkErrno != EEXIST || !force {
                let closed = close(fd)
                let closeErrno = errno
                fd = -1
                if linked != 0 {
                    if linkErrno == EEXIST { throw existing }
                    throw .system("cannot name the file: \(Self.nameRefusal(linkErrno))")
                }
                if closed != 0 {
                    remove(name)
                    throw .system("write failed: \(errnoMessage(closeErrno))")
                }
                return
            }
            // A folder whose entries cannot be renamed or removed (append-only, `chattr +a`) would keep the
            // temporary name: refused before it is made.
            if yc_folder_append_only(folder) == 1 {
                close(fd)
                fd = -1
                throw .system("cannot replace the file: its folder is append-only (chattr +a)")
            }
            let file = fd
            if takeTemporaryName(in: folder, base: name, { folder, temp in yc_name_unnamed(file, folder, temp) }) != 0 {
                let code = errno, why = errnoMessage()
                close(fd)
                fd = -1
                if code == EINTR { throw .interrupted }   // a signal is ending the run (`nameTemporary`)
                throw .system("cannot name the file: \(why)")
            }
        }
        let temp = tempName!
        if close(fd) != 0 {
            let why = errnoMessage()
            remove(temp)
            throw .system("write failed: \(why)")
        }
        fd = -1
        if force {
            // Granted for one file only: one put at the name since (a user's notes where --update's report was)
            // is kept. (The rename replaced whatever was there then.) Nor any file but the one a batch's plan saw
            // there: one named meanwhile (another output of this run where case is not told apart) is kept. The
            // name looked at once, for both.
            // Why the file at `entry` (the name, or the temporary name after the swap below) is not one --force
            // may replace, or nil: the one rule for both looks.
            var looked: stat?   // what `refused` looked at last
            func refused(at entry: String) -> WriteError? {
                var st = stat()
                looked = withFileSystemPath(entry, { fstatat(folder, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 ? st : nil
                guard replacingOnly != nil || before != .unknown else { return nil }
                guard looked != nil else { return nil }
                let now = FileStatus(st), born = now.kind == .regular ? birthTime(entry, in: folder, follow: false) : nil
                // The file looked at, by the same rule as `before`'s (a `chmod` or a hard link made to it meanwhile
                // leaves it the same file; every field of its status compared refused it).
                if let was = replacingOnly, !(before != .unknown ? before.allows(now, born: born) : now.identity == was.identity) {
                    return .system("was replaced during the run by another file, which is kept (--force replaces it)")
                }
                // Whatever is there now: a link put at the name of a file that was there was replaced by the
                // output (the rename takes the name), as a file put there in its place is kept.
                return before.allows(now, born: born) ? nil : before.refusal(path, force: asked)
            }
            if let why = refused(at: name) {
                remove(temp)
                throw why
            }
            // The look above and the rename are two steps: a file put at the name between them was replaced. The
            // two names are swapped in one step instead, and what was at the name, now at the temporary one, looked
            // at again: the file that was there is removed; anything else is swapped back and kept. (Where the file
            // system cannot swap, or the name is empty now, the rename as before.)
            // From here the signal handlers remove the temporary name only while it holds this output or the file
            // just looked at, the one to replace: after the swap it holds what was at the name, and a file put there
            // meanwhile — swapped back below — was removed by a signal in between (a reviewer's gdb run).
            var mine = stat()
            let ours = withFileSystemPath(temp) { fstatat(folder, $0, &mine, AT_SYMLINK_NOFOLLOW) } == 0
            yc_temp_only_files(signalSlot, ours ? UInt64(mine.st_dev) : 0, ours ? UInt64(mine.st_ino) : 0,
                               looked.map { UInt64($0.st_dev) } ?? 0, looked.map { UInt64($0.st_ino) } ?? 0)
            let swapped = withFileSystemPath(temp) { t in withFileSystemPath(name) { yc_rename_exchange(folder, t, $0) } }
            if swapped == 0 {
                if let why = refused(at: temp) {
                    // Swapped back: the newcomer at its name again, this output at the temporary one, removed.
                    let back = withFileSystemPath(temp) { t in withFileSystemPath(name) { yc_rename_exchange(folder, t, $0) } }
                    guard back == 0 else {
                        throw .system("was replaced by another file during the run, which is kept as \(displayPath(temp)) "
                                      + "in its folder (it could not be put back: \(errnoMessage()))")
                    }
                    remove(temp)
                    throw why
                }
                remove(temp)
                return
            }
            if move(temp) != 0 {
                let why = Self.nameRefusal(errno)
                remove(temp)
                throw .system("cannot rename into place: \(why)")
            }
            return
        }
        // link() fails with EEXIST if the target appeared meanwhile: never replace it without --force.
        if withFileSystemPath(temp, { t in withFileSystemPath(name) { linkat(folder, t, folder, $0, 0) } }) == 0 {
            remove(temp)
            return
        }
        let linkErrno = errno
        if linkErrno == EEXIST {
            remove(temp)
            throw existing
        }
        // File systems without hard links (FAT and exFAT through FUSE, many other FUSE ones): a rename that replaces
        // nothing, where the system has one. (A look, then a plain rename, replaced a file named in between: two jobs
        // writing `Photo.nv12` and `photo.nv12` on exFAT both succeeded, one output lost.)
        let renamed = withFileSystemPath(temp) { t in withFileSystemPath(name) { yc_rename_noreplace(folder, t, $0) } }
        let renameErrno = errno
        if renamed == 0 { return }
        if renameErrno == EEXIST {
            remove(temp)
            throw existing
        }
        try nameByClaim(folder: folder, name: name, temp: temp, remove: remove, move: move)
    }

    /// Neither a link nor a rename that replaces nothing: the name is claimed by a file made there only if nothing
    /// is (`O_EXCL`, which the file system decides, case folded where it folds), and the output renamed over that
    /// claim — its own, looked at again first. A file named between that look and the rename would be replaced: the
    /// only window left, two system calls wide. The claim is registered with the signal handlers before it is made,
    /// and they remove it while it is an empty file (never the output renamed over it); SIGKILL leaves it.
    private func nameByClaim(folder: Int32, name: String, temp: String, remove: (String) -> Void,
                             move: (String) -> Int32) throws(WriteError) {
        // Registered before it is made, so that a signal at any moment after leaves no claim (registered after, a
        // signal between the two left it). The window the other way: an O_EXCL that fails on someone else's empty
        // file at the name, and a signal before the registration is dropped, would remove that empty file.
        let slot = withFileSystemPath(name) { yc_register_claim(folder, $0) }
        if slot < 0 {
            let why = errnoMessage()
            remove(temp)
            if slot == -2 { throw .interrupted }   // a signal is ending the run
            throw .system("cannot name the file: \(why)")
        }
        // Unregistered once, on every way out (a slot given up is another file's the moment after).
        var registered = true
        defer { if registered { yc_unregister_temp(slot) } }
        let claim = withFileSystemPath(name) { openat(folder, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        if claim < 0 {
            let code = errno
            yc_unregister_temp(slot)
            registered = false
            remove(temp)
            if code == EEXIST { throw existing }
            throw .system("cannot name the file: \(Self.nameRefusal(code))")
        }
        let mine = FileStatus(descriptor: claim)
        close(claim)
        // What is at the name: an empty regular file, and the claim itself (the same file; a FUSE system may number
        // it anew when it is looked up by name: then by its time).
        func atTheName() -> (empty: Bool, claim: Bool) {
            var st = stat()
            guard withFileSystemPath(name, { fstatat(folder, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else { return (false, false) }
            let now = FileStatus(st), empty = now.kind == .regular && now.size == 0
            return (empty, empty && mine.map { now.identity == $0.identity || now.modified == $0.modified } == true)
        }
        let there = atTheName()
        guard there.claim else {
            remove(temp)
            if mine == nil && there.empty { remove(name) }   // the claim, which could not be looked at
            throw existing
        }
        if move(temp) != 0 {
            let why = Self.nameRefusal(errno)
            remove(temp)
            if atTheName().claim { remove(name) }
            throw .system("cannot rename into place: \(why)")
        }
    }
}
