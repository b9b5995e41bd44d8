import YUVCore
import YUVIO
import YUVReport

/// The help's parts: `helpText` prints them with the option table, and the man page (`manPage`) sets them in roff.
enum HelpParts {
    static let summary = "convert JPEG and PNG images to exact 8- and 10-bit YUV 4:2:0 (NV12 and friends)"
    /// The usage lines: the command, and what it is for.
    static let usage: [(command: String, note: String)] = [
        ("yuvconv [convert] INPUT -o OUTPUT [options]", ""),
        ("yuvconv convert INPUT... DIR/... -o OUTDIR/ [options]", "many files"),
        ("yuvconv report INPUT... DIR/... [--report FMT] [--report-file PATH]", "memory and quality, no image written"),
        ("yuvconv --help | --version | --man | --completion SHELL", ""),
    ]
    /// What inputs and outputs are, and how FFmpeg reads the outputs back; indented lines are commands.
    static let description = """
        INPUT is a JPEG or PNG file (recognised by its content), raw YUV with --size, a .y4m file, or - for
        standard input. OUTPUT is a file, or - for standard output. Raw layouts are planes, tightly packed, no
        header, and carry no colour tags: tell FFmpeg what they are, or it takes BT.601 limited range. The
        defaults (bt709 full) read back with
          ffmpeg -f rawvideo -pix_fmt FORMAT -s WxH -color_range pc -colorspace bt709 -color_primaries bt709 \\
                 -color_trc iec61966-2-1 -chroma_sample_location center -i OUTPUT -sws_flags accurate_rnd+full_chroma_int -update 1 out.png
        (limited: -color_range tv; bt601: -colorspace smpte170m; bt2020: -colorspace bt2020nc -color_primaries
        bt2020, or bt709 for an sRGB or untagged source, whose numbers are kept; --chroma-loc left: add -vf
        scale=in_h_chr_pos=0:in_v_chr_pos=128, topleft: ...=0:in_v_chr_pos=0 — one -vf, swapuv,scale=... for yv12 —
        as FFmpeg's scaler ignores -chroma_sample_location). `--report json` prints these arguments for each image
        (ffmpeg_rawvideo_input, and the -vf filter: ffmpeg_filter). A Y4M output
        carries its size, layout and range but not its matrix (FFmpeg takes BT.601); give the matrix and the
        same accurate scaler:
          ffmpeg -colorspace bt709 -color_primaries bt709 -color_trc iec61966-2-1 -i OUTPUT.y4m \\
                 -sws_flags accurate_rnd+full_chroma_int -update 1 out.png
        """
    static let exactness = """
        Every value is the exact result of the conversion contract (round half up on the exact rational),
        bit for bit (of the flattened or premultiplied colours with --alpha), unless --chroma-filter sharp
        asks for planes made for bilinear players instead, or a JPEG takes the direct path (the default
        for 4:2:0, 4:1:1 and grey ones: its own YCbCr planes, close to the contract's, docs/contract.md;
        --jpeg-path rgb gives the contract's bytes). The contract applies to the RGB samples the
        conversion starts from: after colour management (an embedded profile other than the target's is
        transformed first, --color-management auto), or as stored with --color-management off.
        """
    static let exitStatus: [(status: String, meaning: String)] = [
        ("0", "done"),
        ("1", "an input could not be converted or an output not written (in a batch: any file failed)"),
        ("2", "usage error"),
        ("128+N", "stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP); nothing partial is left"),
    ]

    /// The variables the tool reads (docs/cli.md#environment).
    static let environment: [(name: String, meaning: String)] = [
        ("YUVCONV_CPU", "baseline, avx2, avx512, avx512bw or avx512vnni: pin the kernels to that CPU\n"
            + "tier (--version names the one in use); every tier gives the same bytes"),
        ("YUVCONV_PNG_LIBPNG", "1: libpng reads every PNG's image data (yuvconv reads the common kinds\n"
            + "itself), to compare the two"),
        ("YUVCONV_AFFINITY", "off: leave a single conversion's threads to the scheduler (by default, for a\n"
            + "picture of 6 MP or more, its workers are kept off the CPU its decoding thread runs on; Linux)"),
        ("YUV_FORCE_REFERENCE", "1: the scalar reference rows instead of the vector ones (slow; for tests)"),
        ("SOURCE_DATE_EPOCH", "the date --man prints (reproducible builds)"),
    ]

    static var environmentLines: String {
        environment.map { "  " + $0.name + pad($0.name, 21)
            + $0.meaning.split(separator: "\n").joined(separator: "\n" + String(repeating: " ", count: 23)) }.joined(separator: "\n")
    }

    static var usageLines: String {
        usage.map { "  " + $0.command + ($0.note.isEmpty ? "" : pad($0.command, 63) + $0.note) }.joined(separator: "\n")
    }

    static var exitLines: String {
        exitStatus.map { "  " + $0.status + pad($0.status, 7) + $0.meaning }.joined(separator: "\n")
    }

    /// The spaces that take `text` to `column` (at least one).
    static func pad(_ text: String, _ column: Int) -> String {
        String(repeating: " ", count: max(1, column - text.count))
    }
}

let helpText = """
    yuvconv — \(HelpParts.summary)

    Usage:
    \(HelpParts.usageLines)

    \(HelpParts.description)

    \(OptionSpec.groups.map(\.help).joined(separator: "\n\n"))

    \(HelpParts.exactness)

    Environment:
    \(HelpParts.environmentLines)

    Exit status:
    \(HelpParts.exitLines)
    """
