import CShims
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The colour fast path (matrix/TRC profiles, `yc_colour_rows_body.h`) over every 8-bit RGB input there is:
/// 2^24 pixels, as RGB and as RGBA rows whose width leaves a tail for the scalar loop, on every CPU tier this
/// machine runs. Every tier must give the same bytes, and those bytes are pinned by CRC (the CRCs were taken
/// from the fast path as it stood when its output was last checked against LittleCMS's double-precision
/// transform: `ColourManagementTests`), so a change to its tables or rows that moves one pixel fails here.
final class ColourRowsTests: XCTestCase {
    /// Every RGB triple once, `width` pixels a row, `step` bytes a pixel (alpha 0x5A, which must survive).
    func everyInput(width: Int, step: Int) -> [UInt8] {
        let total = 1 << 24, rows = (total + width - 1) / width
        var bytes = [UInt8](repeating: 0, count: rows * width * step)
        for i in 0..<(rows * width) {
            let v = i % total
            bytes[i * step] = UInt8(v >> 16); bytes[i * step + 1] = UInt8((v >> 8) & 255); bytes[i * step + 2] = UInt8(v & 255)
            if step == 4 { bytes[i * step + 3] = 0x5A }
        }
        return bytes
    }

    func crcs(profile: [UInt8], target: yc_target) throws -> [String] {
        var out: [String] = []
        for (rows, step, width) in [(YC_ROWS_RGB8, 3, 4099), (YC_ROWS_RGBA8, 4, 4097)] {
            var colour = yc_colour()
            let transformed: [CPUTier: UInt32] = try profile.withUnsafeBufferPointer { icc in
                colour.icc = icc.baseAddress
                colour.icc_length = icc.count
                var seen: [CPUTier: UInt32] = [:]
                let input = everyInput(width: width, step: step)
                for tier in CPUTier.supported {
                    XCTAssertTrue(CPUTier.use(tier))
                    defer { _ = CPUTier.use(CPUTier.best) }
                    let t = try XCTUnwrap(yc_colour_transform_create(&colour, target, rows, 0))
                    defer { yc_colour_transform_free(t) }
                    var bytes = input
                    bytes.withUnsafeMutableBytes { b in
                        yc_colour_transform_apply(t, b.baseAddress, width * step, UInt32(width), UInt32(b.count / (width * step)))
                    }
                    if step == 4 {
                        XCTAssertTrue(stride(from: 3, to: bytes.count, by: 4).allSatisfy { bytes[$0] == 0x5A }, "alpha, tier \(tier)")
                    }
                    seen[tier] = Checksum.crc32(bytes)
                }
                return seen
            }
            XCTAssertEqual(Set(transformed.values).count, 1, "tiers disagree: \(transformed)")
            out.append(String(format: "%08x", transformed[CPUTier.supported[0]]!))
        }
        return out
    }

    func testEveryInputOnEveryTier() throws {
        let p3 = try [UInt8](Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        let got = [try crcs(profile: p3, target: YC_TARGET_SRGB), try crcs(profile: p3, target: YC_TARGET_BT2020)]
        print("colour rows: tiers \(CPUTier.supported), CRCs \(got)")
        XCTAssertEqual(got, [["66b4dbb6", "fc8e5232"], ["5af83747", "f16ad178"]])
    }
}
