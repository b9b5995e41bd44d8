#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import CShims

/// The counting allocator a conversion's buffers come from (swift-nio's `ByteBufferAllocator` is the
/// model): band slots, decoder planes, rows held for a pipe, a whole picture kept in memory — each is
/// allocated here or, when a library allocates it (libpng's interlaced picture, a Swift array), recorded
/// here. The report's "buffers" figure is this ledger's peak: counted, not a formula.
public final class Ledger: Sendable {
    private let counts = Mutex<(current: Int, peak: Int)>((0, 0))

    public init() {}

    /// `bytes` of memory, 64-byte aligned (what the SIMD rows load best), counted until `deallocate`. Refused
    /// by the system (an address-space limit, `ulimit -v`), it waits while other conversions under way may give
    /// some back (`untilRoom`), then throws: the conversion's file fails, and only it. (It stopped the process:
    /// one picture too large for the limit ended a batch there, its other files never converted, its report and
    /// manifest never written; with `-j 2` it ended the other job mid-conversion.) Every buffer a conversion
    /// allocates is asked for before its rows flow, where a failure can still be thrown.
    public func allocate(_ bytes: Int) throws(WriteError) -> UnsafeMutableRawPointer {
        let made = Self.untilRoom { () -> UnsafeMutableRawPointer? in
            var p: UnsafeMutableRawPointer?
            return posix_memalign(&p, 64, max(bytes, 1)) == 0 ? p : nil
        }
        guard let made else { throw Self.refusal(bytes, for: "the conversion's buffers") }
        record(bytes)
        return made
    }

    /// `make()` (about `bytes` it allocates unasked: a type of rows the core makes), asked for first as a whole
    /// picture is (`ifAvailable`), or the conversion's error, `refusal`.
    static func required<T>(_ bytes: Int, for what: String, _ make: () -> T) throws(WriteError) -> T {
        guard let made = ifAvailable(bytes, make) else { throw refusal(bytes, for: what) }
        return made
    }

    /// The error for room refused for `what`: the run's interruption when a signal stopped the wait, else out of
    /// memory under a limit.
    static func refusal(_ bytes: Int, for what: String) -> WriteError {
        interruptSignal() != nil ? .interrupted : .outOfMemory(outOfMemoryUnderALimit(bytes, for: what))
    }

    /// `allocate`, or nil when the system refuses: for a whole picture (held for turning, say), so that a file
    /// too large for the memory there is fails with the reason instead of stopping the process.
    /// Refused while other conversions are under way, it waits for one to end and asks again, as `ifAvailable`.
    public func allocateIfAvailable(_ bytes: Int) -> UnsafeMutableRawPointer? {
        // A whole (turned) picture: with the room the work after it takes beside it (`ifAvailable`).
        let (asked, overflow) = bytes.addingReportingOverflow(Self.roomAfterWhole)
        // The look and the allocation under one lock, as `ifAvailable`'s: two jobs are not both told of room there
        // is for one.
        guard !overflow, let p = Self.untilRoom({ () -> UnsafeMutableRawPointer? in
            Self.wholeAllocations.withLock { promised in
                guard Self.available(asked, besides: promised) else { return nil }
                var p: UnsafeMutableRawPointer?
                return posix_memalign(&p, 64, max(bytes, 1)) == 0 ? p : nil
            }
        }) else { return nil }
        record(bytes)
        return p
    }

    /// The same, typed as bytes.
    public func allocateBytes(_ count: Int) throws(WriteError) -> UnsafeMutablePointer<UInt8> {
        try allocate(count).bindMemory(to: UInt8.self, capacity: max(count, 1))
    }

    public func deallocate(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        pointer.deallocate()
        record(-bytes)
    }

    /// `count` zero bytes as fresh pages from the system (an anonymous mapping), counted until
    /// `deallocatePages`: a page costs memory only once written, so a buffer sized by a header's claim costs
    /// what the input really fills. Nil when the system refuses.
    public func allocateZeroedPages(_ count: Int) -> UnsafeMutablePointer<UInt8>? {
        guard let p = mmap(nil, max(count, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              p != MAP_FAILED else { return nil }
        record(count)
        return p.bindMemory(to: UInt8.self, capacity: max(count, 1))
    }

    public func deallocatePages(_ pointer: UnsafeMutablePointer<UInt8>, bytes: Int) {
        munmap(pointer, max(bytes, 1))
        record(-bytes)
    }

    /// Whether `bytes` can be allocated now: tried and given back at once. Asked before the allocations a whole
    /// picture needs (a picture held for an encoder or turned), which would otherwise stop the process when
    /// the system refuses (a 116-byte PNG claiming 16384×16384 under a memory limit; in a batch, the run and
    /// its manifest with it): that file fails instead, with the reason (`outOfMemory`).
    /// A mapping as the allocator would make one for such a size (a malloc and free the compiler may remove).
    public static func available(_ bytes: Int) -> Bool {
        mappable(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS)
    }

    /// Whether a mapping of `bytes` with `protection` and `flags` is made now (and given back at once).
    private static func mappable(_ bytes: Int, _ protection: Int32, _ flags: Int32) -> Bool {
        guard let p = mmap(nil, max(bytes, 1), protection, flags, -1, 0), p != MAP_FAILED else { return false }
        munmap(p, max(bytes, 1))
        return true
    }

    /// `make()` (which allocates about `bytes` in a Swift array, say) when `available(bytes)` says the system
    /// would grant them, else nil. One at a time across the process: two jobs of a batch cannot both be told
    /// yes for memory there is for one, and then one of them stop the process.
    /// Refused while other conversions are under way, it waits for one to end and asks again (`waitForRoom`):
    /// a batch's file fails for memory only when no other job could give any back.
    /// Asked with `roomAfterWhole` on top: the work after such a picture — its threads' stacks, a plan's tables,
    /// Swift's arrays — still needs that much, and an allocation refused there stops the process (a 48 MP JPEG to
    /// JPEG under an address-space limit a few MiB above its picture's: SIGABRT in a 64 KiB table; 8 MiB more only
    /// moved the window). `thenWork` false: a read-ahead, after which no conversion starts from this memory.
    public static func ifAvailable<T>(_ bytes: Int, thenWork: Bool = true, _ make: () throws -> T) rethrows -> T? {
        let asked = thenWork ? bytes.addingReportingOverflow(roomAfterWhole) : (partialValue: bytes, overflow: false)
        guard !asked.overflow else { return nil }
        // Made or not is the outer optional (a `make` may itself give an optional).
        let made: T?? = try untilRoom { () throws -> T?? in
            try wholeAllocations.withLock { promised in
                available(asked.partialValue, besides: promised) ? .some(try make()) : nil
            }
        }
        return made ?? nil
    }

    /// Whether the address space holds `bytes` of a picture a decoder takes whole itself (a multi-scan JPEG's
    /// coefficients, an interlaced PNG's rows) and the work after it (`roomAfterWhole`), waiting while other
    /// conversions under way may give some back: the decoder asks (`yc_set_room_check`) before it allocates. A
    /// picture that took the room left the conversion's buffers refused after it (96 MiB of coefficients under a
    /// limit a MiB short of the conversion's need).
    /// A yes promises the bytes to the decoder until it has allocated them (`wholeTaken`): the look and libjpeg's
    /// allocation are apart (inside `jpeg_start_decompress`, and the caller's picture beside it later), and two
    /// jobs of a batch were both told of room there was for one (one file of two failed "libjpeg: Insufficient
    /// memory" with `-j 2` under a limit where `-j 1` converted both; a reviewer's find).
    static func roomForWhole(_ bytes: Int) -> Bool {
        let (asked, overflow) = bytes.addingReportingOverflow(roomAfterWhole)
        return !overflow && untilRoom {
            wholeAllocations.withLock { promised -> Bool? in
                guard available(asked, besides: promised) else { return nil }
                promised[UInt(yc_thread_token()), default: 0] += bytes
                return true
            }
        } != nil
    }

    /// The end of `roomForWhole`'s promise of `bytes` to the thread `owner` (`yc_thread_token`, where it was made):
    /// the decoder has allocated them, or never will.
    static func wholeTaken(_ bytes: Int, owner: UInt = UInt(yc_thread_token())) {
        wholeAllocations.withLock { promised in
            let left = (promised[owner] ?? 0) - bytes
            promised[owner] = left > 0 ? left : nil
        }
    }

    /// The address space the work after a whole picture still takes: the pipeline's two threads' stacks and a
    /// little for tables and arrays. A stack is counted at 8 MiB at most: under a larger stack limit (`ulimit -s
    /// 512M`) a thread refused its stack is done without (its stages run in turn on the calling thread), and
    /// counting it whole refused a 576 KiB picture for want of a GiB (a hostile tester's find).
    static var roomAfterWhole: Int { 2 * min(threadStackBytes, 8 << 20) + (4 << 20) }

    /// `attempt()` until it gives a value, each refusal followed by `waitForRoom`; nil when that says give up.
    private static func untilRoom<T>(_ attempt: () throws -> T?) rethrows -> T? {
        var trimmed = false
        while true {
            if let made = try attempt() { return made }
            guard waitForRoom(trimmed: &trimmed) else { return nil }
        }
    }
    /// One look for room and its allocation at a time across the process; it holds the bytes promised to decoders
    /// (`roomForWhole`) not yet allocated, by the thread promised to (`yc_thread_token`): every look on another
    /// thread counts them as taken. Not the promised thread's own: what its conversion takes after the promise (the
    /// picture beside a multi-scan JPEG's coefficients, promised with them) would be asked for beside itself.
    private static let wholeAllocations = Mutex<[UInt: Int]>([:])

    /// `available(bytes)` beside the bytes `promised` to other threads than this one (`wholeAllocations`' count).
    private static func available(_ bytes: Int, besides promised: [UInt: Int]) -> Bool {
        let me = UInt(yc_thread_token())
        return available(promised.reduce(bytes) { $0 &+ ($1.key == me ? 0 : $1.value) })
    }

    /// The reason a conversion gives when `available` said no.
    public static func outOfMemory(_ bytes: Int, for what: String) -> String {
        // Rounded up without overflow (Int.max, a size that makes no sense, trapped here).
        let size = bytes >= 1 << 20 ? "\(bytes >> 20 + (bytes & ((1 << 20) - 1) == 0 ? 0 : 1)) MiB" : "\((bytes + 1023) >> 10) KiB"
        return "cannot allocate \(bytes) bytes\(bytes < 1024 ? "" : " (\(size))") for \(what): out of memory"
    }

    /// Address space a conversion works in besides the buffers it counts: its threads' stacks, the decoders'
    /// and encoders' own memory, Swift's arrays. Asked for (`available`) before a conversion starts, so that
    /// under an address-space limit (`ulimit -v`) too tight for it the file fails with the reason rather than
    /// a small allocation stopping the process later.
    public static let workingBytes = 48 << 20

    /// Conversions under way in this process (admitted by `beginWork`, not yet ended), how many have ended (the
    /// generation a waiting one waits to see change), and how many wait in `waitForRoom` for each generation
    /// (those waiting for an earlier one have been woken: they are about to ask again, not waiting).
    private static let underWay = Mutex<(running: Int, ended: Int, waiting: [Int: Int])>((0, 0, [:]))

    /// Room for a conversion to work in, asked once before any work: `workingBytes`, and the address space for as
    /// much again for each conversion already under way, whose memory may not all be taken yet (a batch's jobs
    /// start together). Under an address-space limit (`ulimit -v`) the other jobs of a batch hold, or are about
    /// to take, what this one needs; while any is under way this waits for one to end and asks again, so that
    /// `-j` never turns a limit that holds one conversion into failed files, nor into a job whose buffers are
    /// refused in the middle of its work. Alone, it first gives the heap's free memory back to the
    /// system and asks once more. False only when no other conversion is under way and the room is not there
    /// (the limit is too low for one), or when a signal stops the run; after true, `endWork` — on the same thread.
    /// A thread already admitted is admitted again at once (a job holds its admission from its conversion to its
    /// output's commit — the JPEG encoder's picture, sharp chroma's second reading — and a conversion inside
    /// another's on the same thread never waits for itself). The room asked for the others is address space only
    /// (`reservable`): without a limit, a thousand jobs ask the system for nothing it would refuse.
    package static func beginWork() -> Bool {
        if yc_work_depth(0) > 0 {
            _ = yc_work_depth(1)
            return true
        }
        var trimmed = false
        while true {
            let others: Int? = underWay.withLock { s in
                guard available(workingBytes) && (s.running == 0 || reservable(workingBytes * (s.running + 1))) else {
                    return s.running
                }
                s.running += 1
                return nil
            }
            guard let others else {
                _ = yc_work_depth(1)
                return true
            }
            if others == 0 {
                if trimmed { return false }
                yc_release_free_memory()
                trimmed = true
                continue
            }
            trimmed = false
            if interruptSignal() != nil { return false }
            usleep(2000)
        }
    }

    /// The end of what `beginWork` admitted (on the thread it admitted), once it has given back what it held.
    package static func endWork() {
        let depth = yc_work_depth(-1)
        precondition(depth >= 0, "endWork without beginWork on this thread")
        guard depth == 0 else { return }
        underWay.withLock { s in
            s.running -= 1
            s.ended += 1
        }
    }

    /// After memory was refused: whether to ask again. While another conversion is under way and not itself
    /// waiting here, it may give back what it holds: this waits until one ends (true), or a signal (false).
    /// When every other one waits too, nobody would give anything back: the heap's free memory is given back to
    /// the system and the caller asks once more (true), then false, and the caller's file fails, which gives back
    /// what it holds to the others. Only a thread `beginWork` admitted waits: on any other (a pipeline's stage
    /// worker, a library caller's thread) the conversion it works for may be among those under way, and would
    /// wait for itself.
    static func waitForRoom(trimmed: inout Bool) -> Bool {
        let admitted = yc_work_depth(0) > 0
        let ended: Int? = underWay.withLock { s in
            guard admitted, s.running - 1 - (s.waiting[s.ended] ?? 0) > 0 else { return nil }
            s.waiting[s.ended, default: 0] += 1
            return s.ended
        }
        guard let ended else {
            if trimmed { return false }
            yc_release_free_memory()
            trimmed = true
            return true
        }
        trimmed = false
        defer {
            underWay.withLock { s in
                s.waiting[ended, default: 1] -= 1
                if s.waiting[ended] == 0 { s.waiting[ended] = nil }
            }
        }
        while underWay.withLock({ $0.ended }) == ended {
            if interruptSignal() != nil { return false }
            usleep(2000)
        }
        return true
    }

    /// Whether `bytes` of address space can be mapped now (tried and given back at once), not counting them
    /// against the system's committed memory.
    static func reservable(_ bytes: Int) -> Bool {
        mappable(bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)
    }

    /// Whether a batch has memory for `jobs` jobs at once, each on a thread of its own: its stack and room to work
    /// in (`workingBytes`, its stage threads' stacks within it) — asked before each job's thread is started, so
    /// that under an address-space limit a batch runs as many jobs as the limit holds instead of filling it
    /// with idle threads' stacks and failing its files (`-j 64` under `ulimit -v 400000`). Without a limit,
    /// always true (`reservable`). One job's worth more than the jobs is asked for: the process's own heap and
    /// the calling thread's work come out of the same limit.
    public static func roomForJobs(_ jobs: Int) -> Bool {
        reservable((workingBytes + threadStackBytes) * (jobs + 1))
    }

    /// The least stack a thread doing a conversion is given (`startThread`), and the main thread's (`onRoomyStack`).
    public static let minimumStackBytes = 2 << 20

    /// A thread's stack: the system's default (what `pthread_create` maps without attributes), at least
    /// `minimumStackBytes`; `startThread` asks for it explicitly.
    static var threadStackBytes: Int { max(defaultThreadStackBytes, minimumStackBytes) }

    /// The system's default thread stack.
    static var defaultThreadStackBytes: Int {
        guard let limit = stackLimit(), limit.rlim_cur > 0 else { return 8 << 20 }
        // Unlimited (the largest value): glibc then gives threads its architecture's default, 2 MiB on x86-64.
        return limit.rlim_cur == rlim_t.max ? 2 << 20 : Int(min(limit.rlim_cur, 1 << 30))
    }

    /// The reason when `workingBytes` are not to be had.
    public static func tooLittleToWorkIn() -> String { outOfMemoryUnderALimit(workingBytes, for: "a conversion to work in") }

    /// `outOfMemory` for memory a conversion needs beside its pictures (room to work in, LittleCMS's tables),
    /// which only an address-space limit refuses: said so. (CShims' `yc_fail_if_lcms_refused` words it alike.)
    public static func outOfMemoryUnderALimit(_ bytes: Int, for what: String) -> String {
        outOfMemory(bytes, for: what) + " (an address-space limit such as ulimit -v may be too low)"
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
