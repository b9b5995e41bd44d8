/// The exact inverse of a conversion, for looking at one (PNG output) — the reference for it:
///
///     Y′ = (Y − o)·255/ys,  Cb′ = (Cb − 128)·255/cs,  Cr′ = (Cr − 128)·255/cs
///     (full range: o = 0, ys = cs = 255; limited: o = 16, ys = 219, cs = 224)
///     R = Y′ + 2(1−Kr)·Cr′,  B = Y′ + 2(1−Kb)·Cb′,  G = (Y′ − Kr·R − Kb·B) / Kg
///
/// in exact integer arithmetic, each rounded half up and clamped to 0…255. A pixel takes the 4:2:0 chroma
/// sample that covers it (nearest; no interpolation), so a flat 2×2 block comes back flat.
public struct YUVToRGB: Sendable {
    public let spec: ConversionSpec
    // R = (fy·a·ky + wRc·c) / den, B = (fy·a·ky + wBb·b) / den, G = (gy·a + gB·b + gC·c) / den, all over den.
    let den: Int64, ky: Int64, wRc: Int64, wBb: Int64, gY: Int64, gB: Int64, gC: Int64, yo: Int64

    public init(spec: ConversionSpec) {
        self.spec = spec
        let s = Int64(ColorMatrix.scale)
        let kr = Int64(spec.matrix.kr), kb = Int64(spec.matrix.kb), kg = Int64(spec.matrix.kg)
        let full = spec.range == .full
        let ys: Int64 = full ? 255 : 219, cs: Int64 = full ? 255 : 224
        yo = full ? 0 : 16
        // Everything over den = S·Kg·ys·cs:
        //   Y′ = a·255/ys           → a · 255·S·Kg·cs
        //   2(1−Kr)·Cr′ = 2(S−Kr)/S · c·255/cs → c · 2(S−Kr)·255·Kg·ys
        den = s * kg * ys * cs
        ky = 255 * s * kg * cs
        wRc = 2 * (s - kr) * 255 * kg * ys
        wBb = 2 * (s - kb) * 255 * kg * ys
        // G·den = Y′·den − (Kr·(R−Y′) + Kb·(B−Y′))·den/Kg  (since Kr + Kg + Kb = S)
        gY = ky
        gC = -kr * 2 * (s - kr) * 255 * ys
        gB = -kb * 2 * (s - kb) * 255 * ys
    }

    @inline(__always)
    func round(_ n: Int64) -> UInt8 {
        let t = 2 * n + den, d = 2 * den
        let q = t >= 0 ? t / d : -((-t + d - 1) / d)
        return UInt8(min(max(q, 0), 255))
    }

    /// R, G, B of one pixel.
    @inline(__always)
    public func rgb(y: UInt8, cb: UInt8, cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let a = Int64(y) - yo, b = Int64(cb) - 128, c = Int64(cr) - 128
        let yy = a * ky
        return (round(yy + wRc * c), round(a * gY + gB * b + gC * c), round(yy + wBb * b))
    }

    /// Rows `first ..< first + count` of a picture held in `targets` (planar U and V) to R,G,B rows.
    public func convertRows(_ t: PlaneTargets, first: Int, count: Int, into dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        for r in 0..<count {
            let yRow = t.lumaRow(first + r)
            let (uRow, vRow) = t.chromaRows((first + r) / 2)
            let out = dst + r * stride
            for x in 0..<t.width {
                let p = rgb(y: yRow[x], cb: uRow[x / 2], cr: vRow[x / 2])
                out[3 * x] = p.0
                out[3 * x + 1] = p.1
                out[3 * x + 2] = p.2
            }
        }
    }
}
