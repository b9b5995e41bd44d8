import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// EXIF orientation (`--orientation auto`, the default): the output is the upright picture.
final class OrientationTests: XCTestCase {
    let spec601 = ConversionSpec(matrix: .bt601, range: .full)

    /// The stored planes of `image` turned by `o`, computed here with plain index arithmetic.
    func turned(_ plane: [UInt8], width w: Int, height h: Int, _ o: Int) -> [UInt8] {
        let (ow, oh) = o >= 5 ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            for x in 0..<ow {
                let (sx, sy): (Int, Int)
                switch o {
                case 2: (sx, sy) = (w - 1 - x, y)
                case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                case 4: (sx, sy) = (x, h - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, h - 1 - x)
                case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                case 8: (sx, sy) = (w - 1 - y, x)
                default: (sx, sy) = (x, y)
                }
                out[y * ow + x] = plane[sy * w + sx]
            }
        }
        return out
    }

    /// PNG (RGB route): exif-N.png converted with the orientation applied is byte for byte the conversion
    /// of upright-N.png, which Pillow's exif_transpose made (tools/make-orientation-fixtures.py): 7×5, odd
    /// both ways, so 2×2 blocks are regrouped by every turn — only turning RGB first gets this right.
    func testPNGOrientationsEqualTheUprightPicture() throws {
        let dir = fixturesURL.appendingPathComponent("synthetic/orientation")
        for n in 1...8 {
            for spec in [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited)] {
                let c = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: spec, layout: .nv12)
                let u = try convertFile(path: dir.appendingPathComponent("upright-\(n).png").path, spec: spec, layout: .nv12)
                XCTAssertEqual(c.info.orientation, n)
                XCTAssertEqual(c.report.orientation.exif, n)
                XCTAssertEqual(c.image.width, n >= 5 ? 5 : 7, "orientation \(n)")
                XCTAssertEqual(c.image.bytes, u.image.bytes, "orientation \(n) \(spec)")
                // Ignored: the stored picture, as yuvref converts it.
                let stored = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: spec,
                                             layout: .nv12, options: DecodeOptions(orientation: .ignore))
                let reference = try convertFile(path: dir.appendingPathComponent("exif-1.png").path, spec: spec, layout: .nv12)
                XCTAssertEqual(stored.image.bytes, reference.image.bytes)
                XCTAssertTrue(stored.report.orientation.isIdentity)
            }
        }
    }

    /// JPEG direct path: with bt601 full on a 4:2:0 JPEG of even size every plane is the decoder's plane
    /// turned, exactly (2×2 chroma blocks map onto 2×2 blocks).
    func testJPEGDirectPathTurnsTheDecoderPlanes() throws {
        for n in [2, 3, 5, 6, 8] {
            let path = fixture("jpeg/pillow/hopper_orientation_\(n).jpg")
            let up = try convertFile(path: path, spec: spec601, layout: .yuv420p)
            let st = try convertFile(path: path, spec: spec601, layout: .yuv420p, options: DecodeOptions(orientation: .ignore))
            XCTAssertEqual(up.report.path, "direct YCbCr")
            XCTAssertEqual(up.info.orientation, n)
            let (w, h) = (st.image.width, st.image.height), cw = (w + 1) / 2, ch = (h + 1) / 2
            XCTAssertEqual(Array(up.image.yPlane), turned(Array(st.image.yPlane), width: w, height: h, n), "Y \(n)")
            XCTAssertEqual(up.image.uPlane, turned(st.image.uPlane, width: cw, height: ch, n), "U \(n)")
            XCTAssertEqual(up.image.vPlane, turned(st.image.vPlane, width: cw, height: ch, n), "V \(n)")
        }
    }

    /// The corpus's hopper set: every orientation comes out close to the unrotated hopper.jpg (they are
    /// separate encodings, so not equal); the stored one, not turned, is far from it.
    func testHopperSetComesOutUpright() throws {
        let base = fixturesURL.appendingPathComponent("corpus/jpeg/pillow")
        let reference = try convertFile(path: base.appendingPathComponent("hopper.jpg").path, spec: ConversionSpec(), layout: .nv12)
        func psnr(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Double {
            let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
            return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
        }
        for n in [2, 3, 5, 6, 8] {
            let path = base.appendingPathComponent("hopper_orientation_\(n).jpg").path
            for jpegPath in JPEGPath.allCases {
                let c = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12, options: DecodeOptions(jpegPath: jpegPath))
                XCTAssertEqual(c.image.width, reference.image.width)
                XCTAssertGreaterThanOrEqual(psnr(c.image.yPlane, reference.image.yPlane), 25, "orientation \(n) \(jpegPath)")
                let raw = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12,
                                          options: DecodeOptions(jpegPath: jpegPath, orientation: .ignore))
                XCTAssertLessThan(psnr(raw.image.yPlane, reference.image.yPlane), 20, "orientation \(n) \(jpegPath) stored")
            }
        }
        // 2×1 stored with orientation 8: a 1×2 picture.
        let r = try convertFile(path: base.appendingPathComponent("orientation_rectangle.jpg").path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual([r.image.width, r.image.height], [1, 2])
    }

    /// The parser never reads past its data and takes only a valid SHORT tag.
    func testExifParserOnMalformedData() {
        XCTAssertEqual(exifOrientation([]), 1)
        XCTAssertEqual(exifOrientation(Array("II*\0".utf8)), 1)
        // Little-endian, IFD at 8, one entry: 0x0112 SHORT ×1 = 6.
        let le: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        XCTAssertEqual(exifOrientation(le), 6)
        let be: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0]
        XCTAssertEqual(exifOrientation(be), 8)
        XCTAssertEqual(exifOrientation(Array(le.prefix(20))), 1, "entry cut short")
        var bad = le; bad[18] = 9
        XCTAssertEqual(exifOrientation(bad), 1, "out of range")
        var long = le; long[14] = 2
        XCTAssertEqual(exifOrientation(long), 1, "count 2")
        var far = le; far[4] = 0xF0
        XCTAssertEqual(exifOrientation(far), 1, "IFD offset past the end")
        var many = le; many[8] = 0xFF; many[9] = 0xFF
        XCTAssertEqual(exifOrientation(many), 6, "found before the entry count runs out of data")
    }
}
