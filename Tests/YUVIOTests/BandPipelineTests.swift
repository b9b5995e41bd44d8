import Foundation
import Synchronization
import XCTest
@testable import YUVIO

/// The band pipeline's contract: every band goes through every stage, in order; a slot is handed to the
/// producer again only when the last stage is done with it; the first error of any side ends the run and is
/// rethrown. Checked threaded and in turn, with one to three worker stages.
final class BandPipelineTests: XCTestCase {
    struct Stop: Error, Equatable { let stage: Int }

    /// Per slot: which band it holds and how far that band has got (stages done), under one lock.
    final class Ledger: Sendable {
        let state = Mutex<(band: [Int], done: [Int], seen: [[Int]], violations: [String])>(([], [], [], []))
        init(slots: Int, stages: Int) {
            state.withLock { $0 = (Array(repeating: -1, count: slots), Array(repeating: stages, count: slots),
                                   Array(repeating: [], count: stages), []) }
        }
    }

    static func run(slots: Int, stages: Int, bands: Int, threaded: Bool, failAt: (stage: Int, band: Int)? = nil) throws -> Ledger {
        let pipeline = BandPipeline(slots: slots, stages: stages, threaded: threaded)
        let ledger = Ledger(slots: pipeline.slots, stages: stages)
        var next = 0
        let functions: [@Sendable (Int, Int, Int) throws -> Void] = (0..<stages).map { stage in
            { slot, first, n in
                try ledger.state.withLock { s in
                    if s.band[slot] != first { s.violations.append("stage \(stage) got slot \(slot) holding \(s.band[slot]), not \(first)") }
                    if s.done[slot] != stage { s.violations.append("stage \(stage) ran on band \(first) after \(s.done[slot]) stages") }
                    s.done[slot] = stage + 1
                    s.seen[stage].append(first)
                    if let failAt, failAt.stage == stage, failAt.band == first { throw Stop(stage: stage) }
                }
                usleep(UInt32((first * 7919) % 300))   // uneven stage times
            }
        }
        try pipeline.run(produce: { slot in
            guard next < bands else { return nil }
            if let failAt, failAt.stage == -1, failAt.band == next { throw Stop(stage: -1) }
            ledger.state.withLock { s in
                if s.done[slot] != stages { s.violations.append("slot \(slot) reused while band \(s.band[slot]) was at stage \(s.done[slot])") }
                s.band[slot] = next
                s.done[slot] = 0
            }
            defer { next += 1 }
            return (next, 1)
        }, stages: functions)
        return ledger
    }

    func testEveryBandPassesEveryStageInOrderAndSlotsWaitForTheLastStage() throws {
        for threaded in [true, false] {
            for stages in 1...3 {
                let ledger = try Self.run(slots: 3, stages: stages, bands: 200, threaded: threaded)
                ledger.state.withLock { s in
                    XCTAssertEqual(Array(s.violations.prefix(5)), [], "threaded \(threaded), \(stages) stages, \(s.violations.count) in all")
                    for stage in 0..<stages {
                        XCTAssertEqual(s.seen[stage], Array(0..<200), "threaded \(threaded), stage \(stage) of \(stages)")
                    }
                }
            }
        }
    }

    func testTheFirstErrorOfAnyStageOrTheProducerStopsTheRun() throws {
        for threaded in [true, false] {
            for stage in -1..<3 {
                XCTAssertThrowsError(try Self.run(slots: 3, stages: 3, bands: 200, threaded: threaded, failAt: (stage, 50))) { error in
                    XCTAssertEqual(error as? Stop, Stop(stage: stage), "threaded \(threaded)")
                }
            }
        }
    }

    /// Many threaded pipelines at once (a library caller converting on many threads): each stage has a thread
    /// of its own, so blocked workers of some never keep the others from starting theirs. With the workers on
    /// libdispatch's shared pool, 120 pipelines of three stages held more blocked workers than the pool gives.
    func testManyPipelinesAtOnceAllFinish() {
        let count = 120
        let finished = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            runOnThreads(count) { _ in
                if (try? BandPipelineTests.run(slots: 3, stages: 3, bands: 20, threaded: true)) != nil {
                    finished.withLock { $0 += 1 }
                }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "pipelines still blocked after 120 s")
        XCTAssertEqual(finished.withLock { $0 }, count)
    }

    /// Without room for two jobs each on a thread of its own (`Ledger.roomForJobs` under an address-space limit), the
    /// one job runs on the calling thread: it was started on a new thread's stack when there was room for one job
    /// beside the caller, and a batch that `-j 1` converted failed a file with `-j 2` (a reviewer's find).
    func testRoomForOneJobRunsItOnTheCallingThread() {
        let caller = pthread_self()
        let onCaller = Mutex<[Bool]>([])
        runOnThreads(2, room: { $0 <= 1 }) { _ in onCaller.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) } }
        XCTAssertEqual(onCaller.withLock { $0 }, [true])
        onCaller.withLock { $0 = [] }
        runOnThreads(2, room: { $0 <= 2 }) { _ in onCaller.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) } }
        XCTAssertEqual(onCaller.withLock { $0 }, [false, false])
        // Room for two at first, and none for the second once the first thread's stack is taken: the caller does the
        // second job, not the first's thread alone.
        onCaller.withLock { $0 = [] }
        let asked = Mutex(0)
        runOnThreads(2, room: { _ in asked.withLock { $0 += 1; return $0 == 1 } }) { _ in
            onCaller.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) }
        }
        XCTAssertEqual(onCaller.withLock { $0 }.sorted { !$0 && $1 }, [false, true])
    }

    /// A conversion places its workers only for a picture large enough to pay for it: a small one under another
    /// process's load lost 6-8 ms placed (its let-go comes after a band, too late), and gained nothing when quiet.
    func testOnlyLargePicturesPlaceTheirWorkers() {
        var options = DecodeOptions()
        XCTAssertFalse(options.placesWorkers(pixels: 12_000_000), "not asked")
        options.placesThreads = true
        XCTAssertTrue(options.placesWorkers(pixels: 4032 * 3024))
        XCTAssertTrue(options.placesWorkers(pixels: DecodeOptions.placementMinimumPixels))
        XCTAssertFalse(options.placesWorkers(pixels: 2048 * 1536))
        XCTAssertFalse(options.placesWorkers(pixels: 256 * 256))
    }

    /// `placed`: the workers run off the CPU the producer was on when the bands began (the CPUs it may use, less
    /// that one), the producer where it may run, as before; not placed, the workers may use what it may. Counted
    /// from each thread's own `Cpus_allowed_list` (Linux; a machine that gives the process one CPU has nothing to
    /// place).
    func testPlacedWorkersRunOffTheProducersCPU() throws {
        #if os(Linux)
        @Sendable func allowed() -> Int {
            let status = (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return -1 }
            return line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").reduce(0) { n, part in
                let ends = part.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
                return n + (ends.count == 2 ? ends[1] - ends[0] + 1 : 1)
            }
        }
        let mine = allowed()
        guard mine >= 2 else { throw XCTSkip("this process may use \(mine) CPU(s): nothing to place") }
        for placed in [false, true] {
            // Per stage, what its worker may use at each band. A placed worker kept waiting to run by other work
            // (a busy machine: the test suite's other half) is let go after a band: only its first is sure.
            let seen = Mutex<[[Int]]>([[], []])
            var bands = 0
            try BandPipeline(slots: 3, stages: 2, threaded: true, placed: placed).run(produce: { _ in
                guard bands < 8 else { return nil }
                bands += 1
                return (firstRow: bands, rows: 1)
            }, stages: [{ _, _, _ in seen.withLock { $0[0].append(allowed()) } },
                        { _, _, _ in seen.withLock { $0[1].append(allowed()) } }])
            for (stage, counts) in seen.withLock({ $0 }).enumerated() {
                XCTAssertEqual(counts.count, 8, "stage \(stage)")
                XCTAssertEqual(counts.first, placed ? mine - 1 : mine, "placed \(placed), stage \(stage): \(counts)")
                XCTAssertTrue(counts.allSatisfy { $0 == mine || (placed && $0 == mine - 1) }, "\(counts)")
            }
            XCTAssertEqual(allowed(), mine, "the producer is left as it was")
        }
        #else
        throw XCTSkip("thread placement is Linux's")
        #endif
    }
}
