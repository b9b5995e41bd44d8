import CShims
import Foundation
import XCTest
import YUVIO

/// `yc_read_full`, which every first look at standard input and every header read goes through.
final class ReadFullTests: XCTestCase {
    /// A pipe left non-blocking by whoever handed it over, its writer slow: nothing yet is not the end of the
    /// file nor an error (it was EAGAIN, and standard input "cannot open: read failed: Resource temporarily
    /// unavailable"); the read waits for the bytes.
    func testNonBlockingPipeWaitsForTheWriter() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        XCTAssertEqual(fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK), 0)
        let writer = fds[1]
        Thread.detachNewThread {
            usleep(200_000)
            _ = [UInt8](repeating: 7, count: 10).withUnsafeBytes { write(writer, $0.baseAddress, 10) }
            usleep(100_000)
            _ = [UInt8](repeating: 9, count: 6).withUnsafeBytes { write(writer, $0.baseAddress, 6) }
            close(writer)
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = yc_read_full(fds[0], &buffer, 32)
        XCTAssertEqual(n, 16, "errno \(errno)")
        XCTAssertEqual(Array(buffer.prefix(16)), [UInt8](repeating: 7, count: 10) + [UInt8](repeating: 9, count: 6))
    }

    /// A FIFO put in place of a file a batch listed (a folder walk takes regular files only), its writer holding
    /// it open without writing: refused at once, not read — the read waited for the writer, holding the batch.
    /// A FIFO the run listed (named by the user) is read as before.
    func testAFIFOTheRunDidNotListIsNotRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("b.jpg").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = open(fifo, O_RDWR)   // a writer that never writes (and keeps it open)
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        let start = Date()
        XCTAssertThrowsError(try InputSource(path: fifo, listed: Set<FileIdentity>())) { error in
            XCTAssertTrue("\(error)".contains("is now a FIFO, not the file the run listed"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        // Its device and inode alone, what a regular file listed at that name gave when the FIFO took its freed inode
        // number: not listed as a FIFO, so not read (it was).
        let id = try XCTUnwrap(FileStatus(path: fifo)?.identity)
        XCTAssertThrowsError(try InputSource(path: fifo, listed: Set([id])))
        // Listed, as the run lists its inputs (`inputIdentities`): read as before (the writer's bytes are a JPEG's
        // start, then it closes).
        let head: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46]
        _ = head.withUnsafeBytes { write(writer, $0.baseAddress, head.count) }
        XCTAssertNoThrow(try InputSource(path: fifo, listed: Set(inputIdentities(fifo))))
    }
}
