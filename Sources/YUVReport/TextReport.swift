import YUVCore

// The terminal's report: a table of the columns with a text heading, two lines of detail per image, then
// the totals and the quality spread.

func textCells(_ cells: [String], _ columns: [Column]) -> String {
    zip(columns, cells).map { c, s in
        let h = c.text!
        return h.left ? pad(shorten(s, h.width - 1), h.width) : pad(s, h.width, right: true)
    }.joined()
}

public func textReport(_ records: [ImageRecord], _ t: Totals) -> String {
    let columns = Column.textTable
    var lines: [String] = [textCells(columns.map { $0.text!.heading }, columns)]
    for r in records {
        guard let rep = r.report else {
            lines.append(textCells([r.file], columns) + "error: " + (r.error ?? ""))
            continue
        }
        let q = r.quality
        lines.append(textCells(columns.map { $0.value(r).text }, columns))
        lines.append("    \(rep.info.container.rawValue) \(rep.info.sampling), \(formatBytes(rep.inputBytes)) on disk -> "
                     + "\(rep.layout.rawValue) \(rep.spec), \(rep.path)" + (rep.chromaFilter == .sharp ? ", sharp chroma" : "")
                     + (rep.orientation.isIdentity ? "" : ", \(rep.orientation) (EXIF \(rep.orientation.exif))")
                     + "; aligned(\(r.alignment)) \(formatBytes(r.alignedBytes)); "
                     + "vs RGB saves \(fixed(r.savingRGB.percent, 1))%")
        lines.append("    used: buffers \(formatBytes(rep.ledgerPeakBytes)), peak RSS \(formatBytes(r.peakRSS)); "
                     + "naive RGBA route \(formatBytes(r.naivePeak))"
                     + (q.map { "; PSNR RGB \(fixed($0.psnrRGB, 1)) dB" + ($0.psnrRGBBilinear.map { ", bilinear \(fixed($0, 1))" } ?? "") } ?? ""))
    }
    lines.append(String(repeating: "-", count: 80))
    lines.append("total: \(t.images) image\(t.images == 1 ? "" : "s")" + (t.failed > 0 ? " (\(t.failed) failed)" : "") + ", "
                 + "\(formatFixed(Double(t.pixels) / 1e6, decimals: 1)) Mpx: RGBA \(formatBytes(t.rgba)), "
                 + "YUV \(formatBytes(t.yuv)), saves \(formatBytes(t.savingRGBA.bytes)) (\(fixed(t.savingRGBA.percent, 1))%)")
    if let w = t.worst, let m = t.median {
        lines.append("quality: PSNR Y worst \(fixed(w.psnrY, 2)) / median \(fixed(m.psnrY, 2)) dB, "
                     + "Cb \(fixed(w.psnrCb, 2)) / \(fixed(m.psnrCb, 2)), Cr \(fixed(w.psnrCr, 2)) / \(fixed(m.psnrCr, 2)),")
        lines.append("         RGB \(fixed(w.psnrRGB, 2)) / \(fixed(m.psnrRGB, 2)) dB, "
                     + (w.psnrRGBBilinear.map { "bilinear \(fixed($0, 2)) / \(fixed(m.psnrRGBBilinear!, 2)) dB, " } ?? "")
                     + "SSIM Y \(fixed(w.ssimY, 4)) / \(fixed(m.ssimY, 4))")
    }
    return lines.joined(separator: "\n")
}
