import TestSupport
import XCTest
import YUVCore

/// The fast `QualityAccumulator` (exact integer sums, vectorised rows) measures what the reference
/// (`ReferenceQualityAccumulator`, every figure in `Double` pixel by pixel) measures: the RGB round trips the
/// same `Double` (both sums are of the same integers), Y, Cb, Cr and SSIM within floating-point dust (the
/// reference's own rounding), on every matrix and range, odd and tiny sizes, RGB and RGBX rows, outputs near the
/// exact conversion and far from it, and every pair of chroma values.
final class QualityAccumulatorTests: XCTestCase {
    struct Picture {
        let width: Int, height: Int
        let source: [UInt8], format: SourceFormat
        let y: [UInt8], u: [UInt8], v: [UInt8]
    }

    /// Hands `p`'s rows to `add` in order: the source row, the output's Y row and the chroma rows it takes.
    func feed(_ p: Picture, _ add: (UnsafeRawPointer, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Void) {
        let cw = (p.width + 1) / 2, rowBytes = p.width * p.format.bytesPerPixel
        p.source.withUnsafeBytes { s in
            p.y.withUnsafeBufferPointer { y in
                p.u.withUnsafeBufferPointer { u in
                    p.v.withUnsafeBufferPointer { v in
                        for r in 0..<p.height {
                            add(s.baseAddress! + r * rowBytes, y.baseAddress! + r * p.width, u.baseAddress! + r / 2 * cw,
                                v.baseAddress! + r / 2 * cw)
                        }
                    }
                }
            }
        }
    }

    /// Feeds `p` row by row to both accumulators and compares their reports.
    func check(_ p: Picture, _ spec: ConversionSpec, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        var fast = QualityAccumulator(width: p.width, height: p.height, spec: spec)
        var reference = ReferenceQualityAccumulator(width: p.width, height: p.height, spec: spec)
        feed(p) { row, yr, ur, vr in
            fast.add(row: row, format: p.format, y: yr, u: ur, v: vr)
            reference.add(row: row, format: p.format, y: yr, u: ur, v: vr)
        }
        XCTAssertTrue(fast.isComplete, file: file, line: line)
        let a = fast.result(), b = reference.result()
        let label = "\(p.width)x\(p.height) \(p.format) \(spec) \(what)"
        XCTAssertEqual(a.psnrRGB, b.psnrRGB, "RGB " + label, file: file, line: line)
        XCTAssertEqual(a.psnrRGBBilinear, b.psnrRGBBilinear, "bilinear " + label, file: file, line: line)
        for (x, want, name) in [(a.psnrY, b.psnrY, "Y"), (a.psnrCb, b.psnrCb, "Cb"), (a.psnrCr, b.psnrCr, "Cr")] {
            if want.isInfinite { XCTAssertEqual(x, want, name + " " + label, file: file, line: line) } else {
                XCTAssertEqual(x, want, accuracy: 1e-9 * max(1, abs(want)), name + " " + label, file: file, line: line)
            }
        }
        XCTAssertEqual(a.ssimY, b.ssimY, accuracy: 1e-12, "SSIM " + label, file: file, line: line)
    }

    /// A picture of random source pixels; its output the exact conversion's planes, moved by up to `noise` code
    /// values (0: rounded exact values, as a converter writes; 255: anything).
    func picture(_ w: Int, _ h: Int, _ spec: ConversionSpec, format: SourceFormat, noise: Int, _ rng: inout SplitMix64) -> Picture {
        let bpp = format.bytesPerPixel, cw = (w + 1) / 2, ch = (h + 1) / 2
        let source = randomBytes(w * h * bpp, &rng)
        let s = Double(ColorMatrix.scale)
        let kr = Double(spec.matrix.kr) / s, kb = Double(spec.matrix.kb) / s, kg = Double(spec.matrix.kg) / s
        let full = spec.range == .full
        func jitter(_ x: Double) -> UInt8 {
            let n = noise == 0 ? 0 : Int(rng.next() % UInt64(2 * noise + 1)) - noise
            return UInt8(min(max(Int((x + 0.5).rounded(.down)) + n, 0), 255))
        }
        var y = [UInt8](repeating: 0, count: w * h), cbSum = [Double](repeating: 0, count: cw * ch)
        var crSum = cbSum, count = cbSum
        for r in 0..<h {
            for x in 0..<w {
                let p = (r * w + x) * bpp
                let R = Double(source[p]), G = Double(source[p + 1]), B = Double(source[p + 2])
                let yp = kr * R + kg * G + kb * B
                y[r * w + x] = jitter(full ? yp : 16 + yp * 219 / 255)
                let c = r / 2 * cw + x / 2
                cbSum[c] += (B - yp) / (2 * (1 - kb)); crSum[c] += (R - yp) / (2 * (1 - kr)); count[c] += 1
            }
        }
        let cs = full ? 1.0 : 224.0 / 255
        let u = (0..<(cw * ch)).map { jitter(128 + cbSum[$0] / count[$0] * cs) }
        let v = (0..<(cw * ch)).map { jitter(128 + crSum[$0] / count[$0] * cs) }
        return Picture(width: w, height: h, source: source, format: format, y: y, u: u, v: v)
    }

    /// The hot rows are C, one copy per CPU tier: `body` on each tier the machine runs (the process's tier is
    /// switched; the suite runs its tests one at a time).
    func onEveryTier(_ body: () -> Void) {
        defer { CPUTier.use(CPUTier.best) }
        for tier in CPUTier.supported {
            XCTAssertTrue(CPUTier.use(tier))
            body()
        }
    }

    func testRandomPicturesMeasureAsTheReference() { onEveryTier(randomPicturesMeasureAsTheReference) }

    func randomPicturesMeasureAsTheReference() {
        var rng = SplitMix64(seed: 41)
        let sizes = [(1, 1), (2, 1), (1, 2), (3, 5), (7, 3), (8, 8), (9, 8), (8, 9), (12, 16), (33, 17), (64, 40), (130, 9), (5, 70)]
        for spec in ConversionSpec.all {
            for (w, h) in sizes {
                for format in [SourceFormat.rgb8, .rgba8] {
                    for noise in [0, 2, 255] {
                        check(picture(w, h, spec, format: format, noise: noise, &rng), spec, "noise \(noise)")
                    }
                }
            }
        }
    }

    /// Every tier gives the same report to the bit, SSIM included (the reference comparison above allows
    /// 1e-12 for SSIM's Double sums): the tiers' SSIM windows — scalar, or four at a time with 32-bit
    /// conversions below AVX-512 — must round exactly as each other.
    func testEveryTierGivesTheSameBits() {
        var rng = SplitMix64(seed: 53)
        defer { CPUTier.use(CPUTier.best) }
        for spec in ConversionSpec.all {
            for (w, h) in [(64, 40), (130, 9), (203, 33)] {
                for noise in [1, 255] {
                    let p = picture(w, h, spec, format: .rgb8, noise: noise, &rng)
                    var bits: [[UInt64]] = []
                    for tier in CPUTier.supported {
                        XCTAssertTrue(CPUTier.use(tier))
                        let q = measure(p, spec)
                        bits.append([q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB, q.psnrRGBBilinear ?? -1, q.ssimY].map(\.bitPattern))
                    }
                    for (i, b) in bits.enumerated().dropFirst() {
                        XCTAssertEqual(b, bits[0], "\(CPUTier.supported[i]) vs \(CPUTier.supported[0]): \(w)x\(h) \(spec) noise \(noise)")
                    }
                }
            }
        }
    }

    func measure(_ p: Picture, _ spec: ConversionSpec) -> QualityReport {
        var fast = QualityAccumulator(width: p.width, height: p.height, spec: spec)
        feed(p) { row, y, u, v in fast.add(row: row, format: p.format, y: y, u: u, v: v) }
        return fast.result()
    }

    /// Every (Cb, Cr) pair as a chroma sample of a 512×512 picture, over random luma and source: any pair whose
    /// rebuilt G lands on a rounding tie is in it, so the round trips' fallback to the division is exercised.
    func testEveryChromaPairMeasuresAsTheReference() { onEveryTier(everyChromaPairMeasuresAsTheReference) }

    func everyChromaPairMeasuresAsTheReference() {
        var rng = SplitMix64(seed: 43)
        let w = 512, h = 512
        let u = (0..<(256 * 256)).map { UInt8($0 % 256) }, v = (0..<(256 * 256)).map { UInt8($0 / 256) }
        for spec in [ConversionSpec(), ConversionSpec(matrix: .bt601, range: .full), ConversionSpec(matrix: .bt2020, range: .limited)] {
            let p = Picture(width: w, height: h, source: randomBytes(3 * w * h, &rng), format: .rgb8,
                            y: randomBytes(w * h, &rng), u: u, v: v)
            check(p, spec, "every chroma pair")
        }
    }

    /// Identical planes measure +∞ (grey source, Y = the grey, chroma 128), and a 16-bit source goes through the
    /// reference whole.
    func testIdenticalPlanesAndSixteenBitSources() {
        var rng = SplitMix64(seed: 47)
        let (w, h) = (21, 13)
        let grey = randomBytes(w * h, &rng)
        let flat = Picture(width: w, height: h, source: grey.flatMap { [$0, $0, $0] }, format: .rgb8, y: grey,
                           u: [UInt8](repeating: 128, count: 11 * 7), v: [UInt8](repeating: 128, count: 11 * 7))
        check(flat, ConversionSpec(), "grey")
        var fast = QualityAccumulator(width: w, height: h, spec: ConversionSpec())
        flat.source.withUnsafeBytes { s in
            for r in 0..<h {
                fast.add(row: s.baseAddress! + 3 * w * r, format: .rgb8, y: flat.y.withUnsafeBufferPointer { $0.baseAddress! + r * w },
                         u: flat.u.withUnsafeBufferPointer { $0.baseAddress! + r / 2 * 11 },
                         v: flat.v.withUnsafeBufferPointer { $0.baseAddress! + r / 2 * 11 })
            }
        }
        let q = fast.result()
        XCTAssertEqual([q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB], [.infinity, .infinity, .infinity, .infinity])
        XCTAssertEqual(q.ssimY, 1, accuracy: 1e-15)
        let p8 = picture(w, h, ConversionSpec(matrix: .bt709, range: .limited), format: .rgb8, noise: 3, &rng)
        let wide = p8.source.flatMap { b -> [UInt8] in withUnsafeBytes(of: UInt16(min(Int(b) * 257 + Int(rng.next() % 200), 65535))) { Array($0) } }
        check(Picture(width: w, height: h, source: wide, format: .rgb16, y: p8.y, u: p8.u, v: p8.v),
              ConversionSpec(matrix: .bt709, range: .limited), "16-bit")
    }

    /// A picture under 8 pixels wide or high: n×n windows (n its smaller side) at every pixel, so every pixel is
    /// measured, by the plain definition computed here (means and population variances of each window). Every 4
    /// pixels, a 3×5 picture was measured on its top three rows alone (SSIM 1 when only the bottom two were off)
    /// and a 1-wide strip at every fourth pixel (a hostile round).
    func testSmallPicturesMeasureEveryPixel() {
        var rng = SplitMix64(seed: 48)
        for (w, h) in [(3, 5), (5, 3), (1, 9), (9, 1), (7, 20), (20, 7), (2, 2), (1, 1)] {
            // Grey source (its exact full-range Y is the grey itself), output Y off by up to 40 in the last rows and
            // the last column only.
            let grey = randomBytes(w * h, &rng)
            var y = grey
            for r in 0..<h {
                for x in 0..<w where r >= h - 2 || x == w - 1 { y[r * w + x] = UInt8(min(255, Int(grey[r * w + x]) + 1 + Int(rng.next() % 40))) }
            }
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            let p = Picture(width: w, height: h, source: grey.flatMap { [$0, $0, $0] }, format: .rgb8, y: y,
                            u: [UInt8](repeating: 128, count: cw * ch), v: [UInt8](repeating: 128, count: cw * ch))
            var fast = QualityAccumulator(width: w, height: h, spec: ConversionSpec())
            feed(p) { row, yr, ur, vr in fast.add(row: row, format: p.format, y: yr, u: ur, v: vr) }
            let n = min(8, w, h), step = n < 8 ? 1 : 4
            let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
            var total = 0.0, count = 0
            for top in stride(from: 0, through: h - n, by: step) {
                for left in stride(from: 0, through: w - n, by: step) {
                    var a: [Double] = [], b: [Double] = []
                    for r in top..<(top + n) {
                        for x in left..<(left + n) { a.append(Double(y[r * w + x])); b.append(Double(grey[r * w + x])) }
                    }
                    let k = Double(n * n), ma = a.reduce(0, +) / k, mb = b.reduce(0, +) / k
                    let va = a.map { ($0 - ma) * ($0 - ma) }.reduce(0, +) / k, vb = b.map { ($0 - mb) * ($0 - mb) }.reduce(0, +) / k
                    let cov = zip(a, b).map { ($0 - ma) * ($1 - mb) }.reduce(0, +) / k
                    total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                    count += 1
                }
            }
            XCTAssertEqual(fast.result().ssimY, total / Double(count), accuracy: 1e-12, "\(w)x\(h)")
            XCTAssertLessThan(fast.result().ssimY, 1, "\(w)x\(h): the pixels off are measured")
            check(p, ConversionSpec(), "small, off at the edges")
        }
    }
}
