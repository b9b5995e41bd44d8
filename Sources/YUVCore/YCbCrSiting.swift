/// Left and top-left chroma siting on the JPEG direct path, in the YCbCr domain.
///
/// The contract (CONVENTIONS §1) sites a 4:2:0 chroma sample by the weights it gives the picture's per-pixel
/// chroma: `left` 1 2 1 over columns 2i−1, 2i, 2i+1 and 1 1 over rows 2j, 2j+1; `topleft` 1 2 1 both ways;
/// coordinates outside the picture clamped to the edge. A JPEG has no per-pixel chroma, so each pixel takes
/// the source sample that covers it (nearest on the JPEG's sampling grid, as the centre-sited rows of other
/// samplings do) and the contract's weights are applied to those. What that makes of each sampling:
///
/// - 4:4:4: the contract's own weights on the full-resolution chroma, as the RGB route applies them to C′.
/// - 4:2:0 (sample k centre-sited at luma x = 2k + ½): pixels 2k−1, 2k, 2k+1 take samples k−1, k, k, so
///   `left` is the 1:3 blend of samples k−1 and k — linear interpolation at x = 2k — and `topleft` the same
///   1:3 blend down the rows too (a 4×4 tap of weights 1 3 / 3 9, ÷16). The first column and row replicate.
/// - 4:2:2: 1:3 across, the contract's rows (1 1, or 1 2 1) down; 4:4:0: 1 2 1 across, rows as they are
///   (`left`) or 1:3 (`topleft`).
///
/// Rounding: the weighted sum of source bytes is whole (weights total 8 for `left`, 16 for `topleft`); it
/// goes through the exact transform (`YCbCrTransform.chromaPlan`) as the mean ΣC′/8 or ΣC′/16, and the output
/// is that exact rational value rounded once, half up, then clamped — no intermediate rounding. Integers
/// only (Int64 tables; the C rows' double quotients could not hold top-left's 16-weight sums for BT.2020
/// exactly), one implementation for every CPU tier and kernel choice: the bytes cannot depend on either.
///
/// The gamut: a JPEG's chroma, quantised, often asks for colours no RGB holds (below 0 or above 255 in a
/// channel) at saturated edges. The RGB route's decoder clamps every pixel to 0…255 before the matrix, and on
/// such pictures (a test chart, red text on blue) that brought it up to 1.24 dB closer to the source than these
/// sums, for BT.2020 most. So each sited sample is checked: the RGB of its weighted chroma with the luma under
/// the same weights (`sitedLuma`; for top-left the band before's last luma row is kept, as its chroma row is),
/// exactly, in integers; a sample whose RGB is
/// out of 0…255 takes the chroma of that RGB clamped (`YCbCrTransform.gamutClamped`), exactly, rounded once;
/// every other sample its value as before. On 4:2:0 JPEGs of a chart and of photos (q85, q92; every matrix,
/// range and depth) that left the direct path at most 0.5 dB behind the RGB route per plane, where it was up to
/// 1.24 dB behind.
///
/// Luma does not move with the siting: a pixel's luma uses the source sample covering it, as with centre
/// siting (the RGB route's luma does not depend on siting either). Like the rest of the direct path this is
/// outside the bit-exact contract (`--jpeg-path rgb` gives the contract's bytes); `make quality` measures it.
extension YCbCrToYUV420 {
    /// The sum of a siting's weights: its sums are ΣC′ of that many samples.
    public static func sitedWeight(_ siting: ChromaLocation) -> Int {
        switch siting {
        case .center: return 4
        case .left: return 8
        case .topleft: return 16
        }
    }

    /// Source chroma samples across that cover the picture's pixels.
    var sourceChromaWidth: Int { (width * hC + hMax - 1) / hMax }

    /// The vertical pass for band-local output chroma row `r`: each source sample of `plane` summed over the
    /// pixel rows the siting weighs (`left`: rows 2r, 2r+1, 1 1; `topleft`: 2r−1, 2r, 2r+1, 1 2 1), each pixel
    /// row reading the source row that covers it, the last row clamped to the band's `rowCount` (cropped to
    /// the picture) and row 2r − 1 of the band's first chroma row read from `above` (or clamped to row 0
    /// when there is none: the picture's top edge).
    @inline(__always)
    func sitedColumns(_ plane: UnsafePointer<UInt8>, _ stride: Int, above: UnsafePointer<UInt8>?, row r: Int,
                      rowCount: Int, into out: UnsafeMutablePointer<Int32>) {
        let n = sourceChromaWidth
        let ly0 = 2 * r, ly1 = min(2 * r + 1, rowCount - 1)
        let a = plane + (ly0 * vC / vMax) * stride, b = plane + (ly1 * vC / vMax) * stride
        if siting == .left {
            for i in 0..<n { out[i] = Int32(a[i]) &+ Int32(b[i]) }
            return
        }
        let up: UnsafePointer<UInt8> = r > 0 ? plane + ((ly0 - 1) * vC / vMax) * stride : above ?? a
        for i in 0..<n { out[i] = Int32(up[i]) &+ 2 &* Int32(a[i]) &+ Int32(b[i]) }
    }

    /// The horizontal pass: output sample `cx`'s 1 2 1 over pixel columns 2cx−1, 2cx, 2cx+1 (clamped to the
    /// picture), each column reading the source sample that covers it. The sum of source bytes under weights
    /// totalling `sitedWeight(siting)`.
    @inline(__always)
    func sitedSum(_ columns: UnsafePointer<Int32>, _ cx: Int) -> Int {
        let ratio = hMax / hC
        switch ratio {
        case 1:
            let l = max(2 &* cx &- 1, 0), r = min(2 &* cx &+ 1, width &- 1)
            return Int(columns[l]) &+ 2 &* Int(columns[2 &* cx]) &+ Int(columns[r])
        case 2:
            // Columns 2cx (and 2cx + 1, when it exists) lie on sample cx; column 2cx − 1 on cx − 1.
            return Int(columns[max(cx &- 1, 0)]) &+ 3 &* Int(columns[cx])
        default:
            let l = max(2 * cx - 1, 0) / ratio, m = 2 * cx / ratio, r = min(2 * cx + 1, width - 1) / ratio
            return Int(columns[l]) + 2 * Int(columns[m]) + Int(columns[r])
        }
    }

    /// The luma rows under band-local chroma row `r`'s weights, in order: 2r and 2r+1 (`left`), or 2r−1, 2r
    /// and 2r+1 (`topleft`; row 2r−1 of the band's first chroma row is `above`, the band before's last row, or
    /// row 0 at the picture's top), the last clamped to the band's `rowCount`.
    /// (The first is nil for `left`: a tuple, not an array — an array per sample cost its reference counting.)
    @inline(__always)
    func sitedLumaRows(_ y: UnsafePointer<UInt8>, _ stride: Int, row r: Int, rowCount: Int,
                       above: UnsafePointer<UInt8>?) -> SitedLumaRows {
        let a = y + 2 * r * stride, b = y + min(2 * r + 1, rowCount - 1) * stride
        if siting == .left { return (nil, a, b) }
        return (r > 0 ? y + (2 * r - 1) * stride : above ?? a, a, b)
    }

    public typealias SitedLumaRows = (up: UnsafePointer<UInt8>?, a: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>)

    /// The luma under output chroma sample `cx`'s weights, summed as the chroma is (their total the siting's
    /// weight): columns 2cx−1, 2cx, 2cx+1 weighted 1 2 1 (clamped to the picture) on `rows` (`sitedLumaRows`),
    /// weighted 1 1 (`left`) or 1 2 1 (`topleft`).
    @inline(__always)
    func sitedLuma(_ rows: SitedLumaRows, _ cx: Int) -> Int {
        let l = max(2 &* cx &- 1, 0), m = min(2 &* cx, width &- 1), r = min(2 &* cx &+ 1, width &- 1)
        @inline(__always) func across(_ p: UnsafePointer<UInt8>) -> Int { Int(p[l]) &+ 2 &* Int(p[m]) &+ Int(p[r]) }
        guard let up = rows.up else { return across(rows.a) &+ across(rows.b) }
        return across(up) &+ 2 &* across(rows.a) &+ across(rows.b)
    }

    /// One output chroma row (band-local row `r`) with left or top-left siting, 8-bit, into `u` and `v`.
    /// `columns` holds 2 · `sourceChromaWidth` Int32s of scratch.
    func sitedChromaRow(_ cb: UnsafePointer<UInt8>, _ cbStride: Int, _ cr: UnsafePointer<UInt8>, _ crStride: Int,
                        row r: Int, rowCount: Int, above: (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)?,
                        luma: SitedLumaRows,
                        columns: UnsafeMutablePointer<Int32>, u: UnsafeMutablePointer<UInt8>,
                        v: UnsafeMutablePointer<UInt8>) {
        let cbColumns = columns, crColumns = columns + sourceChromaWidth
        sitedColumns(cb, cbStride, above: above?.cb, row: r, rowCount: rowCount, into: cbColumns)
        sitedColumns(cr, crStride, above: above?.cr, row: r, rowCount: rowCount, into: crColumns)
        // The plan's tables are indexed by ΣC′ + limit, and limit = 128 · weight: the raw sum of bytes itself.
        let n = 2 * sitedPlan.limit + 1, (dB, dR) = sitedPlan.den
        sitedPlan.table.withUnsafeBufferPointer { tb in
            let t = tb.baseAddress!
            let weight = Self.sitedWeight(siting)
            for cx in 0..<((width + 1) / 2) {
                let b = sitedSum(cbColumns, cx), rr = sitedSum(crColumns, cx)
                if let c = transform.gamutClamped(ySum: sitedLuma(luma, cx), cbSum: b - 128 * weight,
                                                  crSum: rr - 128 * weight, weight: weight) {
                    (u[cx], v[cx]) = (transform.chroma8(c.cb), transform.chroma8(c.cr))
                    continue
                }
                u[cx] = YCbCrTransform.ChromaPlan.value(t, n: n, plane: 0, b: b, r: rr, den: dB)
                v[cx] = YCbCrTransform.ChromaPlan.value(t, n: n, plane: 1, b: b, r: rr, den: dR)
            }
        }
    }
}
