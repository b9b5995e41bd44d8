import Synchronization

/// The counting allocator a conversion's buffers come from (swift-nio's `ByteBufferAllocator` is the
/// model): band slots, decoder planes, rows held for a pipe, a whole picture kept in memory — each is
/// allocated here or, when a library allocates it (libpng's interlaced picture, a Swift array), recorded
/// here. The report's "buffers" figure is this ledger's peak: counted, not a formula.
public final class Ledger: Sendable {
    private let counts = Mutex<(current: Int, peak: Int)>((0, 0))

    public init() {}

    /// `bytes` of memory, 64-byte aligned (what the SIMD rows load best), counted until `deallocate`.
    public func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        record(bytes)
        return .allocate(byteCount: max(bytes, 1), alignment: 64)
    }

    /// The same, typed as bytes.
    public func allocateBytes(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        allocate(count).bindMemory(to: UInt8.self, capacity: max(count, 1))
    }

    public func deallocate(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        pointer.deallocate()
        record(-bytes)
    }

    /// Memory allocated elsewhere on this conversion's behalf (positive) or given back (negative).
    public func record(_ bytes: Int) {
        counts.withLock {
            $0.current += bytes
            $0.peak = max($0.peak, $0.current)
        }
    }

    /// The most that was allocated at once.
    public var peak: Int { counts.withLock { $0.peak } }
    /// What is allocated now.
    public var current: Int { counts.withLock { $0.current } }
}
