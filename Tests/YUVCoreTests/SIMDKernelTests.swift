import Foundation
import TestSupport
import XCTest
import YUVCore

/// The fused row pair against the scalar references: same bytes, always, on every CPU tier this machine runs
/// (each test names the tiers it covered, so a log shows what a machine could check).
final class SIMDKernelTests: XCTestCase {
    func fused(_ rows: UnsafePointer<UInt8>, _ rowBytes: Int, _ width: Int, twoRows: Bool,
               _ k: KernelConstants, _ tier: CPUTier) -> (y0: [UInt8], y1: [UInt8], u: [UInt8], v: [UInt8]) {
        let cw = (width + 1) / 2
        var y0 = [UInt8](repeating: 0, count: width), y1 = y0, u = [UInt8](repeating: 0, count: cw), v = u
        y1.withUnsafeMutableBufferPointer { p1 in
            SIMDKernels.rgbaToYUVRowPair(rows, twoRows ? rows + rowBytes : rows, &y0, twoRows ? p1.baseAddress! : nil,
                                         &u, &v, width, k, tier: tier)
        }
        return (y0, y1, u, v)
    }

    func testRowPairMatchesReferenceAtEveryWidthAndOffset() {
        var rng = SplitMix64(seed: 99)
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            for width in 1...257 {
                let offset = (width * 5) % 11
                for extreme in [false, true] {
                    var bytes = randomBytes(2 * 4 * width + offset, &rng)
                    if extreme { bytes = bytes.map { $0 & 1 == 0 ? 0 : 255 } }
                    bytes.withUnsafeBufferPointer { p in
                        let s0 = p.baseAddress! + offset, s1 = s0 + 4 * width
                        for twoRows in [true, false] { for tier in CPUTier.supported {
                            let got = fused(s0, 4 * width, width, twoRows: twoRows, k, tier)
                            let cw = (width + 1) / 2
                            var ry0 = [UInt8](repeating: 0, count: width), ry1 = ry0
                            var ru = [UInt8](repeating: 0, count: cw), rv = ru
                            RowKernels.yRowReference(s0, &ry0, width, bytesPerPixel: 4, spec: spec)
                            RowKernels.yRowReference(s1, &ry1, width, bytesPerPixel: 4, spec: spec)
                            RowKernels.uvRowReference(s0, twoRows ? s1 : s0, &ru, &rv, width, bytesPerPixel: 4, spec: spec)
                            XCTAssertEqual(got.y0, ry0, "\(spec) width \(width) Y0 (\(rng))")
                            if twoRows { XCTAssertEqual(got.y1, ry1, "\(spec) width \(width) Y1 (\(rng))") }
                            XCTAssertEqual(got.u, ru, "\(spec) width \(width) two rows \(twoRows) U (\(rng))")
                            XCTAssertEqual(got.v, rv, "\(spec) width \(width) two rows \(twoRows) V \(tier) (\(rng))")
                        } }
                    }
                }
            }
        }
    }

    /// The NV12 row (U and V interleaved by the kernel) equals the planar row merged, at every width.
    func testNV12RowEqualsPlanarRowMerged() {
        var rng = SplitMix64(seed: 1212)
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            for width in 1...257 {
                let offset = (width * 3) % 7
                let bytes = randomBytes(2 * 4 * width + offset, &rng)
                bytes.withUnsafeBufferPointer { p in for tier in CPUTier.supported {
                    let s0 = p.baseAddress! + offset, s1 = s0 + 4 * width
                    let planar = fused(s0, 4 * width, width, twoRows: true, k, tier)
                    let cw = (width + 1) / 2
                    var y0 = [UInt8](repeating: 0, count: width), y1 = y0
                    var uv = [UInt8](repeating: 0, count: 2 * cw)
                    SIMDKernels.rgbaToNV12RowPair(s0, s1, &y0, &y1, &uv, width, k, tier: tier)
                    XCTAssertEqual(y0, planar.y0, "\(spec) width \(width) Y0 (\(rng))")
                    XCTAssertEqual(y1, planar.y1, "\(spec) width \(width) Y1 (\(rng))")
                    XCTAssertEqual(uv, Array(zip(planar.u, planar.v).map { [$0.0, $0.1] }.joined()),
                                   "\(spec) width \(width) UV \(tier) (\(rng))")
                } }
            }
        }
    }

    /// All 2^24 RGB triples through the fused kernel's luma on every tier.
    func testExhaustiveLuma() {
        print("SIMDKernelTests: tiers checked: \(CPUTier.supported.map(\.description).joined(separator: ", "))")
        let n = 1 << 24
        for spec in ConversionSpec.all {
            var reference = [UInt8](repeating: 0, count: n)
            var fast = [UInt8](repeating: 0, count: n)
            var u = [UInt8](repeating: 0, count: n / 2), v = u
            let k = KernelConstants(spec)
            LumaExhaustiveTests.rgba.withUnsafeBufferPointer { src in
                RowKernels.yRowReference(src.baseAddress!, &reference, n, bytesPerPixel: 4, spec: spec)
            }
            for tier in CPUTier.supported {
                fast.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                LumaExhaustiveTests.rgba.withUnsafeBufferPointer { src in
                    SIMDKernels.rgbaToYUVRowPair(src.baseAddress!, src.baseAddress!, &fast, nil, &u, &v, n, k, tier: tier)
                }
                XCTAssertTrue(fast == reference, "\(tier) luma differs for \(spec) at "
                              + "\(String(describing: zip(fast, reference).enumerated().first { $0.1.0 != $0.1.1 }?.offset))")
            }
        }
    }

    /// Rows whose 2×2 blocks have chosen R, G, B sums: the four pixels of a block share each sum as evenly
    /// as they can (a block's chroma depends only on its sums).
    static func blockRows(_ sums: [(Int, Int, Int)]) -> [UInt8] {
        let w = 2 * sums.count
        var rows = [UInt8](repeating: 0, count: 2 * 4 * w)
        for (i, s) in sums.enumerated() {
            for p in 0..<4 {
                let x = 2 * i + (p & 1), y = p >> 1
                let o = 4 * (y * w + x)
                for (c, total) in [s.0, s.1, s.2].enumerated() {
                    rows[o + c] = UInt8(total / 4 + (p < total % 4 ? 1 : 0))
                }
                rows[o + 3] = UInt8(truncatingIfNeeded: p * 77)
            }
        }
        return rows
    }

    /// Whole planes of the block-sum space through the SIMD chroma, with every full-range .5 tie on them.
    func testChromaOnSumSlices() {
        var rng = SplitMix64(seed: 4242)
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            var fixed = [0, 1, 2, 3, 509, 510, 511, 1017, 1018, 1019, 1020]
            for _ in 0..<4 { fixed.append(Int(rng.next() % 1021)) }
            for f in fixed {
                for a in 0...1020 {
                    for orientation in 0..<3 {
                        let sums: [(Int, Int, Int)] = (0...1020).map { b in
                            orientation == 0 ? (f, a, b) : orientation == 1 ? (a, f, b) : (a, b, f)
                        }
                        let rows = Self.blockRows(sums)
                        let refs = sums.map { ExactReference.chroma(rSum: $0.0, gSum: $0.1, bSum: $0.2, spec: spec) }
                        for tier in CPUTier.supported {
                            let got = rows.withUnsafeBufferPointer { fused($0.baseAddress!, 4 * 2042, 2042, twoRows: true, k, tier) }
                            for (i, s) in sums.enumerated() where got.u[i] != refs[i].cb || got.v[i] != refs[i].cr {
                                XCTFail("\(spec) sums \(s): \(tier) (\(got.u[i]),\(got.v[i])) reference (\(refs[i].cb),\(refs[i].cr)) (\(rng))")
                                return
                            }
                        }
                    }
                }
            }
        }
    }
}

extension SIMDKernelTests {
    /// RGB rows widened to RGBX by the C row of every tier equal the pixel-by-pixel reference, at every width from 0
    /// to 70 and a photo's, at three offsets (the loads' bounds are argued in yc_widen.c; this checks the bytes).
    func testRGBWideningEqualsTheReferenceOnEveryTier() {
        var rng = SplitMix64(seed: 4032)
        defer { _ = CPUTier.use(CPUTier.best) }
        for tier in CPUTier.supported {
            XCTAssertTrue(CPUTier.use(tier))
            for width in Array(0...70) + [4031, 4032] {
                for offset in 0..<3 {
                    let src = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * width + offset)
                    defer { src.deallocate() }
                    for i in 0..<(3 * width + offset) { src[i] = UInt8(truncatingIfNeeded: rng.next()) }
                    var got = [UInt8](repeating: 0, count: 4 * width), want = got
                    got.withUnsafeMutableBufferPointer { RowKernels.rgbToRGBXRow(src + offset, $0.baseAddress!, width) }
                    want.withUnsafeMutableBufferPointer { RowKernels.rgbToRGBXRowReference(src + offset, $0.baseAddress!, width) }
                    XCTAssertEqual(got, want, "\(tier) width \(width) offset \(offset)")
                }
            }
        }
    }
}
