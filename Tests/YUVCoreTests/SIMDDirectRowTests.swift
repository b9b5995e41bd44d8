import TestSupport
import XCTest
import YUVCore

/// The JPEG direct path's SIMD rows against the exact scalar arithmetic: every input of every quotient, then
/// whole pictures of every small size against the reference rows.
final class SIMDDirectRowTests: XCTestCase {
    /// Every pair of [1 6 1] filter sums (0…2040 each), both chroma planes, all six targets.
    func testEveryChromaSumPair() {
        checkEverySumPair(count: 8)
    }

    /// Every pair of four-pixel sums (0…1020 each: samplings other than 4:2:0), both planes, all six targets.
    func testEveryQuadChromaSumPair() {
        checkEverySumPair(count: 4)
    }

    /// The rows' chroma for every pair of sums of `count` samples (0…255·count) against the exact transform,
    /// on every CPU tier this machine runs.
    func checkEverySumPair(count: Int) {
        let top = 255 * count
        // Every (b, r) pair, r fastest, padded to a whole number of steps with the last pair.
        let pairs = (top + 1) * (top + 1), padded = (pairs + 15) / 16 * 16
        let bs = (0..<padded).map { Int32(min($0, pairs - 1) / (top + 1)) }
        let rs = (0..<padded).map { Int32(min($0, pairs - 1) % (top + 1)) }
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec), plan = DirectRowPlan(t)
            let want = (0..<pairs).map { t.chroma(cbSum: Int(bs[$0]) - 128 * count, crSum: Int(rs[$0]) - 128 * count, count: count) }
            for tier in CPUTier.supported {
                let (u, v) = SIMDDirectRows.chromaValues(bs, rs, plan, count: count, tier: tier)
                var bad = 0
                for i in 0..<pairs where u[i] != want[i].cb || v[i] != want[i].cr {
                    bad += 1
                    if bad < 5 { XCTFail("\(spec) \(tier) sums \(bs[i]), \(rs[i]): got \(u[i]), \(v[i]) want \(want[i])") }
                }
                XCTAssertEqual(bad, 0, "\(spec) \(tier) count \(count)")
            }
        }
    }

    /// Every source luma under every (Cb, Cr) byte pair: 2^24 values for each target, on every tier.
    func testEveryLumaAndChromaPair() {
        let n = 1 << 24
        let y = (0..<n).map { UInt8(truncatingIfNeeded: $0) }, cb = (0..<n).map { UInt8(truncatingIfNeeded: $0 >> 8) }
        let cr = (0..<n).map { UInt8(truncatingIfNeeded: $0 >> 16) }
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec), plan = DirectRowPlan(t)
            let want = (0..<n).map { t.luma(y: Int(y[$0]), cb: Int(cb[$0]) - 128, cr: Int(cr[$0]) - 128) }
            for tier in CPUTier.supported {
                let got = SIMDDirectRows.lumaValues(y, cb: cb, cr: cr, plan, tier: tier)
                var bad = 0
                for i in 0..<n where got[i] != want[i] {
                    bad += 1
                    if bad < 5 { XCTFail("\(spec) \(tier) Y \(y[i]) Cb \(cb[i]) Cr \(cr[i]): got \(got[i]) want \(want[i])") }
                }
                XCTAssertEqual(bad, 0, "\(spec) \(tier)")
            }
        }
    }

    /// Whole pictures, widths 1…70 and around 256, odd and even heights, unaligned planes with padded
    /// strides, every layout, for 4:2:0 (the filtered rows) and the other samplings (per-pixel chroma): the
    /// SIMD rows give the reference rows' bytes.
    func testPicturesMatchReferenceRows() {
        var rng = SplitMix64(seed: 4242)
        let widths = Array(1...70) + [127, 255, 256, 257]
        // (h, v) of luma; chroma is 1×1. 4:2:0, 4:4:4, 4:2:2, 4:4:0, 4:1:1, and a 3×1 one.
        let samplings = [(2, 2), (1, 1), (2, 1), (1, 2), (4, 1), (3, 1)]
        for spec in ConversionSpec.all {
            for (hMax, vMax) in samplings {
                for width in widths where (hMax, vMax) == (2, 2) || width % 2 == 1 || width > 60 {
                    for height in [1, 2, 3, 6] {
                        let cw = (width + hMax - 1) / hMax, ch = (height + vMax - 1) / vMax
                        let yStride = width + 5, cStride = cw + 3, offset = width % 7
                        var planes = randomBytes(offset + yStride * height + 2 * cStride * ch, &rng)
                        if width % 3 == 0 { planes = planes.map { $0 & 1 == 0 ? 0 : 255 } }   // extremes
                        for layout in PixelLayout.eightBitLayouts {
                            let args = (planes, offset, width, height, yStride, cStride, spec, layout, hMax, vMax)
                            XCTAssertEqual(convert(args, .fast), convert(args, .reference),
                                           "\(spec) \(hMax)x\(vMax) \(width)x\(height) \(layout) (\(rng))")
                        }
                    }
                }
            }
        }
    }

    func convert(_ a: ([UInt8], Int, Int, Int, Int, Int, ConversionSpec, PixelLayout, Int, Int),
                 _ kernels: KernelChoice) -> [UInt8] {
        let (planes, offset, width, height, yStride, cStride, spec, layout, hMax, vMax) = a
        let g = PlaneGeometry(width: width, height: height)
        var out = [UInt8](repeating: 0, count: g.tightBytes)
        let driver = YCbCrToYUV420(target: spec, width: width, height: height, components: 3, h: [hMax, 1, 1],
                                   v: [vMax, 1, 1], kernels: kernels)
        planes.withUnsafeBufferPointer { p in
            let y = p.baseAddress! + offset, cb = y + yStride * height, cr = cb + cStride * ((height + vMax - 1) / vMax)
            out.withUnsafeMutableBufferPointer { o in
                driver.convert(y: y, yStride: yStride, cb: cb, cbStride: cStride, cr: cr, crStride: cStride,
                               firstRow: 0, rowCount: height,
                               into: PlaneTargets(picture: o.baseAddress!, width: width, height: height, layout: layout))
            }
        }
        return out
    }
}
