import Foundation
import TestSupport
import XCTest

/// `yuvconv --man` and `yuvconv --completion SHELL`: made from the option table, so every option of --help is
/// in them; the page is clean roff, the scripts load in their shells and complete options and values.
final class ManCompletionTests: CLITestCase {
    /// The enumerated options and their values, as the completion scripts must offer them.
    static let values: [(option: String, values: [String])] = [
        ("--format", ["nv12", "nv21", "yuv420p", "yv12", "p010", "yuv420p10le", "y4m", "png", "jpeg"]),
        ("--matrix", ["bt709", "bt601", "bt2020"]),
        ("--range", ["full", "limited"]),
        ("--report", ["text", "json", "csv", "html"]),
        ("--orientation", ["auto", "ignore"]),
        ("--jpeg-path", ["auto", "direct", "rgb"]),
        ("--alpha", ["ignore", "keep", "flatten", "premultiply"]),
        ("--pix-fmt", ["nv12", "nv21", "yuv420p", "yv12", "p010", "yuv420p10le"]),
        ("--depth", ["8", "10"]),
        ("--color-management", ["auto", "off"]),
        ("--primaries", ["bt709", "p3", "bt2020"]),
        ("--chroma-filter", ["box", "sharp"]),
        ("--completion", ["bash", "zsh", "fish"]),
    ]

    /// A program on PATH, or nil.
    func program(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The program, or the test is skipped.
    func required(_ name: String) throws -> URL {
        guard let url = program(name) else { throw XCTSkip("\(name) is not installed") }
        return url
    }

    /// What a run printed, which must have succeeded.
    func output(_ args: [String]) throws -> String {
        let r = try run(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// The completion script for `shell`, saved in the work folder's scripts/.
    func script(_ shell: String) throws -> URL {
        let folder = work.appendingPathComponent("scripts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("yuvconv.\(shell)")
        try Data(try output(["--completion", shell]).utf8).write(to: url)
        return url
    }

    // MARK: man page

    func testManPageHasTheSectionsAndEveryOption() throws {
        let page = try output(["--man"])
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix(".TH YUVCONV 1 "), lines[0])
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            XCTAssertTrue(lines.contains(".SH \(section)"), section)
        }
        XCTAssertTrue(lines.contains(".BR ffmpeg (1)"))
        // An option's item: the line after .TP, in plain text.
        let plain = { (line: String) in
            ["\\fB", "\\fI", "\\fR"].reduce(line.replacingOccurrences(of: "\\-", with: "-")) {
                $0.replacingOccurrences(of: $1, with: "")
            }
        }
        let items = lines.indices.dropLast().filter { lines[$0] == ".TP" }.map { plain(lines[$0 + 1]) }
        let itemNames = Set(items.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) })
        let helpNames = try helpOptionNames()
        XCTAssertTrue(helpNames.count > 40, "\(helpNames)")
        for name in helpNames {
            XCTAssertTrue(itemNames.contains(name), "\(name) has an item in OPTIONS")
        }
        for status in ["0", "1", "2", "128+N"] {
            XCTAssertTrue(items.contains(status), "exit status \(status)")
        }
        // Nothing beyond ASCII reaches roff (groff would read it as Latin-1), and no text line is a request.
        XCTAssertTrue(page.unicodeScalars.allSatisfy { $0.value < 0x7F }, "non-ASCII in the page")
        XCTAssertTrue(page.contains("0\\[u2013]255"), "the help's en dash, by code point")
        // The same page for the same SOURCE_DATE_EPOCH, dated by it.
        let dated = try launch(binary, ["--man"], environment: ["SOURCE_DATE_EPOCH": "1700000000"], stdin: .null)
        XCTAssertTrue(String(decoding: dated.stdout, as: UTF8.self).hasPrefix(".TH YUVCONV 1 2023-11-14 "))
        // One no calendar holds is today, not day 00 of year 219250468.
        let far = try launch(binary, ["--man"], environment: ["SOURCE_DATE_EPOCH": "9223372036854775807"], stdin: .null)
        let th = String(decoding: far.stdout, as: UTF8.self).prefix(40)
        XCTAssertNotNil(th.range(of: #"^\.TH YUVCONV 1 [0-9]{4}-[01][0-9]-[0-3][0-9] "#, options: .regularExpression), String(th))
        XCTAssertFalse(th.contains("-00 "), String(th))
    }

    func testManPageFormatsWithoutWarnings() throws {
        let page = Data(try output(["--man"]).utf8)
        var checked = false
        if let groff = program("groff") {
            let r = try launch(groff, ["-man", "-Tutf8", "-ww", "-z"], stdin: .data(page))
            XCTAssertEqual(r.status, 0)
            XCTAssertEqual(r.stderr, "", "groff warnings")
            checked = true
        }
        if let mandoc = program("mandoc") {
            // -W warning: warnings and worse; style notes (input lines over 80 bytes) are not failures.
            let r = try launch(mandoc, ["-Tlint", "-W", "warning"], stdin: .data(page))
            XCTAssertEqual(r.status, 0, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
            checked = true
        }
        if !checked { throw XCTSkip("neither groff nor mandoc is installed") }
    }

    // MARK: completion

    func testUnknownShellIsAUsageError() throws {
        let r = try run(["--completion", "tcsh"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("yuvconv: error: unknown shell 'tcsh' (bash, zsh, fish)"), r.stderr)
        XCTAssertTrue(r.stdout.isEmpty)
    }

    /// Every value the scripts offer is one the parser takes (it then stops at the missing input, not the value).
    func testOfferedValuesAreAccepted() throws {
        for (option, values) in ManCompletionTests.values where option != "--completion" {
            for value in values {
                let r = try run([option, value])
                XCTAssertFalse(r.stderr.contains("unknown"), "\(option) \(value): \(r.stderr)")
            }
        }
    }

    /// `_yuvconv` run as bash runs it for these words (the last one being completed); what it offers.
    func bashComplete(_ script: URL, _ words: [String]) throws -> [String] {
        let driver = """
            source "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$(( $# - 1 )) && _yuvconv
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let r = try launch(try required("bash"), ["-c", driver, "bash", script.path] + words, stdin: .null)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "\(words)")
        return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testBashCompletion() throws {
        let bash = try required("bash")
        let script = try script("bash")
        let syntax = try launch(bash, ["-n", script.path], stdin: .null)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
        let registered = try launch(bash, ["-c", "source \"$1\" && complete -p yuvconv", "bash", script.path], stdin: .null)
        XCTAssertEqual(String(decoding: registered.stdout, as: UTF8.self), "complete -F _yuvconv yuvconv\n", registered.stderr)

        XCTAssertTrue(try bashComplete(script, ["yuvconv", "--ma"]).contains("--matrix"))
        XCTAssertTrue(try bashComplete(script, ["yuvconv", "--matrix", ""]).contains("bt709"))
        for (option, values) in ManCompletionTests.values {
            XCTAssertEqual(try bashComplete(script, ["yuvconv", "in.jpg", option, ""]), values, option)
        }
        // --name=value: bash splits at '=', so the option is the word before it.
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "--matrix", "=", "bt6"]), ["bt601"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-f", "y"]), ["yuv420p", "yv12", "yuv420p10le", "y4m"])
        // Every name --help lists, long and short (and the aliases it does not show: --pix_fmt).
        let offered = Set(try bashComplete(script, ["yuvconv", "-"]))
        XCTAssertTrue(try helpOptionNames().isSubset(of: offered), "\(offered)")
        XCTAssertTrue(offered.isSuperset(of: ["--pix_fmt", "--"]), "\(offered)")
        // Files for operands and path-valued options; the subcommands only first; nothing for a number.
        try Data().write(to: work.appendingPathComponent("in.jpg"))
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "r"]), ["report"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "i"]), ["in.jpg"])
        XCTAssertEqual(Set(try bashComplete(script, ["yuvconv", ""])), ["convert", "report", "in.jpg", "scripts"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "convert", "r"]), [])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "convert", "i"]), ["in.jpg"])
        for option in ["-o", "--output", "--report-file", "--files-from"] {
            XCTAssertEqual(try bashComplete(script, ["yuvconv", "x.png", option, "i"]), ["in.jpg"], option)
        }
        // After `report`, only the options it takes (it refuses --update, -o, --quality …).
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "--up"]), ["--update"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "report", "--up"]), [])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "report", "--rep"]), ["--report", "--report-file"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "convert", "--up"]), ["--update"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "--quality", ""]), [])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "--", "-"]), [], "after --, operands only")
        // The verb is the first operand, options before it or not; an option's value is none.
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-q", "report", "--up"]), [])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-o", "report", "--up"]), ["--update"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-q", "r"]), ["report"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "in.jpg", "r"]), [])
        // Grouped short flags as the command line takes them: the last one's value is the next word (`-qf` offered
        // files, `-qj 4` took 4 for the verb).
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-qf", "y4"]), ["y4m"])
        XCTAssertEqual(Set(try bashComplete(script, ["yuvconv", "-qj", "4", ""])), ["convert", "report", "in.jpg", "scripts"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-qj", "4", "report", "--qu"]), ["--quiet"])
        XCTAssertEqual(try bashComplete(script, ["yuvconv", "-qj4", "r"]), ["report"])
    }

    func testZshCompletion() throws {
        let zsh = try required("zsh")
        let script = try script("zsh")
        let syntax = try launch(zsh, ["-n", script.path], stdin: .null)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
        XCTAssertTrue(try output(["--completion", "zsh"]).hasPrefix("#compdef yuvconv\n"))
        // Sourced after compinit, it registers itself.
        let sourced = try launch(zsh, ["-f", "-c", "autoload -U compinit && compinit -u -D && source \"$1\" && print -r -- $_comps[yuvconv]",
                                       "zsh", script.path], environment: ["HOME": work.path], stdin: .null)
        XCTAssertEqual(String(decoding: sourced.stdout, as: UTF8.self), "_yuvconv\n", sourced.stderr)
        // Grouped short flags are split as the command line splits them (`-qf ` offered files, not the formats; bash's
        // and fish's scripts do this themselves, zsh's _arguments only with -s). Checked by hand in an interactive zsh:
        // `yuvconv -qf <Tab>` offers nv12 … jpeg.
        XCTAssertTrue(try output(["--completion", "zsh"]).contains("_arguments -s -S $specs"))
    }

    func testFishCompletion() throws {
        let fish = try required("fish")
        let script = try script("fish")
        let syntax = try launch(fish, ["--no-execute", script.path], stdin: .null)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
        // What fish offers, its own configuration kept out.
        func complete(_ line: String) throws -> [String] {
            let r = try launch(fish, ["-c", "source $argv[1]; complete -C $argv[2]", script.path, line],
                               environment: ["HOME": work.path, "XDG_CONFIG_HOME": work.path], stdin: .null)
            XCTAssertEqual(r.status, 0, r.stderr)
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        XCTAssertTrue(try complete("yuvconv --ma").contains("--matrix"))
        XCTAssertEqual(Set(try complete("yuvconv --matrix ")), ["bt709", "bt601", "bt2020"])
        XCTAssertTrue(try complete("yuvconv ").contains("convert"))
        // The verbs only where the verb can be: before any operand, and never after `--`, where every word is a file
        // (fish's __fish_use_subcommand offered them there); after options and their values, yes.
        try Data().write(to: work.appendingPathComponent("in.jpg"))
        for line in ["yuvconv -- ", "yuvconv in.jpg ", "yuvconv -q in.jpg "] {
            let offered = try complete(line)
            XCTAssertTrue(offered.contains("in.jpg") && !offered.contains("report") && !offered.contains("convert"), "\(line): \(offered)")
        }
        XCTAssertTrue(try complete("yuvconv -o out.nv12 ").contains("report"))
        XCTAssertTrue(try complete("yuvconv -q ").contains("report"))
        // After `report`, only the options it takes.
        XCTAssertEqual(try complete("yuvconv --upd"), ["--update"])
        XCTAssertEqual(try complete("yuvconv report --upd"), [])
        XCTAssertEqual(try complete("yuvconv report --report-f"), ["--report-file"])
        XCTAssertEqual(try complete("yuvconv convert report -o out/ --upd"), ["--update"], "only the first word is the subcommand")
        XCTAssertEqual(try complete("yuvconv -o report --upd"), ["--update"])
        XCTAssertEqual(try complete("yuvconv -q report --upd"), [], "the verb after an option")
        XCTAssertEqual(try complete("yuvconv --matrix=bt601 report --upd"), [])
        // Grouped short flags: the last one's value is the next word (`-qj 4 report` took 4 for the verb).
        XCTAssertEqual(try complete("yuvconv -qj 4 report --upd"), [])
        XCTAssertEqual(try complete("yuvconv -qj4 report --upd"), [])
        // Each value's description is the option's, not the first value or two of its help ("ignore (default: …)"
        // for keep, flatten and premultiply; "nv12 (default), nv21, …" for png).
        let r = try launch(fish, ["-c", "source $argv[1]; complete -C $argv[2]", script.path, "yuvconv --alpha "],
                           environment: ["HOME": work.path, "XDG_CONFIG_HOME": work.path], stdin: .null)
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("keep\twhat happens to a PNG's alpha"),
                      String(decoding: r.stdout, as: UTF8.self))
    }
}
