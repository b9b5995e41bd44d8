import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import YUVIO

/// `Spool`: bytes set aside on disk so that a batch's memory does not grow with its number of files.
final class SpoolTests: XCTestCase {
    /// A spool that cannot write (no temporary file to be had: `$TMPDIR` missing, or full) holds no more than its
    /// buffer however much is appended after, counts every byte appended, and says why when sealed. It kept every
    /// byte after the failure in memory: a 3-million-name list with a full `$TMPDIR` peaked at 280 MB before the
    /// run said so (a hostile round).
    func testAFailedSpoolLetsItsBytesGo() throws {
        let before = getenv("TMPDIR").map { String(cString: $0) }
        defer {
            if let before { setenv("TMPDIR", before, 1) } else { unsetenv("TMPDIR") }
        }
        setenv("TMPDIR", "/nonexistent-yuvconv-spool-test", 1)
        let spool = Spool()
        let chunk = [UInt8](repeating: 7, count: 1000)
        var most = 0
        for _ in 0..<4000 {
            spool.appendRecord(chunk)
            most = max(most, spool.buffered)
        }
        XCTAssertNotNil(spool.failure)
        XCTAssertLessThanOrEqual(most, 2 * Spool.bufferSize, "held in memory after the failure")
        XCTAssertEqual(spool.count, 4000 * 1004, "every byte appended is counted")
        XCTAssertThrowsError(try spool.seal()) { error in
            XCTAssertTrue("\(error)".contains("cannot make a temporary file"), "\(error)")
        }
        // A spool that can write is read back whole.
        unsetenv("TMPDIR")
        let good = Spool()
        for i in 0..<4000 { good.appendRecord([UInt8(truncatingIfNeeded: i)] + chunk) }
        try good.seal()
        var reader = good.reader(), n = 0
        while let r = reader.nextRecord() {
            XCTAssertEqual(r.first, UInt8(truncatingIfNeeded: n))
            n += 1
        }
        XCTAssertEqual(n, 4000)
    }
}
