import XCTest
@testable import YUVCore

/// The one type that knows where each byte of a frame lives.
final class FrameLayoutTests: XCTestCase {
    func testTightLayoutsMatchFFmpegRawvideo() {
        // 5×3: chroma 3×2. nv12: Y 15, UV 12. yuv420p: Y 15, U 6, V 6. yv12: Y, V, U.
        let nv12 = FrameLayout(width: 5, height: 3, pixelLayout: .nv12)
        XCTAssertEqual(nv12.planes, [.y, .uv])
        XCTAssertEqual(nv12.byteCount, 27)
        XCTAssertEqual(nv12.offset(of: .uv, row: 1), 15 + 6)
        let i420 = FrameLayout(width: 5, height: 3, pixelLayout: .yuv420p)
        XCTAssertEqual(i420.planes, [.y, .u, .v])
        XCTAssertEqual([i420.offset(of: .u), i420.offset(of: .v)], [15, 21])
        let yv12 = FrameLayout(width: 5, height: 3, pixelLayout: .yv12)
        XCTAssertEqual([yv12.offset(of: .v), yv12.offset(of: .u)], [15, 21])
        XCTAssertEqual(PlaneGeometry(width: 5, height: 3).tightBytes, 27)
    }

    func testPaddedRowsAndAlpha() {
        let f = FrameLayout(width: 100, height: 3, pixelLayout: .nv12, alignment: 64, alpha: true)
        XCTAssertEqual(f.stride(.y), 128)
        XCTAssertEqual(f.stride(.uv), 128)   // 2·50 = 100 → 128
        XCTAssertEqual(f.planes, [.y, .uv, .a])
        XCTAssertEqual(f.offset(of: .uv), 3 * 128)
        XCTAssertEqual(f.offset(of: .a), 3 * 128 + 2 * 128)
        XCTAssertEqual(f.byteCount, 3 * 128 + 2 * 128 + 3 * 128)
        XCTAssertEqual(f.colourByteCount, 3 * 128 + 2 * 128)
        XCTAssertEqual(f.tight.byteCount, 300 + 200 + 300)
        let p = FrameLayout(width: 100, height: 3, pixelLayout: .yuv420p, alignment: 64)
        XCTAssertEqual([p.stride(.u), p.offset(of: .v, row: 1)], [64, 3 * 128 + 2 * 64 + 64])
        XCTAssertEqual(PlaneGeometry(width: 100, height: 3).alignedBytes(alignment: 64, biPlanar: false), p.byteCount)
    }
}
