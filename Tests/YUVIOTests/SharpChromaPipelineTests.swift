import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// `--chroma-filter sharp` through the pipeline: the streamed bands (written `lagRows` rows late, the
/// last ones by the trailing calls) give the bytes of the picture solved in one band, with either kernel
/// choice, threaded or not, in every layout; JPEGs go through RGB; kept alpha and turned pictures follow.
final class SharpChromaPipelineTests: XCTestCase {
    var sharpOptions: DecodeOptions {
        var o = DecodeOptions()
        o.chromaFilter = .sharp
        o.colourManagement = false     // compared below with the samples as decoded
        return o
    }

    /// The picture decoded as rows (as stored) and solved in one band by the core.
    func oneBand(_ path: String, spec: ConversionSpec, layout: PixelLayout) throws -> YUVImage {
        let decoder = try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), maxPixels: 1 << 30,
                                       maxScans: 500, allowTruncated: false, raw: false)
        let info = decoder.info
        precondition(info.rowFormat == .rgb8 || info.rowFormat == .rgba8, "8-bit fixtures here")
        let rowBytes = info.width * info.rowFormat.bytesPerPixel
        var rows = [UInt8](repeating: 0, count: rowBytes * info.height)
        try rows.withUnsafeMutableBytes { try decoder.readRows(into: $0.baseAddress!, rowBytes: rowBytes, count: info.height) }
        return rows.withUnsafeBytes {
            SharpYUV420.convert(pixels: $0.baseAddress!, rowBytes: rowBytes, width: info.width, height: info.height,
                                layout: layout, spec: spec, source: info.rowFormat, bandRows: (info.height + 1) & ~1)
        }
    }

    func testStreamedEqualsOneBandBothKernelsThreadedOrNot() throws {
        let path = fixture("photos/kodim23.png")
        for spec in [ConversionSpec(), ConversionSpec(matrix: .bt601, range: .limited)] {
            for layout in PixelLayout.eightBitLayouts {
                let want = try oneBand(path, spec: spec, layout: layout)
                for kernels in [KernelChoice.fast, .reference] {
                    for pipelined in [true, false] {
                        var options = sharpOptions
                        options.pipelined = pipelined
                        let c = try convertFile(path: path, spec: spec, layout: layout, kernels: kernels, options: options)
                        XCTAssertEqual(c.image.bytes, want.bytes, "\(spec) \(layout) \(kernels) pipelined \(pipelined)")
                        XCTAssertEqual(c.report.chromaFilter, .sharp)
                    }
                }
            }
        }
        // And it is not the box.
        let box = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertNotEqual(box.image.bytes, try oneBand(path, spec: ConversionSpec(), layout: .nv12).bytes)
        XCTAssertEqual(box.report.chromaFilter, .box)
    }

    /// A picture so wide that a band is two rows: the rows held back take nine trailing calls to write.
    func testVeryWidePictureInBandsOfTwoRows() throws {
        let (w, h) = (200_003, 9)
        var rng = SplitMix64(seed: 20)
        let rgb = randomBytes(3 * w * h, &rng)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-sharp-wide-\(getpid()).png").path
        try writePNG(path, width: w, height: h, pixels: rgb)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(rowsPerBand(rowBytes: 6 * w), 2)
        let c = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12, options: sharpOptions)
        let want = rgb.withUnsafeBytes {
            SharpYUV420.convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .nv12,
                                spec: ConversionSpec(), source: .rgb8, bandRows: 10)
        }
        XCTAssertEqual(c.image.bytes, want.bytes, "(\(rng))")
    }

    /// A JPEG takes the RGB route (sharp chroma needs RGB): the bytes of its decoded RGB solved in one band.
    func testJPEGGoesThroughRGB() throws {
        let path = fixture("photos/rocket.jpg")
        let c = try convertFile(path: path, spec: ConversionSpec(), layout: .yuv420p, options: sharpOptions)
        XCTAssertEqual(c.report.path, "RGB")
        XCTAssertEqual(c.image.bytes, try oneBand(path, spec: ConversionSpec(), layout: .yuv420p).bytes)
    }

    /// `--alpha keep`: the A plane waits with its rows and comes out as the box's; the colour is the core's
    /// sharp chroma of the RGBA rows.
    func testKeptAlphaFollowsItsRows() throws {
        let (w, h) = (45, 151)
        var rng = SplitMix64(seed: 21)
        let rgba = randomBytes(4 * w * h, &rng)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-sharp-alpha-\(getpid()).png").path
        try writePNG(path, width: w, height: h, pixels: rgba, alpha: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = sharpOptions
        options.alpha = .keep
        var box = DecodeOptions()
        box.alpha = .keep
        for layout in [PixelLayout.nv12, .yuv420p] {
            let sharpSink = MemorySink(), boxSink = MemorySink()
            _ = try convert(path: path, spec: ConversionSpec(), layout: layout, into: sharpSink, options: options)
            _ = try convert(path: path, spec: ConversionSpec(), layout: layout, into: boxSink, options: box)
            XCTAssertEqual(sharpSink.alpha, boxSink.alpha, "\(layout) A plane")
            XCTAssertEqual(sharpSink.alpha?.count, w * h)
            let want = try oneBand(path, spec: ConversionSpec(), layout: layout)
            XCTAssertEqual(sharpSink.image?.bytes, want.bytes, "\(layout) (\(rng))")
        }
    }

    /// A turned picture is the upright one's sharp conversion.
    func testTurnedPictureIsTheUprightOne() throws {
        let dir = fixturesURL.appendingPathComponent("synthetic/orientation")
        for n in 2...8 {
            let c = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: ConversionSpec(),
                                    layout: .nv12, options: sharpOptions)
            let u = try convertFile(path: dir.appendingPathComponent("upright-\(n).png").path, spec: ConversionSpec(),
                                    layout: .nv12, options: sharpOptions)
            XCTAssertEqual(c.image.bytes, u.image.bytes, "orientation \(n)")
        }
    }

    /// On a photo, the bilinear round trip the quality stage measures is well above the box's.
    func testBilinearRoundTripBeatsTheBoxOnAPhoto() throws {
        let path = fixture("photos/kodim23.png")
        let sharp = try convert(path: path, spec: ConversionSpec(), layout: .nv12, into: DiscardSink(), options: sharpOptions,
                                metrics: true)
        let box = try convert(path: path, spec: ConversionSpec(), layout: .nv12, into: DiscardSink(), metrics: true)
        let s = try XCTUnwrap(sharp.quality?.psnrRGBBilinear), b = try XCTUnwrap(box.quality?.psnrRGBBilinear)
        XCTAssertGreaterThan(s, b + 2, "sharp \(s) dB, box \(b) dB")
    }
}
