import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The JPEG direct path to 10 bits (`YCbCrToYUV420.convertDeep`): within the contract's 1.0 dB of the RGB
/// route on every plane, and exact where the transform is the identity's scaling.
final class DirectPathDeepTests: XCTestCase {
    /// A picture's RGB, compressed by TurboJPEG at `quality` with `sampling`, to a temporary file.
    func jpeg(_ rgb: [UInt8], _ w: Int, _ h: Int, _ sampling: TJSAMP, quality: Int32 = 92) throws -> String {
        let tj = try XCTUnwrap(tjInitCompress())
        defer { tjDestroy(tj) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        XCTAssertEqual(tjCompress2(tj, rgb, Int32(w), 0, Int32(h), Int32(TJPF_RGB.rawValue), &out, &size,
                                   Int32(sampling.rawValue), quality, 0), 0)
        defer { tjFree(out) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-deep-\(sampling.rawValue)-\(quality)-\(getpid()).jpg")
        try Data(bytes: out!, count: Int(size)).write(to: url)
        return url.path
    }

    func planes(_ bytes: [UInt8], _ w: Int, _ h: Int) -> [[Double]] {
        let n = w * h, c = ((w + 1) / 2) * ((h + 1) / 2)
        let v = stride(from: 0, to: bytes.count, by: 2).map { Double(Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8) }
        return [Array(v[0..<n]), Array(v[n..<(n + c)]), Array(v[(n + c)...])]
    }

    func psnr(_ a: [Double], _ b: [Double]) -> Double {
        let mse = zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(1023 * 1023 / mse)
    }

    func testDirectTenBitIsWithinOneDecibelOfTheRGBRoute() throws {
        try withinOneDecibel(fixture("photos/kodim23.png"), [(TJSAMP_420, 92), (TJSAMP_444, 92), (TJSAMP_422, 92),
                                                             (TJSAMP_GRAY, 92)])
        // Detailed chroma at q75: there the decoder's chroma as it is (BT.601 full range) was 1.27 dB behind in Cb.
        try withinOneDecibel(fixture("photos/kodim03-crop.png"), [(TJSAMP_420, 75)])
    }

    func withinOneDecibel(_ png: String, _ cases: [(TJSAMP, Int32)]) throws {
        let d = try ImageDecoder(source: try InputSource(path: png, maxPixels: 1 << 30))
        let (w, h) = (d.info.width, d.info.height)
        var rgb = [UInt8](repeating: 0, count: 3 * w * h)
        try rgb.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress!, rowBytes: 3 * w, count: h) }
        for spec in [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited), ConversionSpec(matrix: .bt601, range: .full)] {
            // The exact 10-bit conversion of the picture before JPEG: what both routes are measured against.
            let c = (w + 1) / 2 * ((h + 1) / 2) * 2   // bytes of a chroma plane (odd sizes round up)
            var exact = [UInt8](repeating: 0, count: 2 * w * h + 2 * c)
            rgb.withUnsafeBytes { src in
                exact.withUnsafeMutableBytes { out in
                    RGBToYUV420Exact(spec: spec, source: .rgb8, bitDepth: 10)
                        .convert(band: src.baseAddress!, rowBytes: 3 * w, firstRow: 0, rowCount: h, height: h, width: w,
                                 above: nil, layout: .yuv420p10le, y: out.baseAddress!, u: out.baseAddress! + 2 * w * h,
                                 v: out.baseAddress! + 2 * w * h + c)
                }
            }
            let reference = planes(exact, w, h)
            for (sampling, quality) in cases {
                let path = try jpeg(rgb, w, h, sampling, quality: quality)
                defer { try? FileManager.default.removeItem(atPath: path) }
                var options = DecodeOptions(jpegPath: .direct)   // 4:4:4 too, as `--jpeg-path direct` asks
                let direct = try convertFile(path: path, spec: spec, layout: .yuv420p10le, options: options)
                options.jpegPath = .rgb
                let viaRGB = try convertFile(path: path, spec: spec, layout: .yuv420p10le, options: options)
                XCTAssertEqual(direct.report.path, "direct YCbCr")
                XCTAssertEqual(viaRGB.report.path, "RGB")
                let a = planes(direct.image.bytes, w, h), b = planes(viaRGB.image.bytes, w, h)
                for p in 0..<(sampling == TJSAMP_GRAY ? 1 : 3) {
                    let dp = psnr(a[p], reference[p]), rp = psnr(b[p], reference[p])
                    XCTAssertGreaterThan(dp, rp - 1.0, "\(png) \(spec) sampling \(sampling.rawValue) q\(quality) plane \(p): direct \(dp), RGB \(rp)")
                }
            }
        }
    }

    /// The default (`--jpeg-path auto`) within 1.0 dB of the RGB route on every plane, at 8 bits, for every
    /// sampling: chroma halved one way only (4:2:2, 4:4:0) and full (4:4:4) go through RGB, since the planes'
    /// pair means were over the line there (4:2:2 q75 of this crop to BT.709 limited: Cb 1.05 dB behind).
    func testDefaultPathIsWithinOneDecibelOnEverySampling() throws {
        let png = fixture("photos/kodim03-crop.png")
        let d = try ImageDecoder(source: try InputSource(path: png, maxPixels: 1 << 30))
        let (w, h) = (d.info.width, d.info.height)
        var rgb = [UInt8](repeating: 0, count: 3 * w * h)
        try rgb.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress!, rowBytes: 3 * w, count: h) }
        let c = (w + 1) / 2 * ((h + 1) / 2)
        func planes8(_ b: [UInt8]) -> [[Double]] { [b[0..<(w * h)], b[(w * h)..<(w * h + c)], b[(w * h + c)...]].map { $0.map(Double.init) } }
        func psnr8(_ a: [Double], _ b: [Double]) -> Double {
            let mse = zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / Double(a.count)
            return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
        }
        for spec in [ConversionSpec(matrix: .bt709, range: .limited), ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited)] {
            var exact = [UInt8](repeating: 0, count: w * h + 2 * c)
            rgb.withUnsafeBytes { src in
                exact.withUnsafeMutableBytes { out in
                    RGBToYUV420Exact(spec: spec, source: .rgb8)
                        .convert(band: src.baseAddress!, rowBytes: 3 * w, firstRow: 0, rowCount: h, height: h, width: w,
                                 above: nil, layout: .yuv420p, y: out.baseAddress!, u: out.baseAddress! + w * h,
                                 v: out.baseAddress! + w * h + c)
                }
            }
            let reference = planes8(exact)
            for sampling in [TJSAMP_420, TJSAMP_422, TJSAMP_440, TJSAMP_444, TJSAMP_411] {
                let path = try jpeg(rgb, w, h, sampling, quality: 75)
                defer { try? FileManager.default.removeItem(atPath: path) }
                let auto = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions())
                let viaRGB = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions(jpegPath: .rgb))
                let halvedOneWay = [TJSAMP_422, TJSAMP_440, TJSAMP_444].contains(sampling)
                XCTAssertEqual(auto.report.path, halvedOneWay ? "RGB" : "direct YCbCr", "sampling \(sampling.rawValue)")
                let a = planes8(auto.image.bytes), b = planes8(viaRGB.image.bytes)
                for p in 0..<3 {
                    let dp = psnr8(a[p], reference[p]), rp = psnr8(b[p], reference[p])
                    XCTAssertGreaterThan(dp, rp - 1.0, "\(spec) sampling \(sampling.rawValue) plane \(p): auto \(dp), RGB \(rp)")
                }
            }
        }
    }

    /// A grey JPEG to BT.601 full range: luma is the decoder's, scaled, ⌊Y·1023/255 + ½⌋; chroma is 512.
    func testGreyIsTheDecodersLumaScaled() throws {
        let path = fixture("jpeg/wuffs/peacock.grayscale.jpeg")
        let eight = try convertFile(path: path, spec: ConversionSpec(matrix: .bt601, range: .full), layout: .yuv420p)
        let ten = try convertFile(path: path, spec: ConversionSpec(matrix: .bt601, range: .full), layout: .yuv420p10le)
        let w = eight.image.width, h = eight.image.height
        let p = planes(ten.image.bytes, w, h)
        XCTAssertEqual(p[0].map { Int($0) }, eight.image.yPlane.map { (2 * Int($0) * 1023 + 255) / 510 })
        XCTAssertTrue(p[1].allSatisfy { $0 == 512 } && p[2].allSatisfy { $0 == 512 })
    }
}
