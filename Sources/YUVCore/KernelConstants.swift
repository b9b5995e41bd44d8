/// Exact division of a non-negative 32-bit value by a constant, as the fast kernels do it: a multiply-shift
/// estimate that is never too high and at most one too low, then one correction.
///
///     est = ((n >> preShift) · multiplier) >> postShift      (all within 32 bits)
///     q   = est + (n − est·divisor ≥ divisor ? 1 : 0)
///
/// The estimate error is below nMax/2^(post+pre) + 2^pre/divisor, which `init` requires to be < 1.
public struct ConstantDivider: Sendable, Equatable {
    public let divisor: UInt32
    public let preShift: UInt32
    public let multiplier: UInt32
    public let postShift: UInt32

    public init(divisor: UInt32, maxNumerator: UInt64) {
        precondition(divisor > 0 && maxNumerator < (1 << 32))
        let bits = 64 - maxNumerator.leadingZeroBitCount
        let pre = max(0, bits - 16)
        var post = 0
        // The largest post-shift whose multiplier stays within 16 bits, so (n >> pre) · multiplier < 2^32.
        while (UInt64(1) << UInt64(post + 1 + pre)) / UInt64(divisor) <= 0xFFFF { post += 1 }
        let mul = (UInt64(1) << UInt64(post + pre)) / UInt64(divisor)
        let error = Double(maxNumerator) / Double(UInt64(1) << UInt64(post + pre)) + Double(1 << pre) / Double(divisor)
        precondition(error < 1, "estimate not within one for divisor \(divisor)")
        self.divisor = divisor
        self.preShift = UInt32(pre)
        self.multiplier = UInt32(mul)
        self.postShift = UInt32(post)
    }

    /// ⌊n / divisor⌋ for 0 ≤ n ≤ maxNumerator.
    @inline(__always)
    public func divide(_ n: UInt32) -> UInt32 {
        let est = ((n &>> preShift) &* multiplier) &>> postShift
        let rem = n &- est &* divisor
        return est &+ (rem >= divisor ? 1 : 0)
    }
}

/// One output plane as the 8-bit kernels compute it:
///     value = min(⌊(wR·R + wG·G + wB·B + bias) / divisor⌋, 255)
/// with the weights as wrapping 32-bit integers (chroma weights are negative) and the numerator proven
/// to lie in 0 ..< 2^32 for every input. For luma R, G, B are one pixel's samples; for chroma they are
/// the sums over a 2×2 block (0…1020).
public struct PlaneWeights: Sendable, Equatable {
    public let wR: UInt32, wG: UInt32, wB: UInt32, bias: UInt32
    public let divider: ConstantDivider

    init(r: Int, g: Int, b: Int, bias: Int, divisor: Int, inputMax: Int) {
        // The numerator's range over every input, from the signs of the weights.
        let hi = bias + [r, g, b].reduce(0) { $0 + max($1, 0) * inputMax }
        let lo = bias + [r, g, b].reduce(0) { $0 + min($1, 0) * inputMax }
        precondition(lo >= 0 && hi < (1 << 32), "numerator out of 32-bit range")
        wR = UInt32(truncatingIfNeeded: r)
        wG = UInt32(truncatingIfNeeded: g)
        wB = UInt32(truncatingIfNeeded: b)
        self.bias = UInt32(bias)
        divider = ConstantDivider(divisor: UInt32(divisor), maxNumerator: UInt64(hi))
    }

    @inline(__always)
    public func apply(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt8 {
        let n = wR &* r &+ wG &* g &+ wB &* b &+ bias
        return UInt8(truncatingIfNeeded: min(divider.divide(n), 255))
    }
}

/// The integer constants of one conversion for 8-bit sources, derived from the contract:
///
/// - luma, full:     Y = ⌊(Kr·R + Kg·G + Kb·B + S/2) / S⌋                      (S = 10000)
/// - luma, limited:  Y = ⌊(219·(Kr·R + Kg·G + Kb·B) + 16·255·S + 255·S/2) / (255·S)⌋
/// - chroma, with cbn = (S−Kb)·ΣB − Kr·ΣR − Kg·ΣG over the block (so Cb′ = cbn / (8(S−Kb))):
///   full:     Cb = ⌊(2·cbn + 2056·(S−Kb)) / (16·(S−Kb))⌋
///   limited:  Cb = ⌊(56·cbn + 257·255·(S−Kb)) / (2·255·(S−Kb))⌋
///   and Cr likewise with (S−Kr)·ΣR − Kg·ΣG − Kb·ΣB.
/// Each is `⌊C + ½⌋` of the contract's exact rational C, multiplied through by a common denominator.
public struct KernelConstants: Sendable, Equatable {
    public let spec: ConversionSpec
    public let y: PlaneWeights
    public let u: PlaneWeights
    public let v: PlaneWeights

    public init(_ spec: ConversionSpec) {
        self.spec = spec
        let s = ColorMatrix.scale
        let kr = spec.matrix.kr, kg = spec.matrix.kg, kb = spec.matrix.kb
        switch spec.range {
        case .full:
            y = PlaneWeights(r: kr, g: kg, b: kb, bias: s / 2, divisor: s, inputMax: 255)
        case .limited:
            y = PlaneWeights(r: 219 * kr, g: 219 * kg, b: 219 * kb, bias: 16 * 255 * s + 255 * s / 2,
                             divisor: 255 * s, inputMax: 255)
        }
        // a·cbn + bias over divisor, per range (see above).
        let (a, biasScale, divScale) = spec.range == .full ? (2, 2056, 16) : (56, 257 * 255, 2 * 255)
        u = PlaneWeights(r: -a * kr, g: -a * kg, b: a * (s - kb), bias: biasScale * (s - kb),
                         divisor: divScale * (s - kb), inputMax: 1020)
        v = PlaneWeights(r: a * (s - kr), g: -a * kg, b: -a * kb, bias: biasScale * (s - kr),
                         divisor: divScale * (s - kr), inputMax: 1020)
    }
}
