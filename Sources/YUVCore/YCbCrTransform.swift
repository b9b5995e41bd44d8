/// JPEG's YCbCr (JFIF: BT.601, full range) to the target matrix and range, without going through 8-bit RGB.
///
/// With Cb′ = Cb − 128 and Cr′ = Cr − 128 the source picture is, exactly,
///     R = Y + 2(1−Kr₆₀₁)·Cr′,  B = Y + 2(1−Kb₆₀₁)·Cb′,  G = (Y − Kr₆₀₁·R − Kb₆₀₁·B) / Kg₆₀₁
/// and the contract's formulas applied to that R, G, B give, after the algebra (luma cancels out of chroma):
///     Y′ₜ  = Y + (aCb·Cb′ + aCr·Cr′) / aDen
///     Cb′ₜ = (bCb·Cb′ + bCr·Cr′) / bDen,   Cr′ₜ = (rCb·Cb′ + rCr·Cr′) / rDen
/// with integer coefficients computed here from Kr and Kb (reduced by their common divisor). Then the range
/// mapping and one rounding, half up, as for RGB sources. For BT.601 full range the transform is the
/// identity: the decoder's planes are the output.
///
/// Chroma siting: a 4:2:0 output chroma sample is the mean of the source chroma at its four pixels, each
/// pixel taking the source sample that covers it (nearest, on the JPEG sampling grid): for 4:4:4 the mean
/// of four, for 4:2:2 of two. A 4:2:0 source keeps its samples, filtered horizontally with [1 6 1]/8 — what
/// libjpeg's "fancy" upsampling followed by the 2×2 mean gives along a row — which takes out part of the
/// JPEG's chroma quantisation noise (see the README's quality table); BT.601 full range is the exception:
/// there the decoder's planes are the output, untouched. The luma of a pixel uses the unfiltered source
/// chroma sample that covers it.
public struct YCbCrTransform: Sendable, Equatable {
    public let target: ConversionSpec
    let aCb, aCr, aDen: Int64
    let bCb, bCr, bDen: Int64
    let rCb, rCr, rDen: Int64

    public var isIdentity: Bool { target == ConversionSpec(matrix: .bt601, range: .full) }

    public init(target: ConversionSpec) {
        self.target = target
        let s = Int64(ColorMatrix.scale)
        let krs = Int64(ColorMatrix.bt601.kr), kbs = Int64(ColorMatrix.bt601.kb), kgs = Int64(ColorMatrix.bt601.kg)
        let kr = Int64(target.matrix.kr), kb = Int64(target.matrix.kb), kg = Int64(target.matrix.kg)
        // Y′ₜ − Y, times den = S²·Kg₆₀₁.
        let den = s * s * kgs
        let acr = 2 * (s - krs) * (kr * kgs - kg * krs)
        let acb = 2 * (s - kbs) * (kb * kgs - kg * kbs)
        (aCb, aCr, aDen) = Self.reduce(acb, acr, den)
        // B − Y′ₜ and R − Y′ₜ, over den, then divided by 2(1 − K) (times S: the K are in 1/S units).
        (bCb, bCr, bDen) = Self.reduce((2 * (s - kbs) * s * kgs - acb) * s, -acr * s, den * 2 * (s - kb))
        (rCb, rCr, rDen) = Self.reduce(-acb * s, (2 * (s - krs) * s * kgs - acr) * s, den * 2 * (s - kr))
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (abs(a), abs(b))
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    static func reduce(_ p: Int64, _ q: Int64, _ d: Int64) -> (Int64, Int64, Int64) {
        let g = gcd(gcd(p, q), d)
        return (p / g, q / g, d / g)
    }

    /// ⌊n / d⌋ for d > 0 and |n| < 2^53. IEEE division is correctly rounded, so the Double quotient of two
    /// exactly represented integers is a whole number exactly when the true one is, and otherwise cannot
    /// cross one (the true fraction is at least 1/d away, far more than the rounding error).
    @inline(__always)
    static func floorDiv(_ n: Int64, _ d: Int64) -> Int64 {
        Int64((Double(n) / Double(d)).rounded(.down))
    }

    @inline(__always)
    static func clamp8(_ v: Int64) -> UInt8 { UInt8(min(max(v, 0), 255)) }

    /// Output luma of a pixel with source luma `y` and source chroma offsets `cb`, `cr` (C − 128).
    @inline(__always)
    public func luma(y: Int, cb: Int, cr: Int) -> UInt8 {
        let t = aCb * Int64(cb) + aCr * Int64(cr)           // (Y′ₜ − Y) · aDen
        if target.range == .full {
            // ⌊Y + t/aDen + ½⌋ = Y + ⌊(2t + aDen) / (2·aDen)⌋, Y being whole.
            return Self.clamp8(Int64(y) + Self.floorDiv(2 * t + aDen, 2 * aDen))
        }
        // ⌊16 + (Y + t/aDen)·219/255 + ½⌋
        let n = 2 * 16 * 255 * aDen + 2 * 219 * (Int64(y) * aDen + t) + 255 * aDen
        return Self.clamp8(Self.floorDiv(n, 2 * 255 * aDen))
    }

    /// The constants of `chroma(cbSum:crSum:count:)` for one count, for hot loops: each value is
    /// ⌊(c0 + wb·ΣCb′ + wr·ΣCr′) / den⌋ — the same numerator and denominator — found by a Double reciprocal
    /// estimate (within one of the truth) and one exact Int64 correction each way.
    public struct ChromaPlan: Sendable {
        let c0B: Int64, wbB: Int64, wrB: Int64, denB: Int64, invB: Double
        let c0R: Int64, wbR: Int64, wrR: Int64, denR: Int64, invR: Double

        @inline(__always)
        static func div(_ n: Int64, _ d: Int64, _ inv: Double) -> UInt8 {
            var q = Int64((Double(n) * inv).rounded(.down))
            let r = n - q * d
            if r < 0 { q -= 1 } else if r >= d { q += 1 }
            return UInt8(min(max(q, 0), 255))
        }

        @inline(__always)
        public func apply(cbSum: Int, crSum: Int) -> (cb: UInt8, cr: UInt8) {
            let b = Int64(cbSum), r = Int64(crSum)
            return (Self.div(c0B + wbB * b + wrB * r, denB, invB), Self.div(c0R + wbR * b + wrR * r, denR, invR))
        }
    }

    public func chromaPlan(count: Int) -> ChromaPlan {
        let span: Int64 = target.range == .full ? 255 : 224
        let k = Int64(count)
        // As in chroma(): n = (2·128 + 1)·255·k·d + 2·span·(p·ΣCb′ + q·ΣCr′), den = 2·255·k·d.
        return ChromaPlan(c0B: 257 * 255 * k * bDen, wbB: 2 * span * bCb, wrB: 2 * span * bCr,
                          denB: 2 * 255 * k * bDen, invB: 1 / Double(2 * 255 * k * bDen),
                          c0R: 257 * 255 * k * rDen, wbR: 2 * span * rCb, wrR: 2 * span * rCr,
                          denR: 2 * 255 * k * rDen, invR: 1 / Double(2 * 255 * k * rDen))
    }

    /// Output Cb and Cr of a 4:2:0 sample whose source chroma offsets are the weighted means
    /// ΣCb′/`count` and ΣCr′/`count` (count 4: the mean over its four pixels; 8: the horizontal
    /// [1 6 1]/8 filter of a 4:2:0 source). Exact for |ΣC′| ≤ 128·count, count ≤ 8.
    @inline(__always)
    public func chroma(cbSum: Int, crSum: Int, count: Int = 4) -> (cb: UInt8, cr: UInt8) {
        let span: Int64 = target.range == .full ? 255 : 224
        let k = Int64(count)
        func one(_ p: Int64, _ q: Int64, _ d: Int64) -> UInt8 {
            // ⌊128 + (p·ΣCb′ + q·ΣCr′)/(count·d) · span/255 + ½⌋; below 2^53 for count ≤ 8.
            let n = 2 * 128 * 255 * k * d + 2 * span * (p * Int64(cbSum) + q * Int64(crSum)) + 255 * k * d
            return Self.clamp8(Self.floorDiv(n, 2 * 255 * k * d))
        }
        return (one(bCb, bCr, bDen), one(rCb, rCr, rDen))
    }
}
