import CSIMD
import TestSupport
import XCTest

/// PNG's two checksums (Sources/CSIMD/yc_checksums.c): every path — carry-less multiplication or ARMv8 CRC
/// instructions, the SSSE3 Adler-32, the tables and the bytewise sums — against the definitions computed
/// bit by bit here, over lengths across every block boundary and at every alignment, resumed at any point.
final class ChecksumTests: XCTestCase {
    func adlerBytewise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }

    func testAgainstTheDefinitions() {
        var rng = SplitMix64(seed: 0xC4C)
        let data = (0..<12_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let ones = [UInt8](repeating: 0xFF, count: 12_000)   // the largest sums between reductions
        var lengths = Array(0...300) + [511, 512, 513, 1023, 1024, 1025, 4095, 4096, 5551, 5552, 5553, 11_104, 11_105]
        lengths += (0..<40).map { _ in Int.random(in: 301...11_900, using: &rng) }
        for source in [data, ones] {
            source.withUnsafeBufferPointer { all in
                for offset in 0..<16 {
                    for n in lengths where offset + n <= all.count {
                        let p = all.baseAddress! + offset, slice = source[offset..<(offset + n)]
                        let crc = crc32Bitwise(slice), adler = adlerBytewise(slice)
                        XCTAssertEqual(yc_crc32(0, p, n), crc, "crc, offset \(offset), \(n) bytes")
                        XCTAssertEqual(yc_crc32_portable(0, p, n), crc, "crc tables, offset \(offset), \(n) bytes")
                        XCTAssertEqual(yc_adler32(1, p, n), adler, "adler, offset \(offset), \(n) bytes")
                        XCTAssertEqual(yc_adler32_portable(1, p, n), adler, "adler bytewise, offset \(offset), \(n) bytes")
                        let cut = n / 3
                        XCTAssertEqual(yc_crc32(yc_crc32(0, p, cut), p + cut, n - cut), crc, "crc resumed, \(n) bytes")
                        XCTAssertEqual(yc_adler32(yc_adler32(1, p, cut), p + cut, n - cut), adler, "adler resumed, \(n) bytes")
                    }
                }
            }
        }
        // The values PNG files carry: IEND's CRC, and zlib's Adler-32 of "Wikipedia".
        XCTAssertEqual(Array("IEND".utf8).withUnsafeBufferPointer { yc_crc32(0, $0.baseAddress!, 4) }, 0xAE42_6082)
        XCTAssertEqual(Array("Wikipedia".utf8).withUnsafeBufferPointer { yc_adler32(1, $0.baseAddress!, 9) }, 0x11E6_0398)
        #if arch(x86_64)
        // The instruction paths are the ones tested here on any x86-64 CPU of this project's kind.
        XCTAssertEqual(yc_crc32_hardware(), 1)
        XCTAssertEqual(yc_adler32_vector(), 1)
        #endif
    }
}
