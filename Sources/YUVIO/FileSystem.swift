#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

/// What `stat` says of a file, in the terms the tool decides by.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, fifo, characterDevice, blockDevice, socket, symlink, other

        /// A FIFO, character device or socket: bytes that can be read only once.
        public var isStream: Bool { self == .fifo || self == .characterDevice || self == .socket }
    }
    public let device: UInt64
    public let inode: UInt64
    public let kind: Kind
    public let size: Int
    public let modified: Double
    /// The inode's last change (`st_ctime`): any write, `touch`, rename or link count change sets it to the
    /// clock's time, and nothing sets it back — unlike the modification time, which `touch -d`, `cp -p`,
    /// `rsync -a` and `tar x` restore.
    public let changed: Double
    /// The modification time's whole seconds and nanoseconds, as the file system gave them (`secondIdentity`).
    public let modifiedSecond: Int64
    public let modifiedNanosecond: Int

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int(st.st_size)
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        #if canImport(Darwin)
        modifiedSecond = Int64(st.st_mtimespec.tv_sec)
        modifiedNanosecond = Int(st.st_mtimespec.tv_nsec)
        modified = Double(st.st_mtimespec.tv_sec) + Double(st.st_mtimespec.tv_nsec) * 1e-9
        changed = Double(st.st_ctimespec.tv_sec) + Double(st.st_ctimespec.tv_nsec) * 1e-9
        #else
        modifiedSecond = Int64(st.st_mtim.tv_sec)
        modifiedNanosecond = Int(st.st_mtim.tv_nsec)
        modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) * 1e-9
        changed = Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) * 1e-9
        #endif
    }

    /// The file `path` names (following links; `follow: false` describes a link itself), or nil (errno set).
    public init?(path: String, follow: Bool = true) {
        var st = stat()
        let rc = withFileSystemPath(path) { follow ? stat($0, &st) : lstat($0, &st) }
        guard rc == 0 else { return nil }
        self.init(st)
    }

    /// The file open on descriptor `fd`, or nil.
    public init?(descriptor fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }

    /// Whether this file still holds the bytes of `version`, as far as its status tells: the same size and
    /// modification time. Not its inode number (overlayfs copies a file up under a new one, and a FUSE file system
    /// may number it anew, the bytes unchanged), nor its change time (a copy-up or a `chmod` moves it). The one rule
    /// for an input read (`InputSource`, raw and Y4M frames) and for `--update`'s hashed input against the one read.
    /// (A write whose modification time is set back after it is not seen.)
    public func holdsTheBytes(of version: FileVersion) -> Bool { size == version.size && modified == version.modified }

    /// Device and inode: what makes two names one file.
    public var identity: FileIdentity { FileIdentity(device: device, inode: inode) }

    /// The same file seen through an overlay file system (overlayfs: container storage, live systems) and through
    /// its layer's own folder: two devices, and inode numbers that differ too once the file was copied up or
    /// with `xino` — only the size and the times stay the file's (`--force` between the two views replaced the
    /// input). So too through FUSE (bindfs: the same inode number under another device, and `--force` replaced
    /// the input) and a network mount of a local folder (`onOverlay`). This identity is those alone (a key with the
    /// top bit set, which no device number has), marked with whether the file is seen through such a file system
    /// (bit 61); an output matches an input by it only where one of the two is and the other is not
    /// (`FileStatus.isOne`), so that elsewhere files alike in size and times to the clock's tick (a disk image's
    /// copy, files written in one tick, a squashfs layer's whole seconds) stay apart.
    public func viewIdentity(onOverlay: Bool) -> FileIdentity {
        FileIdentity(device: 1 << 63 | (onOverlay ? 1 << 61 : 0), inode: sizeAndTimesKey)
    }

    /// The size and times, hashed: what `viewIdentity` and `fuseIdentity` know a file by.
    private var sizeAndTimesKey: UInt64 { Self.fnv1a([UInt64(bitPattern: Int64(size)), modified.bitPattern, changed.bitPattern]) }

    /// FNV-1a over the bytes of `values`, low byte first: the keys of the identities by size and times.
    static func fnv1a(_ values: [UInt64]) -> UInt64 {
        var key: UInt64 = 0xcbf2_9ce4_8422_2325
        for v in values {
            for shift in stride(from: 0, to: 64, by: 8) { key = (key ^ (v >> UInt64(shift) & 0xFF)) &* 0x100_0000_01b3 }
        }
        return key
    }

    /// A regular file on a FUSE file system by its device, size and times (bit 60 of the device marks it; no device
    /// number has it): FUSE may give one file another inode number under each name that reaches it — exfat-fuse
    /// numbers `IMG.PNG` and `img.png`, one file where case is not told apart, apart, and `--force` replaced the
    /// input `IMG_0001.PNG` with its output `IMG_0001.png`. On such a device two files alike in size and times (to
    /// exFAT's whole seconds) pass for one: an output refused as an input, never an input overwritten. Nil for
    /// other kinds and elsewhere (`onFUSE`: `yc_file_system_view`).
    public func fuseIdentity(onFUSE: Bool) -> FileIdentity? {
        guard onFUSE, kind == .regular else { return nil }
        return FileIdentity(device: 1 << 63 | 1 << 60 | (device & (1 << 60 - 1)), inode: sizeAndTimesKey)
    }

    /// A FIFO's, device's or socket's identity marked as one (bit 62 of the device, which no device number has):
    /// a set of inputs holds it only for an input that was a stream when listed. A regular file removed and a
    /// FIFO made at its name mid-batch often gets the freed inode number back, and passed as the file listed.
    public var streamIdentity: FileIdentity? { kind.isStream ? FileIdentity(device: device | 1 << 62, inode: inode) : nil }

    /// Every identity the file goes by (`identity`, `viewIdentity`, `streamIdentity`, `fuseIdentity`): what a set of
    /// inputs holds for it, `onOverlay` saying whether it is seen through an overlay (`onOverlay(path:)`), `onFUSE`
    /// whether through FUSE (`onFUSE(path:)`).
    /// A file on FUSE goes by its view identity on both sides: FUSE shows one file through two mounts at once
    /// (two bindfs or mergerfs views of one folder, each its own device), and `--force` from one view to the other
    /// replaced the input.
    public func identities(onOverlay: Bool, onFUSE: Bool = false) -> [FileIdentity] {
        var out = [identity, viewIdentity(onOverlay: onOverlay)] + (streamIdentity.map { [$0] } ?? [])
            + (fuseIdentity(onFUSE: onFUSE).map { [$0, viewIdentity(onOverlay: !onOverlay)] } ?? [])
        if let second = secondIdentity(onOverlay: onOverlay, onFUSE: onFUSE) { out.append(second) }
        return out
    }

    /// A regular file by its size and its modification time's whole second, for a FUSE file system that shows
    /// whole seconds (sshfs, and its change time is its modification time; exfat-fuse) against a plain folder:
    /// an sshfs view of the input's own folder, matched by every bit of both times, let `--force` replace the input
    /// each time. Kept for a file on FUSE whose time has no fraction (marked with bit 58) and for a file on a plain
    /// file system (bit 57); an output matches an input by it only from the other side (`isOne`), so two files of
    /// file systems with finer times never meet by it, and an output alike to an input in size and second across
    /// them — another file, made in the second the input was — is refused as the input, said so
    /// (`WriteError.likeAnInput`). Nil for other kinds, and for a file on FUSE whose time has a fraction.
    public func secondIdentity(onOverlay: Bool, onFUSE: Bool) -> FileIdentity? {
        guard kind == .regular, onFUSE ? modifiedNanosecond == 0 : !onOverlay else { return nil }
        return Self.secondKey(size: size, second: modifiedSecond, fuse: onFUSE)
    }

    /// `secondIdentity`'s key: a size and a second, on a whole-second FUSE view's side (`fuse`) or a plain one's.
    static func secondKey(size: Int, second: Int64, fuse: Bool) -> FileIdentity {
        FileIdentity(device: 1 << 63 | (fuse ? 1 << 58 : 1 << 57),
                     inode: fnv1a([UInt64(bitPattern: Int64(size)), UInt64(bitPattern: second)]))
    }
}

/// One file, whatever its names (hard links, symlinks, `./a` and `a`).
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    public init(device: UInt64, inode: UInt64) { (self.device, self.inode) = (device, inode) }
}

/// A file at one moment: which file, its size and when it was last changed — and, where the version must tell
/// the file from another put at its name since (`AtomicOutput.Before`), when it was made (`born`, its birth time,
/// where the system keeps one: a new file at the name has its own, even under an inode number freed and given
/// again at once, while a `touch`, a `chmod` or a hard link made or removed leaves it).
public struct FileVersion: Hashable, Sendable {
    public let identity: FileIdentity
    public let size: Int
    public let modified: Double
    public let born: Double?
    /// Whether it was a regular file (not a device, FIFO or folder): another kind of file at its name later is
    /// never it, even under its freed inode number (ext4 gives a link made at once after the file's removal that
    /// number, and the link passed for the file).
    public let regular: Bool

    public init(identity: FileIdentity, size: Int, modified: Double, born: Double? = nil, regular: Bool = true) {
        (self.identity, self.size, self.modified, self.born, self.regular) = (identity, size, modified, born, regular)
    }

    /// The version of the file `st` describes, made at `born`.
    public init(_ st: FileStatus, born: Double?) {
        self.init(identity: st.identity, size: st.size, modified: st.modified, born: born, regular: st.kind == .regular)
    }
}

/// `yc_birth_time`: when the file `path` names (relative to `folder`) was made, or nil where the system keeps no
/// such time.
public func birthTime(_ path: String, in folder: Int32 = AT_FDCWD, follow: Bool = true) -> Double? {
    let t = withFileSystemPath(path) { yc_birth_time(folder, $0, follow ? 1 : 0) }
    return t >= 0 ? t : nil
}

/// The target of a symbolic link, resolved against the link's folder; nil when `path` is not a link.
public func symlinkTarget(_ path: String) -> String? {
    var buf = [CChar](repeating: 0, count: 4097)
    let n = withFileSystemPath(path) { readlink($0, &buf, 4096) }
    guard n > 0 else { return nil }
    let target = PathBytes.decode(buf[0..<n].map { UInt8(bitPattern: $0) })
    if target.isAbsolutePath { return target }
    guard let (folder, _) = path.aroundLastSlash else { return target }
    return folder + "/" + target
}

/// A symbolic link's text as stored (relative or not), nil when `path` is not a link.
public func linkText(_ path: String) -> String? {
    var buf = [CChar](repeating: 0, count: 4097)
    let n = withFileSystemPath(path) { readlink($0, &buf, 4096) }
    guard n > 0 else { return nil }
    return PathBytes.decode(buf[0..<n].map { UInt8(bitPattern: $0) })
}

/// The current folder's path ("/" when it cannot be read).
public func currentFolder() -> String {
    var buf = [CChar](repeating: 0, count: 4097)
    guard getcwd(&buf, 4096) != nil else { return "/" }
    return PathBytes.decode(buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
}

/// Opens `path` without waiting for the other end of a FIFO (a reader with no writer, a writer with no
/// reader), then restores blocking reads and writes: opening never hangs. -1 with errno set on failure.
public func openWithoutWaiting(_ path: String, _ flags: Int32) -> Int32 {
    let fd = withFileSystemPath(path) { open($0, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
    if fd >= 0 {
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
    }
    return fd
}

/// Opens `path` to be read to its end as an input is (`InputSource.openDescriptor`): a FIFO without waiting for
/// its writer, and left non-blocking, so that `readWaiting` waits for a writer to come for
/// `YC_FIFO_WRITER_WAIT_MS` at most (then reads the end) and for an idle one without limit. -1 with errno set.
public func openToReadThrough(_ path: String) -> Int32 {
    let fd = openWithoutWaiting(path, O_RDONLY)
    if fd >= 0, FileStatus(descriptor: fd)?.kind == .fifo {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }
    return fd
}

/// Whether `path` (or, without one, descriptor `fd`) is on an overlay file system, or another that shows files
/// stored elsewhere under a device of its own with their size and times (FUSE passthroughs, NFS, 9p:
/// `yc_shows_files_stored_elsewhere`).
public func onOverlay(path: String? = nil, descriptor fd: Int32 = -1) -> Bool {
    fileSystemView(path: path, descriptor: fd).overlay
}

/// Whether `path` (or, without one, descriptor `fd`) is on a FUSE file system (`FileStatus.fuseIdentity`).
public func onFUSE(path: String? = nil, descriptor fd: Int32 = -1) -> Bool {
    fileSystemView(path: path, descriptor: fd).fuse
}

/// `onOverlay` and `onFUSE` of `path` (or, without one, descriptor `fd`) from one look at its file system: what
/// every check of a file against the inputs asks of each file (`inputIdentities`, `FileIdentitySet.holds(_:at:)`).
public func fileSystemView(path: String? = nil, descriptor fd: Int32 = -1) -> (overlay: Bool, fuse: Bool) {
    let flags = path.map { p in withFileSystemPath(p) { yc_file_system_view($0, -1) } } ?? yc_file_system_view(nil, fd)
    return (flags & Int32(YC_VIEW_ELSEWHERE) != 0, flags & Int32(YC_VIEW_FUSE) != 0)
}

/// How long a FIFO opened by name waits for a writer, in seconds.
public let fifoWriterWaitSeconds = Int(YC_FIFO_WRITER_WAIT_MS / 1000)

/// The first read of `fd` as opened by `openToReadThrough`: for a FIFO, waiting `YC_FIFO_WRITER_WAIT_MS` for a
/// writer to open it (and without limit for one that opened it and is idle); `readWaiting` for anything else.
/// The count, -1 with errno, or nil when no writer came (one that came and went without writing is an empty
/// stream, 0).
public func readFirstWaiting(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int? {
    guard FileStatus(descriptor: fd)?.kind == .fifo, fcntl(fd, F_GETFL) & O_NONBLOCK != 0 else {
        return readWaiting(fd, buffer)
    }
    let n = yc_fifo_first_read(fd, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count,
                               Int64(YC_FIFO_WRITER_WAIT_MS))
    return n == -2 ? nil : Int(n)
}

/// Reads `buffer.count` bytes from `fd`, fewer only at the end, waiting as `openToReadThrough` says (and on a
/// non-blocking descriptor handed over); gives up when a batch is asked to stop. The count, or -1 with errno.
public func readWaiting(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    Int(yc_read_full(fd, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count))
}

/// `name` in `folder`: one "/" between (the root, "/", is not doubled: `convert / -r` named "//etc/…").
public func joinedPath(_ folder: String, _ name: String) -> String {
    folder.hasScalarSuffix("/") ? folder + name : folder + "/" + name
}

/// The file at `path`, else at `path` resolved (`resolvedPath`: `in/w/../a.jpg` before `in/w` is made is
/// `in/a.jpg`, which stat cannot reach yet), with the path it was found at; nil when neither is there.
public func statusResolving(_ path: String) -> (status: FileStatus, at: String)? {
    if let st = FileStatus(path: path) { return (st, path) }
    let resolved = resolvedPath(path)
    return FileStatus(path: resolved).map { ($0, resolved) }
}

/// `path` (taken from `base` when relative) absolute, its links followed (at most 40), `.` and `..` applied: the
/// path the system would reach, for the part that exists, and the one it will reach once the missing folders are
/// made (a `..` after a folder not made yet undoes it, as it will once it is made).
public func resolvedPath(_ path: String, from base: String? = nil) -> String {
    func parts(_ p: String) -> [String] { p.pathParts }
    var done: [String] = path.isAbsolutePath ? [] : parts(base ?? currentFolder())
    var pending = parts(path)[...]
    var hops = 0
    while let part = pending.popFirst() {
        if part == "." { continue }
        if part == ".." {
            _ = done.popLast()
            continue
        }
        let here = "/" + (done + [part]).joined(separator: "/")
        if hops < 40, FileStatus(path: here, follow: false)?.kind == .symlink, let target = linkText(here) {
            hops += 1
            if target.isAbsolutePath { done = [] }
            pending = (parts(target) + pending)[...]
            continue
        }
        done.append(part)
    }
    return "/" + done.joined(separator: "/")
}

/// Why what is at a folder's place (`shown`, as displayed) is no folder, from the error opening it as one: a
/// file (ENOTDIR), a symbolic link to nothing (ENOENT), a loop of links (ELOOP). The run and the dry run word
/// it alike.
public func notAFolder(_ shown: String, errno code: Int32, linkNotFollowed: Bool = false) -> String {
    // A folder the run makes (missing when it began) is never reached through a link: one there now was made
    // during the run, or leads nowhere.
    if linkNotFollowed {
        return shown + " is not a folder the run made or found when it began (a symbolic link made since, or one to "
            + "nothing, or a file): not followed"
    }
    return shown + " is not a folder" + (code == ENOENT ? " (a symbolic link to nothing)" : code == ELOOP ? " (a loop of symbolic links)" : "")
}

/// A path's folder ("." when it names none, "/" at the root) and its last component.
public func splitPath(_ path: String) -> (folder: String, name: String) {
    guard let (folder, name) = path.aroundLastSlash else { return (".", path) }
    return (folder.isEmpty ? "/" : folder, name)
}

/// Paths split and compared by Unicode scalar, not by Character: to Swift a `/` followed by a combining mark
/// (U+0301) is one Character, so `split(separator: "/")`, `lastIndex(of: "/")` and `hasPrefix("/")` do not see
/// that `/` — a folder named "\u{301}x" could not be made ("cannot make the folder"), and an output below one
/// escaped a batch's confinement to its output folder. Every path the tool splits or compares goes through these.
extension StringProtocol {
    /// The names between the `/`s (none empty).
    public var pathParts: [String] {
        unicodeScalars.split(separator: "/").map { String(String.UnicodeScalarView($0)) }
    }

    /// Whether the path starts at the root.
    public var isAbsolutePath: Bool { unicodeScalars.first == "/" }

    /// The path without its trailing `/`s (the root, "/", stays).
    public var withoutTrailingSlashes: String {
        var v = String.UnicodeScalarView(unicodeScalars)
        while v.count > 1 && v.last == "/" { v.removeLast() }
        return String(v)
    }

    /// What comes before and after the last `/`, or nil when there is none.
    public var aroundLastSlash: (String, String)? { around(last: "/") }

    /// What comes before and after the last `scalar`, or nil when there is none.
    public func around(last scalar: Unicode.Scalar) -> (String, String)? {
        let s = Array(unicodeScalars)
        guard let i = s.lastIndex(of: scalar) else { return nil }
        return (String(String.UnicodeScalarView(s[..<i])), String(String.UnicodeScalarView(s[(i + 1)...])))
    }
}

/// The C library's message for an errno value, without the path.
public func systemMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// Whether descriptors `a` and `b` are both open on terminals — as good as one terminal: `/dev/tty` is the
/// controlling terminal under another device number, so the numbers cannot tell.
public func bothTerminals(_ a: Int32, _ b: Int32) -> Bool { isatty(a) != 0 && isatty(b) != 0 }
