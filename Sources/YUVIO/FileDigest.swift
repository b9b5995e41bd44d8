#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// The SHA-256 of a regular file's content, read once from start to end, with its status as it was opened:
/// what `--update` recognises an input or an output by when its size or time no longer say. Only regular
/// files: a FIFO or device would be consumed or never end. A file that changes while it is read keeps the
/// status from before, so the next look sees the change.
public func sha256(ofFile path: String) throws(FileError) -> (status: FileStatus, sha256: String) {
    // Not opened at all when the name is no regular file: opening a FIFO and closing it again could take its
    // writer's data with it (the pipe freed with no reader and no writer left), and its conversion, which opens it
    // next, found nothing (`--update` with a FIFO input, one run in six).
    func notRegular(_ st: FileStatus) -> FileError {
        FileError(path: path, reason: "not a regular file (\(st.kind == .directory ? "a folder" : "a FIFO, device or socket")), cannot be hashed")
    }
    if let st = FileStatus(path: path), st.kind != .regular { throw notRegular(st) }
    let fd = openWithoutWaiting(path, O_RDONLY)
    guard fd >= 0 else { throw FileError(path: path, reason: "cannot open: \(systemMessage())") }
    defer { close(fd) }
    guard let status = FileStatus(descriptor: fd) else { throw FileError(path: path, reason: "cannot stat: \(systemMessage())") }
    guard status.kind == .regular else { throw notRegular(status) }
    var hash = SHA256()
    var buffer = [UInt8](repeating: 0, count: 256 << 10)
    while true {
        // A batch asked to stop (SIGINT, SIGTERM) stops here too: a file of gigabytes (a sparse tail) takes
        // seconds to hash, and the run would go on past the signal to convert or keep it.
        if interruptSignal() != nil { throw FileError(path: path, reason: "interrupted while hashing it") }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
        if n == 0 { break }
        buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
    return (status, hash.finalize())
}
