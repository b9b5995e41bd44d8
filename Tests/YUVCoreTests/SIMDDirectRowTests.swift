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

    /// The rows' chroma for every pair of sums of `count` samples (0…255·count) against the exact transform.
    func checkEverySumPair(count: Int) {
        let top = 255 * count
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec), plan = DirectRowPlan(t)
            var bad = 0
            for b in 0...top {
                let bv = SIMD16<Int32>(repeating: Int32(b))
                var r0 = 0
                while r0 <= top {
                    var rv = SIMD16<Int32>()
                    for i in 0..<16 { rv[i] = Int32(min(r0 + i, top)) }
                    let (u, v) = SIMDDirectRows.chromaValues(bv, rv, plan, count: count)
                    for i in 0..<16 {
                        let want = t.chroma(cbSum: b - 128 * count, crSum: Int(rv[i]) - 128 * count, count: count)
                        if u[i] != want.cb || v[i] != want.cr {
                            bad += 1
                            if bad < 5 { XCTFail("\(spec) sums \(b), \(rv[i]): got \(u[i]), \(v[i]) want \(want)") }
                        }
                    }
                    r0 += 16
                }
            }
            XCTAssertEqual(bad, 0, "\(spec) count \(count)")
        }
    }

    /// Every source luma under every (Cb, Cr) byte pair: 2^24 values for each target.
    func testEveryLumaAndChromaPair() {
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec), plan = DirectRowPlan(t)
            var bad = 0
            for cb in 0...255 {
                for cr in 0...255 {
                    for y0 in stride(from: 0, to: 256, by: 16) {
                        var yv = SIMD16<UInt8>()
                        for i in 0..<16 { yv[i] = UInt8(y0 + i) }
                        let got = SIMDDirectRows.lumaValues(yv, cb: UInt8(cb), cr: UInt8(cr), plan)
                        for i in 0..<16 where got[i] != t.luma(y: y0 + i, cb: cb - 128, cr: cr - 128) {
                            bad += 1
                            if bad < 5 { XCTFail("\(spec) Y \(y0 + i) Cb \(cb) Cr \(cr): got \(got[i])") }
                        }
                    }
                }
            }
            XCTAssertEqual(bad, 0, "\(spec)")
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
