import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The SHA-256 an `AtomicOutput` gives is the file's, however it was written: in order (hashed as written),
/// out of order (the rest read back through several mapping windows, from offsets that are not on a page),
/// rewritten (the whole file read back), padded (gaps that read back as zeros).
final class OutputDigestTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try scratchFolder("yuvconv-digest") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Writes `pieces` (offset, bytes) to a new file through a hashing `AtomicOutput` of `size` bytes and
    /// checks its digest against the bytes on disk and `expected`.
    func check(size: Int, pieces: [(Int, [UInt8])], expected: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        let path = dir.appendingPathComponent("out-\(UUID().uuidString).bin").path
        let out = try AtomicOutput(path: path, force: false, hashing: true)
        try out.reserve(size)
        for (offset, bytes) in pieces {
            let failure: WriteError? = bytes.withUnsafeBytes { b in
                do throws(WriteError) { try out.write(b, at: offset) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
        try out.commit()
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(written, expected, file: file, line: line)
        let digest = try XCTUnwrap(out.digest, file: file, line: line)
        XCTAssertEqual(digest.bytes, expected.count, file: file, line: line)
        XCTAssertEqual(digest.sha256, SHA256.hex(expected), file: file, line: line)
    }

    /// A raw frame's shape, large: a first part written in order in rows, the rest (more than two 4 MiB
    /// windows, starting off a page boundary) written band by band beside it and read back at the end.
    func testOutOfOrderWritesReadBackAcrossWindows() throws {
        var rng = SplitMix64(seed: 23)
        let first = 3 * (4 << 20) + 1234, rest = 9 << 20 | 77
        let data = randomBytes(first + rest, &rng)
        var pieces: [(Int, [UInt8])] = []
        let bands = 40
        for b in 0..<bands {
            let a0 = first * b / bands, a1 = first * (b + 1) / bands
            let c0 = rest * b / bands, c1 = rest * (b + 1) / bands
            pieces.append((a0, Array(data[a0..<a1])))
            pieces.append((first + c0, Array(data[(first + c0)..<(first + c1)])))
        }
        try check(size: data.count, pieces: pieces, expected: data)
    }

    /// Bytes written again over hashed ones: the whole file is read back; and a file written backwards.
    func testRewrittenAndBackwardWrites() throws {
        var rng = SplitMix64(seed: 29)
        let data = randomBytes((5 << 20) + 4097, &rng)
        let garbage = randomBytes(1000, &rng)
        try check(size: data.count, pieces: [(0, Array(data[0..<(1 << 20)])), (100, garbage), (100, Array(data[100..<1100])),
                                             ((1 << 20), Array(data[(1 << 20)...]))], expected: data)
        let chunk = 1 << 19
        let backwards = stride(from: 0, to: data.count, by: chunk).reversed().map { ($0, Array(data[$0..<min($0 + chunk, data.count)])) }
        try check(size: data.count, pieces: backwards, expected: data)
    }

    /// Padded rows: each gap is no longer than the write after it, so it is hashed as the zeros it reads as.
    func testPaddingIsHashedAsZeros() throws {
        var rng = SplitMix64(seed: 31)
        let row = 1000, stride = 1024, rows = 300
        var expected = [UInt8](repeating: 0, count: stride * rows)
        var pieces: [(Int, [UInt8])] = []
        for r in 0..<rows {
            let bytes = randomBytes(row, &rng)
            expected.replaceSubrange((r * stride)..<(r * stride + row), with: bytes)
            pieces.append((r * stride, bytes))
        }
        try check(size: expected.count, pieces: pieces, expected: expected)
    }
}
