#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVReport

/// The manual page that `yuvconv --man` prints and `make install` installs as yuvconv(1): roff (the man
/// macros) set from the help's parts and the option table, so that it says what `--help` says.
let manPage: String = {
    var page = [
        ".TH YUVCONV 1 \(manDate()) \"yuvconv \(version)\" \"User Commands\"",
        ".nh",  // no hyphenation: options and values copy as they are written
        ".SH NAME",
        "yuvconv \\- " + Roff.text(HelpParts.summary),
        ".SH SYNOPSIS",
        ".nf",
    ]
    page += HelpParts.usage.map { Roff.line($0.command) }
    page += [".fi", ".SH DESCRIPTION"]
    page += Roff.paragraph(HelpParts.description)
    page += [".PP"] + Roff.paragraph(HelpParts.exactness)
    page += [".SH OPTIONS", "Options may also be written \\fB\\-\\-name=value\\fR; \\fB\\-\\-\\fR ends the options."]
    for group in OptionSpec.groups {
        // "Many files:" → "Many files"; the last group has no title in the help.
        page.append(".SS " + Roff.text(group.title.map { String($0.dropLast($0.hasSuffix(":") ? 1 : 0)) } ?? "Other"))
        for option in group.options {
            let names = option.names.map { "\\fB" + Roff.text($0) + "\\fR" }.joined(separator: ", ")
            page += [".TP", names + (option.value.map { " \\fI" + Roff.text($0) + "\\fR" } ?? "")]
            page += option.help.map(Roff.line)
        }
        if !group.note.isEmpty { page += [".PP"] + group.note.map(Roff.line) }
    }
    page.append(".SH ENVIRONMENT")
    for (name, meaning) in HelpParts.environment {
        page += [".TP", "\\fB" + Roff.text(name) + "\\fR", Roff.line(meaning.split(separator: "\n").joined(separator: " "))]
    }
    page.append(".SH EXIT STATUS")
    for (status, meaning) in HelpParts.exitStatus {
        page += [".TP", "\\fB" + Roff.text(status) + "\\fR", Roff.line(meaning)]
    }
    page.append(".SH EXAMPLES")
    for (i, (note, command)) in manExamples.enumerated() {
        page += (i == 0 ? [] : [".PP"]) + [Roff.line(note), ".RS 4", ".nf", Roff.line(command), ".fi", ".RE"]
    }
    page += [".SH SEE ALSO", ".BR ffmpeg (1)", ".PP",
             "docs/cli.md, docs/contract.md and docs/report.md in the source tree."]
    return page.joined(separator: "\n") + "\n"
}()

/// The page's date, YYYY-MM-DD: the day of SOURCE_DATE_EPOCH when it is set (reproducible builds), else today.
func manDate() -> String {
    var t = time_t(getenv("SOURCE_DATE_EPOCH").flatMap { Int(String(cString: $0)) } ?? Int(time(nil)))
    var day = tm()
    // A SOURCE_DATE_EPOCH no calendar holds (gmtime_r fails: 2^63 s) printed day 00 of year 219250468: today then.
    if gmtime_r(&t, &day) == nil || day.tm_year > 9999 - 1900 || day.tm_year < 0 {
        t = time(nil)
        gmtime_r(&t, &day)
    }
    func twoDigits(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(day.tm_year + 1900)-\(twoDigits(day.tm_mon + 1))-\(twoDigits(day.tm_mday))"
}

/// The man page's EXAMPLES: what it does, then the command.
let manExamples: [(note: String, command: String)] = [
    ("A photo to NV12, BT.709, full range (the defaults):", "yuvconv photo.jpg -o photo.nv12"),
    ("I420 (yuv420p) in BT.601 limited range, replacing an existing file:",
     "yuvconv photo.png -o photo.yuv --matrix bt601 --range limited --force"),
    ("A folder tree, four files at once, with a JSON Lines report:",
     "yuvconv convert photos/ -r -o yuv/ -j 4 --report json --report-file memory.jsonl"),
    ("Memory and quality only, nothing written:", "yuvconv report *.jpg"),
    ("An output read back by FFmpeg, with every colour tag (as in DESCRIPTION):",
     "ffmpeg -f rawvideo -pix_fmt nv12 -s 640x427 -color_range pc -colorspace bt709 -color_primaries bt709 "
     + "-color_trc iec61966-2-1 -chroma_sample_location center -i photo.nv12 "
     + "-sws_flags accurate_rnd+full_chroma_int -update 1 check.png"),
    ("Completion for bash, for the current user:",
     "yuvconv --completion bash > ~/.local/share/bash-completion/completions/yuvconv"),
]

/// Text set in roff.
enum Roff {
    /// `text` as roff prints it literally: backslashes and quotes escaped, hyphens as \- (so options copy
    /// as typed), anything beyond ASCII by its code point (groff reads its input as Latin-1).
    /// A span in backquotes (the help's `report`) is set in bold, as a man page sets a command.
    static func text(_ text: String) -> String {
        var bold = false
        let body = escapingScalars(text) { scalar in
            switch scalar {
            case "\\": return "\\e"
            case "-": return "\\-"
            case "'": return "\\(aq"
            case "`":
                bold.toggle()
                return bold ? "\\fB" : "\\fR"
            default: return scalar.value > 0x7E ? "\\[u" + hexDigits(scalar.value, width: 4, uppercase: true) + "]" : nil
            }
        }
        return bold ? body + "\\fR" : body
    }

    /// A line of text: escaped, and guarded where it starts with a dot (a request to roff).
    static func line(_ text: String) -> String {
        let escaped = Roff.text(text)
        return escaped.hasPrefix(".") ? "\\&" + escaped : escaped
    }

    /// Lines of the help: indented ones (commands) set as they are, the others filled.
    static func paragraph(_ text: String) -> [String] {
        var out: [String] = [], inBlock = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let indented = raw.hasPrefix("  ")
            if indented != inBlock { out += indented ? [".RS 2", ".nf"] : [".fi", ".RE"] }
            inBlock = indented
            out.append(line(String(indented ? raw.dropFirst(2) : raw)))
        }
        if inBlock { out += [".fi", ".RE"] }
        return out
    }
}
