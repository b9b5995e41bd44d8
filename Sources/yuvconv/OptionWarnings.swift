#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

// The options given that do nothing for the conversion asked for: a warning each, naming it and why (docs/cli.md,
// "an option that does nothing … draws a warning"). Options.swift holds the options themselves.

extension Options {
    /// Options given that do nothing for this conversion: each a warning naming it and why, so a typo'd
    /// intention is not silently dropped.
    /// "OPTIONS apply to WHAT; WHO ignores them" for the options given, nil for none.
    static func ignored(_ options: [String], appliesTo what: String, by who: String) -> String? {
        guard !options.isEmpty else { return nil }
        let one = options.count == 1
        return options.joined(separator: ", ") + (one ? " applies" : " apply") + " to \(what); \(who) ignores " + (one ? "it" : "them")
    }

    /// The JPEG-only options given, for a batch that holds no JPEG (said after its run, or by its dry run);
    /// `single`: one file named alone (`report photo.png --max-scans 3`), which is no batch to the user.
    func jpegOptionsWithoutJPEG(single: Bool = false) -> String? {
        Self.ignored(["--jpeg-path", "--allow-truncated", "--max-scans"].filter { given.contains($0) },
                     appliesTo: "JPEG input", by: single ? "an input that is not one" : "a batch without one")
    }

    /// One file named alone: no folder, no list, no shard, not standard input.
    var namesOneFile: Bool {
        inputs.count == 1 && filesFrom == nil && shard == nil && inputs[0] != "-"
            && FileStatus(path: inputs[0])?.kind != .directory
    }

    /// --alpha asked for (any mode but the default), for inputs none of which has alpha (a PNG's alpha channel or
    /// tRNS; a JPEG never): said after a single file's conversion, or after a batch (and `report`) whose every
    /// input converted and none had it.
    func alphaWithoutAlpha(single: Bool) -> String? {
        guard given.contains("--alpha") else { return nil }
        let mode: String
        switch alpha {
        // (keep writes an opaque A plane all the same: not nothing.)
        case .ignore, .keep: return nil
        case .premultiply: mode = "premultiply"
        case .flatten: mode = "flatten"
        }
        return "--alpha \(mode) applies to input with alpha (a PNG's alpha channel or tRNS); "
            + (single ? "this one has none" : "none of this run's inputs has any") + ", so it changes nothing"
    }

    /// The batch-only options given, for one file named alone (`convert` and `report` alike).
    var batchOnlyWarning: String? {
        Self.ignored(["--fail-fast", "--jobs", "--recursive"].filter { given.contains($0) },
                     appliesTo: "batches (folders, lists, many inputs)", by: "a single file")
    }

    /// -0 without a list to separate (`convert` and `report` alike).
    var nulWithoutListWarning: String? {
        nulSeparated && filesFrom == nil ? "-0 says the --files-from list is NUL-separated; without --files-from it is ignored" : nil
    }

    /// `report`: for the `report` command, which always reports (its `--metrics` is never idle) and measures a
    /// conversion to `format` (`measuredFormat`).
    /// `sameDepthCopy`: raw YUV input written as a raw layout of its own depth — its samples copied as they are.
    /// `kindUnknown`: the input is a stream left unopened (`Options.isUnreadStream`), which may be raw YUV after all.
    func ignoredOptionWarnings(format: OutputFormat, rawInput: Bool, single: Bool = false, pngInput: Bool = false,
                               report: Bool = false, sameDepthCopy: Bool = false, kindUnknown: Bool = false) -> [String] {
        var out: [String] = []
        // A file's name that is an option's (`-o --force`: the name forgotten, most likely): taken as the name, as getopt
        // takes it, and said (it wrote a file named --force without a word; an output-side tester's note).
        // Read as the command line reads a word (`CommandWords`): `-j4`, `-qy` and `--report=json` are options as
        // much as `--force` (only a bare option's name was noticed).
        for (flag, name) in [("-o", output), ("--report-file", reportFile)] {
            var words = CommandWords(name.map { [$0] } ?? [])
            if let name, case .option? = words.next() {
                out.append("\(flag) \(name): the file's name is an option's, and is taken as the name (give ./\(name) to mean "
                           + "such a file, or the name after \(flag) if it was left out)")
            }
        }
        if let w = nulWithoutListWarning { out.append(w) }
        if single, let w = batchOnlyWarning { out.append(w) }
        if pngInput || rawInput {
            // (--jpeg-path for YUV input is said below, with --orientation and --alpha.)
            let jpegOnly = (pngInput ? ["--jpeg-path"] : []) + ["--allow-truncated", "--max-scans"]
            let named = jpegOnly.filter { given.contains($0) }
            if let w = Self.ignored(named, appliesTo: "JPEG input", by: pngInput ? "a PNG" : "YUV input") { out.append(w) }
        }
        if single && given.contains("--update") {
            out.append("--update keeps an output folder's manifest in a batch; a single file ignores it (and is never "
                       + "replaced without --force)")
        }
        if single && given.contains("--verbose") {
            out.append("-v shows each image's line above a batch's progress line; a single file's line is printed "
                       + "anyway (unless -q), so it is ignored")
        }
        if single && given.contains("--name") {
            out.append("--name names a batch's outputs; a single file's output is -o, so it is ignored")
        }
        if metrics && reportFormat == nil && !report {
            out.append("--metrics measures for a report; without --report nothing is measured")
        }
        if metrics && (reportFormat != nil || report) && format.layout(bitDepth: depth ?? 8).bitDepth == 10 {
            out.append("--metrics measures 8-bit outputs; \(format.layout(bitDepth: depth ?? 8).rawValue) is not measured, "
                       + "so the report's PSNR and SSIM are empty")
        }
        if dryRun && reportFormat != nil && !report {
            out.append("--report with --dry-run: nothing is converted, so no report is written")
        }
        // (Unless standard output is open on a file with data where writing starts, `1<>old`: --force lets the
        // report write there.)
        if report && given.contains("--force") && reportFile == nil && AtomicOutput.overwrites(descriptor: STDOUT_FILENO) == nil {
            out.append("--force lets --report-file replace a file; without one the report goes to standard output, so it is ignored")
        }
        // (YUV input's is said with the file, from where its samples sit and the output's depth: `warnRawSiting`.)
        if format == .y4m && depth == 10 && !rawInput, let s = siting, s != .center {
            out.append("--chroma-loc \(s.rawValue): a 10-bit Y4M header (C420p10) has no siting tag (ffprobe: unspecified), so readers take its "
                       + "chroma as centre-sited; the report's chroma_location and ffmpeg arguments say \(s.rawValue)")
        }
        if given.contains("--quality") && format != .jpeg {
            out.append("--quality sets JPEG output's quality; \(format.name) output ignores it")
        }
        // Each names only the options of its group that were given.
        func named(_ names: [String]) -> [String] { names.filter(given.contains) }
        // A value that is what a JPEG is anyway (bt601, full) changes nothing and is no mistake: not warned.
        let notJPEGs = named(["--matrix", "--range"]).filter {
            $0 == "--matrix" ? spec.matrix != .bt601 : spec.range != .full
        }
        if format == .jpeg && !rawInput, let w = Self.ignored(notJPEGs,
                                                              appliesTo: "YUV output (a JPEG is BT.601 full range by definition)",
                                                              by: "JPEG output") {
            out.append(w)
        }
        if !rawInput, !kindUnknown, let w = Self.ignored(named(["--size", "--pix-fmt"]), appliesTo: "raw YUV input",
                                           by: single ? "a JPEG or PNG input, which carries its own size and layout,"
                                               : "a batch (raw YUV converts one file at a time)") {
            out.append(w)
        }
        // (Above 1 they are usage errors for these formats; 1 pads nothing, and sets only a report's aligned figure.)
        if !format.isRaw && reportFormat == nil && !report,
           let w = Self.ignored(named(["--align", "--align-height"]), appliesTo: "raw layouts",
                                by: "\(format.name) output") {
            out.append(w)
        }
        // --primaries says what RGB space YUV input's samples are in: a PNG or JPEG drawn from them is tagged so.
        let tagged = format == .jpeg || format == .png
        // Each said of what it applies to (--jpeg-path to JPEG input alone; --alpha to a PNG's alpha, every other
        // source being opaque).
        if rawInput {
            for (options, what) in [(["--jpeg-path"], "JPEG input"), (["--orientation", "--color-management"], "JPEG and PNG input"),
                                    (["--alpha"], "input with alpha (a PNG's alpha channel or tRNS)")] {
                if let w = Self.ignored(named(options), appliesTo: what, by: "YUV input") { out.append(w) }
            }
        }
        if rawInput && !tagged && given.contains("--primaries") {
            out.append("--primaries tags a PNG or JPEG drawn from YUV input; \(format.name) output carries no primaries, "
                       + "so it is ignored")
        }
        if !rawInput && !colourManagement && given.contains("--primaries") && primaries != nil {
            // It still says what the samples are: the output's tags (a PNG's or JPEG's profile) and the report.
            out.append("--color-management off: nothing is transformed into --primaries \(primaries!.rawValue); the "
                       + "samples are taken to be in it as stored, and the output and report are labelled so")
        }
        // YUV input: --chroma-loc says where its samples sit (a Y4M's tag wins), which `runRawInput` speaks to.
        // (`center`, what these outputs are, is no mistake: not warned.)
        if !rawInput && given.contains("--chroma-loc") && (format == .jpeg || format == .png) && siting != .center {
            out.append("--chroma-loc sites the chroma of YUV outputs; \(format.name) output is centre-sited, so it is ignored")
        }
        if rawInput && format.isRaw && given.contains("--chroma-loc") {
            out.append("--chroma-loc says where YUV input's chroma sits, for what is drawn or tagged from it; a raw output "
                       + "keeps the samples where they are and carries no tag, so it changes nothing")
        }
        // YUV written as YUV: no RGB on the way, so no matrix; the samples are copied (and rescaled between 8 and 10
        // bits by the range, which a Y4M's tag also carries).
        if rawInput && (format.isRaw || format == .y4m) && given.contains("--matrix") {
            out.append("--matrix converts between RGB and YUV; YUV input written as \(format.name) goes through no RGB (its "
                       + "samples copied, or rescaled between 8 and 10 bits), so it is ignored")
        }
        if sameDepthCopy && given.contains("--range") {
            out.append("--range says how YUV input's samples map to RGB and to other depths; copied at their own depth to "
                       + "\(format.name) they stay as they are, so it changes nothing")
        }
        if rawInput && given.contains("--chroma-filter") {
            out.append("--chroma-filter makes chroma from RGB; YUV input keeps its own chroma, so it is ignored")
        }
        if !rawInput && chromaFilter == .sharp && given.contains("--jpeg-path") && jpegPath == .direct {
            out.append("--chroma-filter sharp needs RGB: a JPEG is decoded to RGB, not converted from its planes (--jpeg-path direct)")
        }
        return out
    }
}
