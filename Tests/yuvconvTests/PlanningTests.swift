import Foundation
import TestSupport
import XCTest

/// `report` chooses its inputs as `convert` does; what can be refused is refused before any work; `--update`
/// keeps up-to-date outputs even with `--force`; `--dry-run` says what would happen and writes nothing.
final class PlanningTests: CLITestCase {
    /// in/a.png, in/c.png (damaged), in/sub/b.png.
    func makeInputs() throws {
        for (name, target) in [("pngsuite/basn2c08.png", "in/a.png"), ("pngsuite/xcsn0g01.png", "in/c.png"),
                               ("pngsuite/basn0g08.png", "in/sub/b.png")] {
            let dst = work.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture(name), toPath: dst.path)
        }
    }

    /// The files of a JSON Lines report, totals left out.
    func reportedFiles(_ r: Result) -> [String] { reportedFiles(r.stdout) }

    func reportedFiles(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["file"] as? String
        }
    }

    func modified(_ path: String) throws -> Date {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(path).path)[.modificationDate] as? Date)
    }

    func testReportTakesFoldersListsShardsAndJobs() throws {
        try makeInputs()
        let whole = try run(["report", "in/", "-r", "--report", "json", "-j", "2"])
        XCTAssertEqual(whole.status, 1, whole.stderr)
        XCTAssertEqual(reportedFiles(whole), ["in/a.png", "in/c.png", "in/sub/b.png"])
        XCTAssertTrue(whole.stderr.contains("  failed: in/c.png: "), whole.stderr)
        XCTAssertEqual(reportedFiles(try run(["report", "in", "--report", "json"])), ["in/a.png", "in/c.png"])
        // Two shards together count each file once.
        var union: [String] = []
        for k in 1...2 { union += reportedFiles(try run(["report", "in/", "-r", "--shard", "\(k)/2", "--report", "json"])) }
        XCTAssertEqual(union.sorted(), ["in/a.png", "in/c.png", "in/sub/b.png"])
        // A list, NUL-separated from standard input: records in the order given.
        let listed = try run(["report", "--files-from", "-", "-0", "--report", "json"], stdin: Data("in/sub/b.png\0in/a.png\0".utf8))
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(reportedFiles(listed), ["in/sub/b.png", "in/a.png"])
        XCTAssertEqual(try leftovers(), ["in"])
    }

    /// One file under one path twice — a folder and its contents with a {dir} name, a list naming a file of a
    /// folder given too — was converted twice, to two names, and reported twice (exit 0); `report` refused it.
    /// Refused by convert as by report, before any work.
    func testConvertRefusesAFileGivenTwiceWhateverItsNames() throws {
        try makeInputs()
        try Data("in/a.png\n".utf8).write(to: work.appendingPathComponent("list.txt"))
        for args in [["in", "in/"], ["in", "--files-from", "list.txt"]] {
            for command in ["convert", "report"] {
                let r = try run([command] + args + (command == "convert" ? ["-o", "out/", "--name", "{dir}/{stem}.{ext}"] : []) + ["-r"])
                XCTAssertEqual(r.status, 2, "\(command) \(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("in/a.png is given twice"), r.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
        // A path that reaches nothing, given twice under one path: refused by report as by convert (it was two
        // failed rows in report's totals, exit 1).
        for command in ["convert", "report"] {
            let r = try run([command, "gone.png", "./gone.png"] + (command == "convert" ? ["-o", "out/"] : []))
            XCTAssertEqual(r.status, 2, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("gone.png is given twice"), r.stderr)
        }
    }

    /// With two files each given twice, the one named was the first in an order of inode numbers — so which one a
    /// run named changed from machine to machine (this suite failed on CI by it). Named now: the file whose second
    /// mention comes first in the command, with its two paths in the order given.
    func testTheRepeatNamedIsTheFirstInTheCommand() throws {
        try makeInputs()
        func inode(_ path: String) throws -> UInt64 {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(path).path)[.systemFileNumber] as? UInt64)
        }
        // The file with the higher inode number repeats first, so an inode order would name the other.
        let (early, late) = try inode("in/a.png") > inode("in/sub/b.png") ? ("in/a.png", "in/sub/b.png") : ("in/sub/b.png", "in/a.png")
        for command in ["convert", "report"] {
            let args = [command, early, late, "./" + early, late] + (command == "convert" ? ["-o", "out/"] : [])
            let r = try run(args)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(early) is given twice (as ./\(early) too)"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
    }

    /// Standard input to an output folder: refused for what it is — no name for the output, or (with --shard) one
    /// stream that no shard splits — not as "one of many inputs", and no message sends the user to another.
    /// A folder named in a --files-from list (`find DIR` without -type f lists them) fails with what to do, on the run
    /// and its dry run alike: it was "is a directory" alone. Standard input that is a folder is told what fits it.
    func testAFolderInAListSaysWhatToDo() throws {
        let d = work.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: d.appendingPathComponent("a.png").path)
        try Data("d\nd/a.png\n".utf8).write(to: work.appendingPathComponent("list.txt"))
        let says = "d: is a directory: a folder given as an input is walked for its pictures (-r for its subfolders); "
            + "a --files-from list names files (find DIR -type f lists only them)"
        let dry = try run(["convert", "--files-from", "list.txt", "-o", "out/", "-n"])
        XCTAssertTrue(dry.stdout.isEmpty ? dry.stderr.contains(says) : String(decoding: dry.stdout, as: UTF8.self).contains(says),
                      String(decoding: dry.stdout, as: UTF8.self) + dry.stderr)
        let r = try run(["convert", "--files-from", "list.txt", "-o", "out/", "-q"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("  failed: " + says), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("out/a.nv12").path))
        // Standard input redirected from a folder was neither given as a folder nor listed: that advice was wrong there.
        for args in [["-", "-o", "x.nv12"], ["report", "-"]] {
            let s = try launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" < d", binary.path] + args, stdin: .null)
            XCTAssertEqual(s.status, 1, s.stderr)
            XCTAssertTrue(s.stderr.contains("<stdin>: is a directory: standard input is a folder here (< DIR); give the folder "
                                            + "as an input to convert its pictures"), "\(args): \(s.stderr)")
        }
    }

    func testStandardInputToAFolderSaysWhy() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: fixture("pngsuite/basn2c08.png")))
        let alone = try run(["-", "-o", "o/"], stdin: png)
        XCTAssertEqual(alone.status, 2)
        XCTAssertTrue(alone.stderr.contains("standard input has no file name to make an output's name from in a folder"), alone.stderr)
        for name in ["-", "/dev/stdin"] {
            let sharded = try run([name, "--shard", "1/2", "-o", "o/"], stdin: png)
            XCTAssertEqual(sharded.status, 2)
            XCTAssertTrue(sharded.stderr.contains("--shard splits a batch of files among runs; standard input is one stream"), sharded.stderr)
        }
        XCTAssertEqual(try run(["-", "-o", "o.nv12", "-q"], stdin: png).status, 0)
        // `report` alike: every shard but the first measured nothing and said nothing.
        // Named in a list (`--files-from`), as an operand is.
        try Data("\(fixture("pngsuite/basn0g08.png"))\n/dev/stdin\n".utf8).write(to: work.appendingPathComponent("list.txt"))
        for args in [["report", "--files-from", "list.txt", "--shard", "1/2"], ["convert", "--files-from", "list.txt", "--shard", "1/2", "-o", "l/"]] {
            let listed = try run(args, stdin: png)
            XCTAssertEqual(listed.status, 2, "\(args): \(listed.stderr)")
            XCTAssertTrue(listed.stderr.contains("standard input is one stream"), listed.stderr)
        }
        for (k, names) in [("1/2", ["-"]), ("2/2", ["-"]), ("2/2", ["/dev/stdin"]), ("2/2", ["/dev/fd/0"]), ("2/2", ["//dev/./stdin"]),
                           ("2/2", ["-", fixture("pngsuite/basn0g08.png")])] {
            let report = try run(["report"] + names + ["--shard", k, "--report", "csv"], stdin: png)
            XCTAssertEqual(report.status, 2, "\(k) \(names): \(report.stderr)")
            XCTAssertTrue(report.stderr.contains("standard input is one stream: measure it without --shard"), report.stderr)
        }
    }

    func testReportRefusesWhatOnlyWritingImagesUses() throws {
        try makeInputs()
        for extra in [["-o", "x/"], ["--name", "{stem}"], ["--update"], ["--quality", "80"], ["--size", "2x2"], ["--dry-run"]] {
            let r = try run(["report", "in/a.png"] + extra)
            XCTAssertEqual(r.status, 2, "\(extra): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(extra[0]) is for convert: report "), r.stderr)
            XCTAssertTrue(r.stdout.isEmpty)
        }
        XCTAssertEqual(try run(["report", "in/a.png", "--fail-fast", "--force", "-q", "--report", "csv"]).status, 0)
        XCTAssertEqual(try run(["report", "-", "-"]).status, 2)
    }

    /// The verb is the first operand, options before it or not: `-q report x.png` measured "report" as an input
    /// and then asked for an output folder; `-q convert a.png b.png -o dir/` converted both and failed on a file
    /// named "convert". A file of that name is given as ./report, or after --.
    func testVerbAfterLeadingOptions() throws {
        try makeInputs()
        let report = try run(["-q", "report", "in/a.png", "--report", "csv"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let text = String(decoding: report.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("in/a.png"), text)
        XCTAssertFalse(text.contains("report,"), text)
        let convert = try run(["-q", "convert", "in/a.png", "in/sub/b.png", "-o", "both/"])
        XCTAssertEqual(convert.status, 0, convert.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("both").path).sorted(),
                       ["a.nv12", "b.nv12"])
        // What report refuses is refused typed before it too.
        let refused = try run(["-o", "x/", "report", "in/a.png"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("-o is for convert: report "), refused.stderr)
        // An option's value is never the verb; a second verb word, or one after --, is a file.
        let named = try run(["-q", "-o", "o.nv12", "--", "report"])
        XCTAssertEqual(named.status, 1, named.stderr)
        XCTAssertTrue(named.stderr.contains("report: cannot open"), named.stderr)
        let twice = try run(["-q", "report", "report", "--report", "csv"])
        XCTAssertEqual(twice.status, 1, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("report: cannot open"), twice.stderr)
    }

    /// Raw YUV or a Y4M file with -o a folder: one input into a folder is a batch, which takes JPEG and PNG. It
    /// failed (exit 1) advising "yuvconv FILE --size WxH -o OUT", what the user had typed; now the folder is named
    /// as the cause, with a file name in it that works.
    func testYUVInputIntoAFolderNamesTheFolder() throws {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("d"), withIntermediateDirectories: true)
        try Data(repeating: 128, count: 33 * 17 + 2 * 17 * 9).write(to: work.appendingPathComponent("r.nv12"))
        try Data("YUV4MPEG2 W4 H4\nFRAME\n".utf8 + [UInt8](repeating: 0, count: 24)).write(to: work.appendingPathComponent("a.y4m"))
        for (args, kind, example) in [(["r.nv12", "-s", "33x17", "-o", "d"], "raw YUV", "d/r.png"),
                                      (["r.nv12", "-s", "33x17", "-o", "d/"], "raw YUV", "d/r.png"),
                                      (["a.y4m", "-o", "d"], "a Y4M stream", "d/a.png")] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is \(kind), which converts to one named file, and -o d"), r.stderr)
            XCTAssertTrue(r.stderr.contains("e.g. -o \(example)"), r.stderr)
            XCTAssertFalse(r.stderr.contains("ignores it"), r.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("d").path), [])
            let named = try run(Array(args.dropLast()) + [example])
            XCTAssertEqual(named.status, 0, "\(args): \(named.stderr)")
            try FileManager.default.removeItem(at: work.appendingPathComponent(example))
        }
        // The name offered says the format asked for; a folder not made yet is said to be one (it ends in /), and
        // the name in it works once it exists.
        let nv21 = try run(["r.nv12", "-s", "33x17", "-f", "nv21", "-o", "d"])
        XCTAssertEqual(nv21.status, 2, nv21.stderr)
        XCTAssertTrue(nv21.stderr.contains("e.g. -o d/r.nv21\n"), nv21.stderr)
        let missing = try run(["r.nv12", "-s", "33x17", "-o", "new/"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("-o new/ names a folder (it ends in /)") && missing.stderr.contains(
            "e.g. -o new/r.png, once the folder exists"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("new").path))
    }

    /// An existing report file is refused before any file is converted or measured.
    func testExistingReportFileRefusedBeforeWork() throws {
        try makeInputs()
        try Data("old".utf8).write(to: work.appendingPathComponent("r.json"))
        for args in [["report", "in/", "--report", "json"], ["convert", "in/", "-o", "out/", "--report", "json"],
                     ["in/a.png", "-o", "a.nv12", "--report", "json"]] {
            let r = try run(args + ["--report-file", "r.json"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("r.json: already exists (use --force to overwrite)"), r.stderr)
            XCTAssertFalse(r.stderr.contains("CRC"), "\(args): work done before the refusal: \(r.stderr)")
            XCTAssertEqual(try leftovers(), ["in", "r.json"])
        }
    }

    /// --update makes its report anew, but replaces without --force only a file that is one whole report: not one
    /// that several runs' reports were appended into (JSON Lines invite `>>`), nor one with a line of the user's own
    /// between its first line and its totals — their ends alone are a report's. They stay, and the run says why.
    func testUpdateKeepsAReportFileThatHoldsMoreThanOneReport() throws {
        try makeInputs()
        for format in ["json", "csv", "text", "html"] {
            let file = "all.\(format)"
            let first = try run(["convert", "in", "-r", "-o", "o-\(format)/", "-q", "--update", "--report", format, "--report-file", file])
            XCTAssertEqual(first.status, 1, first.stderr)   // in/c.png is damaged
            let again = try run(["convert", "in", "-r", "-o", "o-\(format)/", "-q", "--update", "--report", format, "--report-file", file])
            XCTAssertEqual(again.status, 1, again.stderr)
            XCTAssertFalse(again.stderr.contains(file + ":"), again.stderr)   // its own report: replaced
            let other = try run(["report", "in/a.png", "--report", format])
            let path = work.appendingPathComponent(file)
            var mixed = try Data(contentsOf: path)
            mixed.append(other.stdout)
            try mixed.write(to: path)
            let refused = try run(["convert", "in", "-r", "-o", "o-\(format)/", "-q", "--update", "--report", format, "--report-file", file])
            XCTAssertEqual(refused.status, 1, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("\(file): already exists and is not one whole yuvconv report"), refused.stderr)
            XCTAssertEqual(try Data(contentsOf: path), mixed, format)
            // A line of the user's own inside one JSON report.
            if format == "json" {
                let one = try run(["report", "in/a.png", "in/sub/b.png", "--report", "json"]).stdout
                var lines = String(decoding: one, as: UTF8.self).split(separator: "\n").map(String.init)
                lines.insert("{\"note\": \"keep me\"}", at: 1)
                let edited = Data((lines.joined(separator: "\n") + "\n").utf8)
                try edited.write(to: path)
                XCTAssertEqual(try run(["convert", "in", "-r", "-o", "o-\(format)/", "-q", "--update", "--report", format,
                                        "--report-file", file]).status, 1)
                XCTAssertEqual(try Data(contentsOf: path), edited)
            }
            // --force replaces it.
            XCTAssertEqual(try run(["convert", "in", "-r", "-o", "o-\(format)/", "-q", "--update", "--force", "--report", format,
                                    "--report-file", file]).status, 1)
            XCTAssertNotEqual(try Data(contentsOf: path), mixed, format)
        }
    }

    /// Gives in/a.png other content (another image of the same kind).
    func changeInput() throws {
        let a = work.appendingPathComponent("in/a.png")
        try FileManager.default.removeItem(at: a)
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c16.png"), toPath: a.path)
    }

    /// With --update an up-to-date output stays even with --force, which then replaces the out-of-date
    /// outputs and the report file only; the report lists every input, kept ones too.
    func testUpdateKeepsUpToDateOutputsEvenWithForce() throws {
        try makeInputs()
        XCTAssertEqual(try run(["convert", "in", "-r", "-o", "out/", "-q", "--update", "--report", "json", "--report-file", "r.json"]).status, 1)
        let keptBefore = try modified("out/b.nv12")
        try changeInput()
        sleep(1)
        let u = try run(["convert", "in", "-r", "-o", "out/", "-q", "--update", "--force", "--report", "json", "--report-file", "r.json"])
        XCTAssertEqual(u.status, 1, u.stderr)
        XCTAssertTrue(u.stderr.contains("1 converted, 1 kept (up to date), 1 failed"), u.stderr)
        XCTAssertEqual(try modified("out/b.nv12"), keptBefore)
        XCTAssertEqual(reportedFiles(try Data(contentsOf: work.appendingPathComponent("r.json"))), ["in/a.png", "in/c.png", "in/sub/b.png"])
        // Without --update, --force replaces every output.
        let f = try run(["convert", "in", "-r", "-o", "out/", "-q", "--force"])
        XCTAssertTrue(f.stderr.contains("2 converted, 0 skipped"), f.stderr)
        XCTAssertNotEqual(try modified("out/b.nv12"), keptBefore)
    }

    /// A batch's dry run refuses what the run refuses from the names and first bytes alone: an empty file, one
    /// that is no JPEG or PNG, a Y4M (one file at a time only), an output under a folder named as --update's
    /// manifest (which the run does not make).
    func testBatchDryRunRefusesWhatTheRunRefuses() throws {
        try makeInputs()
        let dir = work.appendingPathComponent("odd")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(".yuvconv-manifest"), withIntermediateDirectories: true)
        try Data().write(to: dir.appendingPathComponent("empty.png"))
        try Data("hello\n".utf8).write(to: dir.appendingPathComponent("text.png"))
        XCTAssertEqual(try run(["in/a.png", "-o", "odd/s.y4m", "-q"]).status, 0)
        try FileManager.default.copyItem(atPath: work.appendingPathComponent("in/a.png").path,
                                         toPath: dir.appendingPathComponent(".yuvconv-manifest/m.png").path)
        // A folder given is {dir} in the names of the files in it.
        let args = ["convert", "in/a.png", "odd/empty.png", "odd/text.png", "odd/s.y4m", "odd/.yuvconv-manifest",
                    "-o", "out/", "--name", "{dir}/{stem}.nv12"]
        let dry = try run(args + ["-n"])
        XCTAssertEqual(dry.status, 1, dry.stderr)
        let said = String(decoding: dry.stdout, as: UTF8.self)
        for text in ["convert in/a.png -> out/a.nv12 (nv12)\n",
                     "refuse odd/empty.png -> out/empty.nv12 (nv12): odd/empty.png: empty file\n",
                     "refuse odd/text.png -> out/text.nv12 (nv12): odd/text.png: not a JPEG or PNG file",
                     "refuse odd/s.y4m -> out/s.nv12 (nv12): odd/s.y4m: a YUV4MPEG2 (Y4M) stream",
                     "refuse odd/.yuvconv-manifest/m.png -> out/.yuvconv-manifest/m.nv12 (nv12): is in a folder named as --update's manifest"] {
            XCTAssertTrue(said.contains(text), "\(text)\n\(said)")
        }
        XCTAssertTrue(dry.stderr.contains("1 to convert, 0 to replace, 0 skipped (already there), 4 refused"), dry.stderr)
        let real = try run(args + ["-q"])
        XCTAssertEqual(real.status, 1, real.stderr)
        XCTAssertTrue(real.stderr.contains("1 converted, 0 skipped (already there), 4 failed"), real.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out/.yuvconv-manifest").path))
        // A report file in a folder, to be made in the output folder, named as --update's manifest: refused
        // before the folder is made, by the run and its dry run.
        for dry in [true, false] {
            let r = try run(["convert", "in/a.png", "-o", "ro/", "--report", "json", "--report-file", "ro/.yuvconv-manifest/r.json"]
                            + (dry ? ["-n"] : ["-q"]))
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("is in a folder named as --update's manifest"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("ro/.yuvconv-manifest").path))
        }
        // A single raw frame: without --size a usage error, with a size its file does not hold a refusal, in the
        // dry run as in the run.
        try Data(count: 96).write(to: work.appendingPathComponent("r.yuv"))
        for (extra, status) in [([String](), Int32(2)), (["-s", "8x9"], Int32(1)), (["-s", "8x8"], Int32(0))] {
            let dry = try run(["r.yuv", "-o", "r.nv12", "-n"] + extra)
            XCTAssertEqual(dry.status, status, "\(extra): \(dry.stderr)")
            XCTAssertEqual(try run(["r.yuv", "-o", "r\(status).nv12", "-q"] + extra).status, status, "\(extra)")
        }
        // On standard input, its own size (a pipe's is not known before it is read), not a file named "-" (one
        // is there, of another size, which refused a frame the run converts).
        try Data(count: 112).write(to: work.appendingPathComponent("-"))
        let piped = try run(["-", "-s", "8x8", "-o", "s.nv12", "-n"], stdin: Data(count: 96))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(try run(["-", "-s", "8x8", "-o", "s.nv12", "-q"], stdin: Data(count: 96)).status, 0)
        // A report folder outside the output folder whose name begins as its does (out2 beside out) is not made.
        for dry in [true, false] {
            let r = try run(["convert", "in/a.png", "-o", "ro/", "--report", "json", "--report-file", "ro2/r.json"] + (dry ? ["-n"] : ["-q"]))
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("ro2").path))
        }
        // A report onto standard error would mix the run's messages into it.
        let err = try run(["convert", "in/a.png", "-o", "o2/", "--report", "csv", "--report-file", "/dev/stderr"])
        XCTAssertEqual(err.status, 2, err.stderr)
        XCTAssertTrue(err.stderr.contains("/dev/stderr is standard error, which carries the run's messages"), err.stderr)
        XCTAssertEqual(try run(["report", "in/a.png", "--report", "csv", "--report-file", "/dev/stderr"]).status, 2)
    }

    func testDryRunOfABatchWritesNothing() throws {
        try makeInputs()
        let fresh = try run(["convert", "in", "-r", "-o", "out/", "--name", "{dir}/{stem}.{ext}", "--dry-run"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(String(decoding: fresh.stdout, as: UTF8.self), """
            convert in/a.png -> out/in/a.nv12 (nv12)
            convert in/c.png -> out/in/c.nv12 (nv12)
            convert in/sub/b.png -> out/in/sub/b.nv12 (nv12)

            """)
        XCTAssertTrue(fresh.stderr.contains("dry run, nothing written: 3 to convert, 0 to replace, 0 skipped"), fresh.stderr)
        XCTAssertEqual(try leftovers(), ["in"])
        // After a run: skipped, replaced or refused, and why; a refusal makes the exit 1.
        XCTAssertEqual(try run(["convert", "in", "-r", "-o", "out/", "-q", "--update"]).status, 1)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("out/c.png"), withIntermediateDirectories: false)
        try changeInput()
        let before = try modified("out/a.nv12")
        let manifest = try Data(contentsOf: work.appendingPathComponent("out/.yuvconv-manifest"))
        let later = try run(["convert", "in", "-r", "-o", "out/", "--name", "{stem}.{ext}", "-n", "--update"])
        XCTAssertEqual(later.status, 0, later.stderr)
        XCTAssertEqual(String(decoding: later.stdout, as: UTF8.self), """
            replace in/a.png -> out/a.nv12 (nv12): the input changed
            convert in/c.png -> out/c.nv12 (nv12): no output yet
            skip in/sub/b.png -> out/b.nv12 (nv12): up to date

            """)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("out/.yuvconv-manifest")), manifest)
        let png = try run(["convert", "in", "-r", "-o", "out/", "--name", "{stem}.png", "-n", "--force"])
        XCTAssertEqual(png.status, 1, png.stderr)
        XCTAssertTrue(String(decoding: png.stdout, as: UTF8.self).contains("refuse in/c.png -> out/c.png (png): is a directory\n"))
        XCTAssertTrue(png.stderr.contains("2 to convert, 0 to replace, 0 skipped (already there), 1 refused"), png.stderr)
        XCTAssertEqual(try modified("out/a.nv12"), before)
        // Refusals a real run makes before work: the same status.
        XCTAssertEqual(try run(["convert", "in/a.png", "in/sub/a.png", "-o", "x/", "-n"]).status, 2)
        try Data().write(to: work.appendingPathComponent("r.csv"))
        XCTAssertEqual(try run(["convert", "in", "-o", "x/", "-n", "--report", "csv", "--report-file", "r.csv"]).status, 1)
        XCTAssertEqual(try leftovers(), ["in", "out", "r.csv"])
    }

    func testDryRunOfOneFile() throws {
        try makeInputs()
        // A single conversion makes no folder: into one that is missing, the run fails, and so does its dry run.
        let r = try run(["in/a.png", "-o", "new/a.y4m", "--dry-run"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       "refuse in/a.png -> new/a.y4m (y4m): new/a.y4m: cannot create a file in new: the folder does not exist\n")
        XCTAssertEqual(try run(["in/a.png", "-o", "new/a.y4m", "-q"]).status, 1)
        XCTAssertEqual(try leftovers(), ["in"])
        let fine = try run(["in/a.png", "-o", "a.y4m", "--dry-run"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertEqual(String(decoding: fine.stdout, as: UTF8.self), "convert in/a.png -> a.y4m (y4m)\n")
        XCTAssertEqual(try leftovers(), ["in"])
        XCTAssertEqual(try run(["in/a.png", "-o", "a.nv12", "-q"]).status, 0)
        let exists = try run(["in/a.png", "-o", "a.nv12", "-n"])
        XCTAssertEqual(exists.status, 1)
        XCTAssertEqual(String(decoding: exists.stdout, as: UTF8.self),
                       "refuse in/a.png -> a.nv12 (nv12): already exists (use --force to overwrite)\n")
        XCTAssertEqual(String(decoding: try run(["in/a.png", "-o", "a.nv12", "-n", "-y"]).stdout, as: UTF8.self),
                       "replace in/a.png -> a.nv12 (nv12): --force\n")
        // A Unix socket named as the input: the run cannot open it, so its dry run refuses it too.
        let socketPath = work.appendingPathComponent("sock.png").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(socketPath.utf8)
        XCTAssertLessThan(name.count, MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        for args in [["sock.png", "-o", "s.nv12"], ["convert", "sock.png", "in/a.png", "-o", "so/"]] {
            let dry = try run(args + ["-n"]), real = try run(args + ["-q"])
            XCTAssertEqual(dry.status, 1, "\(args)")
            XCTAssertEqual(real.status, 1, "\(args)")
            XCTAssertTrue(String(decoding: dry.stdout, as: UTF8.self).contains(
                "refuse sock.png -> s"), String(decoding: dry.stdout, as: UTF8.self))
            XCTAssertTrue(dry.stdout.count > 0 && String(decoding: dry.stdout, as: UTF8.self).contains(
                "sock.png: cannot open: it is a socket, which cannot be opened as a file (pipe its data to standard input)"),
                          String(decoding: dry.stdout, as: UTF8.self))
            XCTAssertTrue(real.stderr.contains(
                "sock.png: cannot open: it is a socket, which cannot be opened as a file (pipe its data to standard input)"),
                          real.stderr)
        }
        try FileManager.default.removeItem(atPath: "\(work.path)/so")
        try FileManager.default.removeItem(atPath: socketPath)
        // YUV in, and the output's format from its name.
        let raw = try run(["a.nv12", "--size", "32x32", "-o", "a.jpg", "-n"])
        XCTAssertEqual(String(decoding: raw.stdout, as: UTF8.self), "convert a.nv12 -> a.jpg (jpeg)\n", raw.stderr)
        // A frame the output cannot hold, from --size alone: the run refuses it before reading the frame, and so
        // does its dry run (it said "convert", exit 0; a hostile round). 70000×2 NV12 is 210000 bytes.
        try Data(count: 210_000).write(to: work.appendingPathComponent("wide.nv12"))
        let wide = ["wide.nv12", "--size", "70000x2", "-o", "wide.jpg"]
        let (dryWide, realWide) = (try run(wide + ["-n"]), try run(wide + ["-q"]))
        XCTAssertEqual(realWide.status, 1, realWide.stderr)
        XCTAssertEqual(dryWide.status, realWide.status, String(decoding: dryWide.stdout, as: UTF8.self))
        XCTAssertTrue(String(decoding: dryWide.stdout, as: UTF8.self).hasPrefix("refuse wide.nv12 -> wide.jpg (jpeg): "),
                      String(decoding: dryWide.stdout, as: UTF8.self))
        XCTAssertTrue(String(decoding: dryWide.stdout, as: UTF8.self).contains("65500"), String(decoding: dryWide.stdout, as: UTF8.self))
        try FileManager.default.removeItem(atPath: "\(work.path)/wide.nv12")
        XCTAssertEqual(try run(["in/a.png", "-o", "a.bmp", "-n"]).status, 2)
        XCTAssertEqual(try leftovers(), ["a.nv12", "in"])
    }
}
