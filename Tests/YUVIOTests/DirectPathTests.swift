import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// The JPEG direct path: pass-through against TurboJPEG's own planes, and the YCbCr → YCbCr transform
/// against an independent exact computation through R, G, B.
final class DirectPathTests: XCTestCase {
    /// TurboJPEG's planes (tjDecompressToYUVPlanes), cropped to the picture: the contract's 4:2:0 bytes.
    func turboPlanes(_ path: String) throws -> (w: Int, h: Int, samp: Int32, y: [UInt8], u: [UInt8], v: [UInt8])? {
        guard let t = try turboPlanesFull(path) else { return nil }
        let cw = (t.w + 1) / 2, ch = (t.h + 1) / 2
        func crop(_ p: [UInt8], _ stride: Int, _ pw: Int, _ ph: Int) -> [UInt8] {
            (0..<ph).flatMap { r in p[(r * stride)..<(r * stride + pw)] }
        }
        let y = crop(t.y, t.ys, t.w, t.h)
        if t.grey { return (t.w, t.h, t.samp, y, [], []) }
        return (t.w, t.h, t.samp, y, crop(t.cb, t.cs, cw, ch), crop(t.cr, t.cs, cw, ch))
    }

    func jpegFixtures() throws -> [String] {
        let root = fixturesURL.appendingPathComponent("corpus")
        let manifest = try String(contentsOf: root.appendingPathComponent("MANIFEST.txt"), encoding: .utf8)
        return manifest.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count > 4, f[3] == "ok", f[4] == "jpeg" else { return nil }
            return root.appendingPathComponent(String(f[0])).path
        }
    }

    /// 4:2:0 JPEG → bt601 full: exactly TurboJPEG's planes (nothing re-quantised).
    func testPassThroughEqualsTurboJPEGPlanes() throws {
        var checked = 0
        for path in try jpegFixtures() {
            guard let t = try turboPlanes(path), t.samp == TJSAMP_420.rawValue else { continue }
            // As stored: an EXIF orientation would turn the planes (OrientationTests covers that).
            let c = try convertFile(path: path, spec: ConversionSpec(matrix: .bt601, range: .full), layout: .yuv420p,
                                    options: DecodeOptions(orientation: .ignore))
            guard c.report.path == "direct YCbCr" else { continue }  // e.g. an Adobe RGB-transform file
            XCTAssertEqual(Array(c.image.yPlane), t.y, path)
            XCTAssertEqual(c.image.uPlane, t.u, path)
            XCTAssertEqual(c.image.vPlane, t.v, path)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 40)
    }

    /// Exact rationals with Int64 parts, reduced: enough for the textbook route below.
    struct Q: Equatable {
        var n: Int64, d: Int64
        init(_ n: Int64, _ d: Int64 = 1) {
            let g = Q.gcd(abs(n), abs(d)) == 0 ? 1 : Q.gcd(abs(n), abs(d))
            self.n = (d < 0 ? -n : n) / g
            self.d = abs(d) / g
        }
        static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        static func + (a: Q, b: Q) -> Q { let g = gcd(a.d, b.d); return Q(a.n * (b.d / g) + b.n * (a.d / g), a.d / g * b.d) }
        static func - (a: Q, b: Q) -> Q { a + Q(-b.n, b.d) }
        static func * (a: Q, b: Q) -> Q {
            let g1 = gcd(abs(a.n), b.d), g2 = gcd(abs(b.n), a.d)
            return Q((a.n / max(g1, 1)) * (b.n / max(g2, 1)), (a.d / max(g2, 1)) * (b.d / max(g1, 1)))
        }
        static func / (a: Q, b: Q) -> Q { a * Q(b.d, b.n) }
        /// ⌊x + ½⌋ clamped to 0…255.
        var rounded: UInt8 {
            let t = 2 * n + d, dd = 2 * d
            let f = t >= 0 ? t / dd : -((-t + dd - 1) / dd)
            return UInt8(min(max(f, 0), 255))
        }
    }

    /// The textbook route: JFIF YCbCr → exact R, G, B (BT.601 inverse, no rounding) → the contract's formulas.
    func textbook(y: Int, cb: Int, cr: Int, spec: ConversionSpec) -> (Q, Q, Q) {
        let s = Q(Int64(ColorMatrix.scale))
        let m6 = ColorMatrix.bt601
        let kr6 = Q(Int64(m6.kr)) / s, kb6 = Q(Int64(m6.kb)) / s, kg6 = Q(Int64(m6.kg)) / s
        let Y = Q(Int64(y)), Cb = Q(Int64(cb - 128)), Cr = Q(Int64(cr - 128))
        let R = Y + Q(2) * (Q(1) - kr6) * Cr
        let B = Y + Q(2) * (Q(1) - kb6) * Cb
        let G = (Y - kr6 * R - kb6 * B) / kg6
        let kr = Q(Int64(spec.matrix.kr)) / s, kb = Q(Int64(spec.matrix.kb)) / s, kg = Q(Int64(spec.matrix.kg)) / s
        let Yt = kr * R + kg * G + kb * B
        let Cbt = (B - Yt) / (Q(2) * (Q(1) - kb)), Crt = (R - Yt) / (Q(2) * (Q(1) - kr))
        return (Yt, Cbt, Crt)
    }

    func testTransformMatchesTextbookRoute() {
        var rng = SplitMix64(seed: 89)
        var samples: [(Int, Int, Int)] = [(0, 0, 0), (255, 255, 255), (0, 128, 128), (255, 128, 128), (128, 0, 255), (128, 255, 0),
                                          (16, 16, 240), (235, 240, 16)]
        for _ in 0..<3000 { samples.append((Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng))) }
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec)
            for (y, cb, cr) in samples {
                let (Yt, Cbt, Crt) = textbook(y: y, cb: cb, cr: cr, spec: spec)
                let full = spec.range == .full
                let yWant = full ? Yt.rounded : (Q(16) + Yt * Q(219, 255)).rounded
                let span = Q(full ? 255 : 224, 255)
                XCTAssertEqual(t.luma(y: y, cb: cb - 128, cr: cr - 128), yWant, "\(spec) luma of \(y),\(cb),\(cr) (\(rng))")
                let c = t.chroma(cbSum: 4 * (cb - 128), crSum: 4 * (cr - 128))
                XCTAssertEqual(c.cb, (Q(128) + Cbt * span).rounded, "\(spec) Cb of \(cb),\(cr) (\(rng))")
                XCTAssertEqual(c.cr, (Q(128) + Crt * span).rounded, "\(spec) Cr of \(cb),\(cr) (\(rng))")
            }
        }
    }

    /// The [1 6 1]/8 means (count 8) against the textbook route applied to the exact mean.
    func testFilteredChromaMatchesTextbookRoute() {
        var rng = SplitMix64(seed: 110)
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec)
            for _ in 0..<2000 {
                let cb = (0..<3).map { _ in Int.random(in: 0...255, using: &rng) }
                let cr = (0..<3).map { _ in Int.random(in: 0...255, using: &rng) }
                let sb = cb[0] + 6 * cb[1] + cb[2] - 1024, sr = cr[0] + 6 * cr[1] + cr[2] - 1024
                // The textbook route is linear in the chroma offsets: the mean offsets give the mean result.
                let s = Q(Int64(ColorMatrix.scale)), m6 = ColorMatrix.bt601
                let kr6 = Q(Int64(m6.kr)) / s, kb6 = Q(Int64(m6.kb)) / s, kg6 = Q(Int64(m6.kg)) / s
                let Cb = Q(Int64(sb), 8), Cr = Q(Int64(sr), 8)
                let R = Q(2) * (Q(1) - kr6) * Cr, B = Q(2) * (Q(1) - kb6) * Cb, G = (Q(0) - kr6 * R - kb6 * B) / kg6
                let kr = Q(Int64(spec.matrix.kr)) / s, kb = Q(Int64(spec.matrix.kb)) / s, kg = Q(Int64(spec.matrix.kg)) / s
                let Yt = kr * R + kg * G + kb * B
                let span = Q(spec.range == .full ? 255 : 224, 255)
                let wantB = (Q(128) + (B - Yt) / (Q(2) * (Q(1) - kb)) * span).rounded
                let wantR = (Q(128) + (R - Yt) / (Q(2) * (Q(1) - kr)) * span).rounded
                let got = t.chroma(cbSum: sb, crSum: sr, count: 8)
                XCTAssertEqual(got.cb, wantB, "\(spec) \(cb) \(cr) (\(rng))")
                XCTAssertEqual(got.cr, wantR, "\(spec) \(cb) \(cr) (\(rng))")
                let planned = t.chromaPlan(count: 8).apply(cbSum: sb, crSum: sr)
                XCTAssertTrue(planned == got, "\(spec) plan \(planned) vs \(got) (\(rng))")
            }
        }
    }

    /// The hot loop's plan over every possible filtered sum pair's corners and a dense grid.
    func testChromaPlanEqualsChroma() {
        for spec in ConversionSpec.all {
            let t = YCbCrTransform(target: spec), plan = t.chromaPlan(count: 8)
            for sb in stride(from: -1024, through: 1016, by: 7) {
                for sr in stride(from: -1024, through: 1016, by: 3) {
                    let a = plan.apply(cbSum: sb, crSum: sr), b = t.chroma(cbSum: sb, crSum: sr, count: 8)
                    if a != b { XCTFail("\(spec) \(sb) \(sr): \(a) vs \(b)"); return }
                }
            }
        }
    }

    /// Every path (4:2:0 table, other samplings, grey) against the transform applied by hand to TurboJPEG's
    /// own planes, for every matrix and range and two layouts.
    func testDirectPathOnRealFilesMatchesPlanesByHand() throws {
        let files = ["jpeg/wuffs/peacock.s2x2-420.jpeg", "jpeg/wuffs/peacock.s1x1-444.jpeg", "jpeg/wuffs/peacock.grayscale.jpeg",
                     "jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg", "jpeg/wuffs/mona-lisa.21x32.q50.jpeg", "photos/rocket.jpg"]
        for file in files {
            let path = fixture(file)
            guard let t = try turboPlanesFull(path) else { XCTFail("no planes for \(file)"); continue }
            for spec in ConversionSpec.all {
                let xf = YCbCrTransform(target: spec)
                // The planes as stored: rocket.jpg's Adobe RGB profile would otherwise send it through RGB, and
                // 4:4:4 (rocket.jpg, peacock.s1x1-444) takes the direct path when it is asked for by name.
                var options = DecodeOptions(jpegPath: .direct)
                options.colourManagement = false
                let c = try convertFile(path: path, spec: spec, layout: .nv21, options: options)
                XCTAssertEqual(c.report.path, "direct YCbCr", file)
                let (W, H) = (t.w, t.h), cw = (W + 1) / 2, ch = (H + 1) / 2
                var y = [UInt8](), u = [UInt8](), v = [UInt8]()
                func chromaAt(_ x: Int, _ r: Int) -> (Int, Int) {
                    if t.grey { return (0, 0) }
                    let sx = x * t.cw / t.pw, sy = r * t.ch / t.ph   // nearest sample on the sampling grid
                    return (Int(t.cb[sy * t.cs + sx]) - 128, Int(t.cr[sy * t.cs + sx]) - 128)
                }
                for r in 0..<H { for x in 0..<W {
                    let (cb, cr) = chromaAt(x, r)
                    y.append(xf.luma(y: Int(t.y[r * t.ys + x]), cb: cb, cr: cr))
                } }
                let is420 = !t.grey && t.pw == 2 && t.ph == 2
                let identity = spec == ConversionSpec(matrix: .bt601, range: .full)
                for r in 0..<ch { for x in 0..<cw {
                    if is420 {
                        // The 4:2:0 rule: [1 6 1]/8 along the row, or the sample itself for bt601 full.
                        func at(_ i: Int) -> (Int, Int) { chromaAt(2 * min(max(i, 0), cw - 1), 2 * r) }
                        if identity {
                            let c = at(x)
                            u.append(UInt8(c.0 + 128)); v.append(UInt8(c.1 + 128))
                        } else {
                            let (l, m, rr) = (at(x - 1), at(x), at(x + 1))
                            let o = xf.chroma(cbSum: l.0 + 6 * m.0 + rr.0, crSum: l.1 + 6 * m.1 + rr.1, count: 8)
                            u.append(o.cb); v.append(o.cr)
                        }
                        continue
                    }
                    var sb = 0, sr = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (cb, cr) = chromaAt(min(2 * x + dx, W - 1), min(2 * r + dy, H - 1))
                        sb += cb; sr += cr
                    }
                    let o = xf.chroma(cbSum: sb, crSum: sr)
                    u.append(o.cb); v.append(o.cr)
                } }
                XCTAssertEqual(Array(c.image.yPlane), y, "\(file) \(spec) Y")
                XCTAssertEqual(c.image.uPlane, u, "\(file) \(spec) U")
                XCTAssertEqual(c.image.vPlane, v, "\(file) \(spec) V")
            }
        }
    }
}
