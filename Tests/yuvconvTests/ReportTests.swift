import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// The report: arithmetic re-derived here, quality against an independent computation, and each format's
/// validity (JSON against the schema's required fields and types, CSV round trip, HTML well-formed).
final class ReportTests: CLITestCase {
    func jsonLines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A progressive JPEG's coefficients, which libjpeg holds whole, are in its conversion's buffers: the same
    /// picture's baseline file plus 210 blocks of 128 bytes (100x75, 4:2:0: 14x10 luma blocks, 7x5 for each
    /// chroma), on both paths. They were left out (a 48 MP progressive JPEG said 1.5 MiB of its 137).
    /// The peak RSS is this run's own: `getrusage`'s maximum carried over the parent's peak across exec, so a
    /// yuvconv started by a process holding 300 MB reported more than 300 MB for a 768x512 PNG.
    func testPeakResidentSetIsNotTheParents() throws {
        let script = """
            import json, subprocess, sys
            held = bytearray(300 << 20)
            for i in range(0, len(held), 4096): held[i] = 1
            r = subprocess.run([sys.argv[1], 'report', sys.argv[2], '--report', 'json'], capture_output=True, text=True)
            print(json.loads(r.stdout.splitlines()[-1])['peak_rss_bytes'])
            """
        let r = try launch(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, binary.path, fixture("photos/kodim23.png")],
                           stdin: .null)
        XCTAssertEqual(r.status, 0, r.stderr)
        let peak = Int(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        XCTAssertGreaterThan(peak, 1 << 20)
        XCTAssertLessThan(peak, 100 << 20, "the parent's 300 MB are not this run's")
    }

    func testProgressiveJPEGCountsItsCoefficients() throws {
        for path in ["direct", "rgb"] {
            var buffers: [Int] = []
            for name in ["peacock.default.jpeg", "peacock.progressive.scan004.jpeg"] {
                let r = try run(["report", fixture("jpeg/wuffs/" + name), "--report", "json", "--jpeg-path", path])
                XCTAssertEqual(r.status, 0, r.stderr)
                buffers.append(try XCTUnwrap(try jsonLines(r.stdout).first?["conversion_buffers_bytes"] as? Int))
            }
            XCTAssertEqual(buffers[1] - buffers[0], 210 * 128, path)
        }
    }

    func testArithmeticOfOddAndAlignedSizes() throws {
        // 33x33 JPEG (odd both ways), yuv420p, alignment 16.
        let jpg = fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")
        let r = try run(["report", "--metrics", jpg, "--report", "json", "--format", "yuv420p", "--align", "16"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try jsonLines(r.stdout)
        XCTAssertEqual(lines.count, 2)
        let o = lines[0]
        let (w, h) = (33, 33), (cw, ch) = (17, 17)
        XCTAssertEqual(o["width"] as? Int, w)
        XCTAssertEqual(o["rgba_bytes"] as? Int, 4 * w * h)
        XCTAssertEqual(o["rgb_bytes"] as? Int, 3 * w * h)
        XCTAssertEqual(o["yuv_bytes"] as? Int, w * h + 2 * cw * ch)
        XCTAssertEqual(o["yuv_aligned_bytes"] as? Int, 48 * h + 2 * 32 * ch)
        XCTAssertEqual(o["saving_vs_rgba_bytes"] as? Int, 4 * w * h - (w * h + 2 * cw * ch))
        XCTAssertEqual(o["saving_vs_rgba_percent"] as? Double ?? 0, Double(4 * w * h - (w * h + 2 * cw * ch)) * 100 / Double(4 * w * h), accuracy: 0.006)
        XCTAssertEqual(o["naive_peak_bytes"] as? Int, 4 * w * h + w * h + 2 * cw * ch)
        XCTAssertEqual(o["file_bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: jpg)[.size] as? Int)
        XCTAssertEqual(o["path"] as? String, "direct YCbCr")
        XCTAssertEqual(o["source_sampling"] as? String, "4:2:0")
        let t = lines[1]
        XCTAssertEqual(t["type"] as? String, "totals")
        XCTAssertEqual(t["yuv_bytes"] as? Int, w * h + 2 * cw * ch)
        // NV12 alignment counts the interleaved row: up(2·17) = 48 at 16.
        let nv = try jsonLines(try run(["report", "--metrics", jpg, "--report", "json", "--align", "16"]).stdout)[0]
        XCTAssertEqual(nv["yuv_aligned_bytes"] as? Int, 48 * h + 48 * ch)
    }

    /// A report of one input that fails says why once on standard error (and in its row): the summary lists the
    /// failures of a batch of several, not the one just said (before: three times in all).
    func testOneFailureIsSaidOnce() throws {
        let y4m = work.appendingPathComponent("x.y4m")
        try Data("YUV4MPEG2 W2 H2 F1:1 C420jpeg\nFRAME\n".utf8 + [UInt8](repeating: 128, count: 6)).write(to: y4m)
        let r = try run(["report", y4m.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "a YUV4MPEG2 (Y4M) stream").count - 1, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("yuvconv: 0 measured, 1 failed"), r.stderr)
        let two = try run(["report", y4m.path, fixture("photos/rocket.jpg")])
        XCTAssertTrue(two.stderr.contains("  failed: "), two.stderr)
        // A shard of one still lists it (CI gathers the lists of its shards), and so does a folder of one.
        let shards = try ["1/2", "2/2"].map { try run(["report", y4m.path, fixture("photos/rocket.jpg"), "--shard", $0]) }
        let failing = try XCTUnwrap(shards.first { $0.status == 1 })
        XCTAssertTrue(failing.stderr.contains("  failed: "), failing.stderr)
    }

    /// A report file named as a folder (`newdir/`, or a folder that is there) is refused with the name to give: it was
    /// "the folder does not exist" for `newdir/` (and, the folder made, "is a directory"), on the run and its dry run.
    func testAReportFileNamedAsAFolderSaysWhatToGive() throws {
        let png = fixture("pngsuite/basn6a08.png")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("there"), withIntermediateDirectories: true)
        for (name, args) in [("newdir/", ["report", png, "--report", "json"]), ("there", ["report", png, "--report", "csv"]),
                             ("there/", [png, "-o", "x.nv12", "--report", "json", "--dry-run"])] {
            let r = try run(args + ["--report-file", name])
            XCTAssertEqual(r.status, 1, r.stderr)
            let ext = args.contains("csv") ? "csv" : "json"
            XCTAssertTrue(r.stderr.contains("\(name): --report-file takes a file's name, not a folder's: give one such as "
                                            + (name.hasSuffix("/") ? name : name + "/") + "report.\(ext)"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("newdir").path))
    }

    /// The per-image line of a padded output (`--align`, `--align-height`) gives the file's size beside the tight
    /// planes' (before: only the tight size, which no file had), and a tight output's line says nothing of it.
    func testThePaddedFilesSizeIsInTheLine() throws {
        let jpg = fixture("photos/rocket.jpg")
        let padded = try run([jpg, "-o", "p.nv12", "--align", "64", "--align-height", "16"])
        XCTAssertEqual(padded.status, 0, padded.stderr)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work.appendingPathComponent("p.nv12").path)[.size] as? Int)
        XCTAssertEqual(size, 640 * 432 + 640 * 216)
        XCTAssertTrue(padded.stderr.contains("nv12 400.6 KiB (the file 405.0 KiB, padded), saves"), padded.stderr)
        let tight = try run([jpg, "-o", "t.nv12"])
        XCTAssertFalse(tight.stderr.contains("padded"), tight.stderr)
        XCTAssertFalse(try run([jpg, "-o", "a.nv12", "--align", "64"]).stderr.contains("padded"), "640 is a multiple of 64")
    }

    /// `report` measures a conversion to --format: what convert refuses for that format, it refuses too (exit 2),
    /// rather than printing sizes no output can have; what convert takes, it takes.
    func testRefusesWhatConvertRefuses() throws {
        let png = fixture("pngsuite/basn6a08.png")
        let cases: [(args: [String], ext: String, refused: Bool)] = [
            (["-f", "p010", "--alpha", "keep"], "p010", true), (["-f", "y4m", "--alpha", "keep"], "y4m", true),
            (["-f", "jpeg", "--align", "16"], "jpg", true), (["-f", "png", "--align-height", "16"], "png", true),
            (["-f", "nv12", "--depth", "10"], "nv12", true), (["-f", "p010", "--chroma-filter", "sharp"], "p010", true),
            (["-f", "y4m", "--depth", "10"], "y4m", false), (["-f", "nv12", "--alpha", "keep"], "nv12", false),
            (["-f", "yuv420p", "--align", "64", "--align-height", "16"], "yuv", false),
        ]
        for c in cases {
            let report = try run(["report", png, "-q"] + c.args)
            let convert = try run([png, "-o", "refused." + c.ext, "-q", "--force"] + c.args)
            XCTAssertEqual(report.status, c.refused ? 2 : 0, "report \(c.args): \(report.stderr)")
            XCTAssertEqual(convert.status, report.status, "convert \(c.args): \(convert.stderr)")
            if c.refused { XCTAssertEqual(report.stderr, convert.stderr, "\(c.args)") }
        }
        // Without --format it measures nv12, p010 with --depth 10 (what the JSON says, and its sizes: 3 B/px).
        let nv12 = String(decoding: try run(["report", png, "-q", "--report", "json"]).stdout, as: UTF8.self)
        let p010 = String(decoding: try run(["report", png, "--depth", "10", "-q", "--report", "json"]).stdout, as: UTF8.self)
        XCTAssertTrue(nv12.contains("\"layout\": \"nv12\"") && nv12.contains("\"yuv_bytes\": 1536,"), nv12)
        XCTAssertTrue(p010.contains("\"layout\": \"p010\"") && p010.contains("\"yuv_bytes\": 3072,"), p010)
        // p010 carries no A plane after 8-bit planes: refused as convert refuses it for a .p010.
        XCTAssertEqual(try run(["report", png, "--depth", "10", "--alpha", "keep", "-q"]).status, 2)
    }

    /// PSNR and SSIM recomputed here from the source rows and the tool's own output bytes.
    func testQualityAgainstIndependentComputation() throws {
        let png = fixture("photos/kodim23.png")
        XCTAssertEqual(try run([png, "-o", "k.nv12", "-q"]).status, 0)
        let out = [UInt8](try Data(contentsOf: work.appendingPathComponent("k.nv12")))
        let report = try jsonLines(try run(["report", "--metrics", png, "--report", "json"]).stdout)[0]
        let src = try InputSource(path: png)
        let dec = try ImageDecoder(source: src)
        let (w, h) = (dec.info.width, dec.info.height), cw = (w + 1) / 2
        let bpp = dec.info.rowFormat.bytesPerPixel
        var row = [UInt8](repeating: 0, count: w * bpp)
        var se = [0.0, 0.0, 0.0, 0.0]
        var exactY = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            try row.withUnsafeMutableBytes { try dec.readRows(into: $0.baseAddress!, rowBytes: w * bpp, count: 1) }
            for x in 0..<w {
                let r = Double(row[x * bpp]), g = Double(row[x * bpp + 1]), b = Double(row[x * bpp + 2])
                let yy = 0.2126 * r + 0.7152 * g + 0.0722 * b
                let cb = 128 + (b - yy) / 1.8556, cr = 128 + (r - yy) / 1.5748
                let oy = Double(out[y * w + x])
                let ou = Double(out[w * h + (y / 2) * 2 * cw + 2 * (x / 2)]), ov = Double(out[w * h + (y / 2) * 2 * cw + 2 * (x / 2) + 1])
                se[0] += (oy - yy) * (oy - yy); se[1] += (ou - cb) * (ou - cb); se[2] += (ov - cr) * (ov - cr)
                let rr = oy + 1.5748 * (ov - 128), bb = oy + 1.8556 * (ou - 128), gg = (oy - 0.2126 * rr - 0.0722 * bb) / 0.7152
                for (o, s) in [(rr, r), (gg, g), (bb, b)] {
                    let q = min(max(floor(o + 0.5), 0), 255)
                    se[3] += (q - s) * (q - s)
                }
                exactY[y * w + x] = yy
            }
        }
        let n = Double(w * h)
        func psnr(_ mse: Double) -> Double { 10 * log10(255 * 255 / mse) }
        XCTAssertEqual(report["psnr_y_db"] as? Double ?? 0, psnr(se[0] / n), accuracy: 1e-3)
        XCTAssertEqual(report["psnr_cb_db"] as? Double ?? 0, psnr(se[1] / n), accuracy: 1e-3)
        XCTAssertEqual(report["psnr_cr_db"] as? Double ?? 0, psnr(se[2] / n), accuracy: 1e-3)
        XCTAssertEqual(report["psnr_rgb_db"] as? Double ?? 0, psnr(se[3] / (3 * n)), accuracy: 1e-3)
        // SSIM: 8x8 windows every 4 pixels.
        var total = 0.0, count = 0.0
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        for y0 in stride(from: 0, through: h - 8, by: 4) {
            for x0 in stride(from: 0, through: w - 8, by: 4) {
                var a: [Double] = [], b: [Double] = []
                for y in y0..<(y0 + 8) { for x in x0..<(x0 + 8) { a.append(Double(out[y * w + x])); b.append(exactY[y * w + x]) } }
                let ma = a.reduce(0, +) / 64, mb = b.reduce(0, +) / 64
                let va = a.map { ($0 - ma) * ($0 - ma) }.reduce(0, +) / 64, vb = b.map { ($0 - mb) * ($0 - mb) }.reduce(0, +) / 64
                let cov = zip(a, b).map { ($0 - ma) * ($1 - mb) }.reduce(0, +) / 64
                total += (2 * ma * mb + c1) * (2 * cov + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                count += 1
            }
        }
        XCTAssertEqual(report["ssim_y"] as? Double ?? 0, total / count, accuracy: 2e-6)
    }

    /// Every line parses and carries the schema's required fields with the schema's types.
    func testJSONMatchesSchema() throws {
        let schemaURL = packageRoot.appendingPathComponent("docs/report.schema.json")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
        let variants = try XCTUnwrap(schema["oneOf"] as? [[String: Any]])
        let r = try run(["report", "--metrics", fixture("pngsuite/basn6a16.png"), fixture("photos/rocket.jpg"), fixture("pngsuite/xcsn0g01.png"),
                         "--report", "json"])
        XCTAssertEqual(r.status, 1, "a failed file makes the exit 1")
        var lines = try jsonLines(r.stdout)
        XCTAssertEqual(lines.count, 4)
        // A batch's lines too: converted (with `output`), then skipped as already there (with `output`, which the
        // skipped variant, closed to other keys, lacked).
        XCTAssertEqual(try run(["convert", fixture("pngsuite/basn2c08.png"), fixture("photos/rocket.jpg"), "-o", "out/", "-q"]).status, 0)
        let batch = try run(["convert", fixture("pngsuite/basn2c08.png"), "-o", "out/", "--report", "json", "-q"])
        let skipped = try jsonLines(batch.stdout)
        XCTAssertNotNil(skipped.first?["skipped"] as? String)
        XCTAssertNotNil(skipped.first?["output"] as? String)
        for line in lines + skipped {
            let matching = variants.filter { v in
                let props = v["properties"] as! [String: [String: Any]]
                guard (v["required"] as! [String]).allSatisfy({ line[$0] != nil }) else { return false }
                if v["additionalProperties"] as? Bool == false && !line.keys.allSatisfy({ props[$0] != nil }) { return false }
                for (k, p) in props {
                    guard let value = line[k] else { continue }
                    if let c = p["const"] {
                        if "\(c)" != "\(value)" && !((c as? Bool) == (value as? Bool) && c is Bool) { return false }
                    }
                    if let e = p["enum"] as? [String], !e.contains(value as? String ?? "") { return false }
                    let types = (p["type"] as? [String]) ?? (p["type"] as? String).map { [$0] } ?? []
                    if !types.isEmpty && !types.contains(where: { t in
                        switch t {
                        case "integer": return value is Int
                        // (`is Bool` holds for an NSNumber 0 or 1 too: its objCType tells a real Bool, "c".)
                        case "number": return (value as? NSNumber).map { String(cString: $0.objCType) != "c" } ?? false
                        case "string": return value is String
                        case "null": return value is NSNull
                        default: return true
                        }
                    }) { return false }
                }
                return true
            }
            XCTAssertEqual(matching.count, 1, "line \(line) matches \(matching.count) schema variants")
            // Every key a line carries is one its variant describes (`first_warning`, on every image line, was in
            // none, and a variant open to other keys let it by).
            if let v = matching.first {
                let props = v["properties"] as! [String: [String: Any]]
                XCTAssertEqual(line.keys.filter { props[$0] == nil }.sorted(), [], "keys the schema does not describe")
            }
        }
        lines = Array(lines.prefix(4))
        XCTAssertEqual(lines[2]["ok"] as? Bool, false)
        XCTAssertEqual(lines[3]["images"] as? Int, 2)
        XCTAssertEqual(lines[3]["failed"] as? Int, 1)
    }

    /// RFC 4180: a header, one row per file and a totals row, quotes and commas surviving a round trip.
    func testCSVRoundTrips() throws {
        let odd = work.appendingPathComponent("a, \"b\".png")
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: odd.path)
        let r = try run(["report", "--metrics", odd.path, fixture("pngsuite/basn0g01.png"), "--report", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = parseCSV(String(decoding: r.stdout, as: UTF8.self))
        XCTAssertEqual(rows.count, 4)
        XCTAssertTrue(rows.allSatisfy { $0.count == rows[0].count })
        XCTAssertEqual(rows[0].first, "file")
        XCTAssertEqual(rows[1][0], odd.path)
        XCTAssertTrue(rows[3][0].hasPrefix("TOTAL"))
        let yuv = rows[0].firstIndex(of: "yuv_bytes")!
        XCTAssertEqual(Int(rows[3][yuv]), Int(rows[1][yuv])! + Int(rows[2][yuv])!)
    }

    /// Self-contained and well-formed (XML parser), with the SVG chart; written atomically to --report-file.
    func testHTMLIsWellFormedAndSelfContained() throws {
        let r = try run(["report", "--metrics", fixture("pngsuite/basn2c08.png"), fixture("photos/rocket.jpg"), "--report", "html",
                         "--report-file", "r.html"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: work.appendingPathComponent("r.html"))
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("<svg"))
        XCTAssertFalse(text.contains("<script"))
        XCTAssertFalse(text.contains("http://") && !text.contains("http://www.w3.org/2000/svg"))
        let parser = XMLParser(data: Data(text.replacingOccurrences(of: "<!DOCTYPE html>", with: "").utf8))
        XCTAssertTrue(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        // The chart shows what differs per image: under its memory bars, its planes tight and aligned, and its
        // quality (32x32: rows of 32 and 32 bytes padded to 64; rocket.jpg's 640 and 640 are whole already).
        let svg = String(text[text.range(of: "<svg")!.lowerBound..<text.range(of: "</svg>")!.upperBound])
        XCTAssertEqual(svg.components(separatedBy: "class=\"note\"").count - 1, 2, svg)
        XCTAssertTrue(svg.contains(">YUV 1.5 KiB, aligned(64) 3.0 KiB (+100.0%) · PSNR Y "), svg)
        XCTAssertTrue(svg.contains(">YUV 400.6 KiB · PSNR Y "), svg)
        XCTAssertEqual(svg.components(separatedBy: "SSIM Y 0.99").count - 1, 2, svg)
        // An existing report file is not replaced without --force.
        XCTAssertEqual(try run(["report", "--metrics", fixture("pngsuite/basn2c08.png"), "--report", "html", "--report-file", "r.html"]).status, 1)
    }

    /// Every output of a batch — raw with padded rows (hashed partly as written, partly read back), Y4M, PNG
    /// (through a stream), JPEG — carries its size and SHA-256 in the report, equal to `stat` and `sha256sum`.
    func testOutputDigestsMatchSha256sum() throws {
        let inputs = ["jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg", "pngsuite/basn0g01.png", "photos/rocket.jpg"]
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for (i, f) in inputs.enumerated() {
            try FileManager.default.copyItem(atPath: fixture(f), toPath: work.appendingPathComponent("in/\(i).\(f.suffix(3))").path)
        }
        for (name, extra) in [("{stem}.nv12", ["--align", "64"]), ("{stem}.yuv", ["--align-height", "16"]), ("{stem}.y4m", []),
                              ("{stem}.png", []), ("{stem}.jpg", [])] {
            let r = try run(["convert", "in/", "-o", "out/", "--name", name, "--report", "json", "-j", "2", "-q"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = try jsonLines(r.stdout).filter { $0["type"] as? String == "image" }
            XCTAssertEqual(lines.count, inputs.count)
            for line in lines {
                let stem = URL(fileURLWithPath: try XCTUnwrap(line["file"] as? String)).deletingPathExtension().lastPathComponent
                let file = work.appendingPathComponent("out/" + name.replacingOccurrences(of: "{stem}", with: stem))
                let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
                XCTAssertEqual(line["output_bytes"] as? Int, size, file.lastPathComponent)
                let sum = try launch(URL(fileURLWithPath: "/usr/bin/env"), ["sha256sum", file.path], stdin: .null)
                XCTAssertEqual(line["output_sha256"] as? String, String(String(decoding: sum.stdout, as: UTF8.self).prefix(64)),
                               file.lastPathComponent)
            }
            try FileManager.default.removeItem(at: work.appendingPathComponent("out"))
        }
        // To standard output: the hash of what was written.
        let piped = try run([fixture("pngsuite/basn2c08.png"), "-o", "-", "--report", "json", "-q"])
        let line = try jsonLines(Data(piped.stderr.utf8))[0]
        XCTAssertEqual(line["output_bytes"] as? Int, piped.stdout.count)
        XCTAssertEqual(line["output_sha256"] as? String, SHA256.hex([UInt8](piped.stdout)))
    }

    /// --report alongside a conversion: the data file and the report both written.
    func testReportWithConversion() throws {
        let r = try run([fixture("pngsuite/basn2c08.png"), "-o", "o.nv12", "--report", "json", "--metrics", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try jsonLines(r.stdout)
        XCTAssertEqual(lines.first?["yuv_bytes"] as? Int, 32 * 32 * 3 / 2)
        XCTAssertNotNil(lines.first?["psnr_y_db"] as? Double)
        // With the data on stdout, the report goes to stderr.
        let s = try run([fixture("pngsuite/basn2c08.png"), "-o", "-", "--report", "csv", "--metrics", "-q"])
        XCTAssertEqual(s.stdout.count, 32 * 32 * 3 / 2)
        XCTAssertTrue(s.stderr.hasPrefix("file,ok,error"), s.stderr)
    }
}
