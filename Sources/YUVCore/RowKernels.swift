import CSIMD

/// One-row kernels, libyuv-style: a source row (or two, for chroma) in, one plane row out.
/// The names say source and destination. Each fast row has a scalar reference beside it
/// (`…Reference`) that evaluates `ExactReference` pixel by pixel; the tests demand identical bytes.
///
/// The integer rows (`rgbToYRow`, `rgbaToYRow`, `rgbToUVRow`, `rgbaToUVRow`) are plain pointer loops over
/// wrapping 32-bit integer arithmetic with loop-invariant constants (`KernelConstants`), written so that LLVM
/// vectorises them. **No driver uses them**: the drivers take 8-bit pixels through the fused `SIMDKernels`
/// pass. They are kept on purpose as test and benchmark references — a second, independent exact formulation
/// of the same numbers, tested against the scalar references over all 2^24 luma triples and every block-sum
/// slice, and measured by `make bench` beside the SIMD rows — and the constants they share with the SIMD
/// rows are what `make prove` checks. The drivers' own rows here are the scalar references, the 16-bit rows,
/// the RGB → RGBX widening and the UV merge.
public enum RowKernels {
    // MARK: luma

    @inline(__always)
    static func yRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                     _ k: PlaneWeights, stride: Int) {
        let wr = k.wR, wg = k.wG, wb = k.wB, bias = k.bias
        let pre = k.divider.preShift, mul = k.divider.multiplier, post = k.divider.postShift
        let den = k.divider.divisor
        for x in 0..<width {
            let p = src + x &* stride
            let n = wr &* UInt32(p[0]) &+ wg &* UInt32(p[1]) &+ wb &* UInt32(p[2]) &+ bias
            let est = ((n &>> pre) &* mul) &>> post
            let q = est &+ (n &- est &* den >= den ? 1 : 0)
            dst[x] = UInt8(truncatingIfNeeded: q < 255 ? q : 255)
        }
    }

    /// R,G,B bytes (3 per pixel) → Y.
    public static func rgbToYRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                                 _ k: PlaneWeights) {
        yRow(src, dst, width, k, stride: 3)
    }

    /// R,G,B,A bytes (4 per pixel, alpha ignored) → Y.
    public static func rgbaToYRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                                  _ k: PlaneWeights) {
        yRow(src, dst, width, k, stride: 4)
    }

    // MARK: chroma

    @inline(__always)
    static func uvRow(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>, _ dstU: UnsafeMutablePointer<UInt8>,
                      _ dstV: UnsafeMutablePointer<UInt8>, _ width: Int, _ ku: PlaneWeights, _ kv: PlaneWeights,
                      stride: Int) {
        let ur = ku.wR, ug = ku.wG, ub = ku.wB, ubias = ku.bias
        let upre = ku.divider.preShift, umul = ku.divider.multiplier, upost = ku.divider.postShift
        let uden = ku.divider.divisor
        let vr = kv.wR, vg = kv.wG, vb = kv.wB, vbias = kv.bias
        let vpre = kv.divider.preShift, vmul = kv.divider.multiplier, vpost = kv.divider.postShift
        let vden = kv.divider.divisor
        let pairs = width / 2
        for x in 0..<pairs {
            let a = src0 + x &* (2 &* stride), c = src1 + x &* (2 &* stride)
            let rs = UInt32(a[0]) &+ UInt32(a[stride]) &+ UInt32(c[0]) &+ UInt32(c[stride])
            let gs = UInt32(a[1]) &+ UInt32(a[stride &+ 1]) &+ UInt32(c[1]) &+ UInt32(c[stride &+ 1])
            let bs = UInt32(a[2]) &+ UInt32(a[stride &+ 2]) &+ UInt32(c[2]) &+ UInt32(c[stride &+ 2])
            let nu = ur &* rs &+ ug &* gs &+ ub &* bs &+ ubias
            let eu = ((nu &>> upre) &* umul) &>> upost
            let qu = eu &+ (nu &- eu &* uden >= uden ? 1 : 0)
            dstU[x] = UInt8(truncatingIfNeeded: qu < 255 ? qu : 255)
            let nv = vr &* rs &+ vg &* gs &+ vb &* bs &+ vbias
            let ev = ((nv &>> vpre) &* vmul) &>> vpost
            let qv = ev &+ (nv &- ev &* vden >= vden ? 1 : 0)
            dstV[x] = UInt8(truncatingIfNeeded: qv < 255 ? qv : 255)
        }
        if width & 1 == 1 {
            // The odd last column is replicated: its two pixels count twice each.
            let a = src0 + pairs * 2 * stride, c = src1 + pairs * 2 * stride
            let rs = 2 * (UInt32(a[0]) + UInt32(c[0]))
            let gs = 2 * (UInt32(a[1]) + UInt32(c[1]))
            let bs = 2 * (UInt32(a[2]) + UInt32(c[2]))
            dstU[pairs] = ku.apply(rs, gs, bs)
            dstV[pairs] = kv.apply(rs, gs, bs)
        }
    }

    /// Two rows of R,G,B bytes → one row of U and one of V (⌈width/2⌉ each). For an odd last source row
    /// pass the same row twice.
    public static func rgbToUVRow(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                  _ dstU: UnsafeMutablePointer<UInt8>, _ dstV: UnsafeMutablePointer<UInt8>,
                                  _ width: Int, _ ku: PlaneWeights, _ kv: PlaneWeights) {
        uvRow(src0, src1, dstU, dstV, width, ku, kv, stride: 3)
    }

    /// Two rows of R,G,B,A bytes (alpha ignored) → one row of U and one of V.
    public static func rgbaToUVRow(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                   _ dstU: UnsafeMutablePointer<UInt8>, _ dstV: UnsafeMutablePointer<UInt8>,
                                   _ width: Int, _ ku: PlaneWeights, _ kv: PlaneWeights) {
        uvRow(src0, src1, dstU, dstV, width, ku, kv, stride: 4)
    }

    /// R,G,B bytes → R,G,B,0xFF (so 3-byte rows can take the 4-byte SIMD path): the C row for the CPU's tier
    /// (`yc_widen.c`; this loop, which LLVM does not vectorise, took about nine instructions a pixel).
    public static func rgbToRGBXRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int) {
        yc_rgb_to_rgbx_row(src, dst, width)
    }

    /// The same, pixel by pixel: the reference the tests hold the C row to.
    public static func rgbToRGBXRowReference(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int) {
        for x in 0..<width {
            dst[4 &* x] = src[3 &* x]
            dst[4 &* x &+ 1] = src[3 &* x &+ 1]
            dst[4 &* x &+ 2] = src[3 &* x &+ 2]
            dst[4 &* x &+ 3] = 0xFF
        }
    }

    /// U and V rows → one interleaved row (U,V,U,V…: NV12; swap the arguments for NV21).
    public static func mergeUVRow(_ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                                  _ dst: UnsafeMutablePointer<UInt8>, _ count: Int) {
        for x in 0..<count {
            dst[2 &* x] = u[x]
            dst[2 &* x &+ 1] = v[x]
        }
    }

    // MARK: scalar references

    /// Y of `width` pixels, `bytesPerPixel` apart (R,G,B first), straight from the exact definition.
    public static func yRowReference(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                                     bytesPerPixel: Int, spec: ConversionSpec) {
        for x in 0..<width {
            let p = src + x * bytesPerPixel
            dst[x] = ExactReference.luma(r: Int(p[0]), g: Int(p[1]), b: Int(p[2]), spec: spec)
        }
    }

    /// U and V of two source rows, straight from the exact definition.
    public static func uvRowReference(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                      _ dstU: UnsafeMutablePointer<UInt8>, _ dstV: UnsafeMutablePointer<UInt8>,
                                      _ width: Int, bytesPerPixel: Int, spec: ConversionSpec) {
        for cx in 0..<((width + 1) / 2) {
            let x0 = 2 * cx, x1 = min(2 * cx + 1, width - 1)
            var sums = (0, 0, 0)
            for row in [src0, src1] {
                for x in [x0, x1] {
                    let p = row + x * bytesPerPixel
                    sums.0 += Int(p[0]); sums.1 += Int(p[1]); sums.2 += Int(p[2])
                }
            }
            let c = ExactReference.chroma(rSum: sums.0, gSum: sums.1, bSum: sums.2, spec: spec)
            dstU[cx] = c.cb
            dstV[cx] = c.cr
        }
    }

    /// Y of 16-bit R,G,B samples (native endianness, 0…65535), exact with one rounding.
    public static func yRow16(_ src: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                              spec: ConversionSpec) {
        for x in 0..<width {
            let p = src + x * 3
            dst[x] = ExactReference.luma(r: Int(p[0]), g: Int(p[1]), b: Int(p[2]), maxValue: 65535, spec: spec)
        }
    }

    /// U and V of two rows of 16-bit R,G,B samples, exact with one rounding.
    public static func uvRow16(_ src0: UnsafePointer<UInt16>, _ src1: UnsafePointer<UInt16>,
                               _ dstU: UnsafeMutablePointer<UInt8>, _ dstV: UnsafeMutablePointer<UInt8>,
                               _ width: Int, spec: ConversionSpec) {
        for cx in 0..<((width + 1) / 2) {
            let x0 = 2 * cx, x1 = min(2 * cx + 1, width - 1)
            var r = 0, g = 0, b = 0
            for row in [src0, src1] {
                for x in [x0, x1] {
                    r += Int(row[3 * x]); g += Int(row[3 * x + 1]); b += Int(row[3 * x + 2])
                }
            }
            let c = ExactReference.chroma(rSum: r, gSum: g, bSum: b, maxValue: 65535, spec: spec)
            dstU[cx] = c.cb
            dstV[cx] = c.cr
        }
    }
}
