/// The exact inverse of a conversion, for looking at one (PNG output) — the reference for it:
///
///     Y′ = (Y − o)·top/ys,  Cb′ = (Cb − m)·top/cs,  Cr′ = (Cr − m)·top/cs
///     R = Y′ + 2(1−Kr)·Cr′,  B = Y′ + 2(1−Kb)·Cb′,  G = (Y′ − Kr·R − Kb·B) / Kg
///
/// with the samples' scaling (8-bit: full o = 0, ys = cs = 255, m = 128; limited o = 16, ys = 219, cs = 224;
/// 10-bit, the contract's BT.2100 scaling: full o = 0, ys = cs = 1023, m = 512; limited o = 64, ys = 876,
/// cs = 896) and the RGB's (top = 255 for an 8-bit PNG, 65535 for a 16-bit one), in exact integer arithmetic,
/// each rounded half up and clamped to 0…top: one rounding, whatever the depths. A pixel takes the 4:2:0
/// chroma sample that covers it (nearest; no interpolation), so a flat 2×2 block comes back flat.
public struct YUVToRGB: Sendable {
    public let spec: ConversionSpec
    /// Bits of the YUV samples (8 or 10) and of the RGB drawn (8 or 16).
    public let inputDepth: Int, outputDepth: Int
    // R = (a·ky + wRc·c) / den, B = (a·ky + wBb·b) / den, G = (gY·a + gB·b + gC·c) / den, all over den, divided
    // by their greatest common divisor (every product then stays below 2^56: `init` checks it).
    let den: Int64, ky: Int64, wRc: Int64, wBb: Int64, gY: Int64, gB: Int64, gC: Int64
    let yo: Int64, mid: Int64, top: Int64

    public init(spec: ConversionSpec, inputDepth: Int = 8, outputDepth: Int = 8) {
        precondition((inputDepth == 8 || inputDepth == 10) && (outputDepth == 8 || outputDepth == 16))
        self.spec = spec
        self.inputDepth = inputDepth
        self.outputDepth = outputDepth
        let s = Int64(ColorMatrix.scale)
        let kr = Int64(spec.matrix.kr), kb = Int64(spec.matrix.kb), kg = Int64(spec.matrix.kg)
        let full = spec.range == .full, deep = inputDepth == 10
        let ys: Int64 = deep ? (full ? 1023 : 876) : (full ? 255 : 219)
        let cs: Int64 = deep ? (full ? 1023 : 896) : (full ? 255 : 224)
        yo = full ? 0 : (deep ? 64 : 16)
        mid = deep ? 512 : 128
        top = outputDepth == 16 ? 65535 : 255
        // Everything over S·Kg·ys·cs:
        //   Y′ = a·top/ys                       → a · top·S·Kg·cs
        //   2(1−Kr)·Cr′ = 2(S−Kr)/S · c·top/cs  → c · 2(S−Kr)·top·Kg·ys
        //   G·den = Y′·den − (Kr·(R−Y′) + Kb·(B−Y′))·den/Kg  (since Kr + Kg + Kb = S)
        let terms = [s * kg * ys * cs, top * s * kg * cs, 2 * (s - kr) * top * kg * ys, 2 * (s - kb) * top * kg * ys,
                     -kr * 2 * (s - kr) * top * ys, -kb * 2 * (s - kb) * top * ys]
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? abs(a) : gcd(b, a % b) }
        let g = terms.reduce(0, gcd)
        den = terms[0] / g
        ky = terms[1] / g
        wRc = terms[2] / g
        wBb = terms[3] / g
        gY = ky
        gC = terms[4] / g
        gB = terms[5] / g
        // The largest numerator (a sample at its top, chroma at either end), doubled with den added, in 62 bits.
        let a = Int64(1 << inputDepth), c = mid
        precondition(2 * (a * ky + c * max(wRc, wBb, abs(gB) + abs(gC))) + 2 * den < 1 << 62)
    }

    @inline(__always)
    func round(_ n: Int64) -> Int64 {
        let t = 2 * n + den, d = 2 * den
        let q = t >= 0 ? t / d : -((-t + d - 1) / d)
        return min(max(q, 0), top)
    }

    /// R, G, B of one pixel of samples `y`, `cb`, `cr` (0…2^inputDepth − 1), each 0…2^outputDepth − 1.
    @inline(__always)
    public func rgb(_ y: Int, _ cb: Int, _ cr: Int) -> (Int, Int, Int) {
        let a = Int64(y) - yo, b = Int64(cb) - mid, c = Int64(cr) - mid
        let yy = a * ky
        return (Int(round(yy + wRc * c)), Int(round(a * gY + gB * b + gC * c)), Int(round(yy + wBb * b)))
    }

    /// R, G, B of one pixel, 8-bit samples to 8-bit RGB.
    @inline(__always)
    public func rgb(y: UInt8, cb: UInt8, cr: UInt8) -> (UInt8, UInt8, UInt8) {
        precondition(inputDepth == 8 && outputDepth == 8)
        let p = rgb(Int(y), Int(cb), Int(cr))
        return (UInt8(p.0), UInt8(p.1), UInt8(p.2))
    }

    /// Rows `first ..< first + count` of an 8-bit picture held in `targets` (planar U and V) to 8-bit R,G,B rows.
    public func convertRows(_ t: PlaneTargets, first: Int, count: Int, into dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        precondition(inputDepth == 8 && outputDepth == 8)
        for r in 0..<count {
            let yRow = t.lumaRow(first + r)
            let (uRow, vRow) = t.chromaRows((first + r) / 2)
            let out = dst + r * stride
            for x in 0..<t.width {
                let p = rgb(Int(yRow[x]), Int(uRow[x / 2]), Int(vRow[x / 2]))
                out[3 * x] = UInt8(truncatingIfNeeded: p.0)
                out[3 * x + 1] = UInt8(truncatingIfNeeded: p.1)
                out[3 * x + 2] = UInt8(truncatingIfNeeded: p.2)
            }
        }
    }

    /// `count` rows of a 10-bit planar picture (yuv420p10le: luma rows of `width` samples from `y`, chroma rows
    /// of ⌈width/2⌉ from `u` and `v`; little-endian words, the first row even) to 16-bit R,G,B rows
    /// (native byte order) `stride` samples apart.
    public func convertDeepRows(width: Int, y: UnsafePointer<UInt16>, u: UnsafePointer<UInt16>, v: UnsafePointer<UInt16>,
                                count: Int, into dst: UnsafeMutablePointer<UInt16>, stride: Int) {
        precondition(inputDepth == 10 && outputDepth == 16)
        let cw = (width + 1) / 2
        for r in 0..<count {
            let yRow = y + r * width, uRow = u + r / 2 * cw, vRow = v + r / 2 * cw
            let out = dst + r * stride
            for x in 0..<width {
                let p = rgb(Int(UInt16(littleEndian: yRow[x])), Int(UInt16(littleEndian: uRow[x / 2])),
                            Int(UInt16(littleEndian: vRow[x / 2])))
                out[3 * x] = UInt16(truncatingIfNeeded: p.0)
                out[3 * x + 1] = UInt16(truncatingIfNeeded: p.1)
                out[3 * x + 2] = UInt16(truncatingIfNeeded: p.2)
            }
        }
    }
}
