import Foundation
import CShims
import Synchronization
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO
#if canImport(Glibc)
import Glibc
#endif

/// `Ledger.beginWork`, `waitForRoom` and `ifAvailable`: how a batch's jobs share an address-space limit.
final class LedgerAdmissionTests: XCTestCase {
    /// Runs `body` with the address-space limit set `headroom` bytes above what the process maps now, then
    /// puts the limit back.
    private func underLimit(headroom: Int, _ body: () -> Void) throws {
        #if canImport(Glibc)
        // The heap's free memory given back first: a look refused under the limit gives it back (`waitForRoom`) and
        // asks again, and what earlier tests freed would then be headroom beyond the limit's (in the whole suite, a
        // look meant to be refused was granted).
        yc_release_free_memory()
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = Int(statm.split(separator: " ")[0])!
        var old = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &old), 0)
        var tight = old
        tight.rlim_cur = rlim_t(pages * Int(getpagesize()) + headroom)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &tight), 0)
        body()
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &old), 0)
        #else
        throw XCTSkip("address-space limits are Linux's here")
        #endif
    }

    /// One thread besides the test's, made before any limit is set and kept: a look for room from another thread
    /// (`run`), with no new thread's stack or malloc arena taken under the limit. A new thread for each look took an
    /// arena's 64 MiB of address space beside other tests' threads, and a look meant to be granted was refused.
    private final class OtherThread: @unchecked Sendable {
        private let work = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        private var body: (@Sendable () -> Bool)?
        private var answer = false

        init() {
            Thread { [self] in
                while true {
                    work.wait()
                    guard let body else { return }
                    answer = body()
                    done.signal()
                }
            }.start()
            _ = run { [Int](repeating: 1, count: 4096).count == 4096 }   // its arena taken now
        }

        /// `body()` there, waited for.
        func run(_ body: @escaping @Sendable () -> Bool) -> Bool {
            self.body = body
            work.signal()
            done.wait()
            return answer
        }

        deinit {
            body = nil
            work.signal()
        }
    }
    private static let other = OtherThread()
    private func elsewhere(_ body: @escaping @Sendable () -> Bool) -> Bool { Self.other.run(body) }

    /// A conversion inside another's on the same thread (a sink that converts, a JPEG encoded after its
    /// conversion) is admitted at once: counting itself among those under way, it waited forever for itself
    /// under a limit that holds one conversion.
    func testANestedAdmissionNeverWaitsForItself() throws {
        #if !canImport(Glibc)
        throw XCTSkip("address-space limits are Linux's here")
        #endif
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let results = Mutex<[Bool]>([])
        // The thread made and running (its stack, its malloc arena: an allocation made) before the limit is
        // lowered, so that the limit's headroom is the admission's alone.
        let t = Thread {
            let warm = [Int](repeating: 1, count: 4096)
            results.withLock { $0 = [warm.count == 4096] }
            ready.signal()
            go.wait()
            let outer = Ledger.beginWork()
            let inner = Ledger.beginWork()
            if inner { Ledger.endWork() }
            if outer { Ledger.endWork() }
            results.withLock { $0 = [outer, inner] }
            done.signal()
        }
        t.start()
        ready.wait()
        try underLimit(headroom: Ledger.workingBytes + Ledger.workingBytes * 2 / 3) {   // under the 2 × 48 MiB a second admission asks
            go.signal()
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the nested admission waited")
        }
        XCTAssertEqual(results.withLock { $0 }, [true, true])
    }

    /// Alone, nothing is waited for: no other conversion could give memory back; the heap's free memory is
    /// given back once, then the answer is no.
    func testAloneThereIsNothingToWaitFor() throws {
        #if !canImport(Glibc)
        throw XCTSkip("address-space limits are Linux's here")
        #endif
        var trimmed = false
        XCTAssertTrue(Ledger.waitForRoom(trimmed: &trimmed))
        XCTAssertFalse(Ledger.waitForRoom(trimmed: &trimmed))
        XCTAssertTrue(Ledger.beginWork())
        defer { Ledger.endWork() }
        trimmed = true
        XCTAssertFalse(Ledger.waitForRoom(trimmed: &trimmed), "its own admission counted as another's")
        try underLimit(headroom: 16 << 20) {
            let start = DispatchTime.now()
            XCTAssertNil(Ledger.ifAvailable(256 << 20) { true })
            XCTAssertLessThan(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 1_000_000_000)
        }
        XCTAssertEqual(Ledger.ifAvailable(1 << 20) { 7 }, 7)
    }

    /// A thread the admission did not admit — a pipeline's stage worker, a library caller's own — never waits
    /// for room: the conversion it works for may be the one under way, which would then wait for itself (a
    /// refused whole picture on a stage worker hung a single conversion under a limit).
    func testOnlyAnAdmittedThreadWaits() {
        XCTAssertTrue(Ledger.beginWork())
        defer { Ledger.endWork() }
        let done = DispatchSemaphore(value: 0)
        let answer = Mutex<Bool?>(nil)
        Thread {
            var trimmed = true
            let again = Ledger.waitForRoom(trimmed: &trimmed)
            answer.withLock { $0 = again }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a worker waited for the conversion it works for")
        XCTAssertEqual(answer.withLock { $0 }, false)
    }

    /// Room said to a decoder for a picture it takes whole itself is promised to it until its library has allocated
    /// the picture: the look and the allocation are apart (inside `jpeg_start_decompress`, or at an interlaced PNG's
    /// first rows), and with `-j 2` two jobs were both told of room there was for one, one file failing "libjpeg:
    /// Insufficient memory" where `-j 1` converted both (a reviewer's find). Promised to other threads only: the
    /// promised thread's own looks (its conversion's turned picture, between the PNG's promise and its rows) do not
    /// count it, or a file that converted alone was refused (the next review's find).
    func testRoomForAWholePictureIsPromisedToOtherThreadsUntilTaken() throws {
        let whole = 64 << 20
        var answers: [Bool] = []
        _ = Self.other   // made before the limit is lowered: the limit's headroom is the looks' alone
        try underLimit(headroom: whole + Ledger.roomAfterWhole + (32 << 20)) {
            answers.append(Ledger.roomForWhole(whole))
            // Another thread: the first's bytes, not allocated yet, are promised.
            answers.append(elsewhere { Ledger.roomForWhole(whole) })
            answers.append(elsewhere { Ledger.ifAvailable(whole) { true } ?? false })
            // This thread: its own promise is not in its way.
            answers.append(Ledger.ifAvailable(whole) { true } ?? false)
            Ledger.wholeTaken(whole)
            answers.append(elsewhere {
                let room = Ledger.roomForWhole(whole)
                if room { Ledger.wholeTaken(whole) }
                return room
            })
        }
        XCTAssertEqual(answers, [true, false, false, true, true])
    }

    /// A multi-scan JPEG's room is asked for with the picture its conversion takes after the coefficients (a JPEG
    /// output's, `alsoHeld`), and that part stays promised until the decoder is closed: the whole promise ended with
    /// `jpeg_start_decompress`, and two jobs each told of room for their coefficients then both waited for their
    /// pictures, one giving up its file (-j 2 under a limit where -j 1 converted both; a reviewer's find).
    func testAMultiScanJPEGsPictureBesideStaysPromised() throws {
        let picture = 64 << 20
        var answers: [Bool] = []
        let source = try InputSource(path: fixture("jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg"))
        var decoder: ImageDecoder?
        _ = Self.other   // made before the limit is lowered: the limit's headroom is the looks' alone
        try underLimit(headroom: picture + Ledger.roomAfterWhole + (32 << 20)) {
            decoder = try? ImageDecoder(source: source, maxMemory: 1 << 30,
                                        alsoHeld: (perBlock: 0, perPixel: picture / (32 * 32), perOddBlock: 0, what: "the picture"))
            answers.append(decoder != nil)
            // Another thread's look for as much: the picture beside the coefficients is still promised.
            answers.append(elsewhere { Ledger.ifAvailable(picture) { true } ?? false })
            decoder = nil
            answers.append(elsewhere { Ledger.ifAvailable(picture) { true } ?? false })
        }
        XCTAssertEqual(answers, [true, false, true])
    }

    /// An interlaced PNG's rows are allocated at its opening, where their room was looked for: allocated at its first
    /// rows, the turn's pictures asked for in between took the room the rows were told of (the promise is not in its
    /// own conversion's way), and the rows' allocation failed, unchecked ("out of memory for an interlaced image" in a
    /// -j 2 batch, for a file that -j 1 converted; a reviewer's find).
    func testAnInterlacedPNGsRowsAreTakenWhereTheirRoomIsLookedFor() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let (w, h) = (4096, 5462)   // 64 MiB of RGB rows; the image data itself never read here
        let file = pngSignature + pngChunk("IHDR", be32(w) + be32(h) + [8, 2, 0, 0, 1])
            + pngChunk("IDAT", zlibStored([0, 1, 2, 3])) + pngChunk("IEND", [])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-rows-\(getpid()).png")
        try Data(file).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try InputSource(path: url.path)
        var answers: [Bool] = []
        try underLimit(headroom: w * 3 * h + Ledger.roomAfterWhole + (32 << 20)) {
            var decoder = try? ImageDecoder(source: source, maxMemory: 1 << 30)
            answers.append(decoder != nil)
            // This thread's own look for as much again: the rows are there, not only promised.
            answers.append(Ledger.ifAvailable(w * 3 * h) { true } ?? false)
            decoder = nil
            answers.append(Ledger.ifAvailable(w * 3 * h) { true } ?? false)
        }
        XCTAssertEqual(answers, [true, false, true])
    }

    /// A conversion's buffer the system refuses is its file's error, thrown: it stopped the process (a handler
    /// that exited, by default a trap), so one picture too large for an address-space limit ended a whole batch —
    /// its other files never converted, its report and manifest never written. Nothing is counted for it.
    func testARefusedBufferIsThrownNotTheProcessStopped() throws {
        let ledger = Ledger()
        var outcome: Result<UnsafeMutableRawPointer, WriteError>?
        try underLimit(headroom: 16 << 20) {
            outcome = Result { () throws(WriteError) in try ledger.allocate(256 << 20) }
        }
        guard case .failure(let error)? = outcome else {
            if case .success(let p)? = outcome { ledger.deallocate(p, bytes: 256 << 20) }
            return XCTFail("256 MiB granted under a limit 16 MiB above what the process maps")
        }
        XCTAssertEqual(error.reason, "cannot allocate 268435456 bytes (256 MiB) for the conversion's buffers: out of memory "
                       + "(an address-space limit such as ulimit -v may be too low)")
        XCTAssertEqual(ledger.current, 0)
        XCTAssertEqual(ledger.peak, 0)
        // The same ledger goes on when there is room.
        let p = try ledger.allocate(1 << 20)
        ledger.deallocate(p, bytes: 1 << 20)
        XCTAssertEqual(ledger.peak, 1 << 20)
    }

    /// Sharp chroma's and the quality measures' rows — tens of MiB for a picture tens of thousands of pixels wide —
    /// are asked for first, as whole pictures are: allocated unasked, a refusal under an address-space limit stopped
    /// the process (SIGABRT mid-batch, a reviewer's 60,000-wide progressive JPEG). Now the conversion's error.
    func testRowsOfAWidePictureAreAskedForFirst() throws {
        var outcome: WriteError?
        try underLimit(headroom: 16 << 20) {
            do throws(WriteError) {
                _ = try QualityProbe(geometry: PlaneGeometry(width: 2_000_000, height: 64), spec: ConversionSpec(), ledger: Ledger())
            } catch {
                outcome = error
            }
        }
        let error = try XCTUnwrap(outcome, "160 MB of rows granted under a limit 16 MiB above what the process maps")
        XCTAssertTrue(error.reason.hasSuffix("for the quality measures' rows: out of memory (an address-space limit such as "
                                             + "ulimit -v may be too low)"), error.reason)
    }
}
