#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore
import Synchronization

/// An output file written to a file without a name in the target's folder (O_TMPFILE; where there is none, a
/// temporary name beside the target — "the temporary file" below is either) and linked into place only when
/// complete:
/// a failed or interrupted run leaves no partial file, and an existing file is replaced only with `force`.
/// Standard output (`-`) is written directly. Asked to (`hashing`), it takes the SHA-256 of what is written as
/// it is written (`digest`).
///
/// A signal that ends the process leaves the temporary file unless the program called `installSignalCleanup()`
/// (the command does, first thing): a library never takes a program's signals on its own. It took some twenty
/// of them, SIGINT even where the program ignored it, on the first file written. The same goes for SIGPIPE and
/// SIGXFSZ: unless the program ignores them (that function does), a closed pipe or a file-size limit ends it,
/// as POSIX has it, rather than failing the write with EPIPE or EFBIG.
public final class AtomicOutput {
    public let path: String
    let force: Bool
    /// The only file `force` may replace (see `init`), nil for any.
    let replacingOnly: FileStatus?
    /// What a batch's plan saw at the name (`Before`).
    let before: Before
    /// Whether --force was given (`force` is off where nothing was there to replace).
    let asked: Bool
    var fd: Int32 = -1
    /// Writing a file of our own (named or not), not a descriptor or device: bytes can go at any offset.
    var seekable = false
    var finished = false
    var signalSlot: Int32 = -1
    /// True when writing straight to a device or FIFO (no temporary file).
    var direct = false
    /// A descriptor open on a regular file with bytes from its position on, not appending (`1<>old`, which needs
    /// `force`): the output replaces them, so `commit` cuts the file where the output ends.
    var cutsTail = false
    /// Where writing started on a descriptor open on a regular file (`> f`, `>> f`: the end; `1<>f`: its position):
    /// a failed or interrupted output is cut back to it (`abort`, and the signal handler through `cutSlot`), so no
    /// partial output is left. Nil for anything else.
    private var cutFrom: WritingStart?
    /// The signal handler's slot for that cut (`yc_register_cut`).
    var cutSlot: Int32 = -1
    /// The bytes written in order so far, as the writes returned them (a write that failed partway counts what
    /// it wrote): all of the file after `cutFrom` that can be this output's. Counted when written, not when asked:
    /// a count ahead of the file took bytes another program appended (`>>`) for this output's and cut them off.
    private var written = 0
    /// The SHA-256 of the output's bytes [0, `hashed`), taken as they were written; nil when not asked for.
    var hasher: SHA256?
    var hashed = 0
    /// Where the next in-order `write` lands: the descriptor's position (`write(_:at:)` does not move it).
    var position = 0
    /// The end of the furthest byte written.
    var end = 0
    /// Bytes were written where the hash cannot follow them: before `hashed` (rewritten after being hashed, or
    /// cut off by a shorter `reserve`). `commit` then hashes the temporary file whole.
    var hashLost = false

    /// The output's size and SHA-256 once committed, when `hashing` was asked for; nil for a pipe whose bytes
    /// were not all written in order (they cannot be read back).
    public internal(set) var digest: OutputDigest?

    public var isStandardOutput: Bool { Self.standardDescriptor(path) == STDOUT_FILENO }

    /// Whether the output is written straight to a terminal while standard error is on one (`--report-file
    /// /dev/tty`, or a standard output that is a terminal): what goes there shares the screen with a progress line.
    public var isStandardErrorsTerminal: Bool { fd >= 0 && !seekable && bothTerminals(fd, STDERR_FILENO) }

    /// True when bytes can be written at any offset (a temporary file); standard output is written in order.
    public var isSeekable: Bool { seekable }

    /// A stdio stream on the output, written in order, for encoders that want one: its bytes go through
    /// `write` (so they are hashed as written). It must be closed (`fclose`) before `commit`, and before this
    /// output goes away.
    public func stream() throws(WriteError) -> UnsafeMutablePointer<FILE> {
        let f = yc_write_stream_open(Unmanaged.passUnretained(self).toOpaque()) { context, bytes, count in
            Unmanaged<AtomicOutput>.fromOpaque(context!).takeUnretainedValue()
                .writeInOrder(UnsafeRawBufferPointer(start: bytes, count: count))
        }
        guard let f else { throw .system("cannot open a stream: \(errnoMessage())") }
        return f
    }

    /// The reason a file system gave for refusing a name (`errno`), said as such where it is EINVAL: ntfs-3g with
    /// `windows_names`, FAT and SMB refuse characters and names Windows does not allow ("Invalid argument" alone
    /// named no cause).
    static func nameRefusal(_ code: Int32) -> String {
        errnoMessage(code) + (code == EINVAL ? " (this file system refuses the name: Windows file systems refuse "
                                + "\\ : * ? \" < > | in names, names ending in a dot or a space, and names such as CON, NUL, "
                                + "COM1; a casefold folder, names that are not UTF-8)" : "")
    }

    /// Writes `bytes` at `offset` of the temporary file.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WriteError) {
        if finished { throw Self.afterTheEnd }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("write failed: \(errnoMessage())")
            }
            done += n
        }
        hash(bytes, at: offset)
    }

    /// Sets the file's final size up front, so a full disk shows before the conversion rather than after.
    /// Where the file system can do neither (a FAT mount through FUSE grows a file only by writing: its ftruncate
    /// refuses), the file is filled with zeros to its size first, in order: the outputs' writes land at their
    /// offsets inside it, and padding after the last one (`--align`) reads back as zeros. (Left to grow by the
    /// outputs' own writes, past its end and out of order, fusefat made files of the wrong size with exit 0, and a
    /// padded output's last padding was never written.)
    public func reserve(_ size: Int) throws(WriteError) {
        if size < hashed { hashLost = true }
        let rc = yc_reserve(fd, Int64(size))
        if rc > 0 { throw .system("cannot reserve \(size) bytes: \(errnoMessage(rc))") }
        guard ftruncate(fd, off_t(size)) != 0 else { return }
        let code = errno
        guard code == EPERM || code == EOPNOTSUPP || code == EINVAL, let st = FileStatus(descriptor: fd), st.size <= size else {
            throw .system("cannot size the file: \(errnoMessage(code))")
        }
        let zeros = [UInt8](repeating: 0, count: min(1 << 16, max(size - st.size, 1)))
        var at = st.size
        while at < size {
            let n = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress!, min($0.count, size - at), off_t(at)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .system("cannot size the file: \(n < 0 ? errnoMessage() : "nothing written")") }
            at += n
        }
        let made = FileStatus(descriptor: fd)?.size ?? -1
        guard made == size else { throw .system("cannot size the file: its file system made it \(made) bytes, not \(size)") }
    }

    /// Checks up front that `path` may be written (`check`, so no work is wasted), then opens it: a descriptor,
    /// a device or FIFO in place, or a new temporary file in the target's folder.
    /// With `hashing`, `digest` gives the output's size and SHA-256 after `commit`. `replacingOnly`: `force` is
    /// granted to replace that file alone, as it was when the run looked at it (`--update`'s report file, which it
    /// may replace because it is a report): another put there meanwhile is kept and the commit fails.
    public init(path: String, force: Bool, inputs: [String] = [], protected: any FileIdentitySet = Set<FileIdentity>(),
                hashing: Bool = false, plainFileOnly: Bool = false, replacingOnly: FileStatus? = nil,
                before: Before = .unknown) throws(WriteError) {
        self.path = path
        // Nothing was there when the plan looked: nothing to replace, so the file is named as without --force (a
        // link, which fails if a file is there) — one named there meanwhile is kept, with no moment between a look
        // and the rename for it to come.
        self.force = force && !before.replacesNothing
        asked = force
        self.replacingOnly = replacingOnly
        self.before = before
        if hashing { hasher = SHA256() }
        let real: String
        switch try Self.check(path: path, force: force, inputs: inputs, protected: protected, plainFileOnly: plainFileOnly,
                              before: before) {
        case .descriptor(let descriptor):
            fd = descriptor
            if case .descriptorHasData? = Self.overwrites(descriptor: descriptor) { cutsTail = true }
            cutFrom = Self.writingStart(descriptor: descriptor)
            if descriptor > 2 {
                fd = dup(descriptor)
                if fd < 0 { throw .system("cannot open descriptor \(descriptor): \(errnoMessage())") }
                direct = true
            }
            if let start = cutFrom {
                cutSlot = yc_register_cut(fd, Int64(start.offset), Int64(start.size), start.appends ? 1 : 0)
            }
            return
        case .inPlace(let device):
            self.target = device
            // A FIFO nobody reads is an error, not a hang — after the wait an input FIFO gives its writer, so that
            // a script may start the consumer just after yuvconv (`yuvconv a.png -o p & consumer < p`), as it may
            // start an input's producer (it failed at once, unlike the input side).
            let opened = Self.openForAReader(device)
            // Given up for a signal ending the run: said as an interrupted file is, not as a wait that ran out.
            if opened < 0 && errno == ENXIO && interruptSignal() != nil { throw .interrupted }
            if opened < 0 {
                throw .system(errno == ENXIO ? "no process opened the FIFO to read it within \(fifoWriterWaitSeconds) s"
                              : "cannot open: \(errnoMessage())")
            }
            fd = opened
            direct = true
            return
        case .file(let file):
            real = file
            self.target = file
        }
        let (dir, base) = splitPath(real)
        // Everything after this goes through the folder's descriptor, opened once: the temporary file is made,
        // linked into place and removed in the folder the output was checked in, even if that folder is moved
        // or another put at its path meanwhile (the batch checks its output folder between files).
        // Opened for its name only (`yc_open_folder`): a folder one may write to but not list (0733, a drop
        // box) takes outputs as before.
        let folder = try Self.confinedFolder(of: real) ?? withFileSystemPath(dir) { yc_open_folder($0) }
        if folder < 0 {
            let code = errno
            throw .system("cannot create a file in \(PathBytes.display(dir)): "
                          + (code == ENOENT ? "the folder does not exist" : errnoMessage(code)))
        }
        folderFD = folder
        targetName = base
        // A file replaced (`--force`, `--update`) keeps its permissions and, as far as this user may give
        // them, its owner and group: a 0600 file must not come back world-readable. The temporary file is
        // made 0600 and opened up only to that. A new file gets 0666 less the umask, applied by the kernel
        // at the create: the umask is never changed (it belongs to the whole process, and other threads
        // create files and folders meanwhile).
        var replaced = stat()
        let replacing = withFileSystemPath(base) { fstatat(folder, $0, &replaced, 0) } == 0
            && replaced.st_mode & S_IFMT == S_IFREG
        // The file has no name until `commit` gives it one (Linux's O_TMPFILE): a run that ends before — even
        // killed outright (SIGKILL, the OOM killer, a CI job's timeout), which no handler sees — leaves nothing.
        // Where the system or file system has no unnamed files, a temporary name beside the target instead,
        // removed by the signal handlers and by `abort`.
        fitsLongTemporaryName = PathBytes.encode(".\(base).yuvconv-XXXXXX").count <= 255
        let mode: mode_t = replacing ? 0o600 : 0o666
        var made = yc_open_unnamed_at(folder, UInt32(mode))
        if made < 0 && yc_folder_append_only(folder) == 1 {
            // A temporary name there could be neither renamed nor removed: it would stay behind.
            close(folder)
            folderFD = -1
            throw .system("cannot create a file in \(PathBytes.display(dir)): the folder is append-only (chattr +a) "
                          + "and unnamed files cannot be made there")
        }
        if made < 0 {
            made = takeTemporaryName(in: folder, base: base) { folder, name in
                openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            }
        }
        if made < 0 {
            let code = errno
            close(folder)
            folderFD = -1
            if code == EINTR { throw .interrupted }   // a signal is ending the run (`nameTemporary`)
            throw .system("cannot create a file in \(PathBytes.display(dir)): \(Self.nameRefusal(code))")
        }
        fd = made
        seekable = true
        if replacing {
            var mode = replaced.st_mode & 0o777
            if fchown(fd, replaced.st_uid, replaced.st_gid) != 0 && fchown(fd, uid_t.max, replaced.st_gid) != 0 {
                // The group could not be kept: its permissions would go to another group.
                mode &= ~0o070
            }
            fchmod(fd, mode)
            // An access ACL is copied whole: with one, the mode's group bits are its mask, which without the
            // ACL would become the owning group's own access. Not copied, the group bits go.
            if withFileSystemPath(base, { yc_copy_acl(folder, $0, fd) }) < 0 { fchmod(fd, mode & ~0o070) }
        }
    }


    /// The folder of a temporary file (open while the file exists), the file's name in it and the target's.
    var folderFD: Int32 = -1
    /// The temporary file's name while it has one (none while an unnamed file is written).
    var tempName: String?
    var targetName = ""
    /// Whether `.NAME.yuvconv-XXXXXX` fits the file-name limit (else `.yuvconv-XXXXXX`).
    var fitsLongTemporaryName = true

    /// The file actually written: the path, or the target its symbolic links lead to.
    private var target: String?

    /// A write or commit after `commit` or `abort`: the descriptor's number may be another file's by then (a library
    /// caller's write after abort went into a file it had opened since, and commit named that file).
    static let afterTheEnd = WriteError.system("the output was already committed or aborted")

    /// Writes `bytes` in order, after what was written in order before.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        if finished { throw Self.afterTheEnd }
        let code = writeInOrder(bytes)
        if code == EPIPE && StalledStreams.isGivenUp(fd) {
            throw .system("given up: its reader took nothing for \(YC_STREAM_GRACE_MS / 1000) s after the interrupt")
        }
        if code != 0 { throw .system("write failed: \(errnoMessage(code))") }
    }

    /// `write`, for the stream too: 0, or the errno of the failure.
    private func writeInOrder(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        // Through the signal handler's guard when it may cut this descriptor back: a write still landing after
        // its cut (another thread's, in flight) left partial bytes in the file (`>>`: appended after the cut).
        // The guard counts the bytes for the handler; `written` counts them for `abort`.
        let code = writeWhole(fd, bytes, cutSlot: cutSlot, written: &written)
        if code != 0 { return code }
        hash(bytes, at: position)
        position += bytes.count
        return 0
    }

    public func write(_ bytes: [UInt8]) throws(WriteError) {
        let failure: WriteError? = bytes.withUnsafeBytes { buf in
            do throws(WriteError) { try write(buf) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Told the finished file's digest (size, SHA-256, inode and time from its own descriptor) just before it is
    /// named: `--update`'s journal records the output before it exists under its name, so that no moment is left
    /// in which it exists unrecorded (a line whose file never got the name is checked against what is there).
    /// Returns why the file may not be named (the journal could not record it), or nil: the output then fails and
    /// nothing is named, so that no output of an `--update` run is left unrecorded.
    public var beforeNaming: ((OutputDigest) -> String?)?

    /// Removes the temporary file; nothing is left behind.
    public func abort() {
        guard !finished else { return }
        finished = true
        // A descriptor whose file's data from there on the output replaced (`3<>old`, with --force): a failed
        // output leaves nothing of itself, the file ending where writing started — not its partial bytes followed
        // by the old file's rest (the old bytes it wrote over are gone either way). Nothing written: nothing cut.
        // So does one on a file it began (`> f`) or appended to (`>> f`): the file ends where it did before.
        // Only this output's bytes: what another process appended meanwhile (`>>`) is never cut (`yc_cut_back`).
        if let start = cutFrom, fd >= 0 { cutBack(fd, to: start, written: written, cutSlot: cutSlot) }
        yc_unregister_cut(cutSlot)
        if (direct || seekable) && fd >= 0 {
            close(fd)
            fd = -1
        }
        if let temp = tempName {
            withFileSystemPath(temp) { _ = unlinkat(folderFD, $0, 0) }
            yc_unregister_temp(signalSlot)
        }
    }

    deinit {
        abort()
        if folderFD >= 0 { close(folderFD) }
    }
}

/// Writes all of `bytes` to `fd` at its offset, in as few write(2) calls as the system takes (one, for a file
/// or a pipe with room: a line written so is not split by what another thread writes to the same file), again
/// after a signal: 0, or the errno of the failure. With `cutSlot` (a descriptor registered for the signal
/// handler's cut), each write goes through `yc_cut_guarded_write`, which the handler waits for.
public func writeWhole(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, cutSlot: Int32 = -1) -> Int32 {
    var written = 0
    return writeWhole(fd, bytes, cutSlot: cutSlot, written: &written)
}

/// `writeWhole`, adding to `written` the bytes each write(2) took, the writes before a failure included.
///
/// Once a batch was asked to stop (a first SIGINT, SIGTERM or SIGHUP), a stream whose reader drains nothing — a
/// full pipe, standard error into `2> >(sleep 60)` — held the run, its summary and its exit for as long as the
/// reader slept. So a write to anything but a regular file is registered (`yc_stream_write_begin`), for the
/// signal's watchdog to interrupt it then; from then on each write waits for room and writes one pipe page at a
/// time, so it cannot block again. A reader that takes bytes, however slowly, is waited for; one that takes
/// nothing for `YC_STREAM_GRACE_MS` is given up as gone (EPIPE, said once on standard error unless that is the
/// stream), and so at once is every later write to it.
public func writeWhole(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, cutSlot: Int32 = -1, written: inout Int) -> Int32 {
    var offset = 0
    var regular: Bool?
    func stream() -> Bool {
        if regular == nil { regular = FileStatus(descriptor: fd)?.kind == .regular }
        return regular == false
    }
    let slot = cutSlot >= 0 ? -1 : yc_stream_write_begin()
    defer { yc_stream_write_end(slot) }
    var waitingSince: Double?, lastQueued: Int32 = -1
    while offset < bytes.count {
        var most = bytes.count - offset
        if yc_stream_grace_left_ms() >= 0 && stream() {
            if StalledStreams.isGivenUp(fd) { return EPIPE }
            // A reader that took bytes since the last look (fewer queued: FIONREAD) is reading, though poll reports
            // room only once a whole page is free: one taking 128 bytes at a time was given up.
            let now = monotonicSeconds(), queued = yc_fd_queued(fd)
            if queued >= 0 && lastQueued >= 0 && queued < lastQueued { waitingSince = now }
            lastQueued = queued
            let since = waitingSince ?? now
            waitingSince = since
            let waited = Int((now - since) * 1000)
            if waited >= Int(YC_STREAM_GRACE_MS) {
                StalledStreams.giveUp(fd)
                return EPIPE
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            // In slices, to look at what the reader took meanwhile.
            if poll(&p, 1, Int32(min(100, Int(YC_STREAM_GRACE_MS) - waited))) <= 0 { continue }
            most = min(most, Int(PIPE_BUF))
        }
        let n = yc_cut_guarded_write(cutSlot, fd, bytes.baseAddress! + offset, UInt(most))
        if n < 0 {
            if errno == EINTR { continue }
            // A pipe or socket left non-blocking (O_NONBLOCK belongs to the open file, shared with the parent that
            // set it: Node's child_process, asyncio) and full: waited for, as a blocking one waits — it failed
            // with "Resource temporarily unavailable" (data), or dropped the line (messages).
            if errno == EAGAIN || errno == EWOULDBLOCK {
                if yc_stream_grace_left_ms() >= 0 && stream() { continue }   // waited for above, within the grace
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, -1) >= 0 || errno == EINTR { continue }
            }
            return errno
        }
        offset += n
        written += n
        waitingSince = nil   // the reader took bytes: the next wait gets a grace of its own
    }
    return 0
}

/// The streams given up after an interrupt (`writeWhole`): their readers took nothing for `YC_STREAM_GRACE_MS`.
/// Known by the stream (its device and inode), not the descriptor's number: standard output and error on one pipe
/// (`2>&1 | …`) are given up together, and the warning does not wait a second grace on the pipe just given up.
enum StalledStreams {
    private static let given = Mutex<Set<FileIdentity>>([])

    static func isGivenUp(_ fd: Int32) -> Bool {
        guard let id = FileStatus(descriptor: fd)?.identity else { return false }
        return given.withLock { $0.contains(id) }
    }

    /// Marks `fd`'s stream given up and says so once on standard error (not when that is the stream given up).
    static func giveUp(_ fd: Int32) {
        guard let id = FileStatus(descriptor: fd)?.identity, given.withLock({ $0.insert(id).inserted }),
              !isGivenUp(STDERR_FILENO) else { return }
        let what = fd == STDOUT_FILENO ? "standard output's reader" : "the reader of an output stream"
        let line = "yuvconv: warning: \(what) took nothing for \(YC_STREAM_GRACE_MS / 1000) s after the interrupt: "
            + "the rest of what was to go there is dropped\n"
        _ = Array(line.utf8).withUnsafeBytes { writeWhole(STDERR_FILENO, $0) }
    }
}


extension AtomicOutput {
    /// Opens a device or FIFO to write in place without blocking; a FIFO no process has opened to read yet (ENXIO)
    /// is tried again every 10 ms for `YC_FIFO_WRITER_WAIT_MS`, as an input FIFO waits for its writer, and given up
    /// at once when a signal is ending the run. The descriptor, or -1 with errno set.
    static func openForAReader(_ device: String) -> Int32 {
        var opened = openWithoutWaiting(device, O_WRONLY), code = errno
        let start = monotonicSeconds()
        while opened < 0 && code == ENXIO && interruptSignal() == nil
                && monotonicSeconds() - start < Double(YC_FIFO_WRITER_WAIT_MS) / 1000 {
            usleep(10_000)
            opened = openWithoutWaiting(device, O_WRONLY)
            code = errno
        }
        errno = code
        return opened
    }
}
