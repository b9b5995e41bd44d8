import CSIMD

// The quality accumulator's SSIM: windows from exact integer sums. Split from Quality.swift by role; the
// accumulator and its rows are there.
extension QualityAccumulator {
    /// SSIM's 8×8 windows, every 4 rows and columns: each picture row was added to its 4-row block's column
    /// sums (`addExact`); after row `r`, a finished block is reduced to 4-column groups, and with the block
    /// before it gives the windows whose rows are those 8 (a window is 2×2 groups). Each row is summed once,
    /// where summing each window's 64 pixels would take every pixel 4 times.
    mutating func finishBlock(_ r: Int) {
        guard r % 4 == 3 else { return }
        let m = r / 4, stride = width / 4 + 1
        // The loops are C, one copy per CPU tier (`yc_quality_rows_body.h`): the groups, each window's SSIM
        // (`ssim`'s expressions, its divisions as products by reciprocals) into a row of values, then their sum
        // in order.
        let g = rows.groups + (m % 2) * 5 * stride
        let p: UnsafePointer<Int64>? = m >= 1 ? UnsafePointer(rows.groups + ((m - 1) % 2) * 5 * stride) : nil
        var count = 0
        let total = yc_quality_ssim_block(rows.colA, rows.colAA, rows.colB, rows.colBB, rows.colAB, width, g, p,
                                          full ? 1 : 0, Double(qY), rows.windows, &count)
        ssimSum += total
        ssimCount += count
    }

    /// SSIM windows smaller than 8 (a picture under 8 pixels wide or high) whose last row is `lastRow`: column
    /// sums over the window's rows (from the rings), then windows of n columns at every column (`ssimStep`).
    mutating func addSSIM(lastRow: Int) {
        let n = window, w = width
        let first = lastRow - n + 1
        guard first >= 0 else { return }
        var total = 0.0, count = 0
        let sa = rows.sums, sb = sa + w, saa = sb + w, sbb = saa + w, sab = sbb + w
        sa.update(repeating: 0, count: 5 * w)
        for r in first...lastRow {
            let a = rows.aRing + (r % 8) * w, b = rows.bRing + (r % 8) * w
            for x in 0..<w {
                let av = Int64(a[x]), bv = Int64(b[x])
                sa[x] &+= av; sb[x] &+= bv; saa[x] &+= av &* av; sbb[x] &+= bv &* bv; sab[x] &+= av &* bv
            }
        }
        var x = 0
        while x + n <= w {
            var a: Int64 = 0, b: Int64 = 0, aa: Int64 = 0, bb: Int64 = 0, ab: Int64 = 0
            for i in x..<(x + n) { a &+= sa[i]; b &+= sb[i]; aa &+= saa[i]; bb &+= sbb[i]; ab &+= sab[i] }
            total += Self.ssim(n: n, q: qY, a: a, b: b, aa: aa, bb: bb, ab: ab)
            count += 1
            x += ssimStep
        }
        ssimSum += total
        ssimCount += count
    }

    /// One window's SSIM from its exact sums (a: output luma, b: Q·exact luma, over k = n² pixels): the means,
    /// variances and covariance from integer numerators, C1 = (0.01·255)², C2 = (0.03·255)².
    @inline(__always)
    static func ssim(n: Int, q: Int64, a: Int64, b: Int64, aa: Int64, bb: Int64, ab: Int64) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let k = Int64(n * n), kd = Double(k), qd = Double(q)
        let ma = Double(a) / kd, mb = Double(b) / (kd * qd)
        let va = Double(k &* aa &- a &* a) / (kd * kd)
        // k·Σb² and (Σb)² pass 2^63 in limited range: 128 bits, then the difference (≥ 0) as a Double.
        let vbn = Int128(k) * Int128(bb) - Int128(b) * Int128(b)
        let vb = (Double(UInt64(truncatingIfNeeded: vbn >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: vbn)))
            / (kd * kd * qd * qd)
        let cov = Double(k &* ab &- a &* b) / (kd * kd * qd)
        return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    }
}
