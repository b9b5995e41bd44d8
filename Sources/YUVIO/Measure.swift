#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// The process's peak resident set so far, in bytes. On Linux from /proc/self/status's VmHWM, this program's
/// own: `getrusage`'s maximum carries over the peak of the process that ran before exec — a yuvconv started
/// by a Python script holding 400 MB reported a peak of 414 MiB for a 768x512 PNG. `getrusage` where there is
/// no /proc (and on macOS, where it is this program's).
public func peakResidentBytes() -> Int {
    #if os(Linux)
    if let hwm = procStatusKiB("VmHWM:") { return hwm * 1024 }
    #endif
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)           // bytes on macOS
    #else
    return Int(usage.ru_maxrss) * 1024    // KiB on Linux
    #endif
}

#if os(Linux)
/// A "Name:   N kB" line of /proc/self/status, in KiB; nil without /proc or the line.
func procStatusKiB(_ name: String) -> Int? {
    let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    var filled = 0
    while filled < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        filled += n
    }
    for line in String(decoding: bytes[..<filled], as: UTF8.self).split(separator: "\n") where line.hasPrefix(name) {
        return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
    }
    return nil
}
#endif
