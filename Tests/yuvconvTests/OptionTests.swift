import Foundation
import TestSupport
import XCTest

/// The option table: every option is in the help, flags refuse a value, values are taken inline, joined
/// (-ofile, -j4) or from the next argument, and the messages are the ones scripts may match.
final class OptionTests: CLITestCase {
    static let flags = ["-y", "--force", "--allow-truncated", "-q", "--quiet", "-r", "--recursive", "-0", "--null",
                        "-u", "--update", "--fail-fast", "-h", "--help", "-V", "--version", "--man"]
    static let valued = ["-o", "--output", "-f", "--format", "--matrix", "--range", "--quality", "--alpha", "--orientation",
                         "--jpeg-path", "--max-pixels", "--max-scans", "-s", "--size", "--pix-fmt", "--files-from",
                         "--name", "-j", "--jobs", "--shard", "--report", "--report-file", "--align", "--completion",
                         "--chroma-filter"]

    func testHelpListsEveryOption() throws {
        let listed = try helpOptionNames()
        for name in OptionTests.flags + OptionTests.valued {
            XCTAssertTrue(listed.contains(name), "\(name) has a line in --help")
        }
        // The variables the tool reads: in the help and the manual page, not only in docs/cli.md.
        let help = String(decoding: try run(["--help"]).stdout, as: UTF8.self)
        let man = String(decoding: try run(["--man"]).stdout, as: UTF8.self)
        for name in ["YUVCONV_CPU", "YUVCONV_PNG_LIBPNG", "YUV_FORCE_REFERENCE"] {
            XCTAssertTrue(help.contains("\n  \(name) "), "\(name) in --help")
            XCTAssertTrue(man.contains(".SH ENVIRONMENT") && man.contains("\\fB\(name)\\fR"), "\(name) in --man")
        }
    }

    func testFlagsRefuseAValueAndValuesNeedOne() throws {
        for flag in OptionTests.flags where flag.hasPrefix("--") {
            let r = try run([flag + "=1"])
            XCTAssertEqual(r.status, 2, flag)
            XCTAssertTrue(r.stderr.contains("yuvconv: error: \(flag) takes no value"), r.stderr)
        }
        for option in OptionTests.valued {
            let r = try run([option])
            XCTAssertEqual(r.status, 2, option)
            XCTAssertTrue(r.stderr.contains("yuvconv: error: \(option) needs a value"), r.stderr)
        }
        // An empty value or input (an unset shell variable) is a usage error naming the option, never a file "".
        let jpg = fixture("photos/rocket.jpg")
        for args in [[jpg, "-o", ""], [jpg, "--output="], [jpg, "-o", "x.nv12", "--report", "json", "--report-file", ""],
                     ["--files-from", "", "-o", "out/"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains("needs a value, not an empty one"), r.stderr)
        }
        let emptyInput = try run(["", "-o", "y.nv12"])
        XCTAssertEqual(emptyInput.status, 2)
        XCTAssertTrue(emptyInput.stderr.contains("yuvconv: error: an input is an empty name"), emptyInput.stderr)
        let unknown = try run(["--bogus=1"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown option '--bogus=1'"), unknown.stderr)
        // Flags go together behind one '-', the last of them may take a value (POSIX's guideline 5, as getopt: -qy,
        // -yqo out, -qfnv21); every short option with a value takes it joined too (-fnv12, which fish's completion
        // offers). A letter that names no option is named.
        let bundled = try run([jpg, "-o", "b.out", "-qyfnv21"])
        XCTAssertEqual(bundled.status, 0, bundled.stderr)
        XCTAssertEqual(bundled.stderr, "")
        XCTAssertEqual(try run([jpg, "-yqo", "b.out", "-f", "nv21"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("b.out")).count, 640 * 427 + 640 * 214)
        // A word that is not all flags is no cluster (`-help` is no -h -e -l -p): named whole when it names an option
        // meant, else by its letter that is no option (it quoted the good letters with the bad); '-' is no flag
        // letter (`-q-` was -q --, and the rest of the line became inputs).
        for (word, says) in [("-qz", "unknown option '-z' (in '-qz')"), ("-help", "unknown option '-help'; did you mean --help?"),
                             ("-quiet", "unknown option '-quiet'; did you mean --quiet?"),
                             ("-q-", "unknown option '-q-': '-' is no option letter"),
                             ("-q-o", "unknown option '-q-o': '-' is no option letter")] {
            let r = try run([jpg, word, "-o", "w.out"])
            XCTAssertEqual(r.status, 2, word)
            XCTAssertTrue(r.stderr.contains(says), "\(word): \(r.stderr)")
        }
        let joined = try run([jpg, "-fnv21", "-o", "j.out", "-q"]), apart = try run([jpg, "-f", "nv21", "-o", "a.out", "-q"])
        XCTAssertEqual(joined.status, 0, joined.stderr)
        XCTAssertEqual(apart.status, 0, apart.stderr)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("j.out")), try Data(contentsOf: work.appendingPathComponent("a.out")))
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("j.out")), try Data(contentsOf: work.appendingPathComponent("b.out")))
    }

    /// -q silences the per-image line, not warnings: a profile not applied is still said.
    /// A report file with no report to put in it is refused on every route, before anything is read or written:
    /// YUV input (which writes no report) used to convert and ignore it, exit 0.
    func testReportFileWithoutAReportIsRefusedOnEveryRoute() throws {
        let jpg = fixture("photos/rocket.jpg")
        let frame = work.appendingPathComponent("in.nv12").path
        try Data(repeating: 128, count: 6).write(to: URL(fileURLWithPath: frame))
        let folder = work.appendingPathComponent("in").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: jpg, toPath: folder + "/a.jpg")
        for args in [[jpg, "-o", "a.nv12"], [frame, "-s", "2x2", "-o", "b.png"], ["convert", folder + "/", "-o", "out/"],
                     [jpg, "-o", "c.nv12", "--dry-run"]] {
            let r = try run(args + ["--report-file", "r.txt"])
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains("yuvconv: error: --report-file needs --report FORMAT"), r.stderr)
            let left = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
            XCTAssertEqual(left, ["in", "in.nv12"], "\(args): nothing written")
        }
    }

    func testQuietKeepsWarnings() throws {
        let crafted = fixturesURL.appendingPathComponent("colour/negative-gamma.png").path
        let r = try run([crafted, "-o", "n.nv12", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("yuvconv: warning: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("colours used as stored"), r.stderr)
        XCTAssertFalse(r.stderr.contains("->"), "no per-image line: \(r.stderr)")
    }

    func testValueForms() throws {
        let jpg = fixture("photos/rocket.jpg")
        XCTAssertEqual(try run([jpg, "-oa.nv12", "-q"]).status, 0)
        XCTAssertEqual(try run([jpg, "--output=b.nv12", "--matrix=bt601", "-q"]).status, 0)
        XCTAssertEqual(try run([jpg, "-o", "c.nv12", "--range", "limited", "-q"]).status, 0)
        for name in ["a.nv12", "b.nv12", "c.nv12"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent(name).path), name)
        }
        // By scalar, as getopt reads bytes: a value that begins with a combining mark, joined to its option.
        XCTAssertEqual(try run([jpg, "-o\u{301}d.nv12", "-q"]).status, 0)
        XCTAssertEqual(try run([jpg, "--output=\u{301}e.nv12", "-q"]).status, 0)
        for name in ["\u{301}d.nv12", "\u{301}e.nv12"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: work.path + "/" + name), name)
        }
        // -j4 as make spells it, in a batch.
        let batch = try run(["convert", jpg, "-o", "out/", "-j2", "-q"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        let zero = try run(["convert", jpg, "-o", "out/", "-j0"])
        XCTAssertEqual(zero.status, 2)
        XCTAssertTrue(zero.stderr.contains("-j needs a whole number from 1 to 1024, not '0'"), zero.stderr)
    }

    /// An output or report file named as an option (`-o --force`: the name left out, most likely) is taken as the name,
    /// as getopt takes it, and said: a file named --force was written without a word.
    func testAFileNamedAsAnOptionIsSaid() throws {
        let png = fixture("pngsuite/basn2c08.png")
        let r = try run([png, "-o", "--force", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: -o --force: the file's name is an option's, and is taken as the name"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("--force").path))
        let report = try run(["report", png, "--report", "json", "--report-file", "--metrics", "-q"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stderr.contains("warning: --report-file --metrics: the file's name is an option's"), report.stderr)
        let plain = try run([png, "-o", "-x.nv12", "-q"])
        XCTAssertEqual(plain.stderr, "", "no option's name")
        // An option with its value joined, or flags together, is an option too (they went by without a word).
        for name in ["-j4", "-qy", "--report=json"] {
            let r = try run([png, "-o", name, "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("warning: -o \(name): the file's name is an option's"), "\(name): \(r.stderr)")
        }
    }

    /// A count is digits and nothing else, in every option that takes one (OptionSpec.decimal): a sign was
    /// taken (`--align +64` padded to 64, `-s 17x+9` read 9) while a space was refused. Nothing is written.
    func testCountsAreDigitsOnly() throws {
        let png = fixture("pngsuite/basn2c08.png")
        let raw = work.appendingPathComponent("f.nv12")
        try Data(count: 17 * 9 + 2 * 9 * 5).write(to: raw)
        let refused: [([String], String)] = [
            ([png, "-o", "a.nv12", "--align", "+64"], "--align needs a whole number"),
            ([png, "-o", "a.nv12", "--align-height", "+16"], "--align-height needs a whole number"),
            ([png, "-o", "a.jpg", "--quality", "+90"], "--quality needs a whole number"),
            ([png, "-o", "a.nv12", "--max-pixels", "+1000000"], "--max-pixels needs a whole number"),
            ([png, "-o", "a.y4m", "--depth", "+10"], "--depth is 8 or 10, not '+10'"),
            (["convert", png, "-o", "out/", "-j", "+2"], "-j needs a whole number"),
            (["convert", png, "-o", "out/", "--shard", "+1/2"], "--shard takes K/N"),
            (["convert", png, "-o", "out/", "--shard", "1/+2"], "--shard takes K/N"),
            ([raw.path, "-s", "17x+9", "-o", "a.png"], "--size takes WIDTHxHEIGHT, not '17x+9'"),
            ([raw.path, "-s", "+17x9", "-o", "a.png"], "--size takes WIDTHxHEIGHT, not '+17x9'"),
            ([raw.path, "-s", " 17x9", "-o", "a.png"], "--size takes WIDTHxHEIGHT, not ' 17x9'"),
            ([raw.path, "-s", "0x9", "-o", "a.png"], "--size 0x9: the width must be 1 or more"),
            ([raw.path, "-s", "17x0", "-o", "a.png"], "--size 17x0: the height must be 1 or more"),
            ([raw.path, "-s", "0X0", "-o", "a.png"], "--size 0X0: the width and height must be 1 or more"),
            // A colour is six hex digits: UInt32's parser took `#+12345` for #012345.
            ([png, "-o", "a.nv12", "--alpha", "flatten=#+12345"], "unknown alpha mode 'flatten=#+12345'"),
            ([png, "-o", "a.nv12", "--alpha", "flatten=+fffff"], "unknown alpha mode 'flatten=+fffff'"),
        ]
        for (args, want) in refused {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(want), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try leftovers(), ["f.nv12"])
        // Leading zeros are still digits: 017x09 is 17x9.
        let r = try run([raw.path, "-s", "017x09", "-o", "a.png", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }
}
