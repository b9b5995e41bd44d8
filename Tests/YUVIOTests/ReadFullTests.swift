import CShims
import Foundation
import XCTest

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
}
