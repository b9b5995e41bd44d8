import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// PNG output's inverse (YUVToRGB) against the textbook inverse in exact rationals, and a PNG written by
/// the pipeline against it.
final class InverseTests: XCTestCase {
    typealias Q = DirectPathTests.Q

    func textbook(_ y: Int, _ cb: Int, _ cr: Int, _ spec: ConversionSpec) -> (UInt8, UInt8, UInt8) {
        let s = Q(Int64(ColorMatrix.scale))
        let kr = Q(Int64(spec.matrix.kr)) / s, kb = Q(Int64(spec.matrix.kb)) / s, kg = Q(Int64(spec.matrix.kg)) / s
        let full = spec.range == .full
        let Y = full ? Q(Int64(y)) : Q(Int64(y - 16)) * Q(255, 219)
        let cs = full ? Q(1) : Q(255, 224)
        let Cb = Q(Int64(cb - 128)) * cs, Cr = Q(Int64(cr - 128)) * cs
        let R = Y + Q(2) * (Q(1) - kr) * Cr, B = Y + Q(2) * (Q(1) - kb) * Cb
        let G = (Y - kr * R - kb * B) / kg
        return (R.rounded, G.rounded, B.rounded)
    }

    func testInverseMatchesTextbook() {
        var rng = SplitMix64(seed: 24)
        var triples = [(0, 128, 128), (255, 128, 128), (16, 128, 128), (235, 240, 16), (0, 0, 255), (255, 255, 0)]
        for _ in 0..<4000 { triples.append((Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng))) }
        for spec in ConversionSpec.all {
            let inv = YUVToRGB(spec: spec)
            for (y, cb, cr) in triples {
                let got = inv.rgb(y: UInt8(y), cb: UInt8(cb), cr: UInt8(cr)), want = textbook(y, cb, cr, spec)
                XCTAssertTrue(got == want, "\(spec) \(y),\(cb),\(cr): \(got) vs \(want) (\(rng))")
            }
        }
    }

    /// The textbook inverse of 10-bit samples (the contract's BT.2100 scaling) drawn at 16 bits, in Int128
    /// rationals over S·ys·cs, G from R and B: R, G, B each ⌊x + ½⌋ clamped to 0…65535.
    func textbookDeep(_ y: Int, _ cb: Int, _ cr: Int, _ spec: ConversionSpec) -> (Int, Int, Int) {
        let s = Int128(ColorMatrix.scale), kr = Int128(spec.matrix.kr), kb = Int128(spec.matrix.kb), kg = Int128(spec.matrix.kg)
        let full = spec.range == .full, t: Int128 = 65535
        let (o, ys, cs): (Int128, Int128, Int128) = full ? (0, 1023, 1023) : (64, 876, 896)
        let d = s * ys * cs
        let yN = t * (Int128(y) - o) * s * cs                       // Y′ = yN / d
        let rN = yN + t * 2 * (s - kr) * (Int128(cr) - 512) * ys
        let bN = yN + t * 2 * (s - kb) * (Int128(cb) - 512) * ys
        let gN = s * yN - kr * rN - kb * bN                          // G = gN / (kg·d)
        func round(_ n: Int128, _ d: Int128) -> Int {
            let a = 2 * n + d, b = 2 * d
            let f = a >= 0 ? a / b : -((-a + b - 1) / b)
            return Int(min(max(f, 0), 65535))
        }
        return (round(rN, d), round(gN, kg * d), round(bN, d))
    }

    /// 10-bit YUV drawn as a 16-bit PNG: one rounding from the samples, equal to the textbook everywhere.
    func testDeepInverseMatchesTextbook() {
        var rng = SplitMix64(seed: 25)
        var triples = [(0, 512, 512), (1023, 512, 512), (64, 512, 512), (940, 960, 64), (0, 0, 1023), (1023, 1023, 0)]
        for _ in 0..<4000 { triples.append((Int.random(in: 0...1023, using: &rng), Int.random(in: 0...1023, using: &rng), Int.random(in: 0...1023, using: &rng))) }
        for spec in ConversionSpec.all {
            let inv = YUVToRGB(spec: spec, inputDepth: 10, outputDepth: 16)
            for (y, cb, cr) in triples {
                let got = inv.rgb(y, cb, cr), want = textbookDeep(y, cb, cr, spec)
                XCTAssertTrue(got == want, "\(spec) \(y),\(cb),\(cr): \(got) vs \(want)")
            }
        }
        // Full-range greys come back exactly: v·65535/1023.
        let grey = YUVToRGB(spec: ConversionSpec(), inputDepth: 10, outputDepth: 16)
        for v in 0...1023 {
            let w = (2 * v * 65535 + 1023) / 2046
            XCTAssertTrue(grey.rgb(v, 512, 512) == (w, w, w), "\(v)")
        }
    }

    /// Greys survive the round trip exactly in full range (Y = v, C = 128 → v).
    func testGreyRoundTrip() {
        let inv = YUVToRGB(spec: ConversionSpec())
        for v in 0...255 { XCTAssertTrue(inv.rgb(y: UInt8(v), cb: 128, cr: 128) == (UInt8(v), UInt8(v), UInt8(v))) }
    }
}
