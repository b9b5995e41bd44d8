import TestSupport
import XCTest
import YUVCore
import YUVIO
@testable import YUVReport

/// The report's four formats rendered from records made here, without the binary: what each writes for a
/// converted, an unmeasured and a failed image, and that the totals land under the right column.
final class RenderTests: XCTestCase {
    /// The package's root, from this file's path.
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// A record of `file` converted in memory (the real `ConversionReport`), with the quality and peak given.
    func converted(_ file: String, layout: PixelLayout = .nv12, quality: QualityReport?, alignment: Int = 64,
                   peakRSS: Int = 10_000_000) throws -> ImageRecord {
        let path = RenderTests.root + "/Fixtures/corpus/" + file
        var options = DecodeOptions()
        options.colourManagement = false   // rocket.jpg's Adobe RGB profile would take it off the direct path
        options.jpegPath = .direct           // and its 4:4:4 sampling off `auto`'s
        let c = try convertFile(path: path, spec: ConversionSpec(), layout: layout, options: options)
        return ImageRecord(file: file, error: nil, report: c.report, quality: quality, alignment: alignment, peakRSS: peakRSS)
    }

    let failed = ImageRecord(file: "dir/a,\"b\" <c>.png", error: "cannot open: No such file or directory", report: nil,
                             quality: nil, alignment: 64, peakRSS: 0)
    let q1 = QualityReport(psnrY: 50.123456, psnrCb: .infinity, psnrCr: 40.5, psnrRGB: 38.25, ssimY: 0.9987654)
    let q2 = QualityReport(psnrY: 44.0, psnrCb: 41.0, psnrCr: 43.0, psnrRGB: 36.0, ssimY: 0.998)

    /// One CSV line's fields (RFC 4180 quoting).
    func csvFields(_ line: Substring) -> [String] {
        var fields: [String] = [], field = "", quoted = false, chars = Array(line), i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count && chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(c)
            }
            i += 1
        }
        return fields + [field]
    }

    /// The CSV report as dictionaries from heading to field, with the heading.
    func csvTable(_ records: [ImageRecord]) -> (heading: [String], rows: [[String: String]]) {
        let lines = renderReport(records, format: .csv).split(separator: "\r\n")
        let heading = csvFields(lines[0])
        let rows = lines.dropFirst().map { line -> [String: String] in
            let f = csvFields(line)
            XCTAssertEqual(f.count, heading.count, "a row has as many fields as the heading: \(line)")
            return Dictionary(uniqueKeysWithValues: zip(heading, f))
        }
        return (heading, rows)
    }

    /// The keys of a JSON object line, in order (the values here hold no `", "`).
    func jsonKeys(_ line: Substring) -> [String] {
        line.dropFirst(2).split(separator: ", \"").map { String($0.prefix { $0 != "\"" }) }
    }

    func testCSVHeadingAndJSONKeysAreTheDocumentedOnes() {
        XCTAssertEqual(renderReport([], format: .csv).split(separator: "\r\n").first.map(String.init),
                       "file,ok,error,format,width,height,source_sampling,file_bytes,layout,matrix,range,color_primaries,color_transfer,chroma_location,cicp_primaries,cicp_transfer,cicp_matrix,cicp_full_range,cicp_chroma_location,ffmpeg_rawvideo_input,ffmpeg_filter,color_management,path,rgba_bytes,"
                       + "rgb_bytes,yuv_bytes,yuv_aligned_bytes,saving_vs_rgba_bytes,saving_vs_rgba_percent,"
                       + "saving_vs_rgb_bytes,saving_vs_rgb_percent,psnr_y_db,psnr_cb_db,psnr_cr_db,psnr_rgb_db,ssim_y,"
                       + "conversion_buffers_bytes,peak_rss_bytes,naive_peak_bytes,output_bytes,output_sha256,up_to_date,"
                       + "chroma_filter,psnr_rgb_bilinear_db,skipped,output,psnr_rgb_bilinear_box_db,sharp_gain_db")
        let keys = Column.all.compactMap(\.key)
        XCTAssertEqual(Set(keys).count, keys.count, "keys are unique")
    }

    func testConvertedImageInJSON() throws {
        let r = try converted("photos/rocket.jpg", quality: q1, alignment: 16)
        let line = jsonLine(r)
        XCTAssertEqual(jsonKeys(Substring(line)),
                       ["type", "file", "ok", "format", "width", "height", "pixels", "source_sampling", "file_bytes", "layout",
                        "matrix", "range", "color_primaries", "color_transfer", "chroma_location", "cicp_primaries", "cicp_transfer", "cicp_matrix", "cicp_full_range", "cicp_chroma_location", "ffmpeg_rawvideo_input", "ffmpeg_filter", "color_management", "path", "orientation", "rgba_bytes", "rgb_bytes", "yuv_bytes", "alignment",
                        "yuv_aligned_bytes", "alpha_bytes", "saving_vs_rgba_bytes", "saving_vs_rgba_percent",
                        "saving_vs_rgb_bytes", "saving_vs_rgb_percent", "psnr_y_db", "psnr_cb_db", "psnr_cr_db",
                        "psnr_rgb_db", "ssim_y", "conversion_buffers_bytes", "naive_peak_bytes", "warnings",
                        "output_bytes", "output_sha256", "up_to_date", "chroma_filter", "psnr_rgb_bilinear_db",
                        "psnr_rgb_bilinear_box_db", "sharp_gain_db", "first_warning"])
        let (w, h) = (640, 427), yuv = w * h + 2 * 320 * 214
        for field in ["\"type\": \"image\"", "\"file\": \"photos/rocket.jpg\"", "\"ok\": true", "\"format\": \"JPEG\"",
                      "\"width\": 640", "\"pixels\": \(w * h)", "\"rgba_bytes\": \(4 * w * h)", "\"yuv_bytes\": \(yuv)",
                      "\"alignment\": 16", "\"yuv_aligned_bytes\": \(640 * h + 640 * 214)",
                      "\"saving_vs_rgba_bytes\": \(4 * w * h - yuv)", "\"saving_vs_rgba_percent\": 62.47",
                      "\"psnr_y_db\": 50.1235", "\"psnr_cb_db\": null", "\"psnr_cr_db\": 40.5000", "\"ssim_y\": 0.998765",
                      "\"conversion_buffers_bytes\": \(r.report!.ledgerPeakBytes)", "\"naive_peak_bytes\": \(4 * w * h + yuv)",
                      "\"path\": \"direct YCbCr\""] {
            XCTAssertTrue(line.contains(field), "\(field) in \(line)")
        }
        // An image has no peak of its own: the process's is the run's, in the totals.
        XCTAssertFalse(line.contains("peak_rss_bytes"), line)
    }

    /// The text line's sharp-chroma gain is `sharp_gain_db` rounded, signed by the gain itself: not the
    /// difference of the two rounded figures beside it (48.55 and 44.91 read 48.6 and 44.9, the gain 3.64 is +3.6),
    /// and a loss too small to show reads -0.0, not +0.0.
    func testTextSharpGainIsTheReportedGainRounded() throws {
        func line(_ sharp: Double, _ box: Double) throws -> String {
            let q = QualityReport(psnrY: 50, psnrCb: 45, psnrCr: 45, psnrRGB: 42, ssimY: 0.99,
                                  psnrRGBBilinear: sharp, psnrRGBBilinearBox: box)
            return renderReport([try converted("photos/kodim23.png", quality: q)], format: .text)
        }
        let a = try line(48.5501, 44.9102), b = try line(40.2449, 37.6724), c = try line(30.0, 30.0021)
        XCTAssertTrue(a.contains("bilinear 48.6 (box 44.9: sharp chroma +3.6 dB)"), a)
        XCTAssertTrue(b.contains("(box 37.7: sharp chroma +2.6 dB)"), b)
        XCTAssertTrue(c.contains("(box 30.0: sharp chroma -0.0 dB)"), c)
    }

    /// The written file's size and SHA-256: in JSON and CSV when there was a file, null (empty) when not; and
    /// whether `--update` kept it.
    func testOutputDigestInJSONAndCSV() throws {
        var r = try converted("pngsuite/basn0g16.png", quality: nil)
        XCTAssertTrue(jsonLine(r).hasSuffix("\"output_bytes\": null, \"output_sha256\": null, \"up_to_date\": false, "
                                            + "\"chroma_filter\": \"box\", \"psnr_rgb_bilinear_db\": null, \"psnr_rgb_bilinear_box_db\": null, "
                                            + "\"sharp_gain_db\": null, \"first_warning\": null}"), jsonLine(r))
        XCTAssertEqual(csvTable([r]).rows[0]["output_sha256"], "")
        let sha = String(repeating: "0123456789abcdef", count: 4)
        r.output = OutputDigest(bytes: 1536, sha256: sha)
        r.upToDate = true
        XCTAssertTrue(jsonLine(r).hasSuffix("\"output_bytes\": 1536, \"output_sha256\": \"\(sha)\", \"up_to_date\": true, "
                                            + "\"chroma_filter\": \"box\", \"psnr_rgb_bilinear_db\": null, \"psnr_rgb_bilinear_box_db\": null, "
                                            + "\"sharp_gain_db\": null, \"first_warning\": null}"), jsonLine(r))
        XCTAssertEqual(csvTable([r]).rows[0]["output_bytes"], "1536")
        XCTAssertEqual(csvTable([r]).rows[0]["output_sha256"], sha)
        XCTAssertEqual(csvTable([r]).rows[0]["up_to_date"], "true")
        XCTAssertFalse(renderReport([r], format: .text).contains(sha), "not in the terminal's table")
        XCTAssertFalse(renderReport([r], format: .html).contains(sha), "not in the HTML table")
        // So only JSON and CSV have the output hashed (convertOne asks this).
        XCTAssertEqual(ReportFormat.allCases.filter(\.showsOutputDigest), [.json, .csv])
        // Kept: said in the text and HTML reports too (their figures are the manifest's), and only then.
        XCTAssertTrue(renderReport([r], format: .text).contains("\n    up to date, kept (figures from the manifest): buffers "))
        XCTAssertTrue(renderReport([r], format: .html).contains("<tr class=\"kept\" title=\"up to date: kept, figures from the manifest\"><td>"))
        r.upToDate = false
        XCTAssertFalse(renderReport([r], format: .text).contains("up to date"))
        XCTAssertFalse(renderReport([r], format: .html).contains("<tr class=\"kept\""))
    }

    func testFailedImageInEveryFormat() {
        XCTAssertEqual(jsonLine(failed), "{\"type\": \"image\", \"file\": \"dir/a,\\\"b\\\" <c>.png\", \"ok\": false, "
                       + "\"error\": \"cannot open: No such file or directory\"}")
        XCTAssertEqual(csvRow(failed), "\"dir/a,\"\"b\"\" <c>.png\",false,cannot open: No such file or directory"
                       + String(repeating: ",", count: 45))
        let text = renderReport([failed], format: .text).split(separator: "\n")
        XCTAssertEqual(text[1], "dir/a,\"b\" <c>.png     error: cannot open: No such file or directory")
        // A long name keeps its end, cut to fit the column.
        var long = failed
        long.file = "a/long/folder/of/photos/IMG_0001.png"
        XCTAssertEqual(renderReport([long], format: .text).split(separator: "\n")[1],
                       "…/photos/IMG_0001.png error: cannot open: No such file or directory")
        let html = renderReport([failed], format: .html)
        XCTAssertTrue(html.contains("<tr class=\"err\"><td>dir/a,&quot;b&quot; &lt;c&gt;.png</td><td colspan=\"11\">"
                                    + "error: cannot open: No such file or directory</td></tr>"), html)
    }

    /// What `--update` may replace without `--force` at the report file's name: a report in any format (its
    /// own, or one written in another format before), never anything else.
    func testReportsAreRecognisedAndNothingElse() throws {
        let r = try converted("pngsuite/basn0g16.png", quality: nil)
        for format in ReportFormat.allCases {
            for records in [[r], [failed], []] {
                let text = renderReport(records, format: format)
                XCTAssertTrue(ReportFormat.isReport(head: Array(text.utf8.prefix(512)), tail: Array(text.utf8.suffix(4096))),
                              "\(format) \(records.count)")
                // Its beginning alone, followed by something else, is not one (a JSON Lines dataset that begins as a
                // report's line does).
                let other = Array(text.utf8.prefix(512)) + Array("\nsomething else\n".utf8)
                XCTAssertFalse(ReportFormat.isReport(head: Array(other.prefix(512)), tail: Array(other.suffix(4096))),
                               "\(format) \(records.count)")
            }
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        for other in [png, Array("my notes\n".utf8), Array("{\"name\": \"x\"}".utf8), Array("file,size\n".utf8),
                      Array("{\"type\": \"FeatureCollection\", \"features\": []}".utf8), Array("{\"type\": \"object\"}".utf8),
                      Array("{\"type\": \"image\", \"url\": \"a.png\"}".utf8),
                      Array("{\"type\": \"image\", \"file\": \"cat1.jpg\", \"label\": \"cat\"}\n".utf8),
                      Array("<!DOCTYPE html><title>mine</title>".utf8), [0xFF, 0xD8, 0xFF, 0xE0], []] {
            XCTAssertFalse(ReportFormat.isReport(head: other, tail: other), "\(other.prefix(12))")
        }
    }

    /// Read whole, a report is one only when it is exactly one (`WholeReportCheck`): two runs' reports
    /// concatenated, or a line of someone's own anywhere between its first line and its totals, are not — though
    /// their ends are a report's — so `--update` does not replace them without `--force`.
    func testWholeReportIsExactlyOne() throws {
        let r = try converted("pngsuite/basn0g16.png", quality: nil)
        func whole(_ text: String, chunk: Int = 7) -> Bool {
            var check = WholeReportCheck()
            let bytes = Array(text.utf8)
            var at = 0
            while at < bytes.count {   // fed in small pieces: records and quoted fields cut anywhere
                let end = min(at + chunk, bytes.count)
                bytes[at..<end].withUnsafeBytes { check.feed($0) }
                at = end
            }
            return check.isWholeReport()
        }
        for format in ReportFormat.allCases {
            for records in [[r], [failed], [r, failed, r], []] {
                let text = renderReport(records, format: format)
                XCTAssertTrue(whole(text), "\(format) \(records.count)")
                XCTAssertTrue(whole(text, chunk: 1 << 16), "\(format) \(records.count)")
                // Its ends are a report's, but it is not one.
                XCTAssertFalse(whole(text + renderReport([r], format: format)), "\(format): two reports")
                // Two CSV reports appended without the second's header: two TOTAL rows (it was taken as one).
                if format == .csv {
                    let second = renderReport([r, failed], format: format)
                    let body = String(scalars: second.unicodeScalars.drop { $0 != "\n" }.dropFirst())
                    XCTAssertFalse(whole(text + body), "csv: two reports, one header")
                    XCTAssertTrue(whole(text), "csv: one report")
                }
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for at in 1..<max(2, lines.count - 1) {
                    var edited = lines
                    edited.insert("IMPORTANT USER DATA", at: at)
                    // A text report's image lines and an HTML page's body are free text: a line among them cannot be
                    // told from theirs (another report's heading, rule, totals or page can).
                    if format == .html || (format == .text && lines[at...].contains(where: { $0.hasPrefix("-----") })) {
                        continue
                    }
                    XCTAssertFalse(whole(edited.joined(separator: "\n")), "\(format) \(records.count): a line at \(at)")
                }
                XCTAssertFalse(whole(text + "my notes\n"), "\(format): a line after the totals")
            }
        }
        // Files named as a CSV report's TOTAL row or a text report's totals line begin: still one report each.
        for name in ["TOTAL (a,b).png", "total: x.png", "--------------------------------------------------------------------------------",
                     "memory: peak RSS 1 MiB", "quality: x", "</html>", "<!DOCTYPE html>", "a\nb\r\n\"c,d\".png"] {
            var named = r
            named.file = name
            var other = failed
            other.file = name
            for format in ReportFormat.allCases {
                XCTAssertTrue(whole(renderReport([named, other, r], format: format)), "\(format) with \(name.debugDescription)")
            }
        }
        for other in ["", "my notes\n", "{\"type\": \"image\", \"file\": \"cat1.jpg\", \"label\": \"cat\"}\n",
                      csvHeader() + "\r\n" + "a,b\r\n"] {
            XCTAssertFalse(whole(other), other)
        }
    }

    func testUnmeasuredQualityInEveryFormat() throws {
        let r = try converted("pngsuite/basn0g16.png", quality: nil)
        let json = jsonLine(r)
        for key in ["psnr_y_db", "psnr_cb_db", "psnr_cr_db", "psnr_rgb_db", "ssim_y"] {
            XCTAssertTrue(json.contains("\"\(key)\": null"), key)
        }
        let row = csvTable([r]).rows[0]
        XCTAssertEqual(row["psnr_y_db"], "")
        XCTAssertEqual(row["ssim_y"], "")
        XCTAssertEqual(row["error"], "")
        XCTAssertEqual(row["rgba_bytes"], "4096")
        let text = renderReport([r], format: .text).split(separator: "\n")
        XCTAssertEqual(text[1], "pngsuite/basn0g16.png      32x32   4.0 KiB   1.5 KiB  62.5%      -      -      -")
        let html = renderReport([r], format: .html)
        XCTAssertTrue(html.contains("<td>62.5%</td><td>–</td><td>–</td><td>–</td><td>\(formatBytes(r.report!.ledgerPeakBytes))</td></tr>"), html)
    }

    func testTableHeadings() {
        let text = renderReport([], format: .text).split(separator: "\n")
        XCTAssertEqual(text[0], "file                        size      RGBA       YUV  saved PSNR Y  Cb/Cr   SSIM")
        XCTAssertTrue(renderReport([], format: .html).contains(
            "<thead><tr><th>file</th><th>size</th><th>source</th><th>output</th><th>path</th><th>RGBA</th><th>YUV</th>"
            + "<th>saved</th><th>PSNR Y dB</th><th>PSNR Cb / Cr dB</th><th>SSIM Y</th><th>buffers</th></tr></thead>"))
    }

    /// The chart draws at most 500 images (76 px each: 20,000 made an SVG 1.5 million px tall, most of the page
    /// before its table) and says so; the table keeps every row. A bar as wide as the chart has its figure inside
    /// it (after it, the figure ran past the picture's edge).
    func testHTMLChartIsBoundedAndItsFiguresFit() throws {
        let r = try converted("photos/rocket.jpg", quality: nil)
        let html = renderReport(Array(repeating: r, count: 501), format: .html)
        XCTAssertTrue(html.contains("<p>The chart shows the first 500 of the 501 images converted; the table lists every one.</p>"))
        XCTAssertEqual(html.components(separatedBy: "<rect ").count - 1, 2 + 2 * 500)
        XCTAssertEqual(html.components(separatedBy: "<tr><td>photos/rocket.jpg</td>").count - 1, 501)
        let one = renderReport([r], format: .html)
        XCTAssertFalse(one.contains("The chart shows the first"))
        XCTAssertTrue(one.contains("text-anchor=\"end\" class=\"inside\">"), one)
    }

    func testConvertedImageInTheTables() throws {
        let r = try converted("photos/rocket.jpg", quality: q1)
        let text = renderReport([r], format: .text).split(separator: "\n")
        // The narrow table shows the worse chroma plane.
        XCTAssertEqual(text[1], "photos/rocket.jpg        640x427   1.0 MiB 400.6 KiB  62.5%   50.1   40.5 0.9988")
        XCTAssertEqual(text[1].count, 80)
        let html = renderReport([r], format: .html)
        // Text cells (source, output, path) may wrap; numbers stay on one line.
        XCTAssertTrue(html.contains("<tr><td>photos/rocket.jpg</td><td>640×427</td><td class=\"text\">JPEG 4:4:4</td><td class=\"text\">nv12 bt709 full</td>"
                                    + "<td class=\"text\">direct YCbCr</td><td>1.0 MiB</td><td>400.6 KiB</td><td>62.5%</td><td>50.12</td>"
                                    + "<td>inf / 40.50</td><td>0.9988</td><td>\(formatBytes(r.report!.ledgerPeakBytes))</td></tr>"), html)
    }

    /// The text report names where the orientation applied was read: EXIF, or XMP's tiff:Orientation.
    func testOrientationSourceInTheText() {
        for source in [SourceInfo.OrientationSource.exif, .xmp] {
            var info = SourceInfo(restoring: .png, width: 3, height: 5, sampling: "RGB 8-bit", rowFormat: .rgb8,
                                  progressive: false, interlaced: false, hasAlpha: false, orientation: 6)
            info.orientationSource = source
            let report = ConversionReport(restoring: info, geometry: PlaneGeometry(width: 5, height: 3), layout: .nv12,
                                          spec: ConversionSpec(), inputBytes: 100, warnings: 0, firstWarning: "",
                                          path: "RGB", alphaBytes: 0, ledgerPeakBytes: 4096, orientation: Orientation(exif: 6))
            let r = ImageRecord(file: "a.png", error: nil, report: report, quality: nil, alignment: 64, peakRSS: 0)
            let text = renderReport([r], format: .text)
            XCTAssertTrue(text.contains(", RGB, turned 90° clockwise (\(source.rawValue) 6); "), text)
        }
    }

    /// Every text cell, whoever wrote its text (a restored manifest line is a file anyone could edit), shows a
    /// control character as `\xNN` in the tables and the CSV — no cell sets a terminal's title, clears it or breaks
    /// a CSV line — and text that would start a formula gets its `'` in the CSV, whichever column (a restored
    /// manifest's sampling or route too), but the tool's own ffmpeg arguments (`-f rawvideo …`).
    func testNoCellCarriesAControlCharacter() throws {
        let escape = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRED\u{202E}"
        var info = SourceInfo(restoring: .png, width: 3, height: 5, sampling: escape, rowFormat: .rgb8,
                              progressive: false, interlaced: false, hasAlpha: false, orientation: 1)
        info.orientationSource = .exif
        var report = ConversionReport(restoring: info, geometry: PlaneGeometry(width: 3, height: 5), layout: .nv12,
                                      spec: ConversionSpec(), inputBytes: 100, warnings: 0, firstWarning: "",
                                      path: "=HYPERLINK(\"http://evil/\")\n", alphaBytes: 0, ledgerPeakBytes: 4096,
                                      orientation: .identity)
        report.colour = "=1+1\u{1B}[0m"
        let r = ImageRecord(file: "a.png", error: nil, report: report, quality: nil, alignment: 64, peakRSS: 0)
        for format in [ReportFormat.text, .csv, .html] {
            let out = renderReport([r], format: format)
            XCTAssertFalse(out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E },
                           "\(format): \(out.debugDescription)")
            XCTAssertTrue(out.contains("\\x1B]0;pwned\\x07"), "\(format): \(out)")
        }
        // JSON too: its own escapes would keep the line valid, but `jq -r` turns \u001b back into ESC.
        let json = renderReport([r], format: .json)
        for line in json.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for case let (key, value as String) in object {
                XCTAssertFalse(value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E },
                               "json \(key): \(value.debugDescription)")
            }
        }
        XCTAssertTrue(json.contains("\"source_sampling\": \"\\\\x1B]0;pwned\\\\x07"), json)
        let row = csvTable([r]).rows[0]
        XCTAssertEqual(row["path"], "'=HYPERLINK(\"http://evil/\")\\x0A")
        XCTAssertTrue(row["ffmpeg_rawvideo_input"]?.hasPrefix("-f rawvideo") == true)
        // A record whose source's sampling is `sampling` (a restored manifest line's text), its row in the CSV.
        func csvRow(file: String, sampling: String) -> [String: String] {
            let info = SourceInfo(restoring: .png, width: 3, height: 5, sampling: sampling, rowFormat: .rgb8,
                                  progressive: false, interlaced: false, hasAlpha: false, orientation: 1)
            let report = ConversionReport(restoring: info, geometry: PlaneGeometry(width: 3, height: 5), layout: .nv12,
                                          spec: ConversionSpec(), inputBytes: 100, warnings: 0, firstWarning: "", path: "RGB",
                                          alphaBytes: 0, ledgerPeakBytes: 4096, orientation: .identity)
            return csvTable([ImageRecord(file: file, error: nil, report: report, quality: nil, alignment: 64, peakRSS: 0)]).rows[0]
        }
        let at = csvRow(file: "-b.png", sampling: "@SUM(A1)")
        XCTAssertEqual(at["source_sampling"], "'@SUM(A1)")
        XCTAssertEqual(at["file"], "'-b.png")
        let minus = csvRow(file: "c.png", sampling: "-2+3+cmd|' /C calc'!A0")
        XCTAssertEqual(minus["source_sampling"], "'-2+3+cmd|' /C calc'!A0")
        XCTAssertTrue(minus["ffmpeg_rawvideo_input"]?.hasPrefix("-f rawvideo") == true, "the tool's arguments keep their -")
        XCTAssertEqual(row["color_management"], "'=1+1\\x1B[0m")
        XCTAssertEqual(row["source_sampling"], "\\x1B]0;pwned\\x07\\x1B[2J\\x1B[31mRED\\u{202E}")
    }

    /// A NaN figure (a library caller's): shown as `nan`, not `-inf`, and the worst is the same whichever order the
    /// images come in (`min` kept a NaN that came first and dropped one that came second).
    func testANaNFigureIsNaNAndTheWorstIgnoresOrder() throws {
        XCTAssertEqual(fixed(.nan, 2), "nan")
        XCTAssertEqual(fixed(-.infinity, 2), "-inf")
        let bad = QualityReport(psnrY: .nan, psnrCb: 41.0, psnrCr: 43.0, psnrRGB: 36.0, ssimY: 0.998)
        let a = try converted("photos/kodim23.png", quality: bad), b = try converted("photos/kodim23.png", quality: q2)
        func worstLine(_ records: [ImageRecord]) -> String? {
            renderReport(records, format: .json).split(separator: "\n").last.flatMap { line in
                line.split(separator: ",").first { $0.contains("\"worst_psnr_y_db\"") }.map(String.init)
            }
        }
        XCTAssertEqual(worstLine([a, b]), worstLine([b, a]))
        XCTAssertEqual(worstLine([a, b])?.trimmingCharacters(in: .whitespaces), "\"worst_psnr_y_db\": 44.0000")
    }

    /// Two converted images and a failure: sums, the worst and the median, under their own columns.
    func testTotalsInEveryFormat() throws {
        let a = try converted("photos/rocket.jpg", quality: q1), b = try converted("pngsuite/basn0g16.png", quality: q2)
        let records = [a, failed, b]
        let rgba = 4 * 640 * 427 + 4 * 32 * 32, yuv = 640 * 427 + 2 * 320 * 214 + 32 * 32 + 2 * 16 * 16
        let pct = formatFixed(Double(rgba - yuv) * 100 / Double(rgba), decimals: 2)

        let (heading, rows) = csvTable(records)
        XCTAssertEqual(rows.count, 4)
        let total = rows[3]
        XCTAssertEqual(total["file"], "TOTAL (2 images, 1 failed)")
        // A name a spreadsheet would take for a formula is defused in CSV (only there: JSON keeps it as it is).
        var formula = records[0]
        formula.file = "=HYPERLINK(\"http://x\").png"
        XCTAssertTrue(csvRow(formula).hasPrefix("\"'=HYPERLINK(\"\"http://x\"\").png\","), csvRow(formula))
        XCTAssertTrue(jsonLine(formula).contains("\"file\": \"=HYPERLINK(\\\"http://x\\\").png\""), jsonLine(formula))
        // The output's path too (its start is the user's -o, but a folder may be named so): it was left as it is.
        formula.outputPath = "@SUM(1+1)/a.nv12"
        XCTAssertTrue(csvRow(formula).hasSuffix(",'@SUM(1+1)/a.nv12,,"), csvRow(formula))
        XCTAssertEqual(total["ok"], "false")
        XCTAssertEqual(total["rgba_bytes"], "\(rgba)")
        XCTAssertEqual(total["yuv_bytes"], "\(yuv)")
        XCTAssertEqual(total["saving_vs_rgba_bytes"], "\(rgba - yuv)")
        XCTAssertEqual(total["saving_vs_rgba_percent"], pct)
        XCTAssertEqual(total["psnr_y_db"], "44.0000")
        XCTAssertEqual(total["psnr_cb_db"], "41.0000")
        XCTAssertEqual(total["ssim_y"], "0.998000")
        let blank = ["error", "format", "width", "height", "source_sampling", "file_bytes", "layout", "matrix", "range", "color_primaries", "color_transfer", "chroma_location", "cicp_primaries", "cicp_transfer", "cicp_matrix", "cicp_full_range", "cicp_chroma_location", "ffmpeg_rawvideo_input", "ffmpeg_filter", "color_management", "path",
                     "conversion_buffers_bytes", "naive_peak_bytes", "output_bytes", "output_sha256", "up_to_date",
                     "chroma_filter", "psnr_rgb_bilinear_db", "psnr_rgb_bilinear_box_db", "sharp_gain_db"]
        for h in blank { XCTAssertEqual(total[h], "", h) }
        // The peak memory is the run's, once, in the totals row; no image row has one.
        XCTAssertEqual(total["peak_rss_bytes"], "10000000")
        XCTAssertEqual(rows[0]["peak_rss_bytes"], "")
        XCTAssertEqual(heading.count, 48)

        let json = renderReport(records, format: .json).split(separator: "\n")
        XCTAssertEqual(json.count, 4)
        XCTAssertEqual(jsonKeys(json[3]), ["type", "images", "failed", "skipped", "not_started", "interrupted", "pixels", "rgba_bytes", "rgb_bytes", "yuv_bytes",
                                           "yuv_aligned_bytes", "saving_vs_rgba_bytes", "saving_vs_rgba_percent",
                                           "saving_vs_rgb_bytes", "saving_vs_rgb_percent", "peak_rss_bytes"]
                       + ["worst", "median"].flatMap { s in
                           ["psnr_y_db", "psnr_cb_db", "psnr_cr_db", "psnr_rgb_db", "ssim_y", "psnr_rgb_bilinear_db"].map { "\(s)_\($0)" } })
        for field in ["\"type\": \"totals\"", "\"images\": 2", "\"failed\": 1", "\"pixels\": \(640 * 427 + 32 * 32)",
                      "\"worst_psnr_y_db\": 44.0000", "\"median_psnr_y_db\": 47.0617", "\"median_psnr_cb_db\": null",
                      "\"worst_ssim_y\": 0.998000", "\"saving_vs_rgba_percent\": \(pct)", "\"peak_rss_bytes\": 10000000"] {
            XCTAssertTrue(json[3].contains(field), "\(field) in \(json[3])")
        }

        let html = renderReport(records, format: .html)
        XCTAssertTrue(html.contains("<tfoot><tr><td>total</td><td></td><td></td><td></td><td></td><td>\(formatBytes(rgba))</td>"
                                    + "<td>\(formatBytes(yuv))</td><td>62.5%</td><td>44.00 (worst)</td><td>41.00 / 40.50 (worst)</td>"
                                    + "<td>0.9980 (worst)</td><td></td></tr></tfoot>"), html)

        let text = renderReport(records, format: .text)
        XCTAssertTrue(text.contains("total: 2 images (1 failed), 0.3 Mpx: RGBA \(formatBytes(rgba)), YUV \(formatBytes(yuv))"), text)
        XCTAssertTrue(text.contains("quality: PSNR Y worst 44.00 / median 47.06 dB, Cb 41.00 / inf, Cr 40.50 / 41.75,"), text)
        XCTAssertTrue(text.contains("\nmemory: peak RSS 9.5 MiB for the whole run\n"), text)
        XCTAssertFalse(text.contains("used: buffers 940.6 KiB, peak RSS"), text)
        XCTAssertTrue(html.contains("<p>Peak memory of the whole run: 9.5 MiB"), html)
    }

    /// Sums past Int.max stop there: 2^17 kept outputs whose manifest lines claimed 2^44 pixels each (forged, but
    /// each within the entry's bound) trapped in the totals (SIGILL, no totals line; a hostile round).
    func testTotalsStopAtTheLargestSum() throws {
        let sum = TotalsAccumulator()
        let big = 1 << 44
        for _ in 0..<(1 << 17) { sum.add(Tally(pixels: big, rgba: 4 * big, rgb: 3 * big, yuv: 3 * big / 2, aligned: 2 * big)) }
        let t = try sum.totals(peakRSS: 0)
        XCTAssertEqual(t.images, 1 << 17)
        XCTAssertEqual(t.pixels, 1 << 61, "not past it: the sum itself")
        XCTAssertEqual(t.rgba, Int.max, "2^63")
        XCTAssertEqual(t.rgb, 3 << 61)
        XCTAssertEqual(t.yuv, 3 << 60)
        XCTAssertEqual(t.aligned, 1 << 62)
        XCTAssertEqual(t.savingRGBA.bytes, Int.max - (3 << 60))
        XCTAssertTrue(jsonTotals(t).contains("\"rgba_bytes\": \(Int.max)"), jsonTotals(t))
        XCTAssertFalse(csvTotals(t).isEmpty)
        XCTAssertTrue(textTotals(t).contains("total: "))
    }

    /// The bilinear round trip's worst and median in the totals, over the images that have one (they were
    /// always null: the totals kept five measures).
    func testTotalsOfTheBilinearRoundTrip() throws {
        var qa = q1, qb = q2
        qa.psnrRGBBilinear = 40.0
        qb.psnrRGBBilinear = 36.0
        let records = [try converted("photos/rocket.jpg", quality: qa), try converted("photos/rocket.jpg", quality: qb),
                       try converted("photos/rocket.jpg", quality: q2)]
        let t = Totals(records)
        XCTAssertEqual(t.worst?.psnrRGBBilinear, 36.0)
        XCTAssertEqual(t.median?.psnrRGBBilinear, 38.0)
        let json = renderReport(records, format: .json).split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(json.contains("\"worst_psnr_rgb_bilinear_db\": 36.0000"), json)
        XCTAssertTrue(json.contains("\"median_psnr_rgb_bilinear_db\": 38.0000"), json)
    }

    /// An input skipped without being read (its output already there) has a line of its own, with its reason
    /// and no figures, and counts as skipped in the totals (not as an image, not as a failure).
    func testSkippedInput() {
        var skipped = ImageRecord(file: "a.png", error: nil, report: nil, quality: nil, alignment: 64, peakRSS: 0)
        skipped.skipped = "already there (--force replaces it)"
        skipped.outputPath = "out/a.nv12"
        let json = renderReport([skipped], format: .json).split(separator: "\n")
        XCTAssertEqual(json[0], "{\"type\": \"image\", \"file\": \"a.png\", \"ok\": true, \"skipped\": \"already there (--force replaces it)\", "
                       + "\"output\": \"out/a.nv12\"}")
        XCTAssertTrue(json[1].hasPrefix("{\"type\": \"totals\", \"images\": 0, \"failed\": 0, \"skipped\": 1,"), String(json[1]))
        XCTAssertTrue(renderReport([skipped], format: .text).contains("a.png                 skipped: already there"))
        let csv = renderReport([skipped], format: .csv).split(separator: "\r\n")
        XCTAssertTrue(csv[1].hasPrefix("a.png,true,"), String(csv[1]))
        XCTAssertTrue(csv[1].hasSuffix(",already there (--force replaces it),out/a.nv12,,"), String(csv[1]))
        // A name that starts with ' gets one more, so dropping exactly one gives the name back.
        var quoted = skipped
        quoted.file = "'x.png"
        XCTAssertTrue(csvRow(quoted).hasPrefix("''x.png,"), csvRow(quoted))
    }

    /// With no image measured, the quality totals are null (JSON), empty (CSV) or a dash (HTML).
    func testTotalsWithoutQuality() {
        let json = renderReport([failed], format: .json).split(separator: "\n")
        XCTAssertEqual(json[1], "{\"type\": \"totals\", \"images\": 0, \"failed\": 1, \"skipped\": 0, \"not_started\": 0, \"interrupted\": false, \"pixels\": 0, \"rgba_bytes\": 0, "
                       + "\"rgb_bytes\": 0, \"yuv_bytes\": 0, \"yuv_aligned_bytes\": 0, \"saving_vs_rgba_bytes\": 0, "
                       + "\"saving_vs_rgba_percent\": 0.00, \"saving_vs_rgb_bytes\": 0, \"saving_vs_rgb_percent\": 0.00, \"peak_rss_bytes\": 0, "
                       + ["worst", "median"].flatMap { s in
                           ["psnr_y_db", "psnr_cb_db", "psnr_cr_db", "psnr_rgb_db", "ssim_y", "psnr_rgb_bilinear_db"].map { "\"\(s)_\($0)\": null" }
                       }.joined(separator: ", ") + "}")
        XCTAssertEqual(csvTotals(Totals([failed])), "\"TOTAL (0 images, 1 failed)\",false,,,,,,,,,,,,,,,,,,,,,,0,0,0,0,0,0.00,0,0.00,,,,,,,0,,,,,,,,,,")
        XCTAssertTrue(renderReport([failed], format: .html).contains("<td>– (worst)</td><td>– (worst)</td><td>– (worst)</td>"))
    }

    /// A report streamed piece by piece is the report of all the records at once, in every format, also when
    /// the HTML page's rows and bars outgrow memory and go to disk: every image once, in order, and totals
    /// that are the sums of the lines.
    func testStreamedReportIsTheWholeReport() throws {
        let a = try converted("photos/rocket.jpg", quality: q1), b = try converted("pngsuite/basn0g16.png", quality: nil)
        var records: [ImageRecord] = []
        for i in 0..<700 {
            var r = [a, failed, b][i % 3]
            r.file = "in/\(i).png"
            records.append(r)
        }
        for format in ReportFormat.allCases {
            var streamed = "", writes = 0
            let stream = ReportStream(format: format) { streamed += $0; writes += 1 }
            for r in records { stream.append(ReportPiece(r, format: format)) }
            let t = try stream.finish(peakRSS: 123_456_789)
            XCTAssertEqual(t.images, 467)
            XCTAssertEqual(t.failed, 233)
            XCTAssertEqual(t.peakRSS, 123_456_789)
            XCTAssertEqual(streamed, renderReport(records, format: format, peakRSS: 123_456_789), "\(format)")
            // Written as it went (the page at the end, in parts).
            XCTAssertGreaterThan(writes, format == .html ? 3 : records.count, "\(format)")
        }
        XCTAssertEqual(renderReport(records, format: .text, peakRSS: 1), textReport(records, Totals(records, peakRSS: 1)))
        let json = renderReport(records, format: .json, peakRSS: 1)
        XCTAssertEqual(json, (records.map(jsonLine) + [jsonTotals(Totals(records, peakRSS: 1))]).joined(separator: "\n") + "\n")
        let html = renderReport(records, format: .html, peakRSS: 1)
        var at = html.startIndex
        for r in records {
            let cell = "<td>\(r.file)</td>"
            guard let found = html.range(of: cell, range: at..<html.endIndex) else { return XCTFail("\(r.file) not in order") }
            at = found.upperBound
        }
        XCTAssertEqual(html.components(separatedBy: "fill=\"#4f81bd\"/>").count - 1, 467 + 1, "a bar per converted image, and the legend's")
    }

    /// The median past the images held in memory (measures set aside on disk, selected a byte at a time) is
    /// the sorted list's, for odd and even counts, with infinities and repeated values; the worst is the least.
    func testMedianOfManyImagesIsExact() throws {
        var rng = SplitMix64(seed: 17)
        let base = try converted("pngsuite/basn0g16.png", quality: nil)
        for count in [4097, 5000, 9999] {
            var records: [ImageRecord] = [], values: [[Double]] = [[], [], [], [], []]
            for i in 0..<count {
                func draw() -> Double {
                    switch rng.next() % 10 {
                    case 0: return .infinity
                    case 1: return 42.5
                    default: return Double(rng.next() % 1_000_000) / 10_000
                    }
                }
                let q = QualityReport(psnrY: draw(), psnrCb: draw(), psnrCr: draw(), psnrRGB: draw(), ssimY: Double(i % 1000) / 1000)
                for (m, v) in [q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB, q.ssimY].enumerated() { values[m].append(v) }
                var r = base
                r.quality = q
                records.append(r)
            }
            let t = Totals(records)
            func median(_ v: [Double]) -> Double {
                let s = v.sorted()
                return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            }
            let m = try XCTUnwrap(t.median), w = try XCTUnwrap(t.worst)
            XCTAssertEqual([m.psnrY, m.psnrCb, m.psnrCr, m.psnrRGB, m.ssimY], values.map(median), "\(count) images, \(rng)")
            XCTAssertEqual([w.psnrY, w.psnrCb, w.psnrCr, w.psnrRGB, w.ssimY], values.map { $0.min()! }, "\(count) images, \(rng)")
        }
    }

    /// A name cut for the text table is cut between the escapes messages use (`\\`, `\xNN`, `\u{NNNN}`), never
    /// inside one: `…FFba\xFFb` from repeated `a\xFFb` showed an `FF` that named no byte.
    /// Markup, commas and quotes are found by scalar: one a prepended (U+06DD) or combining (U+0301) scalar joins
    /// into one Character is still markup to a browser and a separator to a spreadsheet (a file name ran script in
    /// the HTML report, and split its CSV row so that the next cell began with `=`).
    func testEscapesFindCharactersInsideClusters() {
        let html = htmlEscape("\u{6DD}<img src=x onerror=alert(1) >\u{301}&\u{301}\"\u{301}")
        XCTAssertFalse(html.unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" }, html)
        XCTAssertTrue(html.hasScalarPrefix("\u{6DD}&lt;img"), html)
        XCTAssertTrue(html.hasScalarSuffix("&gt;\u{301}&amp;\u{301}&quot;\u{301}"), html)
        XCTAssertEqual(csvField("a,\u{301}b"), "\"a,\u{301}b\"")
        XCTAssertEqual(csvField("q\"\u{301},x"), "\"q\"\"\u{301},x\"")
        XCTAssertEqual(csvField("a\u{6DD},=2+3"), "\"a\u{6DD},=2+3\"")
        XCTAssertEqual(csvField("plain"), "plain")
        XCTAssertEqual("x\"\u{301}y\"".replacingAll("\"", "'"), "x'\u{301}y'")
        XCTAssertTrue("-\u{301}x".hasScalarPrefix("-"))
        XCTAssertFalse("-\u{301}x".hasPrefix("-"), "Swift's own hasPrefix compares Characters")
        XCTAssertTrue("out\u{6DD}/".hasScalarSuffix("/"))
        XCTAssertTrue("a\u{6DD},b".containsScalars(","))
        XCTAssertFalse("\u{E9}".sameScalars("e\u{301}"))
        XCTAssertEqual("-o\u{301}x".scalarPrefix(2), "-o")
        XCTAssertTrue("-o\u{301}x".droppingScalars(2).sameScalars("\u{301}x"))
    }

    func testShortenCutsBetweenEscapes() {
        let name = String(repeating: "a\\xFFb", count: 5)
        XCTAssertEqual(shorten(name, 10), "…ba\\xFFb")
        XCTAssertEqual(shorten("dir/\\u{202E}name.png", 12), "…name.png")
        XCTAssertEqual(shorten("abc\\\\def", 5), "…def")
        XCTAssertEqual(shorten("short", 10), "short")
        XCTAssertEqual(shorten("abcdefghijkl", 5), "…ijkl")
        // A combining mark after an escape joins its last character (`}́`, `B́`): still one escape, cut before it.
        XCTAssertEqual(shorten("n\\u{202E}\u{301}" + String(repeating: "x", count: 15) + ".png", 21),
                       "…" + String(repeating: "x", count: 15) + ".png")
        XCTAssertEqual(shorten("n\\x1B\u{301}" + String(repeating: "x", count: 15) + ".png", 21),
                       "…" + String(repeating: "x", count: 15) + ".png")
        // A prepended character (U+0600) joins the backslash after it: the escape is still found, among the scalars.
        XCTAssertEqual(shorten("p\u{600}\\x1B" + String(repeating: "x", count: 14) + ".jpg", 21),
                       "…" + String(repeating: "x", count: 14) + ".jpg")
    }

    /// Cells are padded and cut by terminal columns: a CJK or full-width name takes two a character, and pushed
    /// the rest of its row out of line when counted as one; a zero-width one takes none.
    func testCellsAreMeasuredInColumns() {
        XCTAssertEqual(displayWidth("日本語.png"), 10)
        XCTAssertEqual(displayWidth("e\u{301}"), 1, "a combining accent is part of its letter")
        XCTAssertEqual(displayWidth("🚀☕🫠"), 6, "emoji: U+1F680, U+2615, U+1FAE0")
        XCTAssertEqual(displayWidth("❤\u{FE0F}"), 2, "an emoji presentation sequence")
        XCTAssertEqual(displayWidth("é…→"), 3)
        // Zero-width characters take no column (a name with U+200B sat one column left of its neighbours).
        XCTAssertEqual(displayWidth("a\u{200B}b\u{2060}c\u{FEFF}.png"), 7, "zero width space, word joiner, BOM")
        XCTAssertEqual(pad("a\u{200B}b", 4), "a\u{200B}b  ")
        // A spacing mark (Mc) takes its own column: "कि" (KA, VOWEL SIGN I) is two, "कं" (a nonspacing mark) one.
        XCTAssertEqual(displayWidth("कि"), 2)
        XCTAssertEqual(displayWidth("क\u{902}"), 1)
        XCTAssertEqual(displayWidth(shorten(String(repeating: "कि", count: 30), 30)), 29)
        // A conjunct (consonant, virama, consonant) is one character of two columns, as glibc's wcswidth counts it.
        XCTAssertEqual(displayWidth("क्ष"), 2)
        XCTAssertEqual(displayWidth("प्रियंका"), 6, "प्रि 3, यं 1, का 2")
        // Emoji sequences stay one glyph of two; a flag (two regional indicators) two; Hangul jamo L V T one syllable.
        XCTAssertEqual(displayWidth("👨‍👩‍👧"), 2)
        XCTAssertEqual(displayWidth("👍🏽"), 2)
        XCTAssertEqual(displayWidth("🇫🇷"), 2)
        XCTAssertEqual(displayWidth("\u{1100}\u{1161}\u{11A8}"), 2)
        XCTAssertEqual(pad("日本", 6), "日本  ")
        XCTAssertEqual(pad("日本", 6, right: true), "  日本")
        XCTAssertEqual(shorten("写真/日本語の長い名前.png", 13), "…長い名前.png")
        XCTAssertEqual(displayWidth(shorten("写真/日本語の長い名前.png", 13)), 13)
        XCTAssertEqual(shorten("写真/日本語の長い名前.png", 12), "…い名前.png", "no half character: one column short")
        XCTAssertEqual(displayWidth(shorten("写真/日本語の長い名前.png", 12)), 11)
    }
}
