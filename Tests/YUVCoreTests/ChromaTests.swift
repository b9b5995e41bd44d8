import Foundation
import TestSupport
import XCTest
import YUVCore

/// Chroma is a function of the three sums over a 2×2 block (each 0…1020), so the kernel constants can be
/// checked on sums directly, and the rows on pixels.
final class ChromaTests: XCTestCase {
    /// True when the exact Cb (u: true) or Cr of these sums lies exactly on a .5 tie.
    func isTie(_ r: Int, _ g: Int, _ b: Int, u: Bool, _ spec: ConversionSpec) -> Bool {
        let s = ColorMatrix.scale, m = spec.matrix
        let ys = m.kr * r + m.kg * g + m.kb * b
        let n = u ? s * b - ys : s * r - ys
        let d = 8 * (s - (u ? m.kb : m.kr))
        let span = spec.range == .full ? 255 : 224
        let num = 128 * d * 255 + n * span, den = d * 255
        return (2 * num + den) % (2 * den) == 0
    }

    func checkSums(_ r: Int, _ g: Int, _ b: Int, _ spec: ConversionSpec, _ k: KernelConstants,
                   file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let ref = ExactReference.chroma(rSum: r, gSum: g, bSum: b, spec: spec)
        let u = k.u.apply(UInt32(r), UInt32(g), UInt32(b)), v = k.v.apply(UInt32(r), UInt32(g), UInt32(b))
        if u != ref.cb || v != ref.cr {
            XCTFail("\(spec) sums (\(r),\(g),\(b)): fast (\(u),\(v)) reference (\(ref.cb),\(ref.cr))", file: file, line: line)
            return false
        }
        return true
    }

    /// Whole planes of the sum space (every G and B for chosen R sums, and the two other orientations),
    /// including every exact .5 tie on them (full range: the ties must be there, or the test proves nothing
    /// about them; limited range has none).
    func testKernelConstantsOnSumSlicesAndTies() {
        var rng = SplitMix64(seed: 42)
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            var ties = 0
            var fixed = [0, 1, 2, 3, 509, 510, 511, 1017, 1018, 1019, 1020]
            for _ in 0..<6 { fixed.append(Int(rng.next() % 1021)) }
            for f in fixed {
                for a in 0...1020 {
                    for b in 0...1020 {
                        for (r, g, bl) in [(f, a, b), (a, f, b), (a, b, f)] {
                            if isTie(r, g, bl, u: true, spec) || isTie(r, g, bl, u: false, spec) { ties += 1 }
                            guard checkSums(r, g, bl, spec, k) else { return }
                        }
                    }
                }
            }
            if spec.range == .full {
                XCTAssertGreaterThan(ties, 100, "no .5 ties met for \(spec) (\(rng))")
            } else {
                // 128 + C′·224/255 never lands exactly on a half: limited-range chroma has no ties at all.
                XCTAssertEqual(ties, 0, "\(spec) (\(rng))")
            }
        }
    }

    func testExtremesAndPrimaries() {
        let colours: [(Int, Int, Int)] = [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255),
                                          (255, 255, 0), (0, 255, 255), (255, 0, 255), (1, 0, 254), (254, 255, 1)]
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            for (r, g, b) in colours { _ = checkSums(4 * r, 4 * g, 4 * b, spec, k) }
        }
        // The contract's own corner: pure blue in full range is Cb = 128 + 127.5 → 255.5 → clamped 255.
        let blue = ExactReference.chroma(rSum: 0, gSum: 0, bSum: 1020, spec: ConversionSpec(matrix: .bt709, range: .full))
        XCTAssertEqual(blue.cb, 255)
        let red = ExactReference.chroma(rSum: 1020, gSum: 0, bSum: 0, spec: ConversionSpec(matrix: .bt601, range: .limited))
        XCTAssertEqual(red.cr, 240)
    }

    /// Rows on pixels: fast RGB and RGBA chroma rows equal the reference row for every width 1…257, at
    /// unaligned offsets, on random data and on extreme values.
    func testRowsMatchReferenceAtEveryWidthAndOffset() {
        var rng = SplitMix64(seed: 7)
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            for width in 1...257 {
                for bpp in [3, 4] {
                    let offset = width % 7
                    for extreme in [false, true] {
                        var rows = randomBytes(2 * (width * bpp + offset), &rng)
                        if extreme { rows = rows.map { $0 & 1 == 0 ? 0 : 255 } }
                        let cw = (width + 1) / 2
                        var fu = [UInt8](repeating: 0, count: cw), fv = fu, ru = fu, rv = fu
                        var fy = [UInt8](repeating: 0, count: width), ry = fy
                        rows.withUnsafeBufferPointer { p in
                            let s0 = p.baseAddress! + offset, s1 = s0 + width * bpp
                            if bpp == 3 {
                                RowKernels.rgbToUVRow(s0, s1, &fu, &fv, width, k.u, k.v)
                                RowKernels.rgbToYRow(s0, &fy, width, k.y)
                            } else {
                                RowKernels.rgbaToUVRow(s0, s1, &fu, &fv, width, k.u, k.v)
                                RowKernels.rgbaToYRow(s0, &fy, width, k.y)
                            }
                            RowKernels.uvRowReference(s0, s1, &ru, &rv, width, bytesPerPixel: bpp, spec: spec)
                            RowKernels.yRowReference(s0, &ry, width, bytesPerPixel: bpp, spec: spec)
                        }
                        XCTAssertEqual(fu, ru, "U \(spec) width \(width) bpp \(bpp) (\(rng))")
                        XCTAssertEqual(fv, rv, "V \(spec) width \(width) bpp \(bpp) (\(rng))")
                        XCTAssertEqual(fy, ry, "Y \(spec) width \(width) bpp \(bpp) (\(rng))")
                    }
                }
            }
        }
    }
}

/// The exhaustive proof over all 1021³ block sums per matrix and range: `make prove` (minutes, not run by
/// `make test`, which covers slices, ties and random blocks).
final class ChromaProofTests: XCTestCase {
    func testEveryBlockSum() throws {
        guard ProcessInfo.processInfo.environment["YUV_PROVE"] == "1" else {
            throw XCTSkip("the exhaustive chroma proof runs with `make prove` (YUV_PROVE=1)")
        }
        for spec in ConversionSpec.all {
            let k = KernelConstants(spec)
            let failures = ManagedAtomicCounter()
            DispatchQueue.concurrentPerform(iterations: 1021) { r in
                var bad = 0
                for g in 0...1020 {
                    for b in 0...1020 {
                        let ref = ExactReference.chroma(rSum: r, gSum: g, bSum: b, spec: spec)
                        if k.u.apply(UInt32(r), UInt32(g), UInt32(b)) != ref.cb
                            || k.v.apply(UInt32(r), UInt32(g), UInt32(b)) != ref.cr { bad += 1 }
                    }
                }
                failures.add(bad)
            }
            XCTAssertEqual(failures.value, 0, "\(spec): \(failures.value) block sums differ (scalar rows)")
            for tier in CPUTier.supported {
                let simdFailures = ManagedAtomicCounter()
                DispatchQueue.concurrentPerform(iterations: 1021) { r in
                    var bad = 0
                    for g in 0...1020 {
                        let sums = (0...1020).map { (r, g, $0) }
                        let rows = SIMDKernelTests.blockRows(sums)
                        var y0 = [UInt8](repeating: 0, count: 2042), y1 = y0
                        var u = [UInt8](repeating: 0, count: 1021), v = u
                        rows.withUnsafeBufferPointer { p in
                            SIMDKernels.rgbaToYUVRowPair(p.baseAddress!, p.baseAddress! + 4 * 2042, &y0, &y1, &u, &v, 2042, k,
                                                         tier: tier)
                        }
                        for b in 0...1020 {
                            let ref = ExactReference.chroma(rSum: r, gSum: g, bSum: b, spec: spec)
                            if u[b] != ref.cb || v[b] != ref.cr { bad += 1 }
                        }
                    }
                    simdFailures.add(bad)
                }
                XCTAssertEqual(simdFailures.value, 0, "\(spec): \(simdFailures.value) block sums differ (\(tier) rows)")
            }
            print("proved \(spec): all 1021^3 block sums exact on \(CPUTier.supported.map(\.description).joined(separator: ", "))")
        }
    }
}

final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.lock(); total += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return total }
}
