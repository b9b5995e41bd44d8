import YUVCore

// The terminal's report: a table of the columns with a text heading, two lines of detail per image, then
// the totals, the run's peak memory and the quality spread.

func textCells(_ cells: [String], _ columns: [Column]) -> String {
    zip(columns, cells).map { c, s in
        let h = c.text!
        return h.left ? pad(shorten(s, h.width - 1), h.width) : pad(s, h.width, right: true)
    }.joined()
}

func textHeading() -> String {
    let columns = Column.textTable
    return textCells(columns.map { $0.text!.heading }, columns)
}

/// One image's lines: its row and two of detail, or its error.
func textLines(_ r: ImageRecord) -> String {
    let columns = Column.textTable
    // Text from files and from the manifest (names, samplings, profile descriptions, errors) shown as the cells
    // show it: no control character reaches the terminal.
    let shown = CellStyle.shown
    guard let rep = r.report else {
        return textCells([shown(r.file)], columns) + shown(r.skipped.map { "skipped: " + $0 } ?? "error: " + (r.error ?? ""))
    }
    let row = textCells(columns.map { $0.value(r).text }, columns)
    var source = "    \(rep.info.container.rawValue) \(rep.info.sampling) of \(formatBytes(rep.inputBytes)) -> "
    source += "\(rep.layout.rawValue) \(rep.spec), " + (rep.colour.map { "\($0), " } ?? "") + "\(rep.path)"
    if rep.chromaFilter == .sharp { source += ", sharp chroma" }
    if !rep.orientation.isIdentity { source += ", " + rep.orientationText }
    source += "; aligned(\(r.alignmentLabel)) \(formatBytes(r.alignedBytes)); vs RGB saves \(fixed(r.savingRGB.percent, 1))%"
    // An --update run's kept output: the figures are those the manifest recorded when it was made.
    var used = (r.upToDate ? "    up to date, kept (figures from the manifest): " : "    used: ")
        + "buffers \(formatBytes(rep.ledgerPeakBytes)); naive RGBA route \(formatBytes(r.naivePeak))"
    if let q = r.quality {
        used += "; PSNR RGB \(fixed(q.psnrRGB, 1)) dB"
        if let b = q.psnrRGBBilinear { used += ", bilinear \(fixed(b, 1))" }
        if q.psnrRGBBilinear != nil, let box = q.psnrRGBBilinearBox, let gain = q.sharpGain {
            // `sharp_gain_db` rounded, the figure JSON and CSV carry (48.55 less 44.91 is +3.6, though the two
            // shown read 48.6 and 44.9), its sign that of the gain itself (−0.002 dB reads -0.0, not +0.0).
            used += " (box \(fixed(box, 1)): sharp chroma \(gain < 0 ? "-" : "+")\(fixed(abs(gain), 1)) dB)"
        }
    }
    return [row, shown(source), used].joined(separator: "\n")
}

/// The rule, the totals, the run's peak memory and the quality spread.
func textTotals(_ t: Totals) -> String {
    var lines = [ReportMarks.textRule]
    lines.append(ReportMarks.textTotals + "\(t.images) image\(t.images == 1 ? "" : "s")" + (t.failed > 0 ? " (\(t.failed) failed)" : "") + t.skippedAndNotStarted + ", "
                 + "\(formatFixed(Double(t.pixels) / 1e6, decimals: 1)) Mpx: RGBA \(formatBytes(t.rgba)), "
                 + "YUV \(formatBytes(t.yuv)), saves \(formatBytes(t.savingRGBA.bytes)) (\(fixed(t.savingRGBA.percent, 1))%)")
    lines.append(ReportMarks.textMemory + "\(formatBytes(t.peakRSS)) for the whole run")
    if let w = t.worst, let m = t.median {
        lines.append(ReportMarks.textQuality + "PSNR Y worst \(fixed(w.psnrY, 2)) / median \(fixed(m.psnrY, 2)) dB, "
                     + "Cb \(fixed(w.psnrCb, 2)) / \(fixed(m.psnrCb, 2)), Cr \(fixed(w.psnrCr, 2)) / \(fixed(m.psnrCr, 2)),")
        lines.append(ReportMarks.textQualityMore + "RGB \(fixed(w.psnrRGB, 2)) / \(fixed(m.psnrRGB, 2)) dB, "
                     + (w.psnrRGBBilinear.map { "bilinear \(fixed($0, 2)) / \(fixed(m.psnrRGBBilinear!, 2)) dB, " } ?? "")
                     + "SSIM Y \(fixed(w.ssimY, 4)) / \(fixed(m.ssimY, 4))")
    }
    return lines.joined(separator: "\n")
}

public func textReport(_ records: [ImageRecord], _ t: Totals) -> String {
    ([textHeading()] + records.map(textLines) + [textTotals(t)]).joined(separator: "\n") + "\n"
}
