/// The conversion contract (CONVENTIONS §1) in exact integer arithmetic, one pixel or one 2×2 block at a
/// time. This is the project's own reference: every fast kernel is tested against it, and it is tested
/// against `yuvref.py`'s output (golden hashes over all 2^24 luma values and over real images).
///
/// `maxValue` is the largest code value of the source: 255 for 8-bit samples, 65535 for 16-bit ones
/// (the scaling then maps 65535 → 255 with a single rounding at the end).
public enum ExactReference {
    /// ⌊num/den + ½⌋ for den > 0 (round half up), on exact integers.
    @inlinable
    static func roundHalfUp(_ num: Int64, _ den: Int64) -> Int64 {
        let twice = 2 * num + den
        let d = 2 * den
        // Floor division (Swift's / truncates toward zero).
        return twice >= 0 ? twice / d : -((-twice + d - 1) / d)
    }

    @inlinable
    static func clamp8(_ v: Int64) -> UInt8 { UInt8(min(max(v, 0), 255)) }

    /// Y of one pixel.
    @inlinable
    public static func luma(r: Int, g: Int, b: Int, maxValue m: Int = 255, spec: ConversionSpec) -> UInt8 {
        let s = Int64(ColorMatrix.scale), mm = Int64(m)
        let ysum = Int64(spec.matrix.kr) * Int64(r) + Int64(spec.matrix.kg) * Int64(g) + Int64(spec.matrix.kb) * Int64(b)
        switch spec.range {
        case .full: return clamp8(roundHalfUp(ysum * 255, s * mm))
        case .limited: return clamp8(roundHalfUp(16 * s * mm + ysum * 219, s * mm))
        }
    }

    /// Cb and Cr of one 2×2 block, given the sums of R, G and B over its four pixels (with the last column
    /// or row replicated at odd edges, so always four terms).
    @inlinable
    public static func chroma(rSum: Int, gSum: Int, bSum: Int, maxValue m: Int = 255,
                              spec: ConversionSpec) -> (cb: UInt8, cr: UInt8) {
        let s = Int64(ColorMatrix.scale), mm = Int64(m)
        let kr = Int64(spec.matrix.kr), kg = Int64(spec.matrix.kg), kb = Int64(spec.matrix.kb)
        let rs = Int64(rSum), gs = Int64(gSum), bs = Int64(bSum)
        let ysum = kr * rs + kg * gs + kb * bs       // Σ Y′ · S over the block
        let cbn = s * bs - ysum                       // 4 · (B − Y′) · S summed, i.e. Cb′ = cbn / cbd
        let crn = s * rs - ysum
        let cbd = 4 * 2 * (s - kb)
        let crd = 4 * 2 * (s - kr)
        let span: Int64 = spec.range == .full ? 255 : 224   // C = 128 + C′ · span / M
        let cb = roundHalfUp(128 * cbd * mm + cbn * span, cbd * mm)
        let cr = roundHalfUp(128 * crd * mm + crn * span, crd * mm)
        return (clamp8(cb), clamp8(cr))
    }
}
