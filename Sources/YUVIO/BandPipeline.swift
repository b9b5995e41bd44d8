#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Dispatch
import Synchronization

/// A pipeline over a ring of band slots: the calling thread decodes band k+1 while workers, one per stage,
/// pass the bands on in order — say, a colour stage transforms band k, the conversion converts and writes
/// band k−1, a quality stage measures band k−2 (`runPipeline` chooses the stages). The decoder (libjpeg, libpng) is sequential; the stages after it are not, so on two cores a
/// conversion costs little more than its decode, and the quality stage (`--metrics`) runs beside both
/// instead of after the conversion. Memory stays bounded by the ring: a slot is reused only when the last
/// stage is done with it.
final class BandPipeline: Sendable {
    let slots: Int
    /// Slots free for the producer (a counting semaphore).
    private let free: DispatchSemaphore
    /// Per stage: bands ready for it, and its hand-off queue (nil ends it).
    private let ready: [DispatchSemaphore]
    private let queues: Mutex<[[(slot: Int, firstRow: Int, rows: Int)?]]>
    /// The first error of any stage; the others then pass bands on without working on them.
    private let stageError = Mutex<(any Error)?>(nil)

    /// False: every stage runs in turn on the calling thread (a batch running several files at once).
    let threaded: Bool
    /// The workers kept off the CPU the calling thread (the decoder) runs on when the bands begin
    /// (`yc_workers_placement`), each until other work there keeps it waiting to run (`yc_placed_worker_check`):
    /// left to the scheduler, the decoding thread and the converting worker often shared one vCPU of a 2-vCPU
    /// machine while the other idled (docs/performance.md).
    let placed: Bool

    /// Tests only: the producer calls `help` once after every band it hands on, whether or not a slot is free,
    /// so that the work a source shares is done by the producer on every band.
    nonisolated(unsafe) static var helpAfterEveryBand = false

    init(slots: Int, stages: Int = 1, threaded: Bool = true, placed: Bool = false) {
        precondition(stages >= 1)
        self.slots = slots
        self.threaded = threaded
        self.placed = placed && threaded
        // Created at 0 and raised: libdispatch traps when a semaphore dies below its initial value, which
        // `free` would after an early stop.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<slots { free.signal() }
        ready = (0..<stages).map { _ in DispatchSemaphore(value: 0) }
        queues = Mutex(Array(repeating: [], count: stages))
    }

    private func push(_ item: (slot: Int, firstRow: Int, rows: Int)?, to stage: Int) {
        queues.withLock { $0[stage].append(item) }
        ready[stage].signal()
    }

    /// Runs `produce(slot)` on this thread until it returns nil (or throws), and each of `stages` — called
    /// with (slot, firstRow, rows) — on a worker of its own, every band through every stage in order. The
    /// first error of any side stops them all and is rethrown here. When every slot is taken — a later stage
    /// is the slowest — this thread calls `help` until a slot is free or it has nothing to do (returns false):
    /// work a stage would otherwise do, so that the two cores share the load whichever side is heavier.
    func run(produce: (Int) throws -> (firstRow: Int, rows: Int)?, help: () -> Bool = { false },
             stages: [@Sendable (Int, Int, Int) throws -> Void]) throws {
        precondition(stages.count == ready.count, "one stage function per stage")
        func inTurn() throws {
            while let band = try produce(0) {
                for stage in stages { try stage(0, band.firstRow, band.rows) }
            }
        }
        if !threaded { return try inTurn() }
        // Each stage on a thread of its own, not a shared pool's: a worker blocks while it waits for bands, and
        // many conversions at once (a library caller's) must not fill a pool with blocked workers and wait
        // on each other. Without threads to be had, the stages run in turn here.
        var threads: [pthread_t] = []
        // Where the workers run (`placed`): an address, passed to them as a number (a raw pointer is not
        // Sendable), freed after they end.
        let placement = placed ? UInt(bitPattern: yc_workers_placement()) : 0
        defer { yc_placement_free(UnsafeMutableRawPointer(bitPattern: placement)) }
        for (index, stage) in stages.enumerated() {
            guard let thread = startThread({ [self] in
                yc_place_worker(UnsafeRawPointer(bitPattern: placement))
                defer { yc_worker_end() }
                let last = index == stages.count - 1
                while true {
                    ready[index].wait()
                    let item = queues.withLock { $0[index].removeFirst() }
                    guard let item else {
                        if !last { push(nil, to: index + 1) }
                        return
                    }
                    if stageError.withLock({ $0 == nil }) {
                        do {
                            try stage(item.slot, item.firstRow, item.rows)
                        } catch {
                            stageError.withLock { if $0 == nil { $0 = error } }
                        }
                    }
                    yc_placed_worker_check(UnsafeRawPointer(bitPattern: placement))
                    if last { free.signal() } else { push(item, to: index + 1) }
                }
            }) else {
                push(nil, to: 0)   // the workers started end in turn
                threads.forEach(joinThread)
                return try inTurn()
            }
            threads.append(thread)
        }
        var slot = 0
        var producerError: Error?
        while true {
            while free.wait(timeout: .now()) == .timedOut {
                if !help() {
                    free.wait()
                    break
                }
            }
            if stageError.withLock({ $0 != nil }) { break }
            do {
                guard let band = try produce(slot) else { break }
                push((slot, band.firstRow, band.rows), to: 0)
                if Self.helpAfterEveryBand { _ = help() }
                slot = (slot + 1) % slots
            } catch {
                producerError = error
                break
            }
        }
        push(nil, to: 0)
        threads.forEach(joinThread)
        if let producerError { throw producerError }
        if let error = stageError.withLock({ $0 }) { throw error }
    }
}
