import YUVCore
import YUVIO
import YUVReport

// The option table: every option's names, value, help and action, in the help's groups. The type is OptionSpec.swift's;
// the help's other parts are HelpParts.swift's.

extension OptionSpec {
    /// Every option by every name.
    static let byName: [String: OptionSpec] = Dictionary(uniqueKeysWithValues: groups.flatMap { group in
        group.options.flatMap { option in option.names.map { ($0, option) } }
    })

    /// The options, in the help's groups.
    static let groups: [OptionGroup] = [
        OptionGroup("Conversion:", [
            OptionSpec(["-o", "--output"], "PATH", joined: true, completes: .path,
                       notInReport: "writes no image; --report-file names the report's file", once: true,
                       ["where to write; - is standard output; with many files, the output folder",
                        "(DIR/, made if missing)"]) { o, _, v in o.output = v },
            OptionSpec(["-f", "--format"], "FMT", joined: true,
                       completes: .oneOf(["nv12", "nv21", "yuv420p", "yv12", "p010", "yuv420p10le", "y4m", "png", "jpeg"]), summary: "what to write: a raw layout (nv12, p010, …), y4m, png or jpeg",
                       ["nv12 (default), nv21, yuv420p (alias i420), yv12;",
                        "p010, yuv420p10le: 10-bit (16-bit little-endian words; P010's value in",
                        "the high 10 bits, yuv420p10le's in the low);",
                        "y4m: a YUV4MPEG2 file (yuv420p, C420jpeg, XCOLORRANGE; no matrix tag);",
                        "png: RGB drawn back through the exact inverse (nearest chroma), to look at;",
                        "jpeg: compressed straight from the 4:2:0 planes, no RGB. A JPEG is JFIF,",
                        "BT.601 full range, by definition: --matrix and --range are then ignored.",
                        "Without --format the output's extension decides:",
                        OutputFormat.extensions,
                        "(any other is refused; no extension, - and devices get nv12). In a batch each",
                        "output name (--name) decides the same way"]) { o, _, v throws(UsageError) in
                o.format = try named(v, "format", OutputFormat.names) { OutputFormat(name: $0) }
            },
            OptionSpec(["--depth"], "BITS", completes: .oneOf(["8", "10"]), summary: "bits per sample: 8 or 10",
                       ["bits per sample: 8 (default; a 10-bit YUV input keeps 10), or 10 for Y4M",
                        "output (C420p10) and PNG (drawn at 16 bits); the raw layouts p010 and",
                        "yuv420p10le are 10-bit by name"]) { o, flag, v throws(UsageError) in
                // One message for every value that is not 8 or 10 (9, 16, a word).
                guard let bits = OptionSpec.decimal(v), bits == 8 || bits == 10 else { throw UsageError(message: "--depth is 8 or 10, not '\(v)'") }
                o.depth = bits
            },
            OptionSpec(["--matrix"], "M", completes: .oneOf(["bt709", "bt601", "bt2020"]), summary: "the YCbCr matrix",
                       ["bt709 (default), bt601, bt2020 (non-constant luminance)"]) { o, _, v throws(UsageError) in
                o.spec.matrix = try named(v, "matrix", "bt709, bt601, bt2020") { ColorMatrix(name: $0) }
            },
            OptionSpec(["--range"], "R", completes: .oneOf(["full", "limited"]), summary: "full (0–255) or limited (video) range",
                       ["full (default, 0–255) or limited (Y 16–235, C 16–240)"]) { o, _, v throws(UsageError) in
                o.spec.range = try named(v, "range", "full, limited") { ColorRange(name: $0) }
                o.rangeGiven = true
            },
            OptionSpec(["--quality"], "Q", notInReport: "encodes no JPEG", ["JPEG quality 1-100 (default 90)"]) { o, flag, v throws(UsageError) in
                o.quality = try number(flag, v, 1...100)
            },
            OptionSpec(["--alpha"], "MODE", completes: .oneOf(["ignore", "keep", "flatten", "premultiply"]), summary: "what happens to a PNG's alpha",
                       ["ignore (default: the contract converts colour as stored); keep: an A plane",
                        "(W×H) after the 4:2:0 planes — yuva420p, or NV12 + A (shown as nv12+A), raw outputs",
                        "only; flatten[=#RRGGBB]: composite over a colour (default white) first;",
                        "premultiply: colour × alpha first (both rounded half up to the",
                        "source's 8 or 16 bits)"]) { o, _, v throws(UsageError) in
                guard let mode = parseAlpha(v) else {
                    throw UsageError(message: "unknown alpha mode '\(v)' (ignore, keep, flatten, flatten=#RRGGBB, premultiply)")
                }
                o.alpha = mode
            },
            OptionSpec(["--orientation"], "M", completes: .oneOf(["auto", "ignore"]), summary: "whether the EXIF orientation is applied",
                       ["auto (default): apply the EXIF orientation (JPEG Exif, PNG eXIf) first, so",
                        "the output is upright as viewers show it (a turned picture is held whole",
                        "while it is turned); ignore: convert the samples as stored, as the",
                        "contract's reference does (docs/contract.md)"]) { o, _, v throws(UsageError) in
                o.orientation = try named(v, "orientation mode", "auto, ignore") { OrientationMode(rawValue: $0) }
            },
            OptionSpec(["--chroma-loc", "--chroma-sample-location"], "L", completes: .oneOf(["center", "left", "topleft"]), summary: "where chroma samples sit (FFmpeg's names)",
                       ["where chroma samples sit (FFmpeg's names): center (default; JPEG, MPEG-1:",
                        "the 2x2 block), left (MPEG-2, H.264, HEVC), topleft (co-sited, BT.2020/HDR).",
                        "8-bit Y4M output tags it (C420jpeg, C420mpeg2, C420paldv); 10-bit has no tag"]) { o, _, v throws(UsageError) in
                o.siting = try named(v, "chroma location", "center, left, topleft") { ChromaLocation(name: $0) }
            },
            OptionSpec(["--color-management", "--colour-management"], "M", completes: .oneOf(["auto", "off"]), summary: "whether a source's colour profile is applied",
                       ["auto (default): transform a source with a colour profile (ICC in JPEG or",
                        "PNG, PNG sRGB/cHRM/gAMA, EXIF Adobe RGB) to the target RGB space first",
                        "(LittleCMS; sRGB and untagged sources are untouched); off: convert the",
                        "samples as stored, as if sRGB, as the contract's reference does",
                        "(docs/contract.md)"]) { o, _, v throws(UsageError) in
                switch v.lowercased() {
                case "auto", "on": o.colourManagement = true
                case "off", "none": o.colourManagement = false
                default: throw UsageError(message: "unknown colour management mode '\(v)' (known: auto, off)")
                }
            },
            OptionSpec(["--primaries"], "P", completes: .oneOf(["bt709", "p3", "bt2020"]), summary: "the RGB space converted from",
                       ["the RGB space converted: bt709 (sRGB; the default, bt2020 with --matrix",
                        "bt2020), p3 (Display P3), bt2020; profiled sources are transformed into it,",
                        "sRGB and untagged ones keep their numbers and are labelled sRGB"]) { o, _, v throws(UsageError) in
                o.primaries = try named(v, "primaries", "bt709, p3, bt2020") { Primaries(name: $0) }
            },
            OptionSpec(["--jpeg-path"], "P", completes: .oneOf(["auto", "direct", "rgb"]), summary: "how a JPEG is converted: its YCbCr planes or RGB",
                       ["auto (default): direct, except 4:4:4, 4:2:2 and 4:4:0 JPEGs, which rgb",
                        "converts closer to the source; direct: convert a JPEG from its own",
                        "YCbCr planes, never building RGB (4:2:0 to 8-bit bt601 full is then",
                        "the decoder's planes, byte for byte; close to the bit-exact contract,",
                        "not in it); rgb: decode to RGB first, then convert exactly"]) { o, _, v throws(UsageError) in
                o.jpegPath = try named(v, "JPEG path", "auto, direct, rgb") { JPEGPath(rawValue: $0) }
            },
            OptionSpec(["--chroma-filter"], "F", completes: .oneOf(ChromaFilter.allCases.map(\.rawValue)), summary: "how the 4:2:0 chroma is made: box or sharp",
                       ["box (default): each chroma sample the exact mean of its 2x2 block, bit-exact;",
                        "sharp: chroma and luma chosen so that a player's bilinear chroma comes",
                        "closer to the source (sharper colour edges; not bit-exact, 8-bit outputs",
                        "only, JPEGs go through RGB)"]) { o, _, v throws(UsageError) in
                o.chromaFilter = try named(v, "chroma filter", "box, sharp") { ChromaFilter(name: $0) }
            },
            OptionSpec(["-y", "--force"], ["replace an existing output file (inputs are never overwritten)"]) { $0.force = true },
            OptionSpec(["-n", "--dry-run"], notInReport: "writes nothing but its report",
                       ["say what would be converted, skipped or refused, under which names and",
                        "formats, one line each on standard output; write nothing, make no folder"]) {
                $0.dryRun = true
            },
            OptionSpec(["--max-pixels"], "N", ["refuse images with more pixels than N (default 268435456 = 16384²)"]) {
                o, flag, v throws(UsageError) in o.maxPixels = try number(flag, v, 1...Int.max)
            },
            OptionSpec(["--max-scans"], "N",
                       ["refuse progressive JPEGs with more than N scans, each counted once",
                        "per component it holds (default 500; real files count 4 to 24);",
                        "fewer above 16 MP (N x 16 MP / pixels, not below 32, or N if smaller)"]) { o, flag, v throws(UsageError) in
                o.maxScans = try number(flag, v, 1...1_000_000)
            },
            OptionSpec(["--max-memory"], "SIZE",
                       ["refuse a picture that would be held whole (a progressive JPEG, an",
                        "interlaced PNG, one turned by EXIF, a JPEG output's, a YUV input's frame) in more than SIZE",
                        "bytes (K, M, G, T: KiB … TiB; 1.5G); default 128 bytes for each byte",
                        "of the file, at least 256M"]) {
                o, flag, v throws(UsageError) in o.maxMemory = try byteSize(flag, v)
            },
            OptionSpec(["--allow-truncated"], ["accept a JPEG whose data ends early or is damaged (libjpeg fills grey)"]) {
                $0.allowTruncated = true
            },
            OptionSpec(["--align"], "N",
                       ["pad every row of every plane of a raw output to a multiple of N bytes",
                        "(CoreVideo and GPUs: 64; the report's aligned size is then the file's",
                        "size). Without it outputs are tight and the report's aligned size is for 64"]) {
                o, flag, v throws(UsageError) in
                o.alignment = try number(flag, v, 1...4096)
                o.alignGiven = true
            },
            OptionSpec(["--align-height"], "M",
                       ["pad the luma plane of a raw output to a multiple of M rows (zeros), and each chroma",
                        "plane to half as many (Raspberry Pi's codecs: 16); the report's aligned size",
                        "is then the file's size"]) {
                o, flag, v throws(UsageError) in
                o.heightAlignment = try number(flag, v, 1...4096)
                o.heightAlignGiven = true
            },
            OptionSpec(["-q", "--quiet"], ["no per-image line on standard error;", "warnings and errors still print"]) { $0.quiet = true },
            OptionSpec(["-v", "--verbose"], ["in a batch on a terminal, each image's line above the progress line too",
                                             "(failures are always shown there)"]) { $0.verbose = true },
        ]),
        OptionGroup("YUV as input (to another layout, Y4M, PNG or JPEG):", [
            OptionSpec(["-s", "--size"], "WxH", joined: true, notInReport: "reads JPEG and PNG only", ["the raw input's size (a .y4m file carries its own)"]) { o, _, text throws(UsageError) in
                let p = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { OptionSpec.decimal($0) }
                guard p.count == 2, let w = p[0], let h = p[1] else {
                    throw UsageError(message: "--size takes WIDTHxHEIGHT, not '\(text)'")
                }
                // The form is right: say which side is wrong, not that the form is (`0x6` was "takes WIDTHxHEIGHT").
                guard w > 0, h > 0 else {
                    let sides = [w == 0 ? "width" : nil, h == 0 ? "height" : nil].compactMap { $0 }.joined(separator: " and ")
                    throw UsageError(message: "--size \(text): the \(sides) must be 1 or more")
                }
                // No frame holds 2^60 pixels or more (RawInput.frameBytes): a usage error whatever --max-pixels
                // allows, whether the product overflows or not (one overflowing was exit 2, one just below, 1).
                let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
                guard !overflow, pixels <= Int.max / 8 else {
                    throw UsageError(message: "--size \(text) is more pixels than any frame can hold (2^60 or more)")
                }
                o.inputSize = (w, h)
            },
            OptionSpec(["--pix-fmt", "--pix_fmt"], "FMT",
                       completes: .oneOf(["nv12", "nv21", "yuv420p", "yv12", "p010", "yuv420p10le"]), summary: "the raw input's layout", notInReport: "reads JPEG and PNG only",
                       ["the raw input's layout (default: from its extension, else nv12);",
                        "--matrix and --range then describe the input (Y4M: XCOLORRANGE wins)"]) { o, _, v throws(UsageError) in
                o.inputLayout = try named(v, "input pixel format", "nv12, nv21, yuv420p, i420, yv12, p010, yuv420p10le") { PixelLayout(name: $0) }
            },
        ]),
        OptionGroup("Many files:", [
            OptionSpec(["-r", "--recursive"], ["go into subfolders too (a folder gives its .jpg .jpeg .jpe .jfif .pjpeg",
                                                     ".pjp .png .apng files, any case)"]) {
                $0.recursive = true
            },
            OptionSpec(["--files-from"], "FILE", completes: .path, once: true,
                       ["also take the paths listed in FILE, one a line (- reads standard input)"]) {
                o, _, v in o.filesFrom = v
            },
            OptionSpec(["-0", "--null"], ["the list is NUL-separated (find -print0)"]) { $0.nulSeparated = true },
            OptionSpec(["--name"], "TEMPLATE", notInReport: "writes no image to name",
                       ["output names: {stem} {name} {ext} {format} {dir} (default {stem}.{ext});",
                        "{dir} is the input's folder below the folder given — \"dir/\" its contents,",
                        "\"dir\" the folder itself, as rsync reads them — to mirror a tree"]) { o, _, v in o.nameTemplate = v },
            OptionSpec(["-j", "--jobs"], "N", joined: true,
                       ["convert N files at once, one thread each (default: all cores)"]) { o, flag, v throws(UsageError) in
                o.jobs = try number(flag, v, 1...1024)
            },
            OptionSpec(["-u", "--update"], notInReport: "writes no image to bring up to date",
                       ["convert only what is out of date by the folder's .yuvconv-manifest: the",
                        "output missing, made with other options or altered, or the input's content",
                        "changed; an up-to-date output stays even with --force"]) { $0.update = true },
            OptionSpec(["--fail-fast"], ["stop at the first failure"]) { $0.failFast = true },
            OptionSpec(["--shard"], "K/N", ["take the K-th of N shares of the sorted input list (CI fleets)"]) {
                o, _, text throws(UsageError) in
                // Every field kept: "1//3" or "1/3/" is a typo, not 1/3.
                let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { OptionSpec.decimal($0) }
                guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, k >= 1, k <= n else {
                    throw UsageError(message: "--shard takes K/N with 1 ≤ K ≤ N, not '\(text)'")
                }
                o.shard = (k, n)
            },
        ], note: ["A failing file never stops the others; a summary lists every failure. The first SIGINT/SIGTERM/",
                  "SIGHUP stops starting files, removes unfinished ones, prints the summary and exits 130/143/129.",
                  "`report` takes the same inputs (folders, -r, --files-from, -0, --shard, -j, --fail-fast);",
                  "only convert takes -o, --name, --update, --quality, --size, --pix-fmt and --dry-run."]),
        OptionGroup("Report (with `report`, or alongside a conversion):", [
            OptionSpec(["--report"], "FMT", completes: .oneOf(["text", "json", "csv", "html"]), summary: "the report's format: text, json, csv or html",
                       ["text, json (JSON Lines), csv or html: per image the memory as RGBA, RGB and",
                        "YUV, the saving, what the conversion used (with --metrics: PSNR of Y, Cb,",
                        "Cr and the RGB round trip, SSIM of Y); then totals. To standard output",
                        "(standard error when the data goes to -o -)"]) { o, _, v throws(UsageError) in
                o.reportFormat = try named(v, "report format", "text, json, csv, html") { ReportFormat(rawValue: $0) }
            },
            OptionSpec(["--metrics"], ["add PSNR of Y, Cb, Cr and RGB and SSIM of Y to the report (measured as the",
                                       "conversion streams: 1.1-1.7x its time, a few MiB; sharp chroma reads the",
                                       "file again for the box's figure and the gain)"]) {
                $0.metrics = true
            },
            OptionSpec(["--report-file"], "PATH", completes: .path, once: true,
                       ["write it to PATH instead (never replaces a file without --force; --update replaces its own report)"]) {
                o, _, v in o.reportFile = v
            },
        ]),
        OptionGroup(nil, [
            OptionSpec(["-h", "--help"], ["the usage and the options, in short"]) { $0.showHelp = true },
            OptionSpec(["-V", "--version"], ["the version and the CPU tier the kernels use"]) { $0.showVersion = true },
            OptionSpec(["--man"], ["the help as a manual page in roff (make install installs it as yuvconv(1))"]) {
                $0.showMan = true
            },
            OptionSpec(["--completion"], "SHELL", completes: .oneOf(Shell.allCases.map(\.rawValue)), summary: "a completion script for bash, zsh or fish",
                       ["a completion script for bash, zsh or fish (docs/cli.md: where to put it)"]) {
                o, _, v throws(UsageError) in
                o.completionShell = try named(v, "shell", "bash, zsh, fish") { Shell(rawValue: $0) }
            },
        ]),
    ]
}
