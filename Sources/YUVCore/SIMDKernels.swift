/// The RGBA → 4:2:0 row pair: libyuv's shape (one pass over two rows, luma and chroma from the same loads)
/// with exact arithmetic. The rows themselves are C (`CSIMD/yc_rgba_rows_body.h`, its exactness argument at
/// its top), compiled once per CPU tier and called through the tier `CPUTier.current` names: Swift cannot
/// give one function several target CPUs, and one binary must run on every x86-64 CPU. This side handles
/// the row's tail (libyuv's `_Any_` rows: the same code on a padded copy, so results never depend on the
/// width). The rows are checked against the scalar references over all 2^24 luma values on every tier the
/// CPU runs, and (`make prove`) all 1021³ block sums for every matrix and range.
import CSIMD

public enum SIMDKernels {
    /// Two rows of RGBX → two rows of Y and one row each of U and V (⌈width/2⌉), in one pass over the
    /// source: every pixel is loaded once. For an odd last row pass the same row twice and `y1 = nil`.
    public static func rgbaToYUVRowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                        _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                        _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>,
                                        _ width: Int, _ k: KernelConstants, tier: CPUTier? = nil) {
        rowPair(src0, src1, y0, y1, .planar(u, v), width, k.spec, tier: tier)
    }

    /// The same with U and V interleaved into one row of 2·⌈width/2⌉ bytes (NV12's UV plane).
    public static func rgbaToNV12RowPair(_ src0: UnsafePointer<UInt8>, _ src1: UnsafePointer<UInt8>,
                                         _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>?,
                                         _ uv: UnsafeMutablePointer<UInt8>, _ width: Int, _ k: KernelConstants,
                                         tier: CPUTier? = nil) {
        rowPair(src0, src1, y0, y1, .interleaved(uv), width, k.spec, tier: tier)
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
                               _ chroma: ChromaOut, _ width: Int, _ spec: ConversionSpec, tier: CPUTier? = nil) {
        let whole = width & ~(step - 1)
        let (u, v, uv) = chroma.rows
        dispatch(UnsafeRawPointer(src0), UnsafeRawPointer(src1), y0, y1, u, v, uv, whole, spec, tier)
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
            dispatch(a[0], a[1], bytes(o[0])!, bytes(o[1]), bytes(o[2]), bytes(o[3]), bytes(o[4]), step, spec, tier)
        }
    }

    /// Pixels per row per call of the C rows.
    static let step = Int(YC_RGBA420_STEP)

    /// The C rows for `count` pixels (a multiple of `step`) on the tier in use, or on `tier` (tests compare
    /// tiers without changing the process's; a tier the CPU cannot run is a programming error).
    @inline(__always)
    static func dispatch(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ y0: UnsafeMutablePointer<UInt8>,
                         _ y1: UnsafeMutablePointer<UInt8>?, _ u: UnsafeMutablePointer<UInt8>?,
                         _ v: UnsafeMutablePointer<UInt8>?, _ uv: UnsafeMutablePointer<UInt8>?, _ count: Int,
                         _ spec: ConversionSpec, _ tier: CPUTier?) {
        if count == 0 { return }
        var c = spec.rowSpec
        let a = s0.assumingMemoryBound(to: UInt8.self), b = s1.assumingMemoryBound(to: UInt8.self)
        if let tier {
            precondition(yc_rgba420_rows_on(tier.rawValue, a, b, y0, y1, u, v, uv, count, &c) == 0,
                         "this CPU cannot run the \(tier) rows")
        } else {
            yc_rgba420_rows(a, b, y0, y1, u, v, uv, count, &c)
        }
    }
}

extension ConversionSpec {
    /// The C rows' description of this conversion.
    var rowSpec: yc_rgba420_spec {
        yc_rgba420_spec(kr: Int32(matrix.kr), kg: Int32(matrix.kg), kb: Int32(matrix.kb), full: range == .full ? 1 : 0)
    }
}
