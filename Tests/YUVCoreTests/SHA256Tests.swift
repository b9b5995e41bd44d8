import Foundation
import TestSupport
import XCTest
import YUVCore

/// SHA-256 against FIPS 180-4's vectors, against itself fed in random pieces, and against `sha256sum`.
final class SHA256Tests: XCTestCase {
    /// The SHA extensions (where this CPU has them) and FIPS 180-4's rounds in Swift give the same digests:
    /// every length from 0 to 1,100 bytes of seeded random data, and 4 MiB at once.
    func testHardwareAndSoftwareAgree() {
        var rng = SplitMix64(seed: 256)
        let data = (0..<(4 << 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for n in Array(0...1100) + [4 << 20] {
            var a = SHA256(hardware: true), b = SHA256(hardware: false)
            data.prefix(n).withUnsafeBytes { a.update($0); b.update($0) }
            XCTAssertEqual(a.finalize(), b.finalize(), "\(n) bytes")
        }
        print("SHA extensions on this CPU: \(SHA256.hasHardware)")
    }

    func testKnownVectors() {
        XCTAssertEqual(SHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // The 448-bit message: its padding needs a second block.
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)),
                       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        // One million 'a', fed as 1000 pieces of 1000 (not a multiple of the block).
        var h = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { h.update(piece) }
        XCTAssertEqual(h.count, 1_000_000)
        XCTAssertEqual(h.finalize(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length around the block and padding boundaries, in random pieces, equals the one-call digest,
    /// and the lengths 55, 56 and 64 (one or two padding blocks) match `sha256sum`.
    func testPiecesEqualWhole() throws {
        var rng = SplitMix64(seed: 17)
        let data = randomBytes(300, &rng)
        for n in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 300] {
            let whole = SHA256.hex(data[0..<n])
            var h = SHA256(), at = 0
            while at < n {
                let k = min(n - at, Int(rng.next() % 70))
                data[at..<(at + k)].withUnsafeBytes { h.update($0) }
                at += k
            }
            XCTAssertEqual(h.finalize(), whole, "\(n) bytes, \(rng)")
        }
        for n in [55, 56, 64] {
            XCTAssertEqual(SHA256.hex(data[0..<n]), try sha256sum(Data(data[0..<n])), "\(n) bytes, \(rng)")
        }
    }

    /// A real file (an image of the corpus, some hundred KiB) against `sha256sum`; prints the throughput.
    func testFileAgainstSha256sum() throws {
        let path = fixture("photos/kodim23.png")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = Date()
        var digest = ""
        for _ in 0..<20 { digest = SHA256.hex(bytes) }
        let seconds = Date().timeIntervalSince(start)
        print("SHA256: \(String(format: "%.0f", Double(20 * bytes.count) / seconds / 1_048_576)) MiB/s")
        XCTAssertEqual(digest, try sha256sum(Data(bytes)))
    }

    /// `sha256sum`'s digest of `data` (written to a temporary file).
    func sha256sum(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["sha256sum", file.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return String(text.prefix(64))
    }
}
