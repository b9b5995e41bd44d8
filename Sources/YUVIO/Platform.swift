#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import CShims

/// The C library's message for an errno value.
func errnoMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// `.reference` when `YUV_FORCE_REFERENCE=1` asks every driver to use the scalar reference rows
/// (as libjpeg-turbo's `JSIMD_FORCENONE` does), else `.fast`.
public func kernelChoiceFromEnvironment() -> KernelChoice {
    if let v = getenv("YUV_FORCE_REFERENCE"), String(cString: v) == "1" { return .reference }
    return .fast
}

/// Removes temporary outputs on SIGINT/SIGTERM/SIGHUP and turns SIGPIPE into an EPIPE write error.
public func installSignalCleanup() {
    yc_install_signal_cleanup()
}

/// Batch mode: the first SIGINT/SIGTERM asks the run to stop instead of ending it.
public func setGracefulInterrupt(_ on: Bool) { yc_set_graceful_interrupt(on ? 1 : 0) }

/// The signal that asked the run to stop (SIGINT 2, SIGTERM 15), or nil.
public func interruptSignal() -> Int32? {
    let s = yc_interrupted()
    return s == 0 ? nil : s
}
