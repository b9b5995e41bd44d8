// The quality accumulator's SSIM: windows from exact integer sums. Split from Quality.swift by role; the
// accumulator and its rows are there.
extension QualityAccumulator {
    /// SSIM's 8×8 windows, every 4 rows and columns: each picture row was added to its 4-row block's column
    /// sums (`addExact`); after row `r`, a finished block is reduced to 4-column groups, and with the block
    /// before it gives the windows whose rows are those 8 (a window is 2×2 groups). Each row is summed once,
    /// where summing each window's 64 pixels would take every pixel 4 times.
    mutating func finishBlock(_ r: Int) {
        let w = width
        let ca = rows.colA, caa = rows.colAA, cb = rows.colB, cbb = rows.colBB, cab = rows.colAB
        guard r % 4 == 3 else { return }
        let m = r / 4, n4 = w / 4, stride = w / 4 + 1
        let g = rows.groups + (m % 2) * 5 * stride
        let ga = g, gb = g + stride, gaa = gb + stride, gbb = gaa + stride, gab = gbb + stride
        for j in 0..<n4 {
            let c = 4 &* j, c1 = c &+ 1, c2 = c &+ 2, c3 = c &+ 3
            ga[j] = Int64(ca[c] &+ ca[c1] &+ ca[c2] &+ ca[c3])
            gaa[j] = Int64(caa[c] &+ caa[c1] &+ caa[c2] &+ caa[c3])
            gb[j] = Int64(cb[c]) &+ Int64(cb[c1]) &+ Int64(cb[c2]) &+ Int64(cb[c3])
            gbb[j] = cbb[c] &+ cbb[c1] &+ cbb[c2] &+ cbb[c3]
            gab[j] = cab[c] &+ cab[c1] &+ cab[c2] &+ cab[c3]
        }
        guard m >= 1 else { return }
        let p = rows.groups + ((m - 1) % 2) * 5 * stride
        let pa = p, pb = p + stride, paa = pb + stride, pbb = paa + stride, pab = pbb + stride
        // Each window's SSIM into a row of values (a loop that vectorises), then their sum in order.
        let nw = (w - 8) / 4 + 1, out = rows.windows
        let qd = Double(qY), invKQ = 1 / (64 * qd), invK2Q = 1 / (4096 * qd), invK2Q2 = 1 / (4096 * qd * qd)
        @inline(__always) func windows(full: Bool) {
            for j in 0..<nw {
                let j1 = j &+ 1
                out[j] = Self.ssim8(full: full, invKQ: invKQ, invK2Q: invK2Q, invK2Q2: invK2Q2,
                                    a: ga[j] &+ ga[j1] &+ pa[j] &+ pa[j1], b: gb[j] &+ gb[j1] &+ pb[j] &+ pb[j1],
                                    aa: gaa[j] &+ gaa[j1] &+ paa[j] &+ paa[j1], bb: gbb[j] &+ gbb[j1] &+ pbb[j] &+ pbb[j1],
                                    ab: gab[j] &+ gab[j1] &+ pab[j] &+ pab[j1])
            }
        }
        if full { windows(full: true) } else { windows(full: false) }
        var total = 0.0
        for j in 0..<nw { total += out[j] }
        ssimSum += total
        ssimCount += nw
    }

    /// `ssim` for an 8×8 window, with its divisions by 64, 64·Q, 64²·Q and 64²·Q² as products by reciprocals.
    /// In full range every numerator fits 64 bits (b below 2.6·10^6: k·Σb² and (Σb)² below 2.8·10^16), so the
    /// loop vectorises; limited range takes k·Σb² − (Σb)² in 128 bits.
    @inline(__always)
    static func ssim8(full: Bool, invKQ: Double, invK2Q: Double, invK2Q2: Double,
                      a: Int64, b: Int64, aa: Int64, bb: Int64, ab: Int64) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let ma = Double(a) * (1.0 / 64), mb = Double(b) * invKQ
        let va = Double(64 &* aa &- a &* a) * (1.0 / 4096)
        let vbn: Double
        if full {
            vbn = Double(64 &* bb &- b &* b)
        } else {
            let v = Int128(64) * Int128(bb) - Int128(b) * Int128(b)
            vbn = Double(UInt64(truncatingIfNeeded: v >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: v))
        }
        let vb = vbn * invK2Q2, cov = Double(64 &* ab &- a &* b) * invK2Q
        return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    }

    /// SSIM windows smaller than 8 (a picture under 8 pixels wide or high) whose last row is `lastRow`: column
    /// sums over the window's rows (from the rings), then windows of n columns every 4.
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
            x += 4
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
