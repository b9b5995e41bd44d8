#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// The process's peak resident set so far, in bytes (`getrusage`).
public func peakResidentBytes() -> Int {
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
