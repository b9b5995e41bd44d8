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

    /// A spool whose file stops taking bytes part of the way (a full `$TMPDIR`; here a file-size limit) reads back
    /// the records that reached the file, in order and whole, and then ends: the buffer it let go is not read as
    /// if it came after them (a batch's list of failures was misread as records gigabytes long; a review).
    func testAFailedSpoolReadsBackWhatReachedItsFile() throws {
        var old = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old), 0)
        let oldHandler = signal(SIGXFSZ, SIG_IGN)
        defer {
            _ = setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
            signal(SIGXFSZ, oldHandler)
        }
        var limit = old
        limit.rlim_cur = 200_000
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        let spool = Spool()
        func record(_ i: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8)] + [UInt8](repeating: UInt8(i % 251), count: 998) }
        for i in 0..<1000 { spool.appendRecord(record(i)) }
        _ = setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        XCTAssertNotNil(spool.failure, "the limit was met")
        XCTAssertEqual(spool.count, 1000 * 1004)
        var reader = spool.reader(), n = 0
        while let r = reader.nextRecord() {
            XCTAssertEqual(Array(r), record(n), "record \(n)")
            n += 1
            if n > 1000 { break }
        }
        XCTAssertGreaterThan(n, 0, "what reached the file is read")
        XCTAssertLessThan(n, 200, "and no more")
        XCTAssertThrowsError(try spool.seal())
    }
}
