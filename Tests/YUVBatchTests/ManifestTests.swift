import Foundation
import TestSupport
import XCTest
@testable import YUVBatch
import YUVCore
import YUVIO

/// `--update`'s manifest in process: its lines read back as written (odd names included), what it cannot read
/// is left out and said, and `Manifest.check` decides from it what is up to date and why not.
final class ManifestTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = try scratchFolder("yuvmanifest").path
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func entry(output: String, input: String, quality: QualityReport? = nil,
               orientationSource: SourceInfo.OrientationSource = .exif) -> ManifestEntry {
        var info = SourceInfo(restoring: .png, width: 3, height: 5, sampling: "RGBA 16-bit + tRNS\tinterlaced",
                              rowFormat: .rgba16, progressive: false, interlaced: true, hasAlpha: true, orientation: 6)
        info.orientationSource = orientationSource
        let report = ConversionReport(restoring: info, geometry: PlaneGeometry(width: 5, height: 3), layout: .yv12,
                                      spec: ConversionSpec(matrix: .bt2020, range: .limited), inputBytes: 1234, warnings: 2,
                                      firstWarning: "a \\ warning\nover two lines", path: "RGB", alphaBytes: 15,
                                      ledgerPeakBytes: 4096, orientation: Orientation(exif: 6))
        return ManifestEntry(output: output, input: input, inputBytes: 1234, inputModified: 1_700_000_000.123456789,
                             inputSHA256: String(repeating: "ab", count: 32), optionsKey: "yuvconv=0.4.2 format=yv12",
                             outputBytes: 99, outputModified: 1_700_000_001.5, outputSHA256: String(repeating: "0f", count: 32),
                             report: report, quality: quality, peakRSS: 8_000_000)
    }

    /// A line's fields (as the file holds them, escaped) joined again, its `line_crc32` made anew: an edit by
    /// someone who knows the format, which the checks behind the checksum must still catch.
    func signed(_ fields: [[UInt8]]) -> [UInt8] {
        let body = Array(fields.dropLast().joined(separator: [9]))
        return body + [9] + Array(Checksum.crc32Hex(body).utf8)
    }

    func signed(_ fields: [String]) -> String {
        String(decoding: signed(fields.map { Array($0.utf8) }), as: UTF8.self)
    }

    func render(_ e: ManifestEntry) -> [UInt8] {
        var m = Manifest()
        m.entries[e.output] = e
        return m.rendered()
    }

    /// Where the orientation was read is kept, for the text report of an output kept as up to date; a line
    /// written before the column was added reads as EXIF.
    func testOrientationSourceReadsBack() {
        let text = render(entry(output: "x.nv12", input: "in/x.png", orientationSource: .xmp))
        var problems: [String] = []
        let back = Manifest(parsing: text, problems: &problems).entries["x.nv12"]
        XCTAssertEqual(problems, [])
        XCTAssertEqual(back?.report.info.orientationSource, .xmp)
        XCTAssertEqual(back?.report.orientationText, "turned 90° clockwise (XMP 6)")
        // The line without its last six fields (orientation_source, and output_inode, input_inode, input_ctime,
        // output_ctime and line_crc32 after it).
        let lines = text.split(separator: 10).map(Array.init), last = lines.last!
        let tabs = last.indices.filter { last[$0] == 9 }
        let older = lines.dropLast().joined(separator: [10]) + [10] + last[..<tabs[tabs.count - 6]] + [10]
        let old = Manifest(parsing: Array(older), problems: &problems).entries["x.nv12"]
        XCTAssertEqual(problems, [])
        XCTAssertEqual(old?.report.info.orientationSource, .exif)
    }

    /// The input's inode and change time read back as written; a line from before they were recorded reads
    /// without them (and `Manifest.decide` then reads the input once).
    func testInputInodeAndChangeTimeReadBack() {
        var e = entry(output: "i.nv12", input: "in/i.png")
        (e.inputInode, e.inputChanged, e.outputChanged) = (1234567, 1_700_000_000.123456, 1_700_000_001.5)
        var problems: [String] = []
        let back = Manifest(parsing: render(e), problems: &problems).entries["i.nv12"]
        XCTAssertEqual(problems, [])
        XCTAssertEqual(back?.inputInode, 1234567)
        XCTAssertEqual(back?.inputChanged, 1_700_000_000.123456)
        XCTAssertEqual(back?.outputChanged, 1_700_000_001.5)
        let line = render(e).split(separator: 10).last!
        let tabs = line.indices.filter { line[$0] == 9 }
        let older = Array("yuvconv-manifest\t1\n".utf8) + line[..<tabs[tabs.count - 4]] + [10]
        let old = Manifest(parsing: older, problems: &problems).entries["i.nv12"]
        XCTAssertEqual(problems, [])
        XCTAssertNotNil(old)
        XCTAssertNil(old?.inputInode)
        XCTAssertNil(old?.inputChanged)
        XCTAssertNil(old?.outputChanged)
        // Two lines run together (a newline lost), the second's name numeric: refused, not read as one line.
        let merged = Array("yuvconv-manifest\t1\n".utf8) + line + Array("\t2\n".utf8)
        XCTAssertNil(Manifest(parsing: merged, problems: &problems).entries["i.nv12"])
        XCTAssertEqual(problems.count, 1)
    }

    /// A change time within 2 s of now is not recorded (git's "racily clean" rule): on a file system that keeps
    /// whole seconds, or two (FAT), a file replaced within the same tick has the same change time, so the input is
    /// read again by the next run instead (before: recorded, and a same-size replacement with its time put back was
    /// kept as up to date on ext2 with small inodes).
    /// The time it is judged against is when the input was read, not when its conversion ended (seconds later: a
    /// time from the read's second was recorded after a long conversion).
    func testAChangeTimeTooRecentToVouchIsNotRecorded() {
        let t = ManifestEntry.wallClock()
        XCTAssertNil(ManifestEntry.recorded(changed: t, readAt: t))
        XCTAssertNil(ManifestEntry.recorded(changed: t.rounded(.down), readAt: t), "a whole-second file system's time of now")
        XCTAssertNil(ManifestEntry.recorded(changed: t - 1.5, readAt: t))
        XCTAssertEqual(ManifestEntry.recorded(changed: t - 3, readAt: t), t - 3)
        XCTAssertNil(ManifestEntry.recorded(changed: t - 3, readAt: t - 2), "read 2 s ago, converted since")
        XCTAssertNil(ManifestEntry.recorded(changed: t + 3600, readAt: t), "ahead of this clock")
    }

    func testEntriesReadBackAsWritten() {
        // Names with a tab, a newline, a backslash and a byte that is not UTF-8.
        let odd = PathBytes.decode([UInt8]("sub/a\tb\nc\\d".utf8) + [0xE9] + [UInt8](".nv12".utf8))
        let q = QualityReport(psnrY: 50.123456789, psnrCb: .infinity, psnrCr: 40.5, psnrRGB: 38.25, ssimY: 0.9987654321)
        var m = Manifest()
        for e in [entry(output: odd, input: "in/" + odd, quality: q), entry(output: "plain.nv12", input: "in/plain.png")] {
            m.entries[e.output] = e
        }
        let text = m.rendered()
        XCTAssertEqual(text.split(separator: 10).count, 4, "magic, heading, two entries")
        var problems: [String] = []
        let back = Manifest(parsing: text, problems: &problems)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(back.rendered(), text)
        let e = try! XCTUnwrap(back.entries[odd])
        XCTAssertEqual(e.input, "in/" + odd)
        XCTAssertEqual(e.inputModified, 1_700_000_000.123456789)
        XCTAssertEqual(e.quality, q)
        XCTAssertEqual(e.report.info, entry(output: "", input: "").report.info)
        XCTAssertEqual(e.report.firstWarning, "a \\ warning\nover two lines")
        XCTAssertEqual(e.report.orientation, Orientation(exif: 6))
        XCTAssertEqual([e.report.layout.rawValue, e.report.spec.description, e.report.path], ["yv12", "bt2020 limited", "RGB"])
        XCTAssertEqual([e.report.geometry.width, e.report.alphaBytes, e.report.ledgerPeakBytes, e.peakRSS], [5, 15, 4096, 8_000_000])
        XCTAssertNil(back.entries["plain.nv12"]?.quality)
    }

    /// A line is an output of this folder whose recorded conversion is its options key's: one naming a file
    /// outside the folder (or a manifest's own), an orientation no picture has, or a matrix, range, layout or chroma
    /// filter its key does not name is damaged — left out and said, so its output is converted again rather than
    /// kept and reported as what it is not (a hand edit made a BT.709 file read as BT.601 limited).
    func testLinesOutsideTheFolderOrAgainstTheirKeyAreDamaged() {
        let key = "yuvconv=0 format=yv12 layout=yv12 matrix=bt2020 range=limited"
        func parse(_ edit: (inout ManifestEntry) -> Void) -> [String] {
            var e = entry(output: "x.yv12", input: "in/x.png")
            e.optionsKey = key
            edit(&e)
            var problems: [String] = []
            let m = Manifest(parsing: render(e), problems: &problems)
            XCTAssertEqual(m.entries.count, problems.isEmpty ? 1 : 0)
            return problems
        }
        XCTAssertEqual(parse { _ in }, [])
        XCTAssertEqual(parse { $0.output = "sub/x.yv12" }, [])
        for name in ["../victim.nv12", "/etc/victim.nv12", "a/../../b.nv12", "./x.nv12", "sub/", ".yuvconv-manifest",
                     "d/.yuvconv-manifest.journal.AAAAAA"] {
            XCTAssertEqual(parse { $0.output = name }, ["line 3: the output is not a file of this folder"], name)
        }
        // The line's conversion is BT.2020 limited, yv12: a key naming another one disagrees with it.
        XCTAssertEqual(parse { $0.optionsKey = key.replacingOccurrences(of: "matrix=bt2020", with: "matrix=bt709") },
                       ["line 3: matrix is not the options' matrix"])
        XCTAssertEqual(parse { $0.optionsKey = key.replacingOccurrences(of: "range=limited", with: "range=full") },
                       ["line 3: range is not the options' range"])
        XCTAssertEqual(parse { $0.optionsKey = key.replacingOccurrences(of: "layout=yv12", with: "layout=nv12") },
                       ["line 3: layout is not the options' layout"])
        XCTAssertEqual(parse { $0.report.chromaFilter = .sharp }, ["line 3: chroma_filter is not the options' chroma filter"])
        XCTAssertEqual(parse { $0.report.chromaFilter = .sharp; $0.optionsKey = key + " chroma-filter=sharp" }, [])
        // Primaries, the alpha plane, the orientation and the route, each against what the key allows.
        XCTAssertEqual(parse { $0.optionsKey = key + " primaries=bt709" }, [])
        // BT.709 under any target: an sRGB or untagged source's numbers, kept (it was refused, and a run's own line lost).
        XCTAssertEqual(parse { $0.optionsKey = key + " primaries=p3" }, [])
        XCTAssertEqual(parse { $0.optionsKey = key + " primaries=p3"; $0.report.primaries = .bt2020 },
                       ["line 3: primaries is not the options' primaries"])
        XCTAssertEqual(parse { $0.optionsKey = key + " alpha=keep" }, [])   // the entry has 15 bytes of alpha
        XCTAssertEqual(parse { $0.optionsKey = key + " alpha=ignore" }, ["line 3: alpha_bytes is not the options' alpha"])
        XCTAssertEqual(parse { $0.optionsKey = key + " alpha=keep orientation=auto" }, [])
        XCTAssertEqual(parse { $0.optionsKey = key + " alpha=keep orientation=ignore" },
                       ["line 3: orientation is not the options' orientation"])   // the entry is turned (6)
        // The orientation column, edited to what no picture has (it read back as 1 without a word).
        var e = entry(output: "x.yv12", input: "in/x.png")
        e.optionsKey = key
        var line = String(decoding: render(e), as: UTF8.self).split(separator: "\n").map(String.init)
        var fields = line[2].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[Manifest.columns.firstIndex(of: "orientation")!] = "9"
        line[2] = signed(fields)
        var problems: [String] = []
        _ = Manifest(parsing: Array((line.joined(separator: "\n") + "\n").utf8), problems: &problems)
        XCTAssertEqual(problems, ["line 3: orientation is not 1 to 8"])
        // The route: the direct YCbCr path is a JPEG's (this entry's input is a PNG), and "YUV" no batch input's.
        for route in ["direct YCbCr", "YUV"] {
            fields = String(decoding: render(e), as: UTF8.self).split(separator: "\n").map(String.init)[2]
                .split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            fields[Manifest.columns.firstIndex(of: "path")!] = route
            line[2] = signed(fields)
            problems = []
            _ = Manifest(parsing: Array((line.joined(separator: "\n") + "\n").utf8), problems: &problems)
            XCTAssertEqual(problems, ["line 3: path is not a route this input and options take"], route)
        }
    }

    /// A line's checksum covers every field: one edited without it is not read, said as such; a line written
    /// before the column (no checksum) reads, its times of change left out so that its files are read once.
    func testLineChecksumCoversEveryField() {
        var e = entry(output: "c.nv12", input: "in/c.png")
        (e.inputChanged, e.outputChanged) = (1_700_000_000.5, 1_700_000_001.5)
        let text = render(e)
        let line = Array(text.split(separator: 10).last!)
        let head = Array(text.split(separator: 10).dropLast().joined(separator: [10])) + [10]
        let fields = line.split(separator: 9, omittingEmptySubsequences: false).map(Array.init)
        XCTAssertEqual(fields.count, Manifest.columns.count)
        for column in 0..<(fields.count - 1) {
            var f = fields
            f[column] = f[column].isEmpty ? Array("1".utf8) : Array(f[column].dropLast())
            var problems: [String] = []
            let m = Manifest(parsing: head + Array(f.joined(separator: [9])) + [10], problems: &problems)
            XCTAssertTrue(m.entries.isEmpty, Manifest.columns[column])
            XCTAssertEqual(problems, ["line 3: line_crc32 is not the line's checksum: the line was edited or damaged"],
                           Manifest.columns[column])
        }
        var problems: [String] = []
        let older = Manifest(parsing: head + Array(fields.dropLast().joined(separator: [9])) + [10], problems: &problems)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(older.entries["c.nv12"]?.outputSHA256, e.outputSHA256)
        XCTAssertNil(older.entries["c.nv12"]?.inputChanged)
        XCTAssertNil(older.entries["c.nv12"]?.outputChanged)
        let current = Manifest(parsing: text, problems: &problems)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(current.entries["c.nv12"]?.outputChanged, 1_700_000_001.5)
    }

    /// Without a checksum only a line of a version before checksums reads: one whose key names a later version's
    /// output bytes had its checksum taken off (a reviewer's forged PSNR and route were reported as kept, and the
    /// next run wrote the line back with a checksum of its own).
    func testALineOfAVersionWithChecksumsWithoutOneIsDamaged() {
        for (version, reads) in [("0.4.2", true), ("0.3.9", true), ("0.4.3", false), ("0.4.7", false), ("0.10.0", false),
                                 ("1", false), ("", false)] {
            var e = entry(output: "v.nv12", input: "in/v.png")
            e.optionsKey = "yuvconv=\(version) format=yv12"
            let text = render(e)
            let line = Array(text.split(separator: 10).last!)
            let head = Array(text.split(separator: 10).dropLast().joined(separator: [10])) + [10]
            let fields = line.split(separator: 9, omittingEmptySubsequences: false).map(Array.init)
            var problems: [String] = []
            let m = Manifest(parsing: head + Array(fields.dropLast().joined(separator: [9])) + [10], problems: &problems)
            XCTAssertEqual(m.entries["v.nv12"] != nil, reads, version)
            XCTAssertEqual(problems, reads ? [] : ["line 3: it has no line_crc32, which every line of its version has: "
                                                   + "the line was edited or damaged"], version)
            XCTAssertNotNil(Manifest(parsing: text, problems: &problems).entries["v.nv12"], "\(version), with its checksum")
        }
        var e = entry(output: "v.nv12", input: "in/v.png")
        e.optionsKey = "format=yv12"
        let line = Array(render(e).split(separator: 10).last!)
        var problems: [String] = []
        let fields = line.split(separator: 9, omittingEmptySubsequences: false).map(Array.init)
        XCTAssertNil(Manifest(parsing: Array("yuvconv-manifest\t1\n".utf8) + Array(fields.dropLast().joined(separator: [9])) + [10],
                              problems: &problems).entries["v.nv12"], "a key without a version")
    }

    /// Sharp chroma and the bilinear round trip are kept; a line written before those two columns existed
    /// still reads, as box-filtered and without the bilinear measure.
    func testChromaFilterAndBilinearMeasureAndOlderLines() {
        var e = entry(output: "s.nv12", input: "in/s.png",
                      quality: QualityReport(psnrY: 50, psnrCb: 40, psnrCr: 41, psnrRGB: 38, ssimY: 0.99, psnrRGBBilinear: 42.5))
        e.report.chromaFilter = .sharp
        var problems: [String] = []
        let back = Manifest(parsing: render(e), problems: &problems)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(back.entries["s.nv12"]?.report.chromaFilter, .sharp)
        XCTAssertEqual(back.entries["s.nv12"]?.quality, e.quality)
        // The same line without its last eight fields (those two, orientation_source, output_inode, input_inode,
        // input_ctime, output_ctime and line_crc32), as the version before them wrote it.
        let line = render(e).split(separator: 10).last!
        let tabs = line.indices.filter { line[$0] == 9 }
        let older = Array("yuvconv-manifest\t1\n".utf8) + line[..<tabs[tabs.count - 8]] + [10]
        let old = Manifest(parsing: older, problems: &problems)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(old.entries["s.nv12"]?.report.chromaFilter, .box)
        XCTAssertNil(old.entries["s.nv12"]?.quality?.psnrRGBBilinear)
        XCTAssertEqual(old.entries["s.nv12"]?.quality?.psnrRGB, 38)
    }

    func testWhatCannotBeReadIsLeftOutAndSaid() {
        var text = render(entry(output: "good.nv12", input: "in/good.png"))
        let bad = render(entry(output: "bad.nv12", input: "in/bad.png")).split(separator: 10).last!
        text += bad.dropLast(15) + [10]                 // cut short: "bt709\tbox\t\tEXIF" gone, the primaries empty
        text += Array(bad).map { $0 == 9 ? 32 : $0 } + [10]                             // no tabs
        text += Array("bad2.nv12\\q".utf8) + [10]                                       // an unknown escape
        var problems: [String] = []
        let m = Manifest(parsing: text, problems: &problems)
        XCTAssertEqual(Array(m.entries.keys), ["good.nv12"])
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("line 4: "), problems[0])
        problems = []
        XCTAssertTrue(Manifest(parsing: Array("yuvconv-manifest\t2\n".utf8) + text.dropFirst(19), problems: &problems).entries.isEmpty)
        XCTAssertEqual(problems, ["not a yuvconv manifest of version 1 (its first line differs)"])
        // Quality measures no conversion gives (a PSNR below 0 or not a number, an SSIM outside −1…1) and times
        // that are not finite: the line is not read (and its output converted again), +∞ dB is kept.
        let measured = entry(output: "m.nv12", input: "in/m.png",
                             quality: QualityReport(psnrY: .infinity, psnrCb: 50, psnrCr: 51, psnrRGB: 40, ssimY: 0.99,
                                                    psnrRGBBilinear: 41))
        let line = Array(render(measured).split(separator: 10).last!)
        let fields = line.split(separator: 9, omittingEmptySubsequences: false).map(Array.init)
        let psnrY = Manifest.columns.firstIndex(of: "psnr_y_db")!, ssim = Manifest.columns.firstIndex(of: "ssim_y")!
        let bilinear = Manifest.columns.firstIndex(of: "psnr_rgb_bilinear_db")!
        let mtime = Manifest.columns.firstIndex(of: "input_mtime")!
        let head = Array(render(measured).split(separator: 10).dropLast().joined(separator: [10])) + [10]
        func parsed(_ column: Int, _ value: String) -> Manifest {
            var f = fields
            f[column] = Array(value.utf8)
            problems = []
            return Manifest(parsing: head + signed(f) + [10], problems: &problems)
        }
        XCTAssertEqual(parsed(psnrY, "inf").entries["m.nv12"]?.quality?.psnrY, .infinity)
        for (column, value) in [(psnrY, "1e19"), (psnrY, "nan"), (psnrY, "-5"), (ssim, "7"), (ssim, "-inf"),
                                (bilinear, "nan"), (mtime, "inf"), (mtime, "nan")] {
            XCTAssertTrue(parsed(column, value).entries.isEmpty, "\(Manifest.columns[column]) = \(value)")
            XCTAssertEqual(problems.count, 1)
        }
        // No file: an empty manifest, nothing to say.
        let none = try! Manifest.read(root + "/out/" + Manifest.fileName)
        XCTAssertTrue(none.manifest.entries.isEmpty && none.problems.isEmpty)
    }

    /// Each reason to convert again, and a touched but identical input kept (its new time in the entry).
    func testCheckDecidesFromSizesTimesAndDigests() throws {
        let input = root + "/a.png", output = root + "/out/a.nv12"
        try Data("input bytes".utf8).write(to: URL(fileURLWithPath: input))
        let item = try BatchPlan(operands: [input], outputFolder: root + "/out/").items[0]
        XCTAssertEqual(Manifest().check(item, optionsKey: "k").action, .convert)
        try Data("output bytes".utf8).write(to: URL(fileURLWithPath: output))
        XCTAssertEqual(Manifest().check(item, optionsKey: "k").action, .replace(.unrecorded))
        var m = Manifest()
        let inDigest = try sha256(ofFile: input), outDigest = try sha256(ofFile: output)
        var e = entry(output: "a.nv12", input: input)
        (e.inputBytes, e.inputModified, e.inputSHA256) = (inDigest.status.size, inDigest.status.modified, inDigest.sha256)
        (e.outputBytes, e.outputModified, e.outputSHA256) = (outDigest.status.size, outDigest.status.modified, outDigest.sha256)
        e.optionsKey = "k"
        m.entries["a.nv12"] = e
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .skip(upToDate: true))
        XCTAssertEqual(m.check(item, optionsKey: "other").action, .replace(.optionsChanged))
        // Touched, same content: kept, with the new time.
        let later = Date(timeIntervalSinceNow: 3600)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: input)
        let touched = m.check(item, optionsKey: "k")
        XCTAssertEqual(touched.action, .skip(upToDate: true))
        XCTAssertEqual(touched.entry?.inputModified ?? 0, later.timeIntervalSince1970, accuracy: 1e-3)
        // Rewritten: same size, another time, so the digest is asked, and differs; then another size.
        try Data("input BYTES".utf8).write(to: URL(fileURLWithPath: input))
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .replace(.inputChanged))
        try Data("input bytes, longer".utf8).write(to: URL(fileURLWithPath: input))
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .replace(.inputChanged))
        try Data("input bytes".utf8).write(to: URL(fileURLWithPath: input))
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .skip(upToDate: true))
        // Another file put at the output's name with the same size and time (another run's, finished within the
        // same tick of the clock): the inode differs, so it is read — its bytes differ. Before the inode was
        // recorded, same size and time kept it as up to date.
        var recorded = e
        recorded.outputInode = outDigest.status.inode
        m.entries["a.nv12"] = recorded
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .skip(upToDate: true))
        let other = root + "/out/.other"
        try Data("OUTPUT bytes".utf8).write(to: URL(fileURLWithPath: other))
        var was = stat()
        XCTAssertEqual(stat(output, &was), 0)
        var times = [was.st_atim, was.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, other, &times, 0), 0)   // `touch -r`: the time to the nanosecond
        XCTAssertEqual(rename(other, output), 0)
        XCTAssertEqual(FileStatus(path: output)?.modified, outDigest.status.modified)
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .replace(.outputAltered))
        // The same bytes in another file: read, found the same, kept with the new inode.
        try Data("output bytes".utf8).write(to: URL(fileURLWithPath: other))
        XCTAssertEqual(rename(other, output), 0)
        let same = m.check(item, optionsKey: "k")
        XCTAssertEqual(same.action, .skip(upToDate: true))
        XCTAssertEqual(same.entry?.outputInode, FileStatus(path: output)?.inode)
        m.entries["a.nv12"] = e
        // The output altered in place (same size), or cut.
        try Data("output BYTES".utf8).write(to: URL(fileURLWithPath: output))
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .replace(.outputAltered))
        try Data("output".utf8).write(to: URL(fileURLWithPath: output))
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .replace(.outputAltered))
        try FileManager.default.removeItem(atPath: output)
        XCTAssertEqual(m.check(item, optionsKey: "k").action, .convert)
    }

    /// The fields of an entry as text, for comparing entries.
    func fields(_ e: ManifestEntry?) -> String? {
        e.map { String(decoding: render($0), as: UTF8.self) }
    }

    /// Names a binary search must find: odd bytes, escapes, names that sort before and after the escapes.
    func names(_ n: Int) -> [String] {
        (0..<n).map { i in
            switch i % 5 {
            case 0: return String(format: "d%05d.nv12", i)
            case 1: return String(format: "d%05d\tt.nv12", i)
            case 2: return String(format: "sub/%05d\\.nv12", i)
            case 3: return PathBytes.decode([UInt8](String(format: "e%05d", i).utf8) + [0xE9, 0x2E, 0x6E])
            default: return String(format: "Z%05d é.nv12", i)
            }
        }
    }

    /// Lines a search can only step over — comments, empty lines — past 64 KiB of them: the manifest is searched
    /// in a sorted copy without them (a few, a blank line or a note, are not worth copying the whole). Searched in place, each lookup read through them all (a manifest padded with
    /// 40 MB of comments took 8 s for 300 outputs kept up to date, the files times the manifest's size).
    func testLinesNoSearchUsesAreLeftToACopy() throws {
        var m = Manifest()
        let all = names(300)
        for name in all { m.entries[name] = entry(output: name, input: "in/" + name) }
        let text = m.rendered(), path = root + "/out/.yuvconv-manifest"
        try Data(text).write(to: URL(fileURLWithPath: path))
        XCTAssertFalse(try ManifestFile(path: path).searchesSortedCopy, "as written: the heading, then entries")
        let lines: [[UInt8]] = text.split(separator: 10).map(Array.init)
        let comment: [UInt8] = Array("#".utf8) + Array(repeating: UInt8(ascii: "x"), count: 98)
        let padding: [[UInt8]] = Array(repeating: comment, count: 2000)
        let middle: [[UInt8]] = Array(lines[0..<150]) + padding + Array(lines[150...])
        let end: [[UInt8]] = lines + padding
        let note: [[UInt8]] = lines + [[], [], Array("# a note".utf8)]
        for (padded, copied) in [(middle, true), (end, true), (note, false)] {
            try Data(Array(padded).joined(separator: [10]) + [10]).write(to: URL(fileURLWithPath: path))
            let file = try ManifestFile(path: path)
            XCTAssertEqual(file.searchesSortedCopy, copied, "a few blank lines and a note are searched in place")
            XCTAssertEqual(file.problemCount, 0)
            for name in all { XCTAssertEqual(fields(file.entry(named: name)), fields(m.entries[name]), name) }
            XCTAssertNil(file.entry(named: "zzz"))
        }
    }

    /// `ManifestFile` finds every entry `Manifest` reads, by binary search with pread over thousands of lines
    /// (and in a sorted copy when the lines are out of order), and no entry for names that are not there, nor
    /// for a name with two lines (which was written last cannot be told: the output is converted again).
    func testManifestFileFindsWhatManifestReads() throws {
        var m = Manifest()
        let all = names(3000)
        for name in all { m.entries[name] = entry(output: name, input: "in/" + name) }
        let text = m.rendered()
        let path = root + "/out/.yuvconv-manifest"
        try Data(text).write(to: URL(fileURLWithPath: path))
        let file = try ManifestFile(path: path)
        XCTAssertEqual(file.problemCount, 0)
        for name in all { XCTAssertEqual(fields(file.entry(named: name)), fields(m.entries[name]), name) }
        for missing in ["", "a", "d00000.nv1", "d00000.nv12x", "d99999.nv12", "zzz", "sub/", "\u{10FFFF}"] {
            XCTAssertNil(file.entry(named: missing), missing)
        }
        // Out of order, with a later line for one name: a sorted copy, that name without an entry.
        var lines = text.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
        let body = Array(lines[2..<(lines.count - 1)].reversed())
        let changed = entry(output: all[7], input: "in/other")
        lines = [lines[0], lines[1]] + body + [Array(render(changed).split(separator: 10)[2]), []]
        try Data(lines.joined(separator: [10])).write(to: URL(fileURLWithPath: path))
        let shuffled = try ManifestFile(path: path)
        for name in all where name != all[7] { XCTAssertEqual(fields(shuffled.entry(named: name)), fields(m.entries[name]), name) }
        XCTAssertNil(shuffled.entry(named: all[7]))
        XCTAssertEqual(shuffled.problemCount, 2, "both lines of the name are unread")
        XCTAssertEqual(shuffled.problems, ["the lines of outputs named on more than one line, none of which is trusted (2 readable)"])
        XCTAssertNil(shuffled.entry(named: "d99999.nv12"))
        // In order, the second line next to the first: counted with its line number.
        let inOrder = text.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
        let doubled = inOrder[0..<10] + [inOrder[9]] + inOrder[10...]
        try Data(doubled.joined(separator: [10])).write(to: URL(fileURLWithPath: path))
        let twice = try ManifestFile(path: path)
        XCTAssertEqual(twice.problems, ["line 11: a second entry for the same output"])
        XCTAssertEqual(twice.problemCount, 2)
        XCTAssertEqual(all.filter { twice.entry(named: $0) == nil }.count, 1, "the doubled name only")
    }

    /// The lines unread are counted once each, whatever makes them so: a damaged line that is also a second line
    /// of its name was counted twice ("3 lines unread" of two identical damaged lines; 2 of one damaged line and a
    /// readable one written twice, which are 3), in order and out of order alike.
    func testEveryUnreadLineIsCountedOnce() throws {
        let path = root + "/out/.yuvconv-manifest"
        let good = render(entry(output: "b.nv12", input: "in/b.png"))
        let line = Array(good.split(separator: 10)[2]) + [10]
        let damaged = Array("c.nv12\tjunk\n".utf8), late = Array("z.nv12\tjunk\n".utf8)
        let cases: [([UInt8], Int)] = [
            (good + damaged + damaged, 2),              // in order: one name, two damaged lines
            (good + damaged + damaged + damaged, 3),
            (good + line + damaged, 3),                 // b's line written twice, then a damaged line
            (good + late + damaged + damaged, 3),       // out of order: the sorted copy counts
            (good + late + line + damaged, 4),
        ]
        for (n, (text, want)) in cases.enumerated() {
            try Data(text).write(to: URL(fileURLWithPath: path))
            let file = try ManifestFile(path: path)
            XCTAssertEqual(file.problemCount, want, "case \(n): \(file.problems)")
        }
    }

    /// A damaged line named as an output and a NUL ("b.nv12\0", zeroed bytes after a crash) is another name, as
    /// "b.nv12x" is: the output's own line is found, in the sorted copy and after a write that keeps both. The
    /// sort's key was the name's bytes and a 0, so it fell between the records of "b.nv12" and the output was
    /// refused as unrecorded on every run after (a hostile round).
    func testADamagedNameEndingInNULIsAnotherName() throws {
        let path = root + "/out/.yuvconv-manifest"
        let good = render(entry(output: "b.nv12", input: "in/b.png"))
        let head = good.split(separator: 10, omittingEmptySubsequences: false).prefix(2).map(Array.init)
        let line = Array(good.split(separator: 10)[2]) + [10]
        for damaged: [UInt8] in [Array("b.nv12\0\n".utf8), [98, 46, 110, 118, 49, 50, 0, 1, 10], [98, 46, 110, 118, 49, 50, 1, 10]] {
            let text = head.joined(separator: [10]) + [10] + damaged + line
            try Data(text).write(to: URL(fileURLWithPath: path))
            let file = try ManifestFile(path: path)
            XCTAssertTrue(file.searchesSortedCopy, "out of order")
            XCTAssertNotNil(file.entry(named: "b.nv12"), "\(damaged)")
            XCTAssertEqual(file.problemCount, 1, "\(file.problems)")
            let changes = Spool()
            ManifestChange.write(name: "c.nv12", entry: entry(output: "c.nv12", input: "in/c.png"), to: changes)
            XCTAssertNil(file.write(to: path, changes: changes, protected: Set<FileIdentity>()))
            let again = try ManifestFile(path: path)
            XCTAssertNotNil(again.entry(named: "b.nv12"), "after the write: \(damaged)")
            XCTAssertNotNil(again.entry(named: "c.nv12"))
            XCTAssertEqual(again.problemCount, 1, "the damaged line kept, alone: \(again.problems)")
        }
    }

    /// What `ManifestFile` cannot read it counts and describes as `Manifest` does; those lines have no entry.
    func testManifestFileProblems() throws {
        let path = root + "/out/.yuvconv-manifest"
        var text = render(entry(output: "b.nv12", input: "in/b.png"))
        text += Array("a.nv12\tbroken\n".utf8) + Array("c.nv12\tbroken too\n".utf8)
        try Data(text).write(to: URL(fileURLWithPath: path))
        let file = try ManifestFile(path: path)
        XCTAssertEqual(file.problemCount, 2)
        XCTAssertEqual(file.problems.first, "line 4: 2 fields, not \(Manifest.columns.count)")
        XCTAssertNotNil(file.entry(named: "b.nv12"))
        XCTAssertNil(file.entry(named: "a.nv12"))
        try Data("not a manifest\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try ManifestFile(path: path).problems, ["not a yuvconv manifest of version 1 (its first line differs)"])
        XCTAssertEqual(try ManifestFile(path: root + "/out/none").problemCount, 0)
        XCTAssertThrowsError(try ManifestFile(path: root + "/out"))
    }

    /// Written back: the file as it is then, with the changes put in (replaced, added, dropped), in the order
    /// `Manifest` renders — and not written at all when no entry changes.
    func testManifestFileWriteMergesChanges() throws {
        let path = root + "/out/.yuvconv-manifest"
        var m = Manifest()
        let all = names(2000)
        for name in all { m.entries[name] = entry(output: name, input: "in/" + name) }
        try Data(m.rendered()).write(to: URL(fileURLWithPath: path))
        let file = try ManifestFile(path: path)
        // Meanwhile another run added an entry.
        m.entries["zz-other.nv12"] = entry(output: "zz-other.nv12", input: "in/other")
        try Data(m.rendered()).write(to: URL(fileURLWithPath: path))
        let changes = Spool()
        let replaced = entry(output: all[3], input: "in/replaced"), added = entry(output: "new.nv12", input: "in/new.png")
        ManifestChange.write(name: all[3], entry: replaced, to: changes)
        ManifestChange.write(name: "new.nv12", entry: added, to: changes)
        ManifestChange.write(name: all[4], entry: nil, to: changes)
        XCTAssertNil(file.write(to: path, changes: changes, protected: Set<FileIdentity>()))
        m.entries[all[3]] = replaced
        m.entries["new.nv12"] = added
        m.entries[all[4]] = nil
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(m.rendered()))
        // The same entries again: not written (the same file, untouched).
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let same = Spool()
        ManifestChange.write(name: all[5], entry: m.entries[all[5]], to: same)
        ManifestChange.write(name: "never.nv12", entry: nil, to: same)
        XCTAssertNil(try ManifestFile(path: path).write(to: path, changes: same, protected: Set<FileIdentity>()))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int, before)
    }

    /// An output's change time from the last two seconds is not written (git's "racily clean" rule): an edit in
    /// place in the same clock tick as the naming — a whole second on ext4 with small inodes — with its time set
    /// back keeps that change time, and the next run would keep the edited output (`UpdateTests` failed so on
    /// such a file system). Unrecorded, the next run reads the output once. An older change time is written.
    func testManifestFileWriteLeavesOutRecentOutputChangeTimes() throws {
        let path = root + "/out/.yuvconv-manifest"
        try Data(Manifest().rendered()).write(to: URL(fileURLWithPath: path))
        var fresh = entry(output: "fresh.nv12", input: "in/fresh.png"), settled = entry(output: "old.nv12", input: "in/old.png")
        fresh.outputChanged = ManifestEntry.wallClock()
        settled.outputChanged = ManifestEntry.wallClock() - 10
        let changes = Spool()
        ManifestChange.write(name: "fresh.nv12", entry: fresh, to: changes)
        ManifestChange.write(name: "old.nv12", entry: settled, to: changes)
        XCTAssertNil(try ManifestFile(path: path).write(to: path, changes: changes, protected: Set<FileIdentity>()))
        let written = try ManifestFile(path: path)
        XCTAssertNil(try XCTUnwrap(written.entry(named: "fresh.nv12")).outputChanged)
        XCTAssertEqual(try XCTUnwrap(written.entry(named: "old.nv12")).outputChanged, settled.outputChanged)
    }

    /// What the run accepted at its start is what it replaces at the end: a symbolic link, or a file that is
    /// not a manifest, put at the manifest's name during the run is left alone (the link's target too) and the
    /// write fails; a file that was not a manifest at the start is replaced when `force` said so.
    func testManifestFileWriteLeavesWhatWasPutInItsPlace() throws {
        let path = root + "/out/.yuvconv-manifest", victim = root + "/victim.txt"
        var m = Manifest()
        m.entries["a.nv12"] = entry(output: "a.nv12", input: "in/a")
        try Data(m.rendered()).write(to: URL(fileURLWithPath: path))
        try Data("someone's file\n".utf8).write(to: URL(fileURLWithPath: victim))
        func changes() -> Spool {
            let spool = Spool()
            ManifestChange.write(name: "b.nv12", entry: entry(output: "b.nv12", input: "in/b"), to: spool)
            return spool
        }
        let file = try ManifestFile(path: path)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "../victim.txt")
        XCTAssertEqual(file.write(to: path, changes: changes(), protected: Set<FileIdentity>(), force: true)?.reason
                           .contains("by a symbolic link"), true)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "someone's file\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path), "../victim.txt")
        try FileManager.default.removeItem(atPath: path)
        try Data("not a manifest\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(file.write(to: path, changes: changes(), protected: Set<FileIdentity>(), force: true)?.reason
                           .contains("not a yuvconv manifest"), true)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "not a manifest\n")
        // Not a manifest at the start either: replaced only with force.
        let foreign = try ManifestFile(path: path)
        XCTAssertTrue(foreign.foreign)
        XCTAssertNotNil(foreign.write(to: path, changes: changes(), protected: Set<FileIdentity>()))
        XCTAssertNil(foreign.write(to: path, changes: changes(), protected: Set<FileIdentity>(), force: true))
        XCTAssertNotNil(try ManifestFile(path: path).entry(named: "b.nv12"))
    }

    /// A name with two lines is not trusted when read, and a write that does not change it keeps them as they
    /// are rather than keep one of them (which the next run would trust) or drop them (the next run would refuse
    /// the output as unrecorded); a write that changes it replaces them.
    func testManifestFileWriteKeepsADoubledName() throws {
        let path = root + "/out/.yuvconv-manifest"
        var m = Manifest()
        m.entries["a.nv12"] = entry(output: "a.nv12", input: "in/a")
        m.entries["c.nv12"] = entry(output: "c.nv12", input: "in/c")
        var lines = m.rendered().split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
        lines.insert(lines[2], at: 3)   // a.nv12 twice
        lines.insert(Array("c.nv12\tbroken".utf8), at: 5)   // c.nv12's line, and one that cannot be read
        try Data(lines.joined(separator: [10])).write(to: URL(fileURLWithPath: path))
        let file = try ManifestFile(path: path)
        XCTAssertNil(file.entry(named: "a.nv12"))
        XCTAssertNil(file.entry(named: "c.nv12"))
        let changes = Spool()
        ManifestChange.write(name: "b.nv12", entry: entry(output: "b.nv12", input: "in/b"), to: changes)
        XCTAssertNil(file.write(to: path, changes: changes, protected: Set<FileIdentity>()))
        let after = try ManifestFile(path: path)
        XCTAssertEqual(after.problemCount, 4, "both a.nv12 lines and c.nv12's two, as they were")
        XCTAssertNil(after.entry(named: "a.nv12"), "still not trusted")
        XCTAssertNil(after.entry(named: "c.nv12"), "nor the readable one beside an unreadable one")
        XCTAssertNotNil(after.entry(named: "b.nv12"))
        XCTAssertTrue(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).contains("\nc.nv12\tbroken\n"))
        // Changed by a run: one line again.
        let again = Spool()
        ManifestChange.write(name: "a.nv12", entry: entry(output: "a.nv12", input: "in/a2"), to: again)
        XCTAssertNil(after.write(to: path, changes: again, protected: Set<FileIdentity>()))
        XCTAssertEqual(try ManifestFile(path: path).entry(named: "a.nv12")?.input, "in/a2")
    }

    /// Two runs finishing together: the write waits while another holds the folder's lock, and then merges
    /// into the file as that other run left it (read after the wait, not before), so neither run's entries
    /// are lost.
    func testManifestFileWriteWaitsForAnotherWriter() throws {
        let path = root + "/out/.yuvconv-manifest"
        var m = Manifest()
        m.entries["a.nv12"] = entry(output: "a.nv12", input: "in/a")
        try Data(m.rendered()).write(to: URL(fileURLWithPath: path))
        let file = try ManifestFile(path: path)
        // The other run holds the lock, as its write does.
        let other = open(root + "/out", O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(other, 0)
        XCTAssertEqual(flock(other, LOCK_EX), 0)
        let changes = Spool()
        ManifestChange.write(name: "b.nv12", entry: entry(output: "b.nv12", input: "in/b"), to: changes)
        let done = DispatchSemaphore(value: 0)
        let result = UncheckedBox<FileError?>(nil)
        Thread.detachNewThread {
            result.value = file.write(to: path, changes: changes, protected: Set<FileIdentity>())
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 0.3), .timedOut, "the write waits for the lock")
        // Meanwhile the other run writes its entry, and lets go.
        m.entries["c.nv12"] = entry(output: "c.nv12", input: "in/c")
        try Data(m.rendered()).write(to: URL(fileURLWithPath: path))
        close(other)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertNil(result.value)
        m.entries["b.nv12"] = entry(output: "b.nv12", input: "in/b")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(m.rendered()))
    }
}

/// A value a test's thread sets and the test reads after waiting for it.
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
