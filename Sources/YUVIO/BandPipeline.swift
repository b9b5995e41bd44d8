import Dispatch

/// Two-stage pipeline over a ring of band slots: the calling thread decodes band k+1 while a worker
/// converts and writes band k. The decoder (libjpeg, libpng) is sequential; conversion and output are
/// not, so on two cores a conversion costs little more than its decode. Memory stays bounded by the ring.
final class BandPipeline: @unchecked Sendable {
    let slots: Int
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    private var queue: [(slot: Int, firstRow: Int, rows: Int)?] = []
    private let lock = DispatchSemaphore(value: 1)
    private var consumerError: Error?

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
                lock.wait()
                let item = queue.removeFirst()
                let failed = consumerError != nil
                lock.signal()
                guard let item else { return }
                if !failed {
                    do {
                        try consume(item.slot, item.firstRow, item.rows)
                    } catch {
                        lock.wait(); consumerError = error; lock.signal()
                    }
                }
                free.signal()
            }
        }
        var slot = 0
        var producerError: Error?
        while true {
            free.wait()
            lock.wait(); let failed = consumerError != nil; lock.signal()
            if failed { break }
            do {
                guard let band = try produce(slot) else { break }
                lock.wait(); queue.append((slot, band.firstRow, band.rows)); lock.signal()
                ready.signal()
                slot = (slot + 1) % slots
            } catch {
                producerError = error
                break
            }
        }
        lock.wait(); queue.append(nil); lock.signal()
        ready.signal()
        done.wait()
        if let producerError { throw producerError }
        if let consumerError { throw consumerError }
    }
}
