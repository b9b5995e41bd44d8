import CSIMD
import XCTest
@testable import YUVCore

/// The full-range round trips take each pixel's offsets (what the rebuilt R, G, B add to the luma) from its 16 ×
/// chroma values, in C on every CPU tier: R and B as integer quotients, G in `float`, marked where it comes too
/// close to a whole number for its rounding to be trusted (the reference's expressions then measure the
/// pixel). This holds them to the exact fractions on every (16·Cb, 16·Cr) pair — 4081² of them, what the
/// bilinear round trip can meet — for every matrix, on every tier: an unmarked offset equals the exact floor,
/// every exact tie is marked, and the marks stay rare; and the bilinear round trip's own row, a pixel per pair,
/// sums the squared errors of exactly those offsets and marks the same pixels.
final class QualityOffsetTests: XCTestCase {
    func testEveryChromaPairHasTheExactOffsetsOrAMark() {
        defer { CPUTier.use(CPUTier.best) }
        let n = QualityAccumulator.offsetCount
        let cb16 = (0..<n).map { Int32($0) }
        for matrix in [ColorMatrix.bt601, .bt709, .bt2020] {
            let acc = QualityAccumulator(width: 2, height: 2, spec: ConversionSpec(matrix: matrix, range: .full))
            var k = acc.offsetConstants
            let S = Int64(ColorMatrix.scale), kr = Int64(matrix.kr), kb = Int64(matrix.kb), kg = Int64(matrix.kg)
            let d = 16 * S * kg
            func floorDiv(_ a: Int64, _ b: Int64) -> (q: Int64, r: Int64) {
                let q = a / b, r = a % b
                return r < 0 ? (q - 1, r + b) : (q, r)
            }
            // The exact offsets, as integers: R, B of one chroma value; G of a pair.
            let exactRB = (0..<n).map { v -> (r: (Int64, Bool), b: (Int64, Bool)) in
                let c = Int64(v) - 2048
                let r = floorDiv(2 * (S - kr) * c + 8 * S, 16 * S), b = floorDiv(2 * (S - kb) * c + 8 * S, 16 * S)
                return ((r.q, r.r == 0), (b.q, b.r == 0))
            }
            var worst: Float = 0
            var marked: [CPUTier: Int] = [:], wrong = 0, tiesUnmarked = 0, gMarks = 0, rowsWrong = 0
            var oR = [Int32](repeating: 0, count: n), oG = oR, oB = oR
            var marks = [UInt8](repeating: 0, count: n)
            var exactG = [Int64](repeating: 0, count: n), gTie = [Bool](repeating: false, count: n)
            for cr in 0..<n {
                let c = Int64(cr) - 2048
                for cb in 0..<n {
                    let g = floorDiv(-2 * kr * (S - kr) * c - 2 * kb * (S - kb) * (Int64(cb) - 2048) + 8 * S * kg, d)
                    (exactG[cb], gTie[cb]) = (g.q, g.r == 0)
                    // G's float value against the exact fraction (the C expression, in Swift's order).
                    let t = k.gR * Float(c) + k.gB * Float(cb - 2048) + 0.5
                    worst = max(worst, Float(abs(Double(t) - (Double(g.q) + Double(g.r) / Double(d)))))
                }
                let cr16 = [Int32](repeating: Int32(cr), count: n)
                // A row of pixels with these chroma pairs and seeded luma and source, for the row the bilinear
                // round trip really runs (`yc_quality_full_errors`, vectorised apart from the offsets' row).
                var seed = UInt64(cr) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(matrix.kr)
                func byte() -> UInt8 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: seed >> 56)
                }
                let ly = (0..<n).map { _ in byte() }, lr = (0..<n).map { _ in byte() }
                let lg = (0..<n).map { _ in byte() }, lb = (0..<n).map { _ in byte() }
                var rowMarks = [UInt8](repeating: 0, count: n)
                for tier in CPUTier.supported {
                    XCTAssertTrue(CPUTier.use(tier))
                    yc_quality_offsets(cb16, cr16, n, &k, &oR, &oG, &oB, &marks)
                    var any: UInt8 = 0
                    let sum = yc_quality_full_errors(ly, lr, lg, lb, cb16, cr16, n, &k, &rowMarks, &any)
                    // The same marks, and the unmarked pixels' squared errors with the exact offsets.
                    var expected: UInt64 = 0
                    func channel(_ l: UInt8, _ o: Int64, _ s: UInt8) -> UInt64 {
                        let v = min(max(Int64(l) + o, 0), 255) - Int64(s)
                        return UInt64(v * v)
                    }
                    for cb in 0..<n where marks[cb] == 0 {
                        expected &+= channel(ly[cb], exactRB[cr].r.0, lr[cb]) &+ channel(ly[cb], exactG[cb], lg[cb])
                            &+ channel(ly[cb], exactRB[cb].b.0, lb[cb])
                    }
                    if rowMarks != marks || sum != expected || (any != 0) != marks.contains(where: { $0 != 0 }) {
                        rowsWrong += 1
                    }
                    for cb in 0..<n {
                        let rbTie = exactRB[cr].r.1 || exactRB[cb].b.1
                        if marks[cb] != 0 {
                            marked[tier, default: 0] += 1
                            if !rbTie && tier == CPUTier.supported[0] { gMarks += 1 }
                            continue
                        }
                        if rbTie || gTie[cb] { tiesUnmarked += 1 }
                        if Int64(oR[cb]) != exactRB[cr].r.0 || Int64(oG[cb]) != exactG[cb] || Int64(oB[cb]) != exactRB[cb].b.0 {
                            wrong += 1
                        }
                    }
                }
            }
            XCTAssertEqual(wrong, 0, "\(matrix): unmarked offsets that are not the exact floor")
            XCTAssertEqual(rowsWrong, 0, "\(matrix): rows whose round-trip sum or marks differ from the exact offsets'")
            XCTAssertEqual(tiesUnmarked, 0, "\(matrix): exact ties left unmarked")
            let tiers = marked
            XCTAssertEqual(Set(tiers.values).count, 1, "\(matrix): the tiers mark differently: \(tiers)")
            // The margin is twice the worst error, and G marks about one pair in 10,000 (R and B mark the
            // exact ties of their own chroma value, as before).
            XCTAssertLessThan(2 * worst, QualityAccumulator.offsetMargin, "\(matrix): float error \(worst)")
            XCTAssertLessThan(gMarks, n * n / 5000, "\(matrix): G marked \(gMarks) of \(n * n) pairs")
            print("QualityOffsetTests: \(matrix): worst float error \(worst), G marks \(gMarks) of \(n * n)")
        }
    }
}
