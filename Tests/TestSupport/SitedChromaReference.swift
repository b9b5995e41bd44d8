/// The JPEG direct path's left and top-left chroma (`YCbCrSiting.swift`), written the plain way for the tests:
/// each output sample walks its taps — 1 2 1 over pixel columns 2i−1, 2i, 2i+1; 1 1 over rows 2j, 2j+1
/// (`left`) or 1 2 1 over 2j−1, 2j, 2j+1 (`topleft`); coordinates clamped to the picture — each tap reading
/// the source chroma sample that covers its pixel, and the weighted mean offsets go through the textbook
/// route (JFIF YCbCr → exact R, G, B → the contract's formulas) in 128-bit integers, rounded once, half up.
/// With the luma given, the mean luma under the same taps joins the mean chroma: when the
/// R, G or B they make leaves 0…255, the three are clamped and the chroma is that RGB's (the gamut step).
/// No tables, no separable passes, no bands: nothing shared with the code under test.
public struct SitedChromaReference {
    public let width: Int, height: Int
    /// Pixels per source chroma sample across and down (4:2:0: 2, 2; 4:4:4: 1, 1; 4:2:2: 2, 1).
    public let hRatio: Int, vRatio: Int
    public let topLeft: Bool
    /// The target matrix's Kr and Kb in 1/10000, and its range.
    public let kr: Int, kb: Int, full: Bool

    public init(width: Int, height: Int, hRatio: Int, vRatio: Int, topLeft: Bool, kr: Int, kb: Int, full: Bool) {
        (self.width, self.height, self.hRatio, self.vRatio) = (width, height, hRatio, vRatio)
        (self.topLeft, self.kr, self.kb, self.full) = (topLeft, kr, kb, full)
    }

    /// The weights' total: the sums below are ΣC′ over that many samples.
    public var weight: Int { topLeft ? 16 : 8 }

    /// The weighted sums of Cb − 128 and Cr − 128 for output sample (cx, cy); `sample(plane, sx, sy)` reads
    /// source chroma (plane 0 Cb, 1 Cr) at sample column sx, row sy.
    public func sums(_ cx: Int, _ cy: Int, _ sample: (Int, Int, Int) -> UInt8) -> (cb: Int, cr: Int) {
        let across = [(-1, 1), (0, 2), (1, 1)]
        let down = topLeft ? [(-1, 1), (0, 2), (1, 1)] : [(0, 1), (1, 1)]
        var b = 0, r = 0
        for (dy, wy) in down {
            let y = min(max(2 * cy + dy, 0), height - 1)
            for (dx, wx) in across {
                let x = min(max(2 * cx + dx, 0), width - 1)
                b += wx * wy * (Int(sample(0, x / hRatio, y / vRatio)) - 128)
                r += wx * wy * (Int(sample(1, x / hRatio, y / vRatio)) - 128)
            }
        }
        return (b, r)
    }

    /// The luma sum for output sample (cx, cy) under the chroma's own weights (`sums`): its taps' pixels' luma;
    /// `luma(x, y)` reads a pixel.
    public func lumaSum(_ cx: Int, _ cy: Int, _ luma: (Int, Int) -> UInt8) -> Int {
        let across = [(-1, 1), (0, 2), (1, 1)]
        let down = topLeft ? [(-1, 1), (0, 2), (1, 1)] : [(0, 1), (1, 1)]
        var sum = 0
        for (dy, wy) in down {
            let y = min(max(2 * cy + dy, 0), height - 1)
            for (dx, wx) in across { sum += wx * wy * Int(luma(min(max(2 * cx + dx, 0), width - 1), y)) }
        }
        return sum
    }

    /// Output Cb and Cr (8 or 10 bits) of the mean offsets ΣCb′/weight, ΣCr′/weight — and, with the mean luma
    /// ΣY/weight (`lumaSum`), of the clamped RGB when they leave the gamut.
    public func chroma(cbSum: Int, crSum: Int, lumaSum: Int? = nil, depth: Int = 8) -> (cb: Int, cr: Int) {
        let s: Int128 = 10_000, kr6: Int128 = 2990, kb6: Int128 = 1140, kg6 = s - kr6 - kb6
        let kr = Int128(kr), kb = Int128(kb), kg = s - kr - kb
        let sb = Int128(cbSum), sr = Int128(crSum)
        // R′, G′, B′ (the source picture less its luma) over the common denominator d0 = S·weight·Kg₆₀₁.
        let d0 = s * Int128(weight) * kg6
        var rn = 2 * (s - kr6) * kg6 * sr, bn = 2 * (s - kb6) * kg6 * sb
        var gn = -(kr6 * 2 * (s - kr6) * sr + kb6 * 2 * (s - kb6) * sb)
        if let lumaSum {
            // R, G, B themselves over d0 (the luma's mean is ΣY/weight = ΣY·S·Kg₆₀₁/d0); clamped to 0…255 if any
            // leaves it, and then taken less nothing: the chroma below is the same formula on whole R, G, B.
            let y = Int128(lumaSum) * s * kg6
            let (r, g, b) = (y + rn, y + gn, y + bn)
            let top = 255 * d0
            if [r, g, b].contains(where: { $0 < 0 || $0 > top }) {
                func clamp(_ v: Int128) -> Int128 { min(max(v, 0), top) }
                (rn, gn, bn) = (clamp(r), clamp(g), clamp(b))
            }
        }
        let yn = kr * rn + kg * gn + kb * bn                   // Y′ₜ = yn / (S·d0)
        // C′ₜ = (S·n − yn) / (2(S − K)·d0); then ⌊offset + C′ₜ·span/255 + ½⌋, clamped.
        let (offset, span, top): (Int128, Int128, Int128) = depth == 8
            ? (128, full ? 255 : 224, 255) : (512, full ? 1023 : 896, 1023)
        func out(_ num: Int128, _ den: Int128) -> Int {
            let n = 2 * offset * 255 * den + 2 * span * num + 255 * den, d = 2 * 255 * den
            let q = n >= 0 ? n / d : -((-n + d - 1) / d)
            return Int(min(max(q, 0), top))
        }
        return (out(s * bn - yn, 2 * (s - kb) * d0), out(s * rn - yn, 2 * (s - kr) * d0))
    }

    /// Both planes, row by row (⌈W/2⌉ × ⌈H/2⌉ each), with the gamut step when `luma` reads the pixels.
    public func planes(depth: Int = 8, luma: ((Int, Int) -> UInt8)? = nil, _ sample: (Int, Int, Int) -> UInt8) -> (u: [Int], v: [Int]) {
        var u: [Int] = [], v: [Int] = []
        for cy in 0..<((height + 1) / 2) {
            for cx in 0..<((width + 1) / 2) {
                let (b, r) = sums(cx, cy, sample)
                let c = chroma(cbSum: b, crSum: r, lumaSum: luma.map { lumaSum(cx, cy, $0) }, depth: depth)
                u.append(c.cb)
                v.append(c.cr)
            }
        }
        return (u, v)
    }
}

#if canImport(XCTest)
import XCTest

/// Fails unless `got` equals `want`, naming the first sample that differs (a whole plane in the message
/// would be unreadable).
public func assertSamePlane<T: BinaryInteger>(_ got: [T], _ want: [Int], _ what: @autoclosure () -> String,
                                              file: StaticString = #filePath, line: UInt = #line) {
    let g = got.map(Int.init)
    guard g != want else { return }
    let i = zip(g, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(g.count, want.count)
    let at = i < min(g.count, want.count) ? "got \(g[i]), want \(want[i])" : "lengths differ"
    XCTFail("\(what()): \(g.count) samples (want \(want.count)), first difference at \(i): \(at)", file: file, line: line)
}
#endif
