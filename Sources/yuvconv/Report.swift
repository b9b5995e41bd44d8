import YUVCore
import YUVIO

/// One image's line of the report.
struct ImageRecord {
    var file: String
    var error: String?
    var report: ConversionReport?
    var quality: QualityReport?
    var alignment: Int
    var peakRSS: Int

    var g: PlaneGeometry? { report?.geometry }
    /// The YUV buffers, with the alpha plane when it is kept (2.5 B/px then).
    var yuvBytes: Int { (g?.tightBytes ?? 0) + (report?.alphaBytes ?? 0) }
    var alignedBytes: Int {
        guard let g else { return 0 }
        let up = (g.width + alignment - 1) / alignment * alignment
        return g.alignedBytes(alignment: alignment, biPlanar: report!.layout.isBiPlanar) + (report!.alphaBytes > 0 ? up * g.height : 0)
    }
    var savingRGBA: Saving { Saving(baseline: g?.rgbaBytes ?? 0, ours: yuvBytes) }
    var savingRGB: Saving { Saving(baseline: g?.rgbBytes ?? 0, ours: yuvBytes) }
    /// The naive route's peak: an RGBA decode plus the YUV buffers.
    var naivePeak: Int { (g?.rgbaBytes ?? 0) + yuvBytes }
}

/// The batch's totals and quality spread.
struct Totals {
    let images: Int, failed: Int, pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int
    let worst: QualityReport?, median: QualityReport?

    init(_ records: [ImageRecord]) {
        var images = 0, failed = 0, pixels = 0, rgba = 0, rgb = 0, yuv = 0, aligned = 0
        var columns: [[Double]] = [[], [], [], [], []]
        for r in records {
            guard let g = r.g else {
                failed += 1
                continue
            }
            images += 1
            pixels += g.pixels
            rgba += g.rgbaBytes
            rgb += g.rgbBytes
            yuv += r.yuvBytes
            aligned += r.alignedBytes
            if let q = r.quality {
                for (i, v) in [q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB, q.ssimY].enumerated() { columns[i].append(v) }
            }
        }
        (self.images, self.failed, self.pixels, self.rgba, self.rgb, self.yuv, self.aligned) =
            (images, failed, pixels, rgba, rgb, yuv, aligned)
        if columns[0].isEmpty {
            worst = nil
            median = nil
        } else {
            let lows = columns.map { $0.min()! }, mids = columns.map(Totals.median)
            worst = QualityReport(psnrY: lows[0], psnrCb: lows[1], psnrCr: lows[2], psnrRGB: lows[3], ssimY: lows[4])
            median = QualityReport(psnrY: mids[0], psnrCb: mids[1], psnrCr: mids[2], psnrRGB: mids[3], ssimY: mids[4])
        }
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    var savingRGBA: Saving { Saving(baseline: rgba, ours: yuv) }
    var savingRGB: Saving { Saving(baseline: rgb, ours: yuv) }
}

enum ReportFormat: String, CaseIterable {
    case text, json, csv, html
}

// MARK: - shared helpers

func fixed(_ v: Double, _ d: Int) -> String { v.isFinite ? formatFixed(v, decimals: d) : (v > 0 ? "inf" : "-inf") }

func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// A JSON number; +∞ (an identical plane) and NaN are written as null.
func jsonNumber(_ v: Double, _ d: Int = 4) -> String { v.isFinite ? formatFixed(v, decimals: d) : "null" }

func htmlEscape(_ s: String) -> String {
    s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
}

extension String {
    func replacingAll(_ a: String, _ b: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    func range(of s: String) -> Range<Substring.Index>? {
        guard !s.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(s) { return i..<index(i, offsetBy: s.count) }
            i = index(after: i)
        }
        return nil
    }
}

// MARK: - JSON Lines

func jsonLine(_ r: ImageRecord) -> String {
    var f: [(String, String)] = [("type", jsonString("image")), ("file", jsonString(r.file))]
    if let e = r.error {
        f.append(("ok", "false"))
        f.append(("error", jsonString(e)))
        return "{" + f.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
    let rep = r.report!, g = rep.geometry
    f += [("ok", "true"), ("format", jsonString(rep.info.container.rawValue)), ("width", "\(g.width)"), ("height", "\(g.height)"),
          ("pixels", "\(g.pixels)"), ("source_sampling", jsonString(rep.info.sampling)), ("file_bytes", "\(rep.inputBytes)"),
          ("layout", jsonString(rep.layout.rawValue)), ("matrix", jsonString(rep.spec.matrix.rawValue)),
          ("range", jsonString(rep.spec.range.rawValue)), ("path", jsonString(rep.path)),
          ("orientation", "\(rep.orientation.exif)"),
          ("rgba_bytes", "\(g.rgbaBytes)"), ("rgb_bytes", "\(g.rgbBytes)"), ("yuv_bytes", "\(r.yuvBytes)"),
          ("alignment", "\(r.alignment)"), ("yuv_aligned_bytes", "\(r.alignedBytes)"), ("alpha_bytes", "\(rep.alphaBytes)"),
          ("saving_vs_rgba_bytes", "\(r.savingRGBA.bytes)"), ("saving_vs_rgba_percent", jsonNumber(r.savingRGBA.percent, 2)),
          ("saving_vs_rgb_bytes", "\(r.savingRGB.bytes)"), ("saving_vs_rgb_percent", jsonNumber(r.savingRGB.percent, 2))]
    if let q = r.quality {
        f += [("psnr_y_db", jsonNumber(q.psnrY)), ("psnr_cb_db", jsonNumber(q.psnrCb)), ("psnr_cr_db", jsonNumber(q.psnrCr)),
              ("psnr_rgb_db", jsonNumber(q.psnrRGB)), ("ssim_y", jsonNumber(q.ssimY, 6))]
    } else {
        f += ["psnr_y_db", "psnr_cb_db", "psnr_cr_db", "psnr_rgb_db", "ssim_y"].map { ($0, "null") }
    }
    f += [("conversion_buffers_bytes", "\(rep.ledgerPeakBytes)"), ("peak_rss_bytes", "\(r.peakRSS)"),
          ("naive_peak_bytes", "\(r.naivePeak)"), ("warnings", "\(rep.warnings)")]
    return "{" + f.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
}

func jsonTotals(_ t: Totals) -> String {
    var f: [(String, String)] = [("type", jsonString("totals")), ("images", "\(t.images)"), ("failed", "\(t.failed)"),
                                 ("pixels", "\(t.pixels)"), ("rgba_bytes", "\(t.rgba)"), ("rgb_bytes", "\(t.rgb)"),
                                 ("yuv_bytes", "\(t.yuv)"), ("yuv_aligned_bytes", "\(t.aligned)"),
                                 ("saving_vs_rgba_bytes", "\(t.savingRGBA.bytes)"),
                                 ("saving_vs_rgba_percent", jsonNumber(t.savingRGBA.percent, 2)),
                                 ("saving_vs_rgb_bytes", "\(t.savingRGB.bytes)"),
                                 ("saving_vs_rgb_percent", jsonNumber(t.savingRGB.percent, 2))]
    for (name, q) in [("worst", t.worst), ("median", t.median)] {
        f += [("\(name)_psnr_y_db", q.map { jsonNumber($0.psnrY) } ?? "null"),
              ("\(name)_psnr_cb_db", q.map { jsonNumber($0.psnrCb) } ?? "null"),
              ("\(name)_psnr_cr_db", q.map { jsonNumber($0.psnrCr) } ?? "null"),
              ("\(name)_psnr_rgb_db", q.map { jsonNumber($0.psnrRGB) } ?? "null"),
              ("\(name)_ssim_y", q.map { jsonNumber($0.ssimY, 6) } ?? "null")]
    }
    return "{" + f.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
}

// MARK: - CSV (RFC 4180)

let csvColumns = ["file", "ok", "error", "format", "width", "height", "source_sampling", "file_bytes", "layout", "matrix",
                  "range", "path", "rgba_bytes", "rgb_bytes", "yuv_bytes", "yuv_aligned_bytes", "saving_vs_rgba_bytes",
                  "saving_vs_rgba_percent", "saving_vs_rgb_bytes", "saving_vs_rgb_percent", "psnr_y_db", "psnr_cb_db",
                  "psnr_cr_db", "psnr_rgb_db", "ssim_y", "conversion_buffers_bytes", "peak_rss_bytes", "naive_peak_bytes"]

func csvField(_ s: String) -> String {
    if s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r") {
        return "\"" + s.replacingAll("\"", "\"\"") + "\""
    }
    return s
}

func csvRow(_ r: ImageRecord) -> String {
    guard let rep = r.report else {
        return ([r.file, "false", r.error ?? ""] + Array(repeating: "", count: csvColumns.count - 3)).map(csvField).joined(separator: ",")
    }
    let g = rep.geometry, q = r.quality
    let v: [String] = [r.file, "true", "", rep.info.container.rawValue, "\(g.width)", "\(g.height)", rep.info.sampling,
                       "\(rep.inputBytes)", rep.layout.rawValue, rep.spec.matrix.rawValue, rep.spec.range.rawValue, rep.path,
                       "\(g.rgbaBytes)", "\(g.rgbBytes)", "\(r.yuvBytes)", "\(r.alignedBytes)", "\(r.savingRGBA.bytes)",
                       fixed(r.savingRGBA.percent, 2), "\(r.savingRGB.bytes)", fixed(r.savingRGB.percent, 2),
                       q.map { fixed($0.psnrY, 4) } ?? "", q.map { fixed($0.psnrCb, 4) } ?? "", q.map { fixed($0.psnrCr, 4) } ?? "",
                       q.map { fixed($0.psnrRGB, 4) } ?? "", q.map { fixed($0.ssimY, 6) } ?? "",
                       "\(rep.ledgerPeakBytes)", "\(r.peakRSS)", "\(r.naivePeak)"]
    return v.map(csvField).joined(separator: ",")
}

func csvTotals(_ t: Totals) -> String {
    var v = Array(repeating: "", count: csvColumns.count)
    v[0] = "TOTAL (\(t.images) images, \(t.failed) failed)"
    v[1] = t.failed == 0 ? "true" : "false"
    v[12] = "\(t.rgba)"; v[13] = "\(t.rgb)"; v[14] = "\(t.yuv)"; v[15] = "\(t.aligned)"
    v[16] = "\(t.savingRGBA.bytes)"; v[17] = fixed(t.savingRGBA.percent, 2)
    v[18] = "\(t.savingRGB.bytes)"; v[19] = fixed(t.savingRGB.percent, 2)
    if let w = t.worst {
        v[20] = fixed(w.psnrY, 4); v[21] = fixed(w.psnrCb, 4); v[22] = fixed(w.psnrCr, 4); v[23] = fixed(w.psnrRGB, 4)
        v[24] = fixed(w.ssimY, 6)
    }
    return v.map(csvField).joined(separator: ",")
}

// MARK: - text

func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
    if s.count >= n { return s }
    let p = String(repeating: " ", count: n - s.count)
    return right ? p + s : s + p
}

func shorten(_ s: String, _ n: Int) -> String {
    s.count <= n ? s : "…" + String(s.suffix(n - 1))
}

func textReport(_ records: [ImageRecord], _ t: Totals) -> String {
    var lines: [String] = []
    lines.append(pad("file", 22) + pad("size", 10, right: true) + pad("RGBA", 10, right: true) + pad("YUV", 10, right: true)
                 + pad("saved", 7, right: true) + pad("PSNR Y", 7, right: true) + pad("Cb/Cr", 7, right: true)
                 + pad("SSIM", 7, right: true))
    for r in records {
        let name = pad(shorten(r.file, 21), 22)
        guard let rep = r.report else {
            lines.append(name + "error: " + (r.error ?? ""))
            continue
        }
        let g = rep.geometry, q = r.quality
        lines.append(name + pad("\(g.width)x\(g.height)", 10, right: true) + pad(formatBytes(g.rgbaBytes), 10, right: true)
                     + pad(formatBytes(r.yuvBytes), 10, right: true) + pad(fixed(r.savingRGBA.percent, 1) + "%", 7, right: true)
                     + pad(q.map { fixed($0.psnrY, 1) } ?? "-", 7, right: true)
                     + pad(q.map { fixed(min($0.psnrCb, $0.psnrCr), 1) } ?? "-", 7, right: true)
                     + pad(q.map { fixed($0.ssimY, 4) } ?? "-", 7, right: true))
        lines.append("    \(rep.info.container.rawValue) \(rep.info.sampling), \(formatBytes(rep.inputBytes)) on disk -> "
                     + "\(rep.layout.rawValue) \(rep.spec), \(rep.path)"
                     + (rep.orientation.isIdentity ? "" : ", \(rep.orientation) (EXIF \(rep.orientation.exif))")
                     + "; aligned(\(r.alignment)) \(formatBytes(r.alignedBytes)); "
                     + "vs RGB saves \(fixed(r.savingRGB.percent, 1))%")
        lines.append("    used: buffers \(formatBytes(rep.ledgerPeakBytes)), peak RSS \(formatBytes(r.peakRSS)); "
                     + "naive RGBA route \(formatBytes(r.naivePeak))"
                     + (q.map { "; PSNR RGB \(fixed($0.psnrRGB, 1)) dB" } ?? ""))
    }
    lines.append(String(repeating: "-", count: 80))
    lines.append("total: \(t.images) image\(t.images == 1 ? "" : "s")" + (t.failed > 0 ? " (\(t.failed) failed)" : "") + ", "
                 + "\(formatFixed(Double(t.pixels) / 1e6, decimals: 1)) Mpx: RGBA \(formatBytes(t.rgba)), "
                 + "YUV \(formatBytes(t.yuv)), saves \(formatBytes(t.savingRGBA.bytes)) (\(fixed(t.savingRGBA.percent, 1))%)")
    if let w = t.worst, let m = t.median {
        lines.append("quality: PSNR Y worst \(fixed(w.psnrY, 2)) / median \(fixed(m.psnrY, 2)) dB, "
                     + "Cb \(fixed(w.psnrCb, 2)) / \(fixed(m.psnrCb, 2)), Cr \(fixed(w.psnrCr, 2)) / \(fixed(m.psnrCr, 2)),")
        lines.append("         RGB \(fixed(w.psnrRGB, 2)) / \(fixed(m.psnrRGB, 2)) dB, SSIM Y \(fixed(w.ssimY, 4)) / \(fixed(m.ssimY, 4))")
    }
    return lines.joined(separator: "\n")
}

// MARK: - HTML

func htmlReport(_ records: [ImageRecord], _ t: Totals) -> String {
    let ok = records.filter { $0.report != nil }
    let maxBytes = max(1, ok.map { $0.g!.rgbaBytes }.max() ?? 1)
    let barH = 22, gap = 10, labelW = 220, chartW = 520
    let height = ok.count * (2 * barH + gap) + 40
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(labelW + chartW + 140)\" height=\"\(height)\" "
        + "role=\"img\" aria-label=\"RGBA versus YUV memory per image\">"
    svg += "<rect x=\"\(labelW)\" y=\"4\" width=\"12\" height=\"12\" fill=\"#c0504d\"/><text x=\"\(labelW + 18)\" y=\"14\">RGBA</text>"
    svg += "<rect x=\"\(labelW + 80)\" y=\"4\" width=\"12\" height=\"12\" fill=\"#4f81bd\"/><text x=\"\(labelW + 98)\" y=\"14\">YUV</text>"
    for (i, r) in ok.enumerated() {
        let y = 30 + i * (2 * barH + gap)
        let g = r.g!
        let wa = max(1, chartW * g.rgbaBytes / maxBytes), wy = max(1, chartW * r.yuvBytes / maxBytes)
        svg += "<text x=\"\(labelW - 8)\" y=\"\(y + barH + 4)\" text-anchor=\"end\">\(htmlEscape(shorten(r.file, 30)))</text>"
        svg += "<rect x=\"\(labelW)\" y=\"\(y)\" width=\"\(wa)\" height=\"\(barH - 2)\" fill=\"#c0504d\"/>"
        svg += "<text x=\"\(labelW + wa + 6)\" y=\"\(y + barH - 7)\">\(formatBytes(g.rgbaBytes))</text>"
        svg += "<rect x=\"\(labelW)\" y=\"\(y + barH)\" width=\"\(wy)\" height=\"\(barH - 2)\" fill=\"#4f81bd\"/>"
        svg += "<text x=\"\(labelW + wy + 6)\" y=\"\(y + 2 * barH - 7)\">\(formatBytes(r.yuvBytes)) (−\(fixed(r.savingRGBA.percent, 1))%)</text>"
    }
    svg += "</svg>"
    var rows = ""
    for r in records {
        guard let rep = r.report else {
            rows += "<tr class=\"err\"><td>\(htmlEscape(r.file))</td><td colspan=\"11\">error: \(htmlEscape(r.error ?? ""))</td></tr>\n"
            continue
        }
        let g = rep.geometry, q = r.quality
        var cells: [String] = [htmlEscape(r.file), "\(g.width)×\(g.height)"]
        cells.append(htmlEscape(rep.info.container.rawValue + " " + rep.info.sampling))
        cells.append(htmlEscape(rep.layout.rawValue + " " + rep.spec.description))
        cells.append(rep.path)
        cells.append(formatBytes(g.rgbaBytes))
        cells.append(formatBytes(r.yuvBytes))
        cells.append(fixed(r.savingRGBA.percent, 1) + "%")
        let psnrY: String = q.map { fixed($0.psnrY, 2) } ?? "–"
        let psnrC: String = q.map { fixed($0.psnrCb, 2) + " / " + fixed($0.psnrCr, 2) } ?? "–"
        let ssim: String = q.map { fixed($0.ssimY, 4) } ?? "–"
        cells += [psnrY, psnrC, ssim, formatBytes(r.peakRSS)]
        rows += "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
    }
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
        table { border-collapse: collapse; margin-top: 1em; }
        th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; white-space: nowrap; }
        td:first-child { white-space: normal; word-break: break-all; }
        th:first-child, td:first-child { text-align: left; }
        tr.err td { color: #a00; text-align: left; }
        svg text { font: 12px system-ui, sans-serif; fill: #222; }
        .total { font-size: 1.2em; }
        </style>
        </head>
        <body>
        <h1>yuvconv memory report</h1>
        <p class="total">\(t.images) image\(t.images == 1 ? "" : "s")\(t.failed > 0 ? " (\(t.failed) failed)" : ""), \(formatFixed(Double(t.pixels) / 1e6, decimals: 1)) megapixels:
        RGBA \(formatBytes(t.rgba)) → YUV \(formatBytes(t.yuv)), saving \(formatBytes(t.savingRGBA.bytes)) (\(fixed(t.savingRGBA.percent, 1))%).</p>
        \(quality)
        \(svg)
        <table>
        <thead><tr><th>file</th><th>size</th><th>source</th><th>output</th><th>path</th><th>RGBA</th><th>YUV</th><th>saved</th><th>PSNR Y dB</th><th>PSNR Cb / Cr dB</th><th>SSIM Y</th><th>peak RSS</th></tr></thead>
        <tbody>
        \(rows)</tbody>
        <tfoot><tr><td>total</td><td></td><td></td><td></td><td></td><td>\(formatBytes(t.rgba))</td><td>\(formatBytes(t.yuv))</td><td>\(fixed(t.savingRGBA.percent, 1))%</td><td>\(t.worst.map { fixed($0.psnrY, 2) } ?? "–") (worst)</td><td></td><td>\(t.worst.map { fixed($0.ssimY, 4) } ?? "–") (worst)</td><td></td></tr></tfoot>
        </table>
        </body>
        </html>
        """
}

/// The whole report in a format (JSON Lines: one object per image, then the totals object).
func renderReport(_ records: [ImageRecord], format: ReportFormat) -> String {
    let t = Totals(records)
    switch format {
    case .text: return textReport(records, t)
    case .json: return (records.map(jsonLine) + [jsonTotals(t)]).joined(separator: "\n")
    case .csv: return ([csvColumns.joined(separator: ",")] + records.map(csvRow) + [csvTotals(t)]).joined(separator: "\r\n")
    case .html: return htmlReport(records, t)
    }
}
