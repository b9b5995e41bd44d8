/// JPEG's YCbCr (JFIF: BT.601, full range) to the target matrix and range, without going through 8-bit RGB.
///
/// With Cb′ = Cb − 128 and Cr′ = Cr − 128 the source picture is, exactly,
///     R = Y + 2(1−Kr₆₀₁)·Cr′,  B = Y + 2(1−Kb₆₀₁)·Cb′,  G = (Y − Kr₆₀₁·R − Kb₆₀₁·B) / Kg₆₀₁
/// and the contract's formulas applied to that R, G, B give, after the algebra (luma cancels out of chroma):
///     Y′ₜ  = Y + (aCb·Cb′ + aCr·Cr′) / aDen
///     Cb′ₜ = (bCb·Cb′ + bCr·Cr′) / bDen,   Cr′ₜ = (rCb·Cb′ + rCr·Cr′) / rDen
/// with integer coefficients computed here from Kr and Kb (reduced by their common divisor). Then the range
/// mapping and one rounding, half up, as for RGB sources. For BT.601 full range the transform is the
/// identity: the decoder's planes are the 8-bit output.
///
/// Chroma siting (centre; left and top-left are `YCbCrSiting.swift`'s weighted sums through the same exact
/// arithmetic): a 4:2:0 output chroma sample is the mean of the source chroma at its four pixels, each
/// pixel taking the source sample that covers it (nearest, on the JPEG sampling grid): for 4:4:4 the mean
/// of four, for 4:2:2 of two. A 4:2:0 source keeps its samples, filtered horizontally with [1 6 1]/8 — what
/// libjpeg's "fancy" upsampling followed by the 2×2 mean gives along a row — which takes out part of the
/// JPEG's chroma quantisation noise (see the README's quality table); BT.601 full range to 8 bits is the
/// exception: there the decoder's planes are the output, untouched (10 bits filter them too). The luma of a pixel uses the unfiltered source
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

    /// The target's chroma offsets of a sample out of the gamut, each as an exact fraction (numerator,
    /// denominator > 0) of a code value before the range's scaling: `ySum`, `cbSum`, `crSum` are the source's Y
    /// and C′ = C − 128 summed under weights totalling `weight`. Its R, G, B (JFIF's BT.601, full range) are
    /// found exactly, in units of 1/(weight·S·Kg₆₀₁) — R = Y + 2(1−Kr)·Cr′, B = Y + 2(1−Kb)·Cb′,
    /// G = Y − (2Kr(1−Kr)·Cr′ + 2Kb(1−Kb)·Cb′)/Kg — and when all three lie in 0…255 the answer is nil (the
    /// caller's sums stand). Otherwise each is clamped to 0…255 and the target's C′ of that RGB is returned:
    /// C′ₜ = (S·B − (Kr·R + Kg·G + Kb·B)) / (2(S − Kb)) for Cb, R and Kr for Cr (`YCbCrSiting.swift`, "The gamut").
    @inline(__always)
    public func gamutClamped(ySum: Int, cbSum: Int, crSum: Int, weight: Int)
        -> (cb: (Int128, Int128), cr: (Int128, Int128))? {
        // The common case inlined: in the gamut, nothing to return (the clamp below is rare and large).
        let rgb = Self.sourceRGB(ySum: ySum, cbSum: cbSum, crSum: crSum, weight: weight)
        if (0...rgb.top).contains(rgb.r) && (0...rgb.top).contains(rgb.g) && (0...rgb.top).contains(rgb.b) { return nil }
        return clamped(rgb)
    }

    /// The source's R, G, B of `gamutClamped` in units of 1/(weight·S·Kg₆₀₁), and 255 in those units (`top`).
    /// Below 2^41 each: |ySum| ≤ 255·16, |C′ sums| ≤ 128·16.
    @inline(__always)
    static func sourceRGB(ySum: Int, cbSum: Int, crSum: Int, weight: Int) -> (r: Int64, g: Int64, b: Int64, top: Int64) {
        let s = Int64(ColorMatrix.scale)
        let krs = Int64(ColorMatrix.bt601.kr), kbs = Int64(ColorMatrix.bt601.kb), kgs = s - krs - kbs
        let y = Int64(ySum) * s * kgs, b = Int64(cbSum), r = Int64(crSum)
        return (y + kgs * 2 * (s - krs) * r, y - 2 * krs * (s - krs) * r - 2 * kbs * (s - kbs) * b,
                y + kgs * 2 * (s - kbs) * b, 255 * Int64(weight) * s * kgs)
    }

    /// The target's chroma offsets of `rgb` (`sourceRGB`) clamped to 0…255.
    @inline(never)
    func clamped(_ rgb: (r: Int64, g: Int64, b: Int64, top: Int64)) -> (cb: (Int128, Int128), cr: (Int128, Int128)) {
        let top = rgb.top
        let (rc, gc, bc) = (Int128(min(max(rgb.r, 0), top)), Int128(min(max(rgb.g, 0), top)), Int128(min(max(rgb.b, 0), top)))
        let m = target.matrix, s = Int128(ColorMatrix.scale), unit = Int128(top / 255)
        let yt = Int128(m.kr) * rc + Int128(m.kg) * gc + Int128(m.kb) * bc     // S·Yₜ
        return ((s * bc - yt, 2 * (s - Int128(m.kb)) * unit), (s * rc - yt, 2 * (s - Int128(m.kr)) * unit))
    }

    /// ⌊offset + (num/den)·span/255 + ½⌋, clamped to 0…top: an output chroma value of an exact target offset.
    @inline(__always)
    static func scaledChroma(_ c: (Int128, Int128), offset: Int128, span: Int128, top: Int128) -> Int128 {
        let (num, den) = c
        return min(max(floorDiv(2 * offset * 255 * den + 2 * span * num + 255 * den, 2 * 255 * den), 0), top)
    }

    /// An 8-bit output chroma value of an exact target offset (`gamutClamped`).
    @inline(__always)
    public func chroma8(_ c: (Int128, Int128)) -> UInt8 {
        UInt8(Self.scaledChroma(c, offset: 128, span: target.range == .full ? 255 : 224, top: 255))
    }

    /// `chroma(cbSum:crSum:count:)` for one count, for hot loops. Each value is ⌊N/den⌋ with
    /// N = c0 + wb·ΣCb′ + wr·ΣCr′ — separable into two parts whose exact floor quotients and remainders are
    /// tabulated once per ΣCb′ and per ΣCr′: ⌊N/den⌋ = qb + qr + (rb + rr ≥ den ? 1 : 0). Two lookups, an
    /// add and a compare, exact.
    public struct ChromaPlan: Sendable {
        public let limit: Int
        public let den: (Int64, Int64)
        /// One flat table: for plane p (0 Cb, 1 Cr) and part k (0 qb, 1 rb, 2 qr, 3 rr), entry s + limit at
        /// (4p + k)·n + s + limit, n = 2·limit + 1.
        public let table: [Int64]

        init(c0: (Int64, Int64), wb: (Int64, Int64), wr: (Int64, Int64), den: (Int64, Int64), limit: Int) {
            self.limit = limit
            self.den = den
            func split(_ n: Int64, _ d: Int64) -> (Int64, Int64) {
                var q = n / d, r = n % d
                if r < 0 { q -= 1; r += d }
                return (q, r)
            }
            var t: [Int64] = []
            for (c, b, r, d) in [(c0.0, wb.0, wr.0, den.0), (c0.1, wb.1, wr.1, den.1)] {
                let bs = (-limit...limit).map { split(c + b * Int64($0), d) }
                let rs = (-limit...limit).map { split(r * Int64($0), d) }
                t += bs.map(\.0) + bs.map(\.1) + rs.map(\.0) + rs.map(\.1)
            }
            table = t
        }

        /// One value from the table (`t` is `table`'s storage; `b`, `r` already offset by `limit`).
        @inline(__always)
        public static func value(_ t: UnsafePointer<Int64>, n: Int, plane: Int, b: Int, r: Int, den: Int64) -> UInt8 {
            let base = t + 4 * plane * n
            let q = base[b] + base[2 * n + r] + (base[n + b] + base[3 * n + r] >= den ? 1 : 0)
            return UInt8(truncatingIfNeeded: min(max(q, 0), 255))
        }

        public func apply(cbSum: Int, crSum: Int) -> (cb: UInt8, cr: UInt8) {
            precondition(abs(cbSum) <= limit && abs(crSum) <= limit)
            let n = 2 * limit + 1, b = cbSum + limit, r = crSum + limit
            return table.withUnsafeBufferPointer { t in
                (Self.value(t.baseAddress!, n: n, plane: 0, b: b, r: r, den: den.0),
                 Self.value(t.baseAddress!, n: n, plane: 1, b: b, r: r, den: den.1))
            }
        }
    }

    /// The plan for sums of `count` offsets (|Σ| ≤ 128·count).
    public func chromaPlan(count: Int) -> ChromaPlan {
        let span: Int64 = target.range == .full ? 255 : 224
        let k = Int64(count)
        // As in chroma(): N = (2·128 + 1)·255·k·d + 2·span·(p·ΣCb′ + q·ΣCr′), den = 2·255·k·d.
        return ChromaPlan(c0: (257 * 255 * k * bDen, 257 * 255 * k * rDen), wb: (2 * span * bCb, 2 * span * rCb),
                          wr: (2 * span * bCr, 2 * span * rCr), den: (2 * 255 * k * bDen, 2 * 255 * k * rDen),
                          limit: 128 * count)
    }

    /// Output Cb and Cr of a 4:2:0 sample whose source chroma offsets are the weighted means
    /// ΣCb′/`count` and ΣCr′/`count` (count 4: the mean over its four pixels; 8: the horizontal
    /// [1 6 1]/8 filter of a 4:2:0 source, or left siting). Exact for |ΣC′| ≤ 128·count, count ≤ 8 (top-left
    /// siting's 16 goes through `chromaPlan`, whose Int64 tables hold it: the Double here would not, for BT.2020).
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
