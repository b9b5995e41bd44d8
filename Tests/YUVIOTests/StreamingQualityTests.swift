import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// `--metrics` measures as the bands stream. The definition it must keep is the one it replaced: the
/// converted picture against the source decoded a second time to R, G, B (libjpeg-turbo's own RGB output for
/// a JPEG, fancy upsampling and all). Every figure must be the same Double, on every sampling a JPEG can
/// have, on odd sizes, on turned pictures and on PNGs.
final class StreamingQualityTests: XCTestCase {
    /// The measures by the old route: the whole converted picture, and the source decoded again as RGB rows.
    func secondDecode(_ path: String, _ image: YUVImage, _ spec: ConversionSpec, orientation: OrientationMode) throws -> QualityReport {
        let source = try InputSource(path: path, maxPixels: 1 << 30)
        let decoder = try ImageDecoder(source: source, maxPixels: 1 << 30, maxScans: 500, allowTruncated: false, raw: false)
        let format = decoder.info.rowFormat
        var acc = QualityAccumulator(width: image.width, height: image.height, spec: spec)
        let cw = (image.width + 1) / 2
        let y = image.yPlane, u = image.uPlane, v = image.vPlane
        func add(_ row: Int, _ p: UnsafeRawPointer) {
            y.withUnsafeBufferPointer { yb in
                u.withUnsafeBufferPointer { ub in
                    v.withUnsafeBufferPointer { vb in
                        acc.add(row: p, format: format, y: yb.baseAddress! + row * image.width,
                                u: ub.baseAddress! + row / 2 * cw, v: vb.baseAddress! + row / 2 * cw)
                    }
                }
            }
        }
        let turn = orientation == .auto ? Orientation(exif: decoder.info.orientation) : .identity
        let rowBytes = image.width * format.bytesPerPixel
        if !turn.isIdentity {
            let ledger = Ledger()
            let turned = try decodeUpright(decoder, turn: turn, ledger: ledger)
            defer { ledger.deallocate(turned.pointer, bytes: turned.bytes) }
            for r in 0..<image.height { add(r, turned.pointer + r * rowBytes) }
        } else {
            let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { row.deallocate() }
            for r in 0..<image.height {
                try decoder.readRows(into: row, rowBytes: rowBytes, count: 1)
                add(r, row)
            }
        }
        return acc.result()
    }

    func check(_ path: String, spec: ConversionSpec = ConversionSpec(), layout: PixelLayout = .nv12,
               orientation: OrientationMode = .auto, pipelined: Bool = true, chromaFilter: ChromaFilter = .box,
               file: StaticString = #filePath, line: UInt = #line) throws {
        var options = DecodeOptions()
        options.orientation = orientation
        options.pipelined = pipelined
        options.chromaFilter = chromaFilter
        options.colourManagement = false   // the reference below decodes the samples as stored
        options.jpegPath = .direct         // the direct path's rebuilt RGB on every sampling (auto sends 4:4:4, 4:2:2, 4:4:0 through RGB)
        let sink = MemorySink()
        let report = try convert(path: path, spec: spec, layout: layout, into: sink, options: options, metrics: true)
        let streamed = try XCTUnwrap(report.quality, file: file, line: line)
        let image = try XCTUnwrap(sink.image)
        let reference = try secondDecode(path, image, spec, orientation: orientation)
        XCTAssertEqual(streamed, reference, "\(path) \(spec) \(layout) \(report.path)", file: file, line: line)
    }

    /// A JPEG of a seeded noisy gradient, `width`×`height`, compressed by TurboJPEG with `sampling`.
    func makeJPEG(width: Int, height: Int, sampling: TJSAMP, seed: UInt64) throws -> String {
        try makeNoisyJPEG(width: width, height: height, sampling: sampling, seed: seed)
    }

    /// Every TurboJPEG sampling (4:4:4, 4:2:2, 4:2:0, grey, 4:4:0, 4:1:1) on sizes that reach every edge
    /// case of the upsamplers: chroma one or two samples wide (the box), odd widths and heights, a band
    /// boundary (more than 64 rows), a single row and column.
    func testDirectPathMeasuresEqualASecondDecodeOnEverySampling() throws {
        let samplings = [TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY, TJSAMP_440, TJSAMP_411]
        let sizes = [(1, 1), (2, 3), (3, 2), (4, 5), (5, 7), (37, 19), (64, 130), (97, 161)]
        for sampling in samplings {
            for (w, h) in sizes {
                let path = try makeJPEG(width: w, height: h, sampling: sampling, seed: UInt64(w * 1000 + h))
                defer { try? FileManager.default.removeItem(atPath: path) }
                try check(path)
                try check(path, spec: ConversionSpec(matrix: .bt709, range: .limited), layout: .yv12, pipelined: false)
            }
        }
    }

    /// The direct path's RGB rows are rebuilt by the quality stage, or ahead by the decoding thread while it
    /// waits for a slot, whichever gets to a band first: the measures must not depend on who did. Forced both
    /// ways — the decoding thread rebuilding every band, and a dawdling quality stage it helps — on every
    /// sampling, over band boundaries (rows kept for the next band's chroma) and with an odd last row.
    func testDirectPathMeasuresTheSameWhicheverThreadRebuildsTheRows() throws {
        defer { (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.slowQualityStage) = (false, false) }
        let samplings = [TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY, TJSAMP_440, TJSAMP_411]
        for sampling in samplings {
            for (w, h) in [(97, 333), (40, 256)] {
                let path = try makeJPEG(width: w, height: h, sampling: sampling, seed: UInt64(w * 7 + h))
                defer { try? FileManager.default.removeItem(atPath: path) }
                for producerAlways in [true, false] {
                    (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.slowQualityStage) = (producerAlways, !producerAlways)
                    try check(path)
                    try check(path, spec: ConversionSpec(matrix: .bt601, range: .limited), layout: .yuv420p)
                }
            }
        }
    }

    /// A tall JPEG turned by its EXIF orientation (5–8 swap the axes) is measured on rows of the upright width,
    /// wider than a stored row: the quality stage's RGB row must hold one (it held a stored row, and a picture
    /// more than about 2.7 times as tall as wide wrote past its buffer: heap corruption, then a crash).
    func testTurnedTallJPEGIsMeasuredOnUprightRows() throws {
        for sampling in [TJSAMP_420, TJSAMP_422, TJSAMP_GRAY] {
            for (w, h) in [(1, 9), (3, 17), (8, 400)] {
                let plain = try makeJPEG(width: w, height: h, sampling: sampling, seed: UInt64(w * 7 + h))
                defer { try? FileManager.default.removeItem(atPath: plain) }
                for n in [5, 6, 8] {
                    let path = plain + "-exif\(n).jpg"
                    try Data(withOrientation(n, [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain))))).write(to: URL(fileURLWithPath: path))
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    try check(path)
                    try check(path, layout: .yuv420p, pipelined: false)
                }
            }
        }
    }

    /// `jpeg` with an APP1 Exif segment (big-endian TIFF, one IFD entry) giving orientation `n`.
    func withOrientation(_ n: Int, _ jpeg: [UInt8]) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(n), 0, 0,
                             0, 0, 0, 0]
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + body + Array(jpeg.dropFirst(2))
    }

    /// Sharp chroma writes each band's rows later than it gets them: the source rows measured with them wait
    /// too, and every figure (the bilinear round trip included) is still the second decode's.
    func testSharpChromaMeasuresEqualASecondDecode() throws {
        try check(fixture("photos/kodim23.png"), chromaFilter: .sharp)
        try check(fixture("photos/rocket.jpg"), layout: .yv12, pipelined: false, chromaFilter: .sharp)
        for (w, h) in [(1, 1), (3, 5), (37, 19), (97, 161)] {
            let path = try makeJPEG(width: w, height: h, sampling: TJSAMP_420, seed: UInt64(w * 1000 + h))
            defer { try? FileManager.default.removeItem(atPath: path) }
            try check(path, spec: ConversionSpec(matrix: .bt2020, range: .limited), chromaFilter: .sharp)
        }
        for n in [3, 6] { try check(fixturesURL.appendingPathComponent("synthetic/orientation/exif-\(n).png").path, chromaFilter: .sharp) }
    }

    /// Real files: the bundled JPEGs (direct path), turned ones, and PNGs (RGB route, 8- and 16-bit, alpha).
    func testFixturesMeasureAsASecondDecode() throws {
        let dir = fixturesURL.appendingPathComponent("corpus")
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir.path).sorted()
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
        var rng = SplitMix64(seed: 17)
        let picked = files.filter { _ in rng.next() % 6 == 0 }.prefix(60)
        XCTAssertGreaterThan(picked.count, 20)
        var measured = 0
        for f in picked {
            let path = dir.appendingPathComponent(f).path
            for layout in [PixelLayout.nv12, .nv21, .yuv420p] {
                do {
                    try check(path, layout: layout)
                    measured += 1
                } catch is FileError {
                    break   // a corpus file that is meant to fail
                }
            }
        }
        XCTAssertGreaterThan(measured, 40)
        // Turned JPEGs (direct path, every orientation of a 4:2:0 photo) and PNGs (RGB route).
        for n in [2, 3, 5, 6, 8] { try check(fixture("jpeg/pillow/hopper_orientation_\(n).jpg"), layout: .yuv420p) }
        for n in 2...8 { try check(fixturesURL.appendingPathComponent("synthetic/orientation/exif-\(n).png").path) }
    }
}
