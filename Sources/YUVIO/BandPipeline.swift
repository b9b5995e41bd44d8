import Dispatch
import Synchronization

/// Two-stage pipeline over a ring of band slots: the calling thread decodes band k+1 while a worker
/// converts and writes band k. The decoder (libjpeg, libpng) is sequential; conversion and output are
/// not, so on two cores a conversion costs little more than its decode. Memory stays bounded by the ring.
final class BandPipeline: Sendable {
    let slots: Int
    /// Counting semaphores: slots free for the producer, bands ready for the consumer.
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    /// The hand-off queue (nil ends it) and the consumer's first error, behind one lock.
    private let shared = Mutex<(queue: [(slot: Int, firstRow: Int, rows: Int)?], consumerError: (any Error)?)>(([], nil))

    /// False: both stages run in turn on the calling thread (a batch running several files at once).
    let threaded: Bool

    init(slots: Int, threaded: Bool = true) {
        self.slots = slots
        self.threaded = threaded
        // Created at 0 and raised: libdispatch traps when a semaphore dies below its initial value, which
        // `free` would after an early stop.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<slots { free.signal() }
    }

    /// Runs `produce(slot)` on this thread until it returns nil (or throws), and `consume(slot, firstRow, rows)`
    /// on a worker, in order. The first error of either side stops both and is rethrown here.
    func run(produce: (Int) throws -> (firstRow: Int, rows: Int)?,
             consume: @escaping @Sendable (Int, Int, Int) throws -> Void) throws {
        if !threaded {
            while let band = try produce(0) { try consume(0, band.firstRow, band.rows) }
            return
        }
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            defer { done.leave() }
            while true {
                ready.wait()
                let (item, failed) = shared.withLock { ($0.queue.removeFirst(), $0.consumerError != nil) }
                guard let item else { return }
                if !failed {
                    do {
                        try consume(item.slot, item.firstRow, item.rows)
                    } catch {
                        shared.withLock { $0.consumerError = error }
                    }
                }
                free.signal()
            }
        }
        var slot = 0
        var producerError: Error?
        while true {
            free.wait()
            if shared.withLock({ $0.consumerError != nil }) { break }
            do {
                guard let band = try produce(slot) else { break }
                shared.withLock { $0.queue.append((slot, band.firstRow, band.rows)) }
                ready.signal()
                slot = (slot + 1) % slots
            } catch {
                producerError = error
                break
            }
        }
        shared.withLock { $0.queue.append(nil) }
        ready.signal()
        done.wait()
        if let producerError { throw producerError }
        if let consumerError = shared.withLock({ $0.consumerError }) { throw consumerError }
    }
}
