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

    /// Greys survive the round trip exactly in full range (Y = v, C = 128 → v).
    func testGreyRoundTrip() {
        let inv = YUVToRGB(spec: ConversionSpec())
        for v in 0...255 { XCTAssertTrue(inv.rgb(y: UInt8(v), cb: 128, cr: 128) == (UInt8(v), UInt8(v), UInt8(v))) }
    }
}
