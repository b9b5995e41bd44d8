import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// Real files through the real decoders: every ok PNG fixture (PngSuite, extra PNGs, a photo and the
/// synthetic tie image) × 3 matrices × 2 ranges × 6 layouts (four 8-bit, P010 and yuv420p10le) against
/// fingerprints of yuvref.py's output.
/// Every conversion here names its kernels, so `make test`'s YUV_FORCE_REFERENCE=1 pass skips this class:
/// keep passing `kernels:` in anything added here.
final class GoldenTests: XCTestCase {
    struct Row {
        let path: String
        let spec: ConversionSpec
        let layout: PixelLayout
        let hash: String
    }

    func goldenRows() throws -> [Row] {
        let text = try String(contentsOf: fixturesURL.appendingPathComponent("golden/images.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t").map(String.init)
            return Row(path: f[0], spec: ConversionSpec(matrix: ColorMatrix(name: f[1])!, range: ColorRange(name: f[2])!),
                       layout: PixelLayout(name: f[3])!, hash: f[4])
        }
    }

    func check(kernels: KernelChoice) throws {
        let rows = try goldenRows()
        XCTAssertGreaterThan(rows.count, 24 * 150)
        var files = Set<String>()
        for row in rows {
            files.insert(row.path)
            let path = fixturesURL.appendingPathComponent(row.path).path
            // yuvref.py converts the samples as stored (no EXIF): so does --orientation ignore.
            // yuvref.py converts the samples as stored: no colour management either.
            var options = DecodeOptions(orientation: .ignore)
            options.colourManagement = false
            let c = try convertFile(path: path, spec: row.spec, layout: row.layout, kernels: kernels, options: options)
            XCTAssertEqual(Checksum.crc32Hex(c.image.bytes), row.hash,
                           "\(row.path) \(row.spec) \(row.layout) \(kernels) differs from yuvref.py")
        }
        // The kinds the contract names must all be among them.
        for needed in ["basn0g01", "basn0g02", "basn0g04", "basn0g08", "basn0g16", "basn2c08", "basn2c16",
                       "basn3p01", "basn3p08", "basn4a08", "basn4a16", "basn6a08", "basn6a16", "basi0g01",
                       "basi6a16", "tbbn3p08", "s01n3p01", "s39i3p04", "ties-67x45", "kodim23"] {
            XCTAssertTrue(files.contains { $0.contains(needed) }, "no golden rows for \(needed)")
        }
    }

    /// Left and top-left siting (`RGBToYUV420Exact`, 8- and 10-bit) against yuvref.py `--chroma-loc`: PngSuite
    /// (every size from 1 to 40), the tie picture and the photo (eight bands tall: top-left reads across bands).
    func testSitingMatchesYuvref() throws {
        let text = try String(contentsOf: fixturesURL.appendingPathComponent("golden/siting.tsv"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t").map(String.init) }
        XCTAssertGreaterThan(rows.count, 3000)
        var options = DecodeOptions(orientation: .ignore)
        options.colourManagement = false
        for f in rows {
            let spec = ConversionSpec(matrix: ColorMatrix(name: f[1])!, range: ColorRange(name: f[2])!)
            let siting = try XCTUnwrap(ChromaLocation(name: f[3])), layout = try XCTUnwrap(PixelLayout(name: f[4]))
            for kernels in [KernelChoice.fast, .reference] {
                let sink = MemorySink()
                _ = try convert(path: fixturesURL.appendingPathComponent(f[0]).path, spec: spec, layout: layout, into: sink,
                                kernels: kernels, options: options, siting: siting)
                XCTAssertEqual(Checksum.crc32Hex(sink.image!.bytes), f[5], "\(f[0]) \(spec) \(siting) \(layout) \(kernels)")
            }
        }
    }

    func testFastRowsMatchYuvref() throws { try check(kernels: .fast) }
    func testReferenceRowsMatchYuvref() throws { try check(kernels: .reference) }
}
