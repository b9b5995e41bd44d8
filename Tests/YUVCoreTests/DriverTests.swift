import TestSupport
import XCTest
import YUVCore

final class DriverTests: XCTestCase {
    /// The whole-picture reference, straight from `ExactReference`, for any size.
    func referencePlanes(_ rgb: [UInt8], _ w: Int, _ h: Int, _ spec: ConversionSpec) -> ([UInt8], [UInt8], [UInt8]) {
        var y = [UInt8](), u = [UInt8](), v = [UInt8]()
        func px(_ x: Int, _ yy: Int) -> (Int, Int, Int) {
            let i = 3 * (min(yy, h - 1) * w + min(x, w - 1))
            return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
        }
        for yy in 0..<h { for x in 0..<w {
            let p = px(x, yy)
            y.append(ExactReference.luma(r: p.0, g: p.1, b: p.2, spec: spec))
        } }
        for cy in 0..<((h + 1) / 2) { for cx in 0..<((w + 1) / 2) {
            var s = (0, 0, 0)
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let p = px(2 * cx + dx, 2 * cy + dy)
                s.0 += p.0; s.1 += p.1; s.2 += p.2
            }
            let c = ExactReference.chroma(rSum: s.0, gSum: s.1, bSum: s.2, spec: spec)
            u.append(c.cb); v.append(c.cr)
        } }
        return (y, u, v)
    }

    func testOddSizesEveryLayoutBothKernels() {
        var rng = SplitMix64(seed: 3)
        let sizes = [(1, 1), (1, 7), (7, 1), (3, 5), (2, 2), (5, 3), (64, 33), (33, 64), (129, 17)]
        for (w, h) in sizes {
            let rgb = randomBytes(w * h * 3, &rng)
            for spec in ConversionSpec.all {
                let want = referencePlanes(rgb, w, h, spec)
                for kernels in [KernelChoice.fast, .reference] {
                    let driver = RGBToYUV420(spec: spec, source: .rgb8, kernels: kernels)
                    for layout in PixelLayout.eightBitLayouts {
                        let image = rgb.withUnsafeBytes {
                            driver.convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: layout)
                        }
                        XCTAssertEqual(Array(image.yPlane), want.0, "\(w)x\(h) \(spec) \(layout) \(kernels) Y (\(rng))")
                        XCTAssertEqual(image.uPlane, want.1, "\(w)x\(h) \(spec) \(layout) \(kernels) U (\(rng))")
                        XCTAssertEqual(image.vPlane, want.2, "\(w)x\(h) \(spec) \(layout) \(kernels) V (\(rng))")
                        XCTAssertEqual(image.bytes.count, w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2))
                    }
                }
            }
        }
    }

    /// Converting in bands (as decoders deliver rows) gives the same bytes as one call.
    func testBandsEqualWholePicture() {
        var rng = SplitMix64(seed: 11)
        let (w, h) = (37, 29)
        let rgb = randomBytes(w * h * 3, &rng)
        let driver = RGBToYUV420(spec: ConversionSpec(), source: .rgb8)
        let whole = rgb.withUnsafeBytes {
            driver.convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .nv12)
        }
        for band in [2, 4, 16] {
            var image = YUVImage(width: w, height: h, layout: .nv12)
            var row = 0
            while row < h {
                let n = min(band, h - row)
                rgb.withUnsafeBytes {
                    driver.convert(band: $0.baseAddress! + row * 3 * w, rowBytes: 3 * w, firstRow: row, rowCount: n, into: &image)
                }
                row += n
            }
            XCTAssertEqual(image.bytes, whole.bytes, "band \(band) (\(rng))")
        }
    }

    /// Row bands across threads: the same bytes for any thread count, odd heights included.
    func testThreadCountDoesNotChangeBytes() {
        var rng = SplitMix64(seed: 17)
        for (w, h) in [(129, 77), (64, 2), (33, 1)] {
            let rgba = randomBytes(w * h * 4, &rng)
            let driver = RGBToYUV420(spec: ConversionSpec(matrix: .bt2020, range: .limited), source: .rgba8)
            let one = rgba.withUnsafeBytes { driver.convert(pixels: $0.baseAddress!, rowBytes: 4 * w, width: w, height: h, layout: .nv12) }
            for threads in [2, 3, 7, 64] {
                let many = rgba.withUnsafeBytes {
                    driver.convert(pixels: $0.baseAddress!, rowBytes: 4 * w, width: w, height: h, layout: .nv12, threads: threads)
                }
                XCTAssertEqual(many.bytes, one.bytes, "\(w)x\(h) threads \(threads) (\(rng))")
            }
        }
    }

    /// 16-bit sources: one rounding at the end, 65535 → 255 in the scaling.
    func testSixteenBitOneRounding() {
        // 257·v in 16 bits is exactly v in 8 bits: same result as the 8-bit path.
        var rng = SplitMix64(seed: 5)
        let (w, h) = (9, 7)
        let rgb8 = randomBytes(w * h * 3, &rng)
        let rgb16 = rgb8.map { UInt16($0) * 257 }
        for spec in ConversionSpec.all {
            let a = rgb8.withUnsafeBytes {
                RGBToYUV420(spec: spec, source: .rgb8).convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .yuv420p)
            }
            let b = rgb16.withUnsafeBytes {
                RGBToYUV420(spec: spec, source: .rgb16).convert(pixels: $0.baseAddress!, rowBytes: 6 * w, width: w, height: h, layout: .yuv420p)
            }
            XCTAssertEqual(a.bytes, b.bytes, "\(spec) (\(rng))")
        }
        // A value between two 8-bit codes keeps its precision: 16-bit grey 32896 (= 128.0 in 8-bit terms
        // would be 32896; 32895 is 127.998…) rounds once to 128.
        XCTAssertEqual(ExactReference.luma(r: 32895, g: 32895, b: 32895, maxValue: 65535, spec: ConversionSpec()), 128)
        XCTAssertEqual(ExactReference.luma(r: 32767, g: 32767, b: 32767, maxValue: 65535, spec: ConversionSpec()), 127)
    }

    func testGeometryAndUnits() {
        let g = PlaneGeometry(width: 4032, height: 3024)
        XCTAssertEqual(g.rgbaBytes, 48_771_072)
        XCTAssertEqual(g.tightBytes, 18_289_152)
        XCTAssertEqual(Saving(baseline: g.rgbaBytes, ours: g.tightBytes).percent, 62.5, accuracy: 1e-9)
        let odd = PlaneGeometry(width: 3, height: 5)
        XCTAssertEqual(odd.tightBytes, 15 + 2 * 2 * 3)
        XCTAssertEqual(odd.alignedBytes(alignment: 64, biPlanar: true), 64 * 5 + 64 * 3)
        XCTAssertEqual(odd.alignedBytes(alignment: 64, biPlanar: false), 64 * 5 + 2 * 64 * 3)
        XCTAssertEqual(formatBytes(512), "512 B")
        XCTAssertEqual(formatBytes(48_771_072), "46.5 MiB")
        XCTAssertEqual(formatFixed(62.5, decimals: 1), "62.5")
        XCTAssertEqual(formatFixed(0.04, decimals: 1), "0.0")
        // Any value, never a trap (a hand-edited manifest's 1e19 stopped the report): past 2^53, Swift's own text.
        XCTAssertEqual(formatFixed(1e19, decimals: 2), "1e+19")
        XCTAssertEqual(formatFixed(-1e19, decimals: 0), "-1e+19")
        XCTAssertEqual(formatFixed(.infinity, decimals: 2), "inf")
        XCTAssertEqual(formatFixed(-.infinity, decimals: 2), "-inf")
        XCTAssertEqual(formatFixed(.nan, decimals: 2), "nan")
        XCTAssertEqual(formatFixed(123456789.125, decimals: 2), "123456789.13")
    }

    func testNamesAndAliases() {
        XCTAssertEqual(PixelLayout(name: "i420"), .yuv420p)
        XCTAssertEqual(PixelLayout(name: "NV21"), .nv21)
        XCTAssertNil(PixelLayout(name: "nv16"))
        XCTAssertEqual(PixelLayout(fileExtension: "yuv"), .yuv420p)
        XCTAssertEqual(ColorMatrix(name: "709"), .bt709)
        XCTAssertEqual(ColorRange(name: "tv"), .limited)
        XCTAssertNil(ColorMatrix(name: "bt470m"))
    }
}
