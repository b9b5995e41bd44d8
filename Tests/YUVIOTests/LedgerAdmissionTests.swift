import Foundation
import Synchronization
import XCTest
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

    /// A conversion inside another's on the same thread (a sink that converts, a JPEG encoded after its
    /// conversion) is admitted at once: counting itself among those under way, it waited forever for itself
    /// under a limit that holds one conversion.
    func testANestedAdmissionNeverWaitsForItself() throws {
        let done = DispatchSemaphore(value: 0)
        let results = Mutex<[Bool]>([])
        try underLimit(headroom: Ledger.workingBytes + Ledger.workingBytes / 2) {
            let t = Thread {
                let outer = Ledger.beginWork()
                let inner = Ledger.beginWork()
                if inner { Ledger.endWork() }
                if outer { Ledger.endWork() }
                results.withLock { $0 = [outer, inner] }
                done.signal()
            }
            t.start()
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the nested admission waited")
        }
        XCTAssertEqual(results.withLock { $0 }, [true, true])
    }

    /// Alone, nothing is waited for: no other conversion could give memory back.
    func testAloneThereIsNothingToWaitFor() throws {
        XCTAssertFalse(Ledger.waitForRoom())
        XCTAssertTrue(Ledger.beginWork())
        XCTAssertFalse(Ledger.waitForRoom(), "its own admission counted as another's")
        try underLimit(headroom: 16 << 20) {
            let start = DispatchTime.now()
            XCTAssertNil(Ledger.ifAvailable(256 << 20) { true })
            XCTAssertLessThan(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 1_000_000_000)
        }
        Ledger.endWork()
        XCTAssertEqual(Ledger.ifAvailable(1 << 20) { 7 }, 7)
    }
}
