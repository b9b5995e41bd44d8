/// Explicit-SIMD rows for 4-byte pixels (R,G,B,X in memory), libyuv's shape with exact arithmetic.
///
/// Sixteen pixels are one `SIMD16<UInt32>` (R in the low byte); a step takes 32 pixels of each of two rows.
/// Every product is a sample or 2×2 block sum times a weight below 2^15, written so that LLVM emits
/// `vpmaddwd`/`vpdpwssd` (the samples provably fit by a mask, the weights are literals — `dispatch` compiles
/// the loop once per matrix, range and layout); with AVX512-VNNI a pixel's luma sum is two `vpdpbusd` byte dot
/// products (`yc_dot4`, weights split into 7-bit halves). Sums are exact 32-bit integers, and the one division
/// a plane needs is a single fused multiply-add inside a proven margin:
///
/// - full-range luma: Y = ⌊(n + S/2)/S⌋, n = Kr·R + Kg·G + Kb·B, equals round-to-nearest((2n+1)/(2S)) (no
///   ties: 2n+1 is odd), and (2n+1)/(2S) lies at least 1/(2S) = 5·10⁻⁵ from every half-integer, above the
///   Float FMA's error (below 2·10⁻⁵): adding 2^23 in the same FMA leaves the result in the low mantissa bits.
/// - full-range chroma: C = ⌊(t + 1028·D)/(8D)⌋ with t the block's numerator (`KernelConstants`) and D = S−K;
///   = ⌊M/D⌋ with M = ⌊(t + 1028·D)/8⌋ < 2^22, whose fraction is 0 or at least 1/D from a whole number;
///   ⌊M/D⌋ = round((2M+1)/(2D) − ½) with a margin of 1/(2D) ≥ 5·10⁻⁵, again above the Float error.
/// - limited range (luma and chroma): the value is whole or at least 1/(255·S) (luma), 1/(510·D) (chroma)
///   from a whole number — too close for Float — so it is one `Double` FMA (error ~10⁻¹³) with half that gap
///   added (`floorDouble`).
///
/// The rows are checked against the scalar references over all 2^24 luma values and (`make prove`) all
/// 1021³ block sums for every matrix and range. The row tail goes through the same code on a padded copy
/// (libyuv's `_Any_` rows), so results never depend on the width.
import CSIMD

public enum SIMDKernels {
    @usableFromInline typealias U32 = SIMD16<UInt32>
    @usableFromInline typealias I32 = SIMD16<Int32>
    @usableFromInline typealias F32 = SIMD16<Float>

    /// Two rows of RGBX → two rows of Y and one row each of U and V (⌈width/2⌉), in one pass over the
    /// source: every pixel is loaded once. For an odd last row pass the same row twice and `y1 = nil`.
    public static func rgbaToYUVRowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                        _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                        _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>,
                                        _ width: Int, _ k: KernelConstants) {
        rowPair(src0, src1, y0, y1, .planar(u, v), width, k.spec)
    }

    /// The same with U and V interleaved into one row of 2·⌈width/2⌉ bytes (NV12's UV plane).
    public static func rgbaToNV12RowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                         _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                         _ uv: UnsafeMutablePointer<UInt8>, _ width: Int, _ k: KernelConstants) {
        rowPair(src0, src1, y0, y1, .interleaved(uv), width, k.spec)
    }

    /// Where a row pair's chroma goes.
    public enum ChromaOut {
        case planar(UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)
        case interleaved(UnsafeMutablePointer<UInt8>)

        /// U and V rows, or the interleaved row: what a loop body takes.
        var rows: (u: UnsafeMutablePointer<UInt8>?, v: UnsafeMutablePointer<UInt8>?, uv: UnsafeMutablePointer<UInt8>?) {
            switch self {
            case .planar(let u, let v): return (u, v, nil)
            case .interleaved(let uv): return (nil, nil, uv)
            }
        }
    }

    /// The row pair with a prepared plan (what the drivers call).
    public static func rowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                               _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                               _ chroma: ChromaOut, _ width: Int, _ spec: ConversionSpec) {
        let whole = width & ~(step - 1)
        let (u, v, uv) = chroma.rows
        dispatch(UnsafeRawPointer(src0), UnsafeRawPointer(src1), y0, y1, u, v, uv, whole, spec)
        if whole == width { return }
        // The tail: the same code on padded copies (the last pixel repeated).
        let rest = width - whole, c0 = whole / 2, cw = (rest + 1) / 2
        let out = [PaddedTail.Output(y0 + whole, bytes: rest, capacity: step),
                   PaddedTail.Output(y1.map { $0 + whole }, bytes: rest, capacity: step),
                   PaddedTail.Output(u.map { $0 + c0 }, bytes: cw, capacity: step / 2),
                   PaddedTail.Output(v.map { $0 + c0 }, bytes: cw, capacity: step / 2),
                   PaddedTail.Output(uv.map { $0 + 2 * c0 }, bytes: 2 * cw, capacity: step)]
        PaddedTail.run(step: step, inputs: [PaddedTail.Input(src0 + 4 * whole, elementBytes: 4, count: rest),
                                            PaddedTail.Input(src1 + 4 * whole, elementBytes: 4, count: rest)],
                       outputs: out) { a, o in
            func bytes(_ p: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<UInt8>? { p?.assumingMemoryBound(to: UInt8.self) }
            dispatch(a[0], a[1], bytes(o[0])!, bytes(o[1]), bytes(o[2]), bytes(o[3]), bytes(o[4]), step, spec)
        }
    }

    /// How far ahead of the loads the loop asks for source lines (bytes; 1024 pixels). A single core's
    /// hardware prefetch leaves the two 16 KB-apart row streams latency-bound; measured with `make bench`
    /// here: 512 → 2048 → 4096 bytes ahead gave 2.28 → 2.36 → 2.4 Gpx/s on the 12 MP frame (none: 1.8).
    static let prefetchAhead = 4096
    /// Pixels per row per loop step.
    static let step = 32

    /// One loop per matrix, range and chroma shape, each with its constants folded in (`body` is inlined
    /// twelve times: literal weights are what lets LLVM prove the products 16-bit and use `vpmaddwd`).
    @inline(never)
    static func dispatch(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ y0: UnsafeMutablePointer<UInt8>,
                         _ y1: UnsafeMutablePointer<UInt8>?, _ u: UnsafeMutablePointer<UInt8>?,
                         _ v: UnsafeMutablePointer<UInt8>?, _ uv: UnsafeMutablePointer<UInt8>?, _ count: Int,
                         _ spec: ConversionSpec) {
        if count == 0 { return }
        switch (spec.matrix, spec.range, uv != nil) {
        case (.bt601, .full, true): body(s0, s1, y0, y1, u, v, uv, count, .bt601, full: true, nv12: true)
        case (.bt601, .full, false): body(s0, s1, y0, y1, u, v, uv, count, .bt601, full: true, nv12: false)
        case (.bt601, .limited, true): body(s0, s1, y0, y1, u, v, uv, count, .bt601, full: false, nv12: true)
        case (.bt601, .limited, false): body(s0, s1, y0, y1, u, v, uv, count, .bt601, full: false, nv12: false)
        case (.bt709, .full, true): body(s0, s1, y0, y1, u, v, uv, count, .bt709, full: true, nv12: true)
        case (.bt709, .full, false): body(s0, s1, y0, y1, u, v, uv, count, .bt709, full: true, nv12: false)
        case (.bt709, .limited, true): body(s0, s1, y0, y1, u, v, uv, count, .bt709, full: false, nv12: true)
        case (.bt709, .limited, false): body(s0, s1, y0, y1, u, v, uv, count, .bt709, full: false, nv12: false)
        case (.bt2020, .full, true): body(s0, s1, y0, y1, u, v, uv, count, .bt2020, full: true, nv12: true)
        case (.bt2020, .full, false): body(s0, s1, y0, y1, u, v, uv, count, .bt2020, full: true, nv12: false)
        case (.bt2020, .limited, true): body(s0, s1, y0, y1, u, v, uv, count, .bt2020, full: false, nv12: true)
        case (.bt2020, .limited, false): body(s0, s1, y0, y1, u, v, uv, count, .bt2020, full: false, nv12: false)
        }
    }

    /// Weights splatted and masked to 15 bits, so LLVM knows each product is 16 × 16 bits (`vpmaddwd`).
    @inline(__always)
    static func weight(_ w: Int) -> U32 { U32(repeating: UInt32(w) & 0x7FFF) }

    /// Sixteen Int32 as Floats (`vcvtdq2ps`; the stdlib's generic SIMD16 conversion is an out-of-line call).
    @inline(__always)
    static func toFloat(_ n: I32) -> F32 {
        var r = F32()
        for i in 0..<16 { r[i] = Float(n[i]) }
        return r
    }

    /// a·b + c with one rounding (`vfmadd`), lane by lane.
    @inline(__always)
    static func mulAdd(_ a: F32, _ b: F32, _ c: F32) -> F32 {
        var r = F32()
        for i in 0..<16 { r[i] = c[i].addingProduct(a[i], b[i]) }
        return r
    }

    /// ⌊a·b⌋ for a·b in [0, 2^22), as round-to-nearest(a·b − ½): a·b + 2^23 − ½ in one rounding leaves a
    /// Float whose unit is 1, whose low mantissa bits are the result.
    @inline(__always)
    static func floorProduct(_ a: F32, _ b: F32) -> I32 {
        unsafeBitCast(mulAdd(a, b, F32(repeating: 8_388_607.5)), to: I32.self) & I32(repeating: 0x7F_FFFF)
    }

    /// Round-to-nearest of a·b in [0, 2^22) (ties never occur where it is used).
    @inline(__always)
    static func roundProduct(_ a: F32, _ b: F32) -> I32 {
        unsafeBitCast(mulAdd(a, b, F32(repeating: 8_388_608)), to: I32.self) & I32(repeating: 0x7F_FFFF)
    }

    /// min(c, 255) for 0 ≤ c ≤ 256, without the stdlib's out-of-line `pointwiseMin` for SIMD16.
    @inline(__always)
    static func clamp255(_ c: I32) -> I32 { c &- (c &>> 8) }

    /// ⌊n·c + d⌋ for sixteen exact integers n, in `Double`, where the exact value n·c + d is a whole number or
    /// at least 2δ from one (`bias` = d + δ − ½): one fused multiply-add errs by about 10⁻¹³, far below δ, so
    /// round-to-nearest of n·c + bias (adding 2^52, where Double's unit is 1) is the floor. Values in [0, 2^31).
    @inline(__always)
    static func floorDouble(_ n: I32, _ c: SIMD8<Double>, _ bias: SIMD8<Double>) -> U32 {
        var lo = SIMD8<Double>(), hi = SIMD8<Double>()
        for i in 0..<8 {
            lo[i] = bias[i].addingProduct(Double(n[i]), c[i])
            hi[i] = bias[i].addingProduct(Double(n[i + 8]), c[i])
        }
        let magic = SIMD8<Double>(repeating: 4_503_599_627_370_496)
        let bl = unsafeBitCast(lo + magic, to: SIMD8<UInt64>.self), bh = unsafeBitCast(hi + magic, to: SIMD8<UInt64>.self)
        var r = U32()
        for i in 0..<8 {
            r[i] = UInt32(truncatingIfNeeded: bl[i])
            r[i + 8] = UInt32(truncatingIfNeeded: bh[i])
        }
        return r
    }

    /// Sixteen 32-bit values (each ≤ 255) as bytes (`vpmovdb`).
    @inline(__always)
    static func narrow(_ a: U32) -> SIMD16<UInt8> {
        var r = SIMD16<UInt8>()
        for i in 0..<16 { r[i] = UInt8(truncatingIfNeeded: a[i]) }
        return r
    }

    /// Sixteen 32-bit values (each below 2^16) as 16-bit words (`vpmovdw`).
    @inline(__always)
    static func narrowWords(_ a: U32) -> SIMD16<UInt16> {
        var r = SIMD16<UInt16>()
        for i in 0..<16 { r[i] = UInt16(truncatingIfNeeded: a[i]) }
        return r
    }

    /// Blocks arrive in the order 0, 8, 1, 9, … 7, 15 (see `body`); this puts them back in order.
    @inline(__always)
    static func unzip(_ a: U32) -> U32 {
        U32(a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14], a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15])
    }

    @inline(__always)
    static func body(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ y0: UnsafeMutablePointer<UInt8>,
                     _ y1: UnsafeMutablePointer<UInt8>?, _ u: UnsafeMutablePointer<UInt8>?,
                     _ v: UnsafeMutablePointer<UInt8>?, _ uv: UnsafeMutablePointer<UInt8>?, _ to: Int,
                     _ matrix: ColorMatrix, full: Bool, nv12: Bool) {
        let s = ColorMatrix.scale, kr = matrix.kr, kg = matrix.kg, kb = matrix.kb
        let byte = U32(repeating: 0xFF), fields = U32(repeating: 0x00FF_00FF), low15 = U32(repeating: 0x7FFF)
        // Luma: n = wr·R + wg·G + wb·B with 2K (full: 2n + 1 over 2S) or K (limited: 219·n + bias over 255·S).
        let yw = full ? 2 : 1
        let yr = weight(yw * kr), yg = weight(yw * kg), yb = weight(yw * kb)
        let yInv = F32(repeating: 1 / Float(2 * s))
        // Limited luma: Y = ⌊n·219/(255·S) + 16.5⌋, whole or at least 1/(255·S) from a whole number.
        let yC = SIMD8<Double>(repeating: 219 / Double(255 * s)), yBias = SIMD8<Double>(repeating: 16 + 0.5 / Double(255 * s))
        // Chroma numerators t = D·ΣB − Kr·ΣR − Kg·ΣG (U, D = S − Kb) and D·ΣR − Kg·ΣG − Kb·ΣB (V, D = S − Kr).
        let du = s - kb, dv = s - kr
        let ur = weight(kr), ug = weight(kg), ub = weight(du)
        let vr = weight(dv), vg = weight(kg), vb = weight(kb)
        // Full: C = ⌊(t + 1028·D)/(8D)⌋, through M = ⌊(t + 1028·D)/8⌋ and 1/(2D).
        let uBias = I32(repeating: Int32(1028 * du)), vBias = I32(repeating: Int32(1028 * dv))
        let uInv = F32(repeating: 1 / Float(2 * du)), vInv = F32(repeating: 1 / Float(2 * dv))
        // Limited: C = ⌊t·28/(255·D) + 128.5⌋, whole or at least 1/(510·D) from a whole number.
        let uC = SIMD8<Double>(repeating: 28 / Double(255 * du)), uBiasD = SIMD8<Double>(repeating: 128 + 0.5 / Double(510 * du))
        let vC = SIMD8<Double>(repeating: 28 / Double(255 * dv)), vBiasD = SIMD8<Double>(repeating: 128 + 0.5 / Double(510 * dv))

        // With a byte dot product (AVX512-VNNI): each weight split into 7-bit halves, R·w + G·w + B·w + X·0 of a
        // whole pixel in one instruction per half, exact: n = 128·dot(hi) + dot(lo).
        let wR = yw * kr, wG = yw * kg, wB = yw * kb
        let hi = I32(repeating: Int32(wR >> 7 | (wG >> 7) << 8 | (wB >> 7) << 16))
        let lo = I32(repeating: Int32(wR & 127 | (wG & 127) << 8 | (wB & 127) << 16))

        /// n (+1 when `odd`) of sixteen pixels: Kr·R + Kg·G + Kb·B with the weights above.
        @inline(__always)
        func weighted(_ p: U32, odd: Bool) -> I32 {
            if yc_has_dot4() != 0 {
                let q = unsafeBitCast(p, to: I32.self)
                return (yc_dot4(I32(), q, hi) &<< 7) &+ yc_dot4(I32(repeating: odd ? 1 : 0), q, lo)
            }
            let n = U32(repeating: odd ? 1 : 0) &+ (p & byte) &* yr &+ ((p &>> 8) & byte) &* yg &+ ((p &>> 16) & byte) &* yb
            return unsafeBitCast(n, to: I32.self)
        }

        @inline(__always)
        func luma(_ p: U32) -> SIMD16<UInt8> {
            if full {
                return narrow(unsafeBitCast(roundProduct(toFloat(weighted(p, odd: true)), yInv), to: U32.self))  // 2n + 1
            }
            return narrow(floorDouble(weighted(p, odd: false), yC, yBias))
        }

        /// One plane of sixteen blocks from the block sums.
        @inline(__always)
        func chroma(_ r: U32, _ g: U32, _ b: U32, _ wr: U32, _ wg: U32, _ wb: U32, plusIsB: Bool,
                    _ bias: I32, _ inv: F32, _ cD: SIMD8<Double>, _ biasD: SIMD8<Double>) -> U32 {
            let pr = unsafeBitCast(r &* wr, to: I32.self), pg = unsafeBitCast(g &* wg, to: I32.self)
            let pb = unsafeBitCast(b &* wb, to: I32.self)
            let t = plusIsB ? pb &- pr &- pg : pr &- pg &- pb
            if full {
                let m2 = ((t &+ bias) &>> 2) | I32(repeating: 1)          // 2⌊(t + 1028·D)/8⌋ + 1
                return unsafeBitCast(clamp255(floorProduct(toFloat(m2), inv)), to: U32.self)
            }
            return floorDouble(t, cD, biasD)                              // 16…240: no clamp
        }

        var x = 0
        while x < to {
            // The two cache lines of each row this step will need `prefetchAhead` bytes from now.
            yc_prefetch(s0 + 4 * x + prefetchAhead)
            yc_prefetch(s1 + 4 * x + prefetchAhead)
            yc_prefetch(s0 + 4 * x + prefetchAhead + 64)
            yc_prefetch(s1 + 4 * x + prefetchAhead + 64)
            let a0 = s0.loadUnaligned(fromByteOffset: 4 * x, as: U32.self)
            let b0 = s0.loadUnaligned(fromByteOffset: 4 * x + 64, as: U32.self)
            let a1 = s1.loadUnaligned(fromByteOffset: 4 * x, as: U32.self)
            let b1 = s1.loadUnaligned(fromByteOffset: 4 * x + 64, as: U32.self)
            UnsafeMutableRawPointer(y0 + x).storeBytes(of: luma(a0), as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(y0 + x + 16).storeBytes(of: luma(b0), as: SIMD16<UInt8>.self)
            if let y1 {
                UnsafeMutableRawPointer(y1 + x).storeBytes(of: luma(a1), as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(y1 + x + 16).storeBytes(of: luma(b1), as: SIMD16<UInt8>.self)
            }
            // Vertical sums of R|B and G|X in 16-bit fields (at most 510), then each horizontal pair summed
            // in 64-bit lanes: the low half of lane i holds block i's sums (at most 1020 a field).
            let rbA = unsafeBitCast((a0 & fields) &+ (a1 & fields), to: SIMD8<UInt64>.self)
            let rbB = unsafeBitCast((b0 & fields) &+ (b1 & fields), to: SIMD8<UInt64>.self)
            let gA = unsafeBitCast(((a0 &>> 8) & fields) &+ ((a1 &>> 8) & fields), to: SIMD8<UInt64>.self)
            let gB = unsafeBitCast(((b0 &>> 8) & fields) &+ ((b1 &>> 8) & fields), to: SIMD8<UInt64>.self)
            let lowHalf = SIMD8<UInt64>(repeating: 0xFFFF_FFFF)
            // Blocks in the order 0, 8, 1, 9, … (A's block i in lane 2i, B's in lane 2i+1).
            let rb = unsafeBitCast(((rbA &+ (rbA &>> 32)) & lowHalf) | ((rbB &+ (rbB &>> 32)) &<< 32), to: U32.self)
            let g = unsafeBitCast(((gA &+ (gA &>> 32)) & lowHalf) | ((gB &+ (gB &>> 32)) &<< 32), to: U32.self) & low15
            let r = rb & low15, b = (rb &>> 16) & low15   // masks: LLVM then knows 16-bit products
            let cu = chroma(r, g, b, ur, ug, ub, plusIsB: true, uBias, uInv, uC, uBiasD)
            let cv = chroma(r, g, b, vr, vg, vb, plusIsB: false, vBias, vInv, vC, vBiasD)
            let c = x / 2
            if nv12, let uv {
                let w = unzip(cu | (cv &<< 8))                      // U | V << 8 per block, in order
                let out = narrowWords(w)
                UnsafeMutableRawPointer(uv + 2 * c).storeBytes(of: out, as: SIMD16<UInt16>.self)
            } else if let u, let v {
                UnsafeMutableRawPointer(u + c).storeBytes(of: narrow(unzip(cu)), as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(v + c).storeBytes(of: narrow(unzip(cv)), as: SIMD16<UInt8>.self)
            }
            x += step
        }
    }
}
