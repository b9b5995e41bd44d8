#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims

/// An output file written to a temporary file beside the target and moved into place only when complete:
/// a failed or interrupted run leaves no partial file, and an existing file is replaced only with `force`.
/// Standard output (`-`) is written directly.
public final class AtomicOutput {
    public let path: String
    private let force: Bool
    private var fd: Int32
    private var tempPath: String?
    private var finished = false
    private var signalSlot: Int32 = -1
    /// True when writing straight to a device or FIFO (no temporary file).
    private var direct = false

    public var isStandardOutput: Bool { path == "-" }

    /// True when bytes can be written at any offset (a temporary file); standard output is written in order.
    public var isSeekable: Bool { tempPath != nil }

    /// A stdio stream on the output (a duplicate descriptor, written in order), for encoders that want one.
    /// Close it (`fclose`) before `commit`.
    public func stream() throws(WriteError) -> UnsafeMutablePointer<FILE> {
        let d = dup(fd)
        guard d >= 0, let f = fdopen(d, "wb") else { throw .system("cannot open a stream: \(errnoMessage())") }
        return f
    }

    /// Writes `bytes` at `offset` of the temporary file.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WriteError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("write failed: \(errnoMessage())")
            }
            done += n
        }
    }

    /// Sets the file's final size up front, so a full disk shows before the conversion rather than after.
    public func reserve(_ size: Int) throws(WriteError) {
        #if canImport(Glibc)
        let rc = posix_fallocate(fd, 0, off_t(size))
        if rc != 0 && rc != EOPNOTSUPP && rc != EINVAL { throw .system("cannot reserve \(size) bytes: \(errnoMessage(rc))") }
        #endif
        if ftruncate(fd, off_t(size)) != 0 { throw .system("cannot size the file: \(errnoMessage())") }
    }

    /// Checks up front that `path` may be written (so no work is wasted), then creates the temporary file.
    /// `inputs` are never overwritten, even with `force`.
    public init(path: String, force: Bool, inputs: [String] = []) throws(WriteError) {
        self.path = path
        self.force = force
        if path == "-" {
            fd = STDOUT_FILENO
            return
        }
        var target = stat()
        if stat(path, &target) == 0 {
            for input in inputs where input != "-" {
                var st = stat()
                if stat(input, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino {
                    throw .sameAsInput
                }
            }
            let kind = target.st_mode & S_IFMT
            if kind == S_IFDIR { throw .system("is a directory") }
            if kind != S_IFREG {
                // A device, FIFO or socket (/dev/null, a named pipe): written in place, in order, like
                // standard output — never replaced by a renamed file.
                let opened = open(path, O_WRONLY | O_CLOEXEC)
                if opened < 0 { throw .system("cannot open: \(errnoMessage())") }
                fd = opened
                direct = true
                return
            }
            if !force { throw .exists }
        }
        let dir: String, base: String
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash]).isEmpty ? "/" : String(path[..<slash])
            base = String(path[path.index(after: slash)...])
        } else {
            dir = "."
            base = path
        }
        var template = Array("\(dir)/.\(base).yuvconv-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if made < 0 { throw .system("cannot create a file in \(dir): \(errnoMessage())") }
        fd = made
        tempPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        yc_install_signal_cleanup()
        signalSlot = yc_register_temp(tempPath!)
        // mkstemp makes 0600; give the file the permissions a plain create would (0666 less the umask).
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc_write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("write failed: \(errnoMessage())")
            }
            offset += n
        }
    }

    public func write(_ bytes: [UInt8]) throws(WriteError) {
        let failure: WriteError? = bytes.withUnsafeBytes { buf in
            do throws(WriteError) { try write(buf) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Moves the finished file into place.
    public func commit() throws(WriteError) {
        guard let temp = tempPath else {
            finished = true
            if direct && close(fd) != 0 { throw .system("write failed: \(errnoMessage())") }
            return
        }
        defer {
            finished = true
            yc_unregister_temp(signalSlot)
        }
        if close(fd) != 0 {
            let why = errnoMessage()
            unlink(temp)
            throw .system("write failed: \(why)")
        }
        fd = -1
        if force {
            if rename(temp, path) != 0 {
                let why = errnoMessage()
                unlink(temp)
                throw .system("cannot rename into place: \(why)")
            }
            return
        }
        // link() fails with EEXIST if the target appeared meanwhile: never replace it without --force.
        if link(temp, path) == 0 {
            unlink(temp)
            return
        }
        let linkErrno = errno
        if linkErrno == EEXIST {
            unlink(temp)
            throw .exists
        }
        // File systems without hard links: check, then rename.
        var st = stat()
        if stat(path, &st) == 0 {
            unlink(temp)
            throw .exists
        }
        if rename(temp, path) != 0 {
            let why = errnoMessage()
            unlink(temp)
            throw .system("cannot rename into place: \(why)")
        }
    }

    /// Removes the temporary file; nothing is left behind.
    public func abort() {
        guard !finished else { return }
        finished = true
        if direct { close(fd) }
        if let temp = tempPath {
            if fd >= 0 { close(fd) }
            unlink(temp)
            yc_unregister_temp(signalSlot)
        }
    }

    deinit { abort() }
}

@inline(__always)
private func Glibc_write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, p, n)
    #else
    return Darwin.write(fd, p, n)
    #endif
}
