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

    /// A progressive JPEG whose scans leave detail out (cut to its first scans) is decoded by libjpeg's block
    /// smoothing, an estimate libjpeg-turbo 3.0.1 changed, so yuvref.py's Pillow decodes it a few levels apart:
    /// said, once, on both JPEG paths; a whole progressive file, and one missing only high coefficients, are not.
    func testProgressiveFileCutToItsFirstScansIsSaid() throws {
        for name in ["peacock.progressive.scan000.jpeg", "peacock.progressive.scan004.jpeg"] {
            for path in [JPEGPath.direct, .rgb] {
                let c = try convertFile(path: fixture("jpeg/wuffs/\(name)"), spec: ConversionSpec(), layout: .nv12,
                                        options: DecodeOptions(jpegPath: path))
                XCTAssertEqual(c.report.warnings, 1, "\(name), \(path)")
                XCTAssertTrue(c.report.firstWarning.contains("libjpeg-turbo fills it in by block smoothing"), c.report.firstWarning)
            }
        }
        for name in ["jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg", "jpeg/jpegsuite/progressive_huffman/32x32x8_grayscale_successive.jpg"] {
            XCTAssertEqual(try convertFile(path: fixture(name), spec: ConversionSpec(), layout: .nv12).report.warnings, 0, name)
        }
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
            XCTAssertEqual((e as! FileError).remedy, .folderInput)
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

    /// `--allow-truncated` at every length of a progressive JPEG: cut before its first scan began there is no
    /// picture, and the error says the file is cut short; cut anywhere after, it converts. Cut inside a marker
    /// segment (a Huffman table, a scan header) it converts as if cut just before that segment — libjpeg read the
    /// made-up end marker as the segment's bytes and refused the file as damaged ("Bogus Huffman table definition",
    /// "Invalid component ID 217 in SOS"), while a cut a few bytes later, in scan data, converted.
    func testAllowTruncatedConvertsWhatEveryCutHolds() throws {
        let file = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("synthetic/progressive-rocket.jpg")))
        // And the same with an APP15 segment whose length is 0 after its JFIF header: libjpeg reads on after the two
        // length bytes; taken as an end, it left every later cut as before.
        try everyCut(file)
        try everyCut(Array(file[0..<20]) + [0xFF, 0xEF, 0, 0] + Array(file[20...]), segmentsOnly: true)
    }

    /// `segmentsOnly`: only the cuts inside marker segments after the first scan (the suite's time).
    private func everyCut(_ whole: [UInt8], segmentsOnly: Bool = false) throws {
        // The marker segments (start of the marker, end) and where the first scan's header ends.
        var segments: [(start: Int, end: Int)] = [], i = 2, firstScan = 0
        while whole[i + 1] != 0xD9 {
            let end = i + 2 + max(2, Int(whole[i + 2]) << 8 | Int(whole[i + 3]))   // a length below 2: read on after it
            segments.append((i, end))
            if whole[i + 1] == 0xDA {
                if firstScan == 0 { firstScan = end }
                i = end
                while !(whole[i] == 0xFF && whole[i + 1] != 0 && !(0xD0...0xD7).contains(whole[i + 1])) { i += 1 }
            } else {
                i = end
            }
        }
        XCTAssertGreaterThan(segments.filter { $0.start > firstScan }.count, 10)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-cut-\(getpid()).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        func convert(_ length: Int) throws -> Conversion {
            try Data(whole.prefix(length)).write(to: url)
            return try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12,
                                   options: DecodeOptions(allowTruncated: true))
        }
        var before: [Int: [UInt8]] = [:]   // a segment's start: the picture cut there
        for length in 3..<(whole.count - 2) {
            if segmentsOnly && !segments.contains(where: { $0.start > firstScan && $0.start <= length && length < $0.end }) {
                continue
            }
            if length < firstScan {
                XCTAssertThrowsError(try convert(length), "\(length)") { e in
                    XCTAssertTrue((e as! FileError).reason.contains("the file is cut short"), "\(length): \(e)")
                }
                continue
            }
            let got: Conversion
            do { got = try convert(length) } catch { XCTFail("\(length): \(error)"); continue }
            XCTAssertGreaterThan(got.report.warnings, 0, "\(length)")
            if let s = segments.first(where: { $0.start > firstScan && $0.start <= length && length < $0.end }) {
                if before[s.start] == nil { before[s.start] = try convert(s.start).image.bytes }
                XCTAssertEqual(got.image.bytes, before[s.start], "cut at \(length), in the segment at \(s.start)")
            }
        }
    }
}
