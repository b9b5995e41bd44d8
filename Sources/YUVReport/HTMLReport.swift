import YUVCore

// The HTML report: the totals, a bar chart per image of the naive route's memory against this conversion's
// measured buffers, and a table of the columns with an HTML heading, with a footer row of totals. Written in
// parts (`ReportStream`): the head with the totals, the chart's bars, the table's rows, the tail.

/// A row of the table: each column's cell, escaped.
func htmlRow(_ cells: [String]) -> String { "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>" }

/// An image's row: text cells (source, output, path) may wrap, numbers stay on one line.
func htmlRow(_ cells: [Cell]) -> String {
    "<tr>" + cells.enumerated().map { i, cell in
        if cell.isText, i > 0 { return "<td class=\"text\">\(cell.html)</td>" }
        return "<td>\(cell.html)</td>"
    }.joined() + "</tr>"
}

/// One image's row of the table, or its error.
func htmlImageRow(_ r: ImageRecord) -> String {
    let columns = Column.htmlTable
    guard r.report != nil else {
        if let why = r.skipped {
            return "<tr><td>\(htmlEscape(r.file))</td><td colspan=\"\(columns.count - 1)\">skipped: \(htmlEscape(why))</td></tr>"
        }
        return "<tr class=\"err\"><td>\(htmlEscape(r.file))</td><td colspan=\"\(columns.count - 1)\">error: \(htmlEscape(r.error ?? ""))</td></tr>"
    }
    let row = htmlRow(columns.map { $0.value(r) })
    // An --update run's kept output (its figures from the manifest): marked, as JSON and CSV mark it.
    return r.upToDate ? "<tr class=\"kept\" title=\"up to date: kept, figures from the manifest\">" + row.dropFirst(4) : row
}

/// The footer row: "total", each summed column, each quality measure's worst.
func htmlTotals(_ t: Totals, _ columns: [Column]) -> String {
    htmlRow(columns.enumerated().map { i, c in
        if i == 0 { return "total" }
        switch c.total {
        case .sum(let total)?: return total(t).html
        case .spread(let measure)?: return (t.worst.map(measure) ?? .unmeasured).html + " (worst)"
        case .caption?, nil: return ""
        }
    })
}

let chart = (barH: 22, gap: 10, labelW: 220, chartW: 520)

/// The page up to the chart: the style, the totals, the run's peak memory, the quality summary.
func htmlHead(_ t: Totals) -> String {
    let quality = t.worst.map { w in
        "<p>Quality: PSNR Y worst \(fixed(w.psnrY, 2)) dB, median \(fixed(t.median!.psnrY, 2)) dB; "
            + "SSIM Y worst \(fixed(w.ssimY, 4)), median \(fixed(t.median!.ssimY, 4)).</p>"
    } ?? ""
    return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>yuvconv memory report</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; margin-top: 1em; max-width: 100%; }
        th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; white-space: nowrap; }
        th { white-space: normal; }
        td:first-child { white-space: normal; overflow-wrap: anywhere; min-width: 12em; }
        td.text { white-space: normal; text-align: left; min-width: 6em; }
        svg { max-width: 100%; height: auto; }
        @media (max-width: 1400px) { body { margin: 1em; font-size: 12px; } th, td { padding: 2px 4px; } }
        @media (max-width: 1100px) { td { white-space: normal; } td:first-child { min-width: 8em; } td.text { min-width: 4.5em; } }
        th:first-child, td:first-child { text-align: left; }
        tr.err td { color: #a00; text-align: left; }
        td[colspan] { white-space: normal; overflow-wrap: anywhere; text-align: left; }
        svg text { font: 12px system-ui, sans-serif; fill: #222; }
        svg text.note { fill: #555; }
        svg text.inside { fill: #fff; }
        svg text.label { font: 11px ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; }
        tr.kept td:first-child::after { content: " (up to date, kept)"; color: #777; }
        .total { font-size: 1.2em; }
        </style>
        </head>
        <body>
        <h1>yuvconv memory report</h1>
        <p class="total">\(t.images) image\(t.images == 1 ? "" : "s")\(t.failed > 0 ? " (\(t.failed) failed)" : "")\(htmlEscape(t.skippedAndNotStarted)), \(formatFixed(Double(t.pixels) / 1e6, decimals: 1)) megapixels:
        RGBA \(formatBytes(t.rgba)) → YUV \(formatBytes(t.yuv)), saving \(formatBytes(t.savingRGBA.bytes)) (\(fixed(t.savingRGBA.percent, 1))%).</p>
        <p>Peak memory of the whole run: \(formatBytes(t.peakRSS)) (the process's peak resident set); each image's own buffers are in the table.</p>
        \(quality)

        """
}

/// The most images the chart draws (the table lists every one).
let htmlChartLimit = 500

/// The chart's opening and legend, sized for `bars` images.
func htmlChartStart(bars: Int) -> String {
    let (barH, gap, labelW, chartW) = chart
    let height = bars * (3 * barH + gap) + 40
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(labelW + chartW + 170)\" height=\"\(height)\" "
        + "viewBox=\"0 0 \(labelW + chartW + 170) \(height)\" role=\"img\" "
        + "aria-label=\"memory per image: the naive decode-to-RGBA route against this conversion's buffers\">"
        + "<rect x=\"\(labelW)\" y=\"4\" width=\"12\" height=\"12\" fill=\"#c0504d\"/>"
        + "<text x=\"\(labelW + 18)\" y=\"14\">naive route: RGBA decode + YUV</text>"
        + "<rect x=\"\(labelW + 250)\" y=\"4\" width=\"12\" height=\"12\" fill=\"#4f81bd\"/>"
        + "<text x=\"\(labelW + 268)\" y=\"14\">this conversion's buffers (measured)</text>"
}

/// What differs between images: the memory this conversion used (its ledger, counted) against the naive
/// route's peak (decode to RGBA, then convert: the RGBA picture and the YUV planes at once), scaled to the
/// largest of all.
func htmlBar(index i: Int, label: String, naive: Int, used: Int, largest: Int, note: String) -> String {
    let (barH, gap, labelW, chartW) = chart
    let y = 30 + i * (3 * barH + gap)
    let wa = max(1, chartW * naive / largest), wy = max(1, chartW * used / largest)
    let share = naive > 0 ? Double(used) * 100 / Double(naive) : 0
    // A bar's figure after its end, or inside it (white, ending at its end) when the bar is long: after a bar
    // as wide as the chart the longer figure ran past the picture's edge and was cut off.
    func figure(_ text: String, width w: Int, y: Int) -> String {
        w > chartW / 2 ? "<text x=\"\(labelW + w - 6)\" y=\"\(y)\" text-anchor=\"end\" class=\"inside\">\(text)</text>"
                       : "<text x=\"\(labelW + w + 6)\" y=\"\(y)\">\(text)</text>"
    }
    // The label (shortened to 30 terminal columns) in a monospaced face at 11 px: a column is about 0.6 em there,
    // 30 of them about 200 px, within the 212 before the bars. In the proportional face, names in capitals
    // (`…RD/DCIM/100MSDCF/DSC00001.JPG`, about 236 px) ran past the picture's left edge, the "…" cut off. Scripts
    // the monospaced face lacks come from a proportional one (a Devanagari conjunct is wider than its two columns):
    // the label is drawn at its columns' width (`textLength`, 6.6 px a column), which a monospaced label already
    // has, so no name leaves the chart.
    let length = fixed(Double(displayWidth(label)) * 6.6, 1)
    return "<text x=\"\(labelW - 8)\" y=\"\(y + barH + 4)\" text-anchor=\"end\" class=\"label\" textLength=\"\(length)\" "
        + "lengthAdjust=\"spacingAndGlyphs\">\(htmlEscape(label))</text>"
        + "<rect x=\"\(labelW)\" y=\"\(y)\" width=\"\(wa)\" height=\"\(barH - 2)\" fill=\"#c0504d\"/>"
        + figure(formatBytes(naive), width: wa, y: y + barH - 7)
        + "<rect x=\"\(labelW)\" y=\"\(y + barH)\" width=\"\(wy)\" height=\"\(barH - 2)\" fill=\"#4f81bd\"/>"
        + figure("\(formatBytes(used)) (\(fixed(share, 1))% of the naive route)", width: wy, y: y + 2 * barH - 7)
        + "<text x=\"\(labelW)\" y=\"\(y + 3 * barH - 7)\" class=\"note\">\(htmlEscape(note))</text>"
}

/// The line under an image's bars: what else differs between images — its YUV planes' size tight and with
/// rows padded to the report's alignment (`--align`, 64 by default; and plane heights, `--align-height`) when
/// that differs, and the quality measured (--metrics).
func htmlBarNote(_ r: ImageRecord) -> String {
    var parts = ["YUV \(formatBytes(r.yuvBytes))"]
    if r.alignedBytes != r.yuvBytes {
        let more = r.yuvBytes > 0 ? Double(r.alignedBytes - r.yuvBytes) * 100 / Double(r.yuvBytes) : 0
        parts[0] += ", aligned(\(r.alignmentLabel)) \(formatBytes(r.alignedBytes)) (+\(fixed(more, 1))%)"
    }
    if let q = r.quality {
        parts.append("PSNR Y \(fixed(q.psnrY, 2)) dB, Cb/Cr \(fixed(q.psnrCb, 1))/\(fixed(q.psnrCr, 1)) dB, SSIM Y \(fixed(q.ssimY, 4))")
    }
    return parts.joined(separator: " · ")
}

/// After the chart: the table's heading.
func htmlTableStart() -> String {
    "<table>\n<thead><tr>\(Column.htmlTable.map { "<th>\(htmlEscape($0.html!))</th>" }.joined())</tr></thead>\n<tbody>\n"
}

/// After the rows: the footer of totals and the end of the page.
func htmlTail(_ t: Totals) -> String {
    "</tbody>\n<tfoot>\(htmlTotals(t, Column.htmlTable))</tfoot>\n</table>\n</body>\n</html>\n"
}

public func htmlReport(_ records: [ImageRecord], _ t: Totals) -> String {
    renderReport(records, format: .html, peakRSS: t.peakRSS)
}
