/// Explicit-SIMD rows for 4-byte pixels (R,G,B,X in memory). Eight pixels are one `SIMD8<UInt32>`
/// (R in the low byte), so channels come out with a mask and a shift — no byte shuffles. Every value is the
/// contract's exact one: full-range luma in Float and the rest through `DoublePlane`, each with a proven
/// margin (see the types below), checked against the scalar references exhaustively for luma and over the
/// whole block-sum space for chroma (`make prove`).
/// The row tail goes through the same code on a padded copy (libyuv's `_Any_` rows), so results never
/// depend on the width.
public enum SIMDKernels {
    /// Full-range luma in single precision, exact: n = Kr·R + Kg·G + Kb·B is an integer below 2^22, so
    /// m = n + S/2 + ½ is exact in a Float (its unit in the last place is at most ½ there), and
    /// Y = ⌊(n + S/2)/S⌋ = ⌊m/S⌋, where m/S lies at least ½/S = 5·10⁻⁵ from every whole number.
    /// The Float product m·(1/S) errs by less than 256·2⁻²³ ≈ 3·10⁻⁵, so it rounds down to the same
    /// whole number. The exhaustive 2^24 test checks it for every matrix.
    @usableFromInline
    struct FloatLuma {
        let kr, kg, kb, inv, bias: SIMD8<Float>

        @inline(__always)
        init(_ spec: ConversionSpec) {
            let s = Float(ColorMatrix.scale)
            kr = SIMD8(repeating: Float(spec.matrix.kr)); kg = SIMD8(repeating: Float(spec.matrix.kg))
            kb = SIMD8(repeating: Float(spec.matrix.kb)); inv = SIMD8(repeating: 1 / s)
            bias = SIMD8(repeating: s / 2 + 0.5)
        }

        @inline(__always)
        func apply(_ v: SIMD8<UInt32>) -> SIMD8<UInt32> {
            let byte = SIMD8<UInt32>(repeating: 0xFF)
            let r = toFloat(v & byte), g = toFloat((v &>> 8) & byte), b = toFloat((v &>> 16) & byte)
            let m = r * kr + g * kg + b * kb + bias
            // ⌊x⌋ as round-to-nearest(x − ½) after adding 2^23, where Float's unit in the last place is 1.
            let y = m * inv + SIMD8(repeating: 8_388_607.5)
            return pointwiseMin(unsafeBitCast(y, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0x7F_FFFF), SIMD8(repeating: 255))
        }
    }

    /// A plane computed in double precision from a numerator that is exact in a Float:
    ///     value = ⌊c·t + base⌋, t = wr·r + wg·g + wb·b (|t| < 2^24, exact as Float),
    /// where the exact value's fraction is 0 (a tie) or at least `gap` from the next whole number. Adding
    /// δ = gap/2 keeps each value on its side; the Double error (about 256 · 2⁻⁵²) is far below δ.
    /// Chroma: t = cbn (or crn), c = 1/(8(S−K)) full, 28/(255(S−K)) limited, base 128.5, gap 1/(16(S−K)) or
    /// 1/(510(S−K)). Limited luma: t = Kr·R + Kg·G + Kb·B, c = 219/(255·S), base 16.5, gap 1/(255·S).
    @usableFromInline
    struct DoublePlane {
        let wr, wg, wb: SIMD8<Float>
        let c, base: SIMD8<Double>

        init(wr: Int, wg: Int, wb: Int, scale: Double, base: Double, gap: Double) {
            self.wr = SIMD8(repeating: Float(wr)); self.wg = SIMD8(repeating: Float(wg))
            self.wb = SIMD8(repeating: Float(wb))
            c = SIMD8(repeating: scale)
            // ⌊v⌋ as round-to-nearest(v − ½) after adding 2^52 (Double's unit in the last place is then 1).
            self.base = SIMD8(repeating: base + gap / 2)
        }

        @inline(__always)
        func apply(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<UInt32> {
            let t = r * wr + g * wg + b * wb
            let td = SIMD8<Double>(Double(t[0]), Double(t[1]), Double(t[2]), Double(t[3]),
                                   Double(t[4]), Double(t[5]), Double(t[6]), Double(t[7]))
            let v = td * c + base
            let bits = unsafeBitCast(v + SIMD8(repeating: 4_503_599_627_370_495.5), to: SIMD8<UInt64>.self)
            let q = SIMD8<UInt32>(UInt32(truncatingIfNeeded: bits[0]), UInt32(truncatingIfNeeded: bits[1]),
                                  UInt32(truncatingIfNeeded: bits[2]), UInt32(truncatingIfNeeded: bits[3]),
                                  UInt32(truncatingIfNeeded: bits[4]), UInt32(truncatingIfNeeded: bits[5]),
                                  UInt32(truncatingIfNeeded: bits[6]), UInt32(truncatingIfNeeded: bits[7]))
            return pointwiseMin(q, SIMD8(repeating: 255))
        }

        /// Cb (u: true) or Cr of a conversion, on 2×2 block sums.
        static func chroma(_ spec: ConversionSpec, u: Bool) -> DoublePlane {
            let s = ColorMatrix.scale, m = spec.matrix
            let k = u ? m.kb : m.kr
            let (wr, wg, wb) = u ? (-m.kr, -m.kg, s - m.kb) : (s - m.kr, -m.kg, -m.kb)
            let full = spec.range == .full
            return DoublePlane(wr: wr, wg: wg, wb: wb,
                               scale: full ? 1 / Double(8 * (s - k)) : 28 / Double(255 * (s - k)),
                               base: 128.5, gap: full ? 1 / Double(16 * (s - k)) : 1 / Double(510 * (s - k)))
        }

        static func limitedLuma(_ spec: ConversionSpec) -> DoublePlane {
            let s = ColorMatrix.scale, m = spec.matrix
            return DoublePlane(wr: m.kr, wg: m.kg, wb: m.kb, scale: 219 / Double(255 * s), base: 16.5,
                               gap: 1 / Double(255 * s))
        }
    }

    /// Limited-range luma of eight RGBX pixels through `DoublePlane`.
    @usableFromInline
    struct LimitedLuma {
        let plane: DoublePlane

        @inline(__always)
        func luma(_ v: SIMD8<UInt32>) -> SIMD8<UInt32> {
            let m = SIMD8<UInt32>(repeating: 0xFF)
            return plane.apply(toFloat(v & m), toFloat((v &>> 8) & m), toFloat((v &>> 16) & m))
        }
    }

    /// Eight small integers (below 2^23) to Float exactly: 2^23 + n has n in its low mantissa bits.
    @inline(__always)
    static func toFloat(_ v: SIMD8<UInt32>) -> SIMD8<Float> {
        unsafeBitCast(v | SIMD8(repeating: 0x4B00_0000), to: SIMD8<Float>.self) - SIMD8(repeating: 8_388_608)
    }

    @inline(__always)
    static func narrow(_ q: SIMD8<UInt32>) -> SIMD8<UInt8> {
        SIMD8<UInt8>(UInt8(truncatingIfNeeded: q[0]), UInt8(truncatingIfNeeded: q[1]),
                     UInt8(truncatingIfNeeded: q[2]), UInt8(truncatingIfNeeded: q[3]),
                     UInt8(truncatingIfNeeded: q[4]), UInt8(truncatingIfNeeded: q[5]),
                     UInt8(truncatingIfNeeded: q[6]), UInt8(truncatingIfNeeded: q[7]))
    }

    /// Lanes 0,2,4,6 of `a` then of `b`, and lanes 1,3,5,7: the two pixels of each horizontal pair.
    @inline(__always)
    static func evens(_ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<UInt32> {
        SIMD8(a[0], a[2], a[4], a[6], b[0], b[2], b[4], b[6])
    }

    @inline(__always)
    static func odds(_ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<UInt32> {
        SIMD8(a[1], a[3], a[5], a[7], b[1], b[3], b[5], b[7])
    }


    /// Two rows of RGBX → two rows of Y and one row each of U and V (⌈width/2⌉), in one pass over the
    /// source: every pixel is loaded once. For an odd last row pass the same row twice and `y1 = nil`.
    public static func rgbaToYUVRowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                        _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                        _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>,
                                        _ width: Int, _ k: KernelConstants) {
        let ku = DoublePlane.chroma(k.spec, u: true), kv = DoublePlane.chroma(k.spec, u: false)
        let fy: FloatLuma? = k.spec.range == .full ? FloatLuma(k.spec) : nil
        let ly = DoublePlane.limitedLuma(k.spec)
        let ky = LimitedLuma(plane: ly)
        let whole = width & ~15
        if let fy {
            body(UnsafeRawPointer(src0), UnsafeRawPointer(src1), y0, y1, u, v, 0, whole, { fy.apply($0) }, ku, kv)
        } else {
            body(UnsafeRawPointer(src0), UnsafeRawPointer(src1), y0, y1, u, v, 0, whole, { ky.luma($0) }, ku, kv)
        }
        if whole == width { return }
        // The tail: copy into 16-pixel buffers (the last pixel replicated), run the same code, copy out.
        let rest = width - whole
        var t0 = (SIMD16<UInt32>(), SIMD16<UInt32>()), tY0 = SIMD16<UInt8>(), tY1 = SIMD16<UInt8>()
        var tU = SIMD8<UInt8>(), tV = SIMD8<UInt8>()
        withUnsafeMutableBytes(of: &t0) { t in
            let a = t.baseAddress!, b = t.baseAddress! + 64
            for i in 0..<16 {
                let x = whole + min(i, rest - 1)
                a.storeBytes(of: UnsafeRawPointer(src0).loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self),
                             toByteOffset: 4 * i, as: UInt32.self)
                b.storeBytes(of: UnsafeRawPointer(src1).loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self),
                             toByteOffset: 4 * i, as: UInt32.self)
            }
            withUnsafeMutableBytes(of: &tY0) { py0 in
                withUnsafeMutableBytes(of: &tY1) { py1 in
                    withUnsafeMutableBytes(of: &tU) { pu in
                        withUnsafeMutableBytes(of: &tV) { pv in
                            let o0 = py0.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            let o1 = py1.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            let ou = pu.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            let ov = pv.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            if let fy {
                                body(UnsafeRawPointer(a), UnsafeRawPointer(b), o0, o1, ou, ov, 0, 16, { fy.apply($0) }, ku, kv)
                            } else {
                                body(UnsafeRawPointer(a), UnsafeRawPointer(b), o0, o1, ou, ov, 0, 16, { ky.luma($0) }, ku, kv)
                            }
                            for i in 0..<rest {
                                y0[whole + i] = o0[i]
                                y1?[whole + i] = o1[i]
                            }
                            for i in 0..<((rest + 1) / 2) {
                                u[whole / 2 + i] = ou[i]
                                v[whole / 2 + i] = ov[i]
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    static func body(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ y0: UnsafeMutablePointer<UInt8>,
                     _ y1: UnsafeMutablePointer<UInt8>?, _ u: UnsafeMutablePointer<UInt8>,
                     _ v: UnsafeMutablePointer<UInt8>, _ from: Int, _ to: Int,
                     _ luma: (SIMD8<UInt32>) -> SIMD8<UInt32>, _ ku: DoublePlane, _ kv: DoublePlane) {
        let m = SIMD8<UInt32>(repeating: 0xFF)
        var x = from
        while x < to {
            let a0 = s0.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<UInt32>.self)
            let b0 = s0.loadUnaligned(fromByteOffset: 4 * x + 32, as: SIMD8<UInt32>.self)
            let a1 = s1.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<UInt32>.self)
            let b1 = s1.loadUnaligned(fromByteOffset: 4 * x + 32, as: SIMD8<UInt32>.self)
            let yRow0 = UnsafeMutableRawPointer(y0 + x)
            yRow0.storeBytes(of: narrow(luma(a0)), as: SIMD8<UInt8>.self)
            (yRow0 + 8).storeBytes(of: narrow(luma(b0)), as: SIMD8<UInt8>.self)
            if let y1 {
                let yRow1 = UnsafeMutableRawPointer(y1 + x)
                yRow1.storeBytes(of: narrow(luma(a1)), as: SIMD8<UInt8>.self)
                (yRow1 + 8).storeBytes(of: narrow(luma(b1)), as: SIMD8<UInt8>.self)
            }
            // Vertical sums of R|B and G in 16-bit fields (at most 510), then the horizontal pairs.
            let fields = SIMD8<UInt32>(repeating: 0x00FF_00FF)
            let rbA = (a0 & fields) &+ (a1 & fields), rbB = (b0 & fields) &+ (b1 & fields)
            let gA = ((a0 &>> 8) & m) &+ ((a1 &>> 8) & m), gB = ((b0 &>> 8) & m) &+ ((b1 &>> 8) & m)
            let rb = evens(rbA, rbB) &+ odds(rbA, rbB)
            let g = evens(gA, gB) &+ odds(gA, gB)
            let r = toFloat(rb & SIMD8(repeating: 0xFFFF)), b = toFloat(rb &>> 16), gf = toFloat(g)
            let c = x / 2
            UnsafeMutableRawPointer(u + c).storeBytes(of: narrow(ku.apply(r, gf, b)), as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(v + c).storeBytes(of: narrow(kv.apply(r, gf, b)), as: SIMD8<UInt8>.self)
            x += 16
        }
    }
}
