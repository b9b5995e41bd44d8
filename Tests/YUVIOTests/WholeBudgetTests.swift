import Foundation
import TestSupport
import XCTest
@testable import YUVIO

/// The limit on pictures held whole counts what a conversion holds together: the decoder's coefficients (a
/// progressive JPEG) and every buffer checked after them (a turned picture, an encoder's picture) — each alone
/// under the limit is not enough (a hostile round's progressive 4:4:4 photo turned by EXIF peaked at twice it).
final class WholeBudgetTests: XCTestCase {
    func testWholeBuffersCountTogether() throws {
        let path = fixturesURL.appendingPathComponent("synthetic/progressive-rocket.jpg").path
        func decoder() throws -> ImageDecoder {
            try ImageDecoder(source: InputSource(path: path), maxMemory: 1 << 20)
        }
        // 160x107 at 4:2:0: 20x14 luma blocks and 10x7 of each chroma, padded to the sampling, 128 bytes a block.
        let coefficients = (20 * 14 + 2 * 10 * 7) * 128
        let d = try decoder()
        XCTAssertEqual(d.wholeBudget, 1 << 20)
        try d.checkWhole((1 << 20) - coefficients, for: "the first")   // exactly at the limit with the decoder's
        XCTAssertThrowsError(try d.checkWhole(1, for: "the second")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "the second needs 1.1 MiB held whole with what is held already, above the limit of 1 MiB for this file")
        }
        XCTAssertThrowsError(try decoder().checkWhole((1 << 20) - coefficients + 1, for: "one byte more"))
        // Sizes to a tenth of a MiB, the need rounded up and the limit to the nearest (`--max-memory 1.4M`);
        // where the two would read alike, in bytes.
        let limit = (3 << 19) - 1   // a byte below 1.5 MiB: 1.5 to the nearest tenth
        let near = try ImageDecoder(source: InputSource(path: path), maxMemory: limit)
        XCTAssertThrowsError(try near.checkWhole(limit - coefficients + 1, for: "a byte over")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "a byte over needs 1572864 bytes held whole with what is held already, above the limit of 1572863 bytes for this file")
        }
        let far = try ImageDecoder(source: InputSource(path: path), maxMemory: 1_468_006)   // 1.4M
        XCTAssertThrowsError(try far.checkWhole(3 << 19, for: "1.5 MiB")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "1.5 MiB needs 1.6 MiB held whole with what is held already, above the limit of 1.4 MiB for this file")
        }
        // The default: 128 bytes a byte of the file, at least 256 MiB.
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: 3132), 256 << 20)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: 4 << 20), 512 << 20)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: Int.max), Int.max)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: 5 << 20, inputBytes: 1 << 30), 5 << 20)
    }
}
