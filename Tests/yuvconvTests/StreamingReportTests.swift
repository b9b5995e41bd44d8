import Foundation
import TestSupport
import XCTest

/// A batch's report written as it goes (issue #17): every file once, in input order whatever finishes first,
/// totals equal to the sums of the lines and the run's peak memory once; shards that still cover every file
/// exactly once; and the plan's refusals still made before anything is written, however many files.
final class StreamingReportTests: CLITestCase {
    /// Copies of small fixtures as `in/NNN.png` (every `damagedEvery`-th one damaged), and the inputs' paths.
    @discardableResult
    func makeInputs(_ count: Int, folder: String = "in", damagedEvery: Int = 7) throws -> [String] {
        let dir = work.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let kinds = ["pngsuite/basn0g01.png", "pngsuite/basn2c08.png", "pngsuite/basn6a08.png", "pngsuite/basi0g08.png"]
        var paths: [String] = []
        for i in 0..<count {
            let name = String(format: "%03d.png", i)
            let source = i % damagedEvery == damagedEvery - 1 ? "pngsuite/xcsn0g01.png" : kinds[i % kinds.count]
            try FileManager.default.copyItem(atPath: fixture(source), toPath: dir.appendingPathComponent(name).path)
            paths.append("\(folder)/\(name)")
        }
        return paths
    }

    func jsonLines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func contents(_ name: String) throws -> Data { try Data(contentsOf: work.appendingPathComponent(name)) }

    /// The sums the totals must equal, from the image lines.
    let summed = ["pixels", "rgba_bytes", "rgb_bytes", "yuv_bytes", "yuv_aligned_bytes", "saving_vs_rgba_bytes",
                  "saving_vs_rgb_bytes"]

    /// A single conversion that fails still reports the process's peak memory in its totals, as a batch whose
    /// every file failed does: it was 0 (the failed record's own, which has none), in every format.
    func testFailedSingleConversionReportsThePeakMemory() throws {
        try makeInputs(7)
        let r = try run(["in/006.png", "-o", "a.nv12", "--report", "json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let totals = try XCTUnwrap(try jsonLines(r.stdout).last)
        XCTAssertEqual(totals["failed"] as? Int, 1)
        XCTAssertGreaterThan(totals["peak_rss_bytes"] as? Int ?? 0, 1 << 20, "\(totals)")
        let text = try run(["in/006.png", "-o", "b.nv12", "--report", "text"])
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertFalse(String(decoding: text.stdout, as: UTF8.self).contains("peak RSS 0 B"), String(decoding: text.stdout, as: UTF8.self))
    }

    func testJSONLinesEveryFileOnceInInputOrderAndTotalsTheirSums() throws {
        let inputs = try makeInputs(150)
        let failed = inputs.indices.filter { $0 % 7 == 6 }.count
        let r = try run(["convert", "in/", "-o", "out/", "-j", "2", "-q", "--report", "json", "--report-file", "r.json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = try jsonLines(try contents("r.json"))
        let images = lines.dropLast(), totals = try XCTUnwrap(lines.last)
        XCTAssertEqual(images.map { $0["file"] as? String }, inputs, "every file once, in input order")
        XCTAssertEqual(totals["type"] as? String, "totals")
        XCTAssertEqual(totals["images"] as? Int, inputs.count - failed)
        XCTAssertEqual(totals["failed"] as? Int, failed)
        XCTAssertEqual(images.filter { $0["ok"] as? Bool == false }.count, failed)
        for key in summed {
            XCTAssertEqual(totals[key] as? Int, images.compactMap { $0[key] as? Int }.reduce(0, +), key)
        }
        // The run's peak memory, once: no image line carries one.
        XCTAssertGreaterThan(totals["peak_rss_bytes"] as? Int ?? 0, 1 << 20)
        XCTAssertTrue(images.allSatisfy { $0["peak_rss_bytes"] == nil })
        XCTAssertTrue(images.filter { $0["ok"] as? Bool == true }.allSatisfy { ($0["conversion_buffers_bytes"] as? Int ?? 0) > 0 })
        // The summary lists the failures in input order.
        let listed = r.stderr.split(separator: "\n").filter { $0.hasPrefix("  failed: ") }.map { String($0.dropFirst(10).prefix(11)) }
        XCTAssertEqual(listed, inputs.enumerated().filter { $0.offset % 7 == 6 }.map { $0.element + ":" })
        // To standard output, the same lines (but the peak, each run's own).
        let out = try run(["convert", "in/", "-o", "out2/", "-j", "2", "-q", "--report", "json"])
        XCTAssertEqual(out.status, 1, out.stderr)
        // (but where each output went).
        func elsewhere(_ line: [String: Any]) -> NSDictionary {
            var l = line
            l["output"] = nil
            return NSDictionary(dictionary: l)
        }
        XCTAssertEqual(try jsonLines(out.stdout).dropLast().map(elsewhere), images.map(elsewhere))
        // Each converted line says where its output is; a failed one has none.
        for (line, input) in zip(images, inputs) {
            let ok = line["ok"] as? Bool == true, stem = (input as NSString).lastPathComponent.split(separator: ".").first!
            XCTAssertEqual(line["output"] as? String, ok ? "out/\(stem).nv12" : nil, input)
        }
    }

    func testCSVTextAndHTMLInInputOrderWithTotals() throws {
        let inputs = try makeInputs(60)
        XCTAssertEqual(try run(["convert", "in/", "-o", "out/", "-j", "2", "-q", "--report", "csv", "--report-file", "r.csv"]).status, 1)
        let csv = String(decoding: try contents("r.csv"), as: UTF8.self)
        XCTAssertTrue(csv.hasSuffix("\r\n"), "every row ends in CRLF, the last one too")
        let rows = parseCSV(csv)
        let heading = rows[0]
        XCTAssertEqual(rows.count, inputs.count + 2)
        XCTAssertEqual(rows.dropFirst().dropLast().map { $0[0] }, inputs)
        let total = rows.last!, body = rows.dropFirst().dropLast()
        XCTAssertTrue(total[0].hasPrefix("TOTAL ("), total[0])
        for key in summed where heading.contains(key) {
            let c = heading.firstIndex(of: key)!
            XCTAssertEqual(Int(total[c]), body.compactMap { Int($0[c]) }.reduce(0, +), key)
        }
        let peak = heading.firstIndex(of: "peak_rss_bytes")!
        XCTAssertGreaterThan(Int(total[peak]) ?? 0, 1 << 20)
        XCTAssertTrue(body.allSatisfy { $0[peak] == "" })

        for format in ["text", "html"] {
            let file = "r.\(format)"
            XCTAssertEqual(try run(["report", "in/", "-j", "2", "-q", "--report", format, "--report-file", file]).status, 1)
            let text = String(decoding: try contents(file), as: UTF8.self)
            var at = text.startIndex
            for input in inputs {
                // The text table shortens names from the left; these fit.
                guard let found = text.range(of: format == "html" ? "<td>\(input)</td>" : input + " ", range: at..<text.endIndex) else {
                    return XCTFail("\(format): \(input) missing or out of order")
                }
                at = found.upperBound
            }
            XCTAssertEqual(text.components(separatedBy: "in/000.png").count - 1, format == "html" ? 2 : 1, "once (HTML: the chart too)")
            XCTAssertTrue(text.contains(format == "html" ? "Peak memory of the whole run: " : "\nmemory: peak RSS "), format)
        }
    }

    /// One slow file first, many quick ones after, two at a time: the quick ones finish first and wait (the
    /// reorder window, then no new file until the slow one is done), and the report is still in input order.
    func testSlowFileFirstKeepsInputOrder() throws {
        let quick = try makeInputs(300, folder: "in", damagedEvery: 1000)
        // A 3000x2000 picture (raw zeros drawn as a PNG: quick to make, slow enough to decode), first in order.
        let raw = work.appendingPathComponent("big.nv12")
        try Data(count: 3000 * 2000 * 3 / 2).write(to: raw)
        XCTAssertEqual(try run(["big.nv12", "-s", "3000x2000", "-o", "in/000-big.png", "-q"]).status, 0)
        try FileManager.default.removeItem(at: raw)
        let inputs = ["in/000-big.png"] + quick
        // The default window, and windows small enough that the quick files must wait for the slow one.
        for window in [nil, "1", "3"] {
            for args in [["convert", "in/", "-o", "out/", "--force"], ["report", "in/"]] {
                let r = try launch(binary, args + ["-j", "2", "-q", "--report", "json"],
                                   environment: window.map { ["YUVCONV_REORDER_WINDOW": $0] } ?? [:], stdin: .null)
                XCTAssertEqual(r.status, 0, r.stderr)
                let lines = try jsonLines(r.stdout)
                XCTAssertEqual(lines.dropLast().map { $0["file"] as? String }, inputs, "\(args[0]), window \(window ?? "default")")
                XCTAssertEqual(lines.last?["images"] as? Int, inputs.count)
            }
        }
        // --fail-fast with a small window: what ran is reported, in order, and nothing after the failure starts.
        try FileManager.default.copyItem(atPath: fixture("pngsuite/xcsn0g01.png"), toPath: work.appendingPathComponent("in/100a.png").path)
        let ff = try launch(binary, ["convert", "in/", "-o", "ff/", "-j", "2", "-q", "--fail-fast", "--report", "json"],
                            environment: ["YUVCONV_REORDER_WINDOW": "2"], stdin: .null)
        XCTAssertEqual(ff.status, 1, ff.stderr)
        let reported = try jsonLines(ff.stdout).dropLast().compactMap { $0["file"] as? String }
        XCTAssertEqual(reported, Array((["in/000-big.png"] + quick.prefix(101) + ["in/100a.png"] + quick.dropFirst(101)).prefix(reported.count)))
        XCTAssertTrue(reported.contains("in/100a.png"))
        XCTAssertLessThanOrEqual(reported.count, 103 + 2, "at most the window's worth after the failure")
        XCTAssertTrue(ff.stderr.contains("not started (--fail-fast)"), ff.stderr)
    }

    /// `--shard K/N` over a tree of 101 files: the shares are disjoint and together every file, for convert
    /// and report alike.
    func testShardsCoverEveryFileExactlyOnce() throws {
        var all: [String] = []
        for (folder, n) in [("in", 40), ("in/a", 31), ("in/b/c", 30)] { all += try makeInputs(n, folder: folder, damagedEvery: 1000) }
        for n in [1, 2, 3, 7] {
            for command in ["convert", "report"] {
                var seen: [String] = []
                for k in 1...n {
                    let args = command == "convert"
                        ? ["convert", "in", "-r", "-o", "out-\(n)/", "--name", "{dir}/{stem}.{ext}"]
                        : ["report", "in", "-r"]
                    let r = try run(args + ["--shard", "\(k)/\(n)", "-j", "2", "-q", "--report", "json"])
                    XCTAssertEqual(r.status, 0, r.stderr)
                    let files = try jsonLines(r.stdout).compactMap { $0["file"] as? String }
                    XCTAssertLessThanOrEqual(files.count, (all.count + n - 1) / n)
                    seen += files
                }
                XCTAssertEqual(seen.count, all.count, "\(command) in \(n) shards: each file once")
                XCTAssertEqual(seen.sorted(), all.sorted(), "\(command) in \(n) shards")
            }
        }
    }

    /// A clash, an output that is an input, or a report file that is an output — found at the end of a long
    /// list — are refused before any file is written: no output folder, no report file.
    func testRefusalsAtTheEndOfALongListBeforeAnyOutput() throws {
        try makeInputs(250, folder: "x", damagedEvery: 1000)
        try makeInputs(1, folder: "y", damagedEvery: 1000)   // y/000.png: its output is x's 000's
        let clash = try run(["convert", "x/", "y/", "-o", "out/", "-j", "2", "--report", "json", "--report-file", "r.json"])
        XCTAssertEqual(clash.status, 2, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("x/000.png and y/000.png"), clash.stderr)
        XCTAssertEqual(try leftovers(), ["x", "y"])
        // The last input's output already there, a hard link to the first input.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("o"), withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: work.appendingPathComponent("x/000.png").path,
                                         toPath: work.appendingPathComponent("o/249.nv12").path)
        let input = try run(["convert", "x/", "-o", "o/", "-j", "2", "--force", "--report", "json", "--report-file", "r.json"])
        XCTAssertEqual(input.status, 1, input.stderr)
        XCTAssertTrue(input.stderr.contains("o/249.nv12: is an input of this batch"), input.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("o").path), ["249.nv12"])
        XCTAssertEqual(try leftovers(), ["o", "x", "y"])
        // The report file is the last output.
        let report = try run(["convert", "x/", "-o", "p/", "-j", "2", "--report", "json", "--report-file", "p/249.nv12"])
        XCTAssertEqual(report.status, 2, report.stderr)
        XCTAssertEqual(try leftovers(), ["o", "x", "y"])
    }

    /// A long list from standard input, read as it comes: every path once, in the order given for `report`.
    func testLongListFromStandardInput() throws {
        let inputs = try makeInputs(400, damagedEvery: 1000)
        let shuffled = inputs.reversed().joined(separator: "\n") + "\n"
        let r = try run(["report", "--files-from", "-", "-j", "2", "--report", "json"], stdin: Data(shuffled.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try jsonLines(r.stdout).dropLast().map { $0["file"] as? String }, inputs.reversed())
        let c = try run(["convert", "--files-from", "-", "-o", "out/", "-j", "2", "-q", "--report", "csv"], stdin: Data(shuffled.utf8))
        XCTAssertEqual(c.status, 0, c.stderr)
        let rows = String(decoding: c.stdout, as: UTF8.self).components(separatedBy: "\r\n").dropFirst().dropLast(2)
        XCTAssertEqual(rows.map { String($0.prefix { $0 != "," }) }, inputs, "convert runs in sorted order")
    }

    /// `> log 2>&1`: the report on standard output and the messages on standard error share one file. Each
    /// report line is written with its own line end, so every message starts a line of its own; before, a
    /// line's end was written with the next line, and an error or the per-image line landed at the end of a
    /// report's line ("SSIMyuvconv: error: …", "…OUTin/002.png: …").
    func testReportLinesEndBeforeMessagesInTheSameLog() throws {
        try makeInputs(3, damagedEvery: 2)
        for format in ["text", "csv", "json"] {
            let r = try launch(URL(fileURLWithPath: "/bin/sh"),
                               ["-c", "exec \"$0\" \"$@\" 2>&1", binary.path, "convert", "in/", "-o", "out-\(format)/",
                                "-j", "1", "-v", "--report", format], stdin: .null)
            XCTAssertEqual(r.status, 1, r.stderr)
            let log = String(decoding: r.stdout, as: UTF8.self)
            let lines = log.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            let messages = lines.filter { $0.contains("yuvconv: ") }
            XCTAssertEqual(messages.filter { $0.contains("yuvconv: error: in/001.png") }.count, 1, log)
            XCTAssertTrue(messages.allSatisfy { $0.hasPrefix("yuvconv: ") }, "\(format): \(log)")
            // The per-image lines (standard error): "in/000.png: 32x32 PNG … -> nv12 (bt709 full): …".
            let perImage = lines.filter { $0.contains(" -> nv12 (") }
            XCTAssertEqual(perImage.count, 2, log)
            XCTAssertTrue(perImage.allSatisfy { $0.hasPrefix("in/00") }, "\(format): \(log)")
            XCTAssertEqual(log.unicodeScalars.last, "\n", format)
        }
    }

    /// A report line longer than stdio's 4 KiB buffer (a deep path, twice in each line) went out in two writes,
    /// and in `> log 2>&1` another job's per-image line landed between them, inside the JSON: each line is now
    /// one write.
    func testLongReportLinesAreWrittenWhole() throws {
        let deep = (0..<11).map { _ in String(repeating: "d", count: 230) }.joined(separator: "/")
        let dir = work.appendingPathComponent("in/" + deep)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var random = SplitMix64(seed: 3)
        for i in 0..<100 {
            try writePNG(dir.appendingPathComponent(String(repeating: "f", count: 200) + "\(i).png").path, width: 16, height: 16,
                         pixels: (0..<(16 * 16 * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
        for round in 0..<3 {
            let r = try launch(URL(fileURLWithPath: "/bin/sh"),
                               ["-c", "exec \"$0\" \"$@\" > log 2>&1", binary.path, "convert", "in/", "-r", "-o", "out\(round)/",
                                "-j", "2", "--report", "json"], stdin: .null)
            XCTAssertEqual(r.status, 0)
            let lines = String(decoding: try Data(contentsOf: work.appendingPathComponent("log")), as: UTF8.self).split(separator: "\n")
            let json = lines.filter { $0.hasPrefix("{") }
            XCTAssertEqual(json.count, 101, "a line a file, and the totals")
            for line in json where (try? JSONSerialization.jsonObject(with: Data(line.utf8))) == nil {
                XCTFail("not JSON (\(line.utf8.count) bytes): …\(line.dropFirst(4060).prefix(80))…")
            }
        }
    }
}
