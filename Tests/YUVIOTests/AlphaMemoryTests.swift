import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// A 16-bit PNG's alpha is read only when something looks at it: `--alpha ignore` asked for by name reads RGB
/// rows (an interlaced picture, held whole, at 6 bytes a pixel rather than 8), with the same bytes out.
final class SixteenBitAlphaMemoryTests: XCTestCase {
    func testNamedIgnoreDoesNotHoldTheAlpha() throws {
        let path = fixture("pngsuite/basi6a16.png")   // 32×32 RGBA 16-bit, interlaced: held whole
        func run(say: Bool) throws -> (bytes: [UInt8], held: Int) {
            var options = DecodeOptions()
            options.alpha = .ignore
            options.sayDroppedAlpha = say
            let sink = MemorySink()
            let report = try YUVIO.convert(path: path, spec: ConversionSpec(), layout: .yuv420p, into: sink, options: options)
            return (sink.image!.bytes, report.ledgerPeakBytes)
        }
        let watched = try run(say: true), named = try run(say: false)
        XCTAssertEqual(watched.bytes, named.bytes)
        // The whole picture at 8 bytes a pixel against 6, and the bands' rows likewise.
        XCTAssertGreaterThanOrEqual(watched.held - named.held, 2 * 32 * 32, "held \(watched.held) against \(named.held)")
    }
}
