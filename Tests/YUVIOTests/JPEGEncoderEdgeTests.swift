import CTurboJPEG
import XCTest
import YUVCore
@testable import YUVIO

/// The JPEG encoder's last row and column at odd sizes. TurboJPEG reads a 4:2:0 picture's luma as an even number
/// of columns and rows; given the tight plane, it took the next row's first sample (odd width) and the U plane's
/// first row (odd height) for the picture's edge, and after quantisation the visible last row and column were off
/// by up to 15 at q90 (a flat 15×13 of 200,30,90 came out 214,45,104 at its corner).
final class JPEGEncoderEdgeTests: XCTestCase {
    /// The luma plane TurboJPEG decodes `jpeg` to (`tjDecompressToYUVPlanes`), without its padding: decoding, it
    /// writes an even number of luma columns and rows too.
    func decodedLuma(_ jpeg: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let tj = try XCTUnwrap(tjInitDecompress())
        defer { tjDestroy(tj) }
        let pw = width + (width & 1), ph = height + (height & 1)
        var y = [UInt8](repeating: 0, count: pw * ph)
        var u = [UInt8](repeating: 0, count: (pw / 2) * (ph / 2))
        var v = u
        var strides: [Int32] = [Int32(pw), Int32(pw / 2), Int32(pw / 2)]
        let rc = y.withUnsafeMutableBufferPointer { yb in
            u.withUnsafeMutableBufferPointer { ub in
                v.withUnsafeMutableBufferPointer { vb in
                    var planes: [UnsafeMutablePointer<UInt8>?] = [yb.baseAddress, ub.baseAddress, vb.baseAddress]
                    return jpeg.withUnsafeBufferPointer { j in
                        tjDecompressToYUVPlanes(tj, j.baseAddress, UInt(j.count), &planes, Int32(width), &strides, Int32(height), 0)
                    }
                }
            }
        }
        XCTAssertEqual(rc, 0, String(cString: tjGetErrorStr2(tj)))
        return (0..<height).flatMap { y[($0 * pw)..<($0 * pw + width)] }
    }

    func testOddSizedPicturesKeepTheirEdges() throws {
        for (w, h) in [(15, 13), (16, 13), (15, 14), (1, 1), (9, 9), (17, 3), (3, 17)] {
            let g = PlaneGeometry(width: w, height: h)
            // A flat colour: every decoded luma sample should be the one given, within the DCT's rounding.
            let image = YUVImage(width: w, height: h, layout: .yuv420p,
                                 bytes: [UInt8](repeating: 88, count: g.pixels)
                                     + [UInt8](repeating: 129, count: g.chromaWidth * g.chromaHeight)
                                     + [UInt8](repeating: 200, count: g.chromaWidth * g.chromaHeight))
            for quality in [50, 90] {
                let luma = try decodedLuma(try encodeJPEG(image, quality: quality), width: w, height: h)
                let worst = luma.map { abs(Int($0) - 88) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, 1, "\(w)x\(h) q\(quality): a luma sample off by \(worst)")
            }
        }
    }

    /// The padded plane repeats the last column and row, and is what the memory held for the encoder counts.
    func testThePaddedLumaRepeatsTheEdges() throws {
        let image = YUVImage(width: 3, height: 3, layout: .yuv420p, bytes: [1, 2, 3, 4, 5, 6, 7, 8, 9] + [0, 0, 0, 0] + [0, 0, 0, 0])
        let padded = try XCTUnwrap(try paddedLuma(image))
        defer { free(padded) }
        XCTAssertEqual(Array(UnsafeBufferPointer(start: padded, count: 16)), [1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 7, 8, 9, 9])
        XCTAssertNil(try paddedLuma(YUVImage(width: 2, height: 2, layout: .yuv420p, bytes: [UInt8](repeating: 0, count: 6))))
        XCTAssertEqual(paddedJPEGLumaBytes(width: 15, height: 13), 16 * 14)
        XCTAssertEqual(paddedJPEGLumaBytes(width: 16, height: 14), 0)
        let frame = FrameLayout(width: 15, height: 13, pixelLayout: .yuv420p)
        XCTAssertEqual(MemorySink(fitting: .jpeg).wholeBytes(frame), frame.byteCount + 16 * 14)
        XCTAssertEqual(MemorySink().wholeBytes(frame), frame.byteCount)
    }
}
