import CSIMD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which vector instructions the row kernels use (`CSIMD/yc_cpu.h`): the best this CPU runs, chosen once
/// from `cpuid`, unless the environment variable `YUVCONV_CPU` pins one. The bytes never depend on it.
public enum CPUTier: Int32, CaseIterable, Sendable, CustomStringConvertible {
    case baseline = 0, avx2, avx512bw, avx512vnni

    /// The tier in use.
    public static var current: CPUTier { CPUTier(rawValue: yc_cpu_tier())! }

    /// The best tier this CPU and operating system run.
    public static var best: CPUTier { CPUTier(rawValue: yc_cpu_best_tier())! }

    /// Every tier this CPU runs, baseline first.
    public static var supported: [CPUTier] { allCases.filter { $0.rawValue <= best.rawValue } }

    /// Makes `tier` the one in use (tests, benchmarks); false, and nothing changed, when the CPU cannot run it.
    @discardableResult
    public static func use(_ tier: CPUTier) -> Bool { yc_cpu_set_tier(tier.rawValue) == 0 }

    /// Its name, as `YUVCONV_CPU` takes it.
    public var description: String { String(cString: yc_cpu_tier_name(rawValue)) }

    /// What is wrong with `YUVCONV_CPU`, if anything (the kernels then use the best tier).
    public static var environmentProblem: String? {
        // Bytes that are not UTF-8 shown as \xNN (they showed as U+FFFD, not as what was given).
        let bytes = getenv("YUVCONV_CPU").map { [UInt8](UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
        let decoded = String(decoding: bytes, as: UTF8.self)
        let value = Array(decoded.utf8) == bytes ? decoded
            : bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }.joined()
        switch yc_cpu_env_problem() {
        case 1: return "YUVCONV_CPU=\(value) names no tier (baseline, avx2, avx512, avx512bw, avx512vnni)"
        case 2: return "YUVCONV_CPU=\(value) asks for a tier this CPU cannot run (the best here is \(best))"
        default: return nil
        }
    }
}
