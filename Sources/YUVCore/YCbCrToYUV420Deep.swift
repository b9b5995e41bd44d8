/// The JPEG direct path to 10 bits: the decoder's YCbCr planes to 10-bit 4:2:0 (`p010`, `yuv420p10le`) in the
/// target matrix and range, without RGB. The same exact transform as the 8-bit rows (`YCbCrTransform`: the
/// source picture's R, G, B written in terms of Y, Cb′, Cr′, then the contract's formulas) with the 10-bit
/// scaling of the contract (BT.2100/H.273: full Y = Y′·1023/255, C = 512 + C′·1023/255; limited Y = 64 +
/// Y′·876/255, C = 512 + C′·896/255), each value a ratio of integers rounded half up once (128-bit
/// arithmetic: the denominators are large). Chroma sits as in the 8-bit rows: a 4:2:0 source's samples filtered
/// [1 6 1]/8 along the row (for every matrix: BT.601 full range too, unlike 8 bits), other samplings the mean over the
/// four pixels of each pixel's covering sample; left and top-left siting the weighted sums of `YCbCrSiting.swift`.
/// Scalar: 10-bit outputs are for encoders, not the hot path.
extension YCbCrTransform {
    @inline(__always)
    static func floorDiv(_ n: Int128, _ d: Int128) -> Int128 {
        let q = n / d
        return (n % d != 0 && (n < 0) != (d < 0)) ? q - 1 : q
    }

    @inline(__always)
    static func clamp10(_ v: Int128) -> UInt16 { UInt16(min(max(v, 0), 1023)) }

    /// 10-bit output luma of a pixel with source luma `y` and chroma offsets `cb`, `cr` (C − 128).
    public func luma10(y: Int, cb: Int, cr: Int) -> UInt16 {
        let full = target.range == .full
        let a = Int128(aDen), t = Int128(aCb) * Int128(cb) + Int128(aCr) * Int128(cr)
        let yo: Int128 = full ? 0 : 64, ys: Int128 = full ? 1023 : 876
        // ⌊yo + (Y + t/aDen)·ys/255 + ½⌋
        let n = 2 * yo * 255 * a + 2 * ys * (Int128(y) * a + t) + 255 * a
        return Self.clamp10(Self.floorDiv(n, 2 * 255 * a))
    }

    /// A 10-bit output chroma value of an exact target offset (`gamutClamped`).
    public func chroma10(_ c: (Int128, Int128)) -> UInt16 {
        UInt16(Self.scaledChroma(c, offset: 512, span: target.range == .full ? 1023 : 896, top: 1023))
    }

    /// 10-bit output Cb and Cr of a sample whose source chroma offsets are the weighted means ΣCb′/`count`
    /// and ΣCr′/`count`.
    public func chroma10(cbSum: Int, crSum: Int, count: Int) -> (cb: UInt16, cr: UInt16) {
        let cs: Int128 = target.range == .full ? 1023 : 896, k = Int128(count)
        func one(_ p: Int64, _ q: Int64, _ d: Int64) -> UInt16 {
            let d = Int128(d)
            // ⌊512 + (p·ΣCb′ + q·ΣCr′)/(count·d) · cs/255 + ½⌋
            let n = 2 * 512 * 255 * k * d + 2 * cs * (Int128(p) * Int128(cbSum) + Int128(q) * Int128(crSum)) + 255 * k * d
            return Self.clamp10(Self.floorDiv(n, 2 * 255 * k * d))
        }
        return (one(bCb, bCr, bDen), one(rCb, rCr, rDen))
    }
}

extension YCbCrToYUV420 {
    /// One decoder band (as `convert`) into 10-bit rows of `layout`, tightly packed: luma rows at `yOut`, chroma
    /// rows at `uOut` (interleaved U,V for P010) and `vOut` (yuv420p10le). `above` as for `convert`: left and
    /// top-left siting take the same weighted sums as in 8 bits (`YCbCrSiting.swift`) with the 10-bit scaling.
    public func convertDeep(y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>?, cbStride: Int,
                            cr: UnsafePointer<UInt8>?, crStride: Int, rowCount: Int,
                            above: (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)? = nil,
                            lumaAbove: UnsafePointer<UInt8>? = nil, layout: PixelLayout,
                            yOut: UnsafeMutableRawPointer, uOut: UnsafeMutableRawPointer, vOut: UnsafeMutableRawPointer?) {
        precondition(layout.bitDepth == 10)
        let shift = UInt16(layout.sampleShift), cw = (width + 1) / 2
        @inline(__always) func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ value: UInt16) {
            p.storeBytes(of: (value << shift).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
        }
        let t = transform
        let sited = siting != .center, weight = Self.sitedWeight(siting)
        let columns = UnsafeMutablePointer<Int32>.allocate(capacity: sited ? 2 * sourceChromaWidth : 0)
        defer { columns.deallocate() }
        let cbColumns = columns, crColumns = columns + (sited ? sourceChromaWidth : 0)
        for r in 0..<((rowCount + 1) / 2) {
            let ly0 = 2 * r, ly1 = min(2 * r + 1, rowCount - 1)
            if sited {
                sitedColumns(cb!, cbStride, above: above?.cb, row: r, rowCount: rowCount, into: cbColumns)
                sitedColumns(cr!, crStride, above: above?.cr, row: r, rowCount: rowCount, into: crColumns)
            }
            let lumaRows = sitedLumaRows(y, yStride, row: r, rowCount: rowCount, above: lumaAbove)
            let rows = [(ly0, yOut + ly0 * 2 * width)] + (2 * r + 1 < rowCount ? [(ly1, yOut + ly1 * 2 * width)] : [])
            for cx in 0..<cw {
                var cbSum = 0, crSum = 0, count = 1
                let x0 = 2 * cx, x1 = min(2 * cx + 1, width - 1)
                if grey {
                    for (ly, out) in rows {
                        store(out, x0, t.luma10(y: Int(y[ly * yStride + x0]), cb: 0, cr: 0))
                        store(out, x1, t.luma10(y: Int(y[ly * yStride + x1]), cb: 0, cr: 0))
                    }
                } else if is420 {
                    let b = cb! + r * cbStride, c = cr! + r * crStride
                    let l = max(cx - 1, 0), rt = min(cx + 1, cw - 1)
                    let cbo = Int(b[cx]) - 128, cro = Int(c[cx]) - 128
                    // Filtered for every matrix, BT.601 full range too: 10 bits re-quantise the samples anyway
                    // (the 8-bit rows keep the decoder's planes there, byte for byte), and the samples as they
                    // are left its chroma up to 1.08 dB behind the RGB route (kodim03 at q75).
                    cbSum = Int(b[l]) + 6 * Int(b[cx]) + Int(b[rt]) - 8 * 128
                    crSum = Int(c[l]) + 6 * Int(c[cx]) + Int(c[rt]) - 8 * 128
                    count = 8
                    for (ly, out) in rows {
                        store(out, x0, t.luma10(y: Int(y[ly * yStride + x0]), cb: cbo, cr: cro))
                        store(out, x1, t.luma10(y: Int(y[ly * yStride + x1]), cb: cbo, cr: cro))
                    }
                } else {
                    // Each pixel's covering sample; the chroma sample is the mean over the four pixels.
                    count = 4
                    @inline(__always) func pixel(_ ly: Int, _ x: Int, _ out: UnsafeMutableRawPointer?) {
                        let sy = ly * vC / vMax, sx = x * hC / hMax
                        let cbo = Int(cb![sy * cbStride + sx]) - 128, cro = Int(cr![sy * crStride + sx]) - 128
                        cbSum += cbo
                        crSum += cro
                        if let out { store(out, x, t.luma10(y: Int(y[ly * yStride + x]), cb: cbo, cr: cro)) }
                    }
                    let out1 = rows.count > 1 ? rows[1].1 : nil
                    pixel(ly0, x0, rows[0].1)
                    pixel(ly0, x1, rows[0].1)
                    pixel(ly1, x0, out1)
                    pixel(ly1, x1, out1)
                }
                var clamped: (cb: (Int128, Int128), cr: (Int128, Int128))?
                if sited {
                    // The sums of bytes under the siting's weights, as offsets: ΣC′ = Σ − 128 · weight.
                    (cbSum, crSum, count) = (sitedSum(cbColumns, cx) - 128 * weight, sitedSum(crColumns, cx) - 128 * weight,
                                             weight)
                    if !grey {
                        clamped = t.gamutClamped(ySum: sitedLuma(lumaRows, cx), cbSum: cbSum,
                                                 crSum: crSum, weight: weight)
                    }
                }
                let c = grey ? (cb: UInt16(512), cr: UInt16(512))
                    : clamped.map { (cb: t.chroma10($0.cb), cr: t.chroma10($0.cr)) } ?? t.chroma10(cbSum: cbSum, crSum: crSum, count: count)
                if let vOut {
                    store(uOut + r * 2 * cw, cx, c.cb)
                    store(vOut + r * 2 * cw, cx, c.cr)
                } else {
                    store(uOut + r * 4 * cw, 2 * cx, c.cb)
                    store(uOut + r * 4 * cw, 2 * cx + 1, c.cr)
                }
            }
        }
    }
}
