import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// Every fixture copied from the shared corpus gets its expected outcome from the corpus MANIFEST:
/// `ok` files decode and convert; `error` files (corrupt, truncated, bombs, unsupported processes) fail
/// with a reason.
final class CorpusTests: XCTestCase {
    func testManifestOutcomes() throws {
        let manifest = try String(contentsOf: fixturesURL.appendingPathComponent("corpus/MANIFEST.txt"), encoding: .utf8)
        var ok = 0, errors = 0
        for line in manifest.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("path\t") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let path = fixture(f[0])
            do {
                let c = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12)
                XCTAssertEqual(f[3], "ok", "\(f[0]) converted but the manifest expects an error (\(f[5]))")
                XCTAssertEqual(c.image.bytes.count, c.image.geometry.tightBytes)
                ok += 1
            } catch {
                XCTAssertEqual(f[3], "error", "\(f[0]) failed but the manifest expects ok: \(error)")
                XCTAssertFalse(error.reason.isEmpty)
                XCTAssertEqual(error.path, path)
                // In our words: a sentence (lower case, as after "FILE: "), or the decoder's damage warning,
                // which says what is wrong and has a remedy. Never a bare library message.
                XCTAssertTrue(error.reason.first!.isLowercase || error.remedy == .allowDamaged,
                              "\(f[0]): a bare library message: \(error.reason)")
                XCTAssertFalse(error.reason.unicodeScalars.contains { $0.value < 0x20 }, "\(f[0]): control bytes")
                errors += 1
            }
        }
        XCTAssertGreaterThan(ok, 400)
        XCTAssertGreaterThan(errors, 50)
    }

    func testSourceDescriptions() throws {
        func info(_ p: String) throws -> SourceInfo {
            try convertFile(path: fixture(p), spec: ConversionSpec(), layout: .nv12).info
        }
        XCTAssertEqual(try info("photos/rocket.jpg").sampling, "4:4:4")
        XCTAssertEqual(try info("jpeg/wuffs/peacock.s2x2-420.jpeg").sampling, "4:2:0")
        XCTAssertEqual(try info("jpeg/wuffs/peacock.progressive.scan004.jpeg").sampling, "4:2:0 progressive")
        XCTAssertEqual(try info("jpeg/jpeg-decoder/mozilla/jpg-gray.jpg").sampling, "grey")
        XCTAssertEqual(try info("jpeg/jpeg-decoder/mozilla/jpg-cmyk-1.jpg").sampling, "CMYK")
        XCTAssertEqual(try info("pngsuite/basn6a16.png").sampling, "RGBA 16-bit")
        XCTAssertEqual(try info("pngsuite/basi3p08.png").sampling, "palette 8-bit interlaced")
        XCTAssertEqual(try info("pngsuite/tbbn3p08.png").sampling, "palette 8-bit + tRNS")
        let r = try info("photos/rocket.jpg")
        XCTAssertEqual(r.container, .jpeg)
        XCTAssertEqual(r.rowFormat, .rgba8)
    }

    func testLimitsAndBadInputs() throws {
        let rocket = fixture("photos/rocket.jpg")
        XCTAssertThrowsError(try convertFile(path: rocket, spec: ConversionSpec(), layout: .nv12,
                                             options: DecodeOptions(maxPixels: 1000))) { e in
            // The library says which limit was met and names no option (the CLI adds "--max-pixels").
            XCTAssertEqual((e as! FileError).reason, "640x427 is 273280 pixels, above the limit of 1000")
            XCTAssertEqual((e as! FileError).remedy, .maxPixels)
        }
        XCTAssertThrowsError(try convertFile(path: "/nonexistent/x.png", spec: ConversionSpec(), layout: .nv12)) { e in
            XCTAssertEqual((e as! FileError).reason, "cannot open: No such file or directory")
        }
        XCTAssertThrowsError(try convertFile(path: fixturesURL.path, spec: ConversionSpec(), layout: .nv12)) { e in
            XCTAssertEqual((e as! FileError).reason, "is a directory")
        }
        XCTAssertThrowsError(try convertFile(path: fixture("README.txt"),
                                             spec: ConversionSpec(), layout: .nv12)) { e in
            XCTAssertTrue((e as! FileError).reason.contains("not a JPEG or PNG"))
        }
        // A truncated JPEG is an error by default and accepted (grey-filled) on request.
        let truncated = fixture("jpeg/jpeg-decoder/crashtest/dc-predictor-overflow.jpg")
        XCTAssertThrowsError(try convertFile(path: truncated, spec: ConversionSpec(), layout: .nv12))
        XCTAssertNoThrow(try convertFile(path: truncated, spec: ConversionSpec(), layout: .nv12,
                                         options: DecodeOptions(allowTruncated: true)))
    }
}
