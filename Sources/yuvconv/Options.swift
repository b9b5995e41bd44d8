#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO
import YUVReport

/// A usage error: printed with a hint to `--help`, exit 2.
struct UsageError: Error {
    let message: String
}

/// Everything the command line says.
struct Options {
    var inputs: [String] = []
    var output: String?
    /// `--format`: what to write, whatever the output's name (else the name decides: `OutputFormat.resolve`).
    var format: OutputFormat?
    var quality = 90
    var alpha = AlphaMode.ignore
    /// Raw YUV input: its size and layout (`--size WxH`, `--pix-fmt`).
    var inputSize: (width: Int, height: Int)?
    var inputLayout: PixelLayout?
    var spec = ConversionSpec()
    var force = false
    var quiet = false
    var maxPixels = ImageDecoder.defaultMaxPixels
    var maxScans = ImageDecoder.defaultMaxScans
    var allowTruncated = false
    var jpegPath = JPEGPath.direct
    var orientation = OrientationMode.auto
    /// `yuvconv report FILE…`: measure, write nothing.
    var reportOnly = false
    var reportFormat: ReportFormat?
    var reportFile: String?
    var alignment = 64
    // Batch
    var recursive = false
    var filesFrom: String?
    var nulSeparated = false
    var nameTemplate = "{stem}.{ext}"
    var jobs = 0
    var failFast = false
    var update = false
    var shard: (index: Int, count: Int)?
    /// In a batch with a progress line, per-image lines would tear it.
    var batchQuietLines = false
    /// Set by the batch runner: one thread per file (`-j N` means N threads).
    var inBatch = false
    var showHelp = false
    var showVersion = false

    static func parse(_ args: [String]) throws(UsageError) -> Options {
        var o = Options()
        var rest = args[...]
        if rest.first == "convert" {
            rest = rest.dropFirst()
        } else if rest.first == "report" {
            rest = rest.dropFirst()
            o.reportOnly = true
        }
        var onlyOperands = false
        func value(_ flag: String, _ inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let v = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return v
        }
        /// A value one of a set of names: `parse` it, or say which names there are.
        func named<T>(_ flag: String, _ inline: String?, _ what: String, _ choices: String,
                      _ parse: (String) -> T?) throws(UsageError) -> T {
            let name = try value(flag, inline)
            guard let v = parse(name) else { throw UsageError(message: "unknown \(what) '\(name)' (\(choices))") }
            return v
        }
        /// A whole number within `range`.
        func number(_ flag: String, _ inline: String?, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag, inline)
            guard let n = Int(text), range.contains(n) else {
                throw UsageError(message: "\(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return n
        }
        while let arg = rest.popFirst() {
            if onlyOperands || arg == "-" || !arg.hasPrefix("-") {
                o.inputs.append(arg)
                continue
            }
            if arg == "--" {
                onlyOperands = true
                continue
            }
            // --name=value
            var flag = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                flag = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            } else if !arg.hasPrefix("--"), arg.count > 2, arg.hasPrefix("-o") || arg.hasPrefix("-j") {
                flag = String(arg.prefix(2))
                inline = String(arg.dropFirst(2))
            }
            switch flag {
            case "-o", "--output":
                if o.output != nil { throw UsageError(message: "only one output (-o) may be given") }
                o.output = try value(flag, inline)
            case "--pix-fmt", "--pix_fmt":
                o.inputLayout = try named(flag, inline, "input pixel format", "nv12, nv21, yuv420p, i420, yv12") {
                    PixelLayout(name: $0)
                }
            case "--size", "-s":
                let text = try value(flag, inline)
                let p = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
                guard p.count == 2, let w = p[0], let h = p[1], w > 0, h > 0 else {
                    throw UsageError(message: "--size takes WIDTHxHEIGHT, not '\(text)'")
                }
                guard !w.multipliedReportingOverflow(by: h).overflow else {
                    throw UsageError(message: "--size \(text) is more pixels than any picture can have")
                }
                o.inputSize = (w, h)
            case "--format", "-f":
                o.format = try named(flag, inline, "format", OutputFormat.names) { OutputFormat(name: $0) }
            case "--matrix":
                o.spec.matrix = try named(flag, inline, "matrix", "bt709, bt601, bt2020") { ColorMatrix(name: $0) }
            case "--range":
                o.spec.range = try named(flag, inline, "range", "full, limited") { ColorRange(name: $0) }
            case "--alpha":
                let text = try value(flag, inline)
                guard let mode = parseAlpha(text) else {
                    throw UsageError(message: "unknown alpha mode '\(text)' (ignore, keep, flatten, flatten=#RRGGBB, premultiply)")
                }
                o.alpha = mode
            case "--quality":
                o.quality = try number(flag, inline, 1...100)
            case "--max-pixels":
                o.maxPixels = try number(flag, inline, 1...Int.max)
            case "--max-scans":
                o.maxScans = try number(flag, inline, 1...1_000_000)
            case "--orientation":
                o.orientation = try named(flag, inline, "orientation mode", "auto, ignore") { OrientationMode(rawValue: $0) }
            case "--jpeg-path":
                o.jpegPath = try named(flag, inline, "JPEG path", "direct, rgb") { JPEGPath(rawValue: $0) }
            case "--report":
                o.reportFormat = try named(flag, inline, "report format", "text, json, csv, html") { ReportFormat(rawValue: $0) }
            case "--report-file":
                o.reportFile = try value(flag, inline)
            case "--align":
                o.alignment = try number(flag, inline, 1...4096)
            case "-r", "--recursive": o.recursive = true
            case "--files-from": o.filesFrom = try value(flag, inline)
            case "-0", "--null": o.nulSeparated = true
            case "--name": o.nameTemplate = try value(flag, inline)
            case "-j", "--jobs":
                o.jobs = try number(flag, inline, 1...1024)
            case "--fail-fast": o.failFast = true
            case "--update", "-u": o.update = true
            case "--shard":
                let text = try value(flag, inline)
                let parts = text.split(separator: "/").map { Int($0) }
                guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, k >= 1, k <= n else {
                    throw UsageError(message: "--shard takes K/N with 1 ≤ K ≤ N, not '\(text)'")
                }
                o.shard = (k, n)
            case "--allow-truncated": o.allowTruncated = true
            case "--force", "-y": o.force = true
            case "-q", "--quiet": o.quiet = true
            case "-h", "--help": o.showHelp = true
            case "-V", "--version": o.showVersion = true
            default:
                throw UsageError(message: "unknown option '\(arg)'")
            }
            if inline != nil && !["-o", "--output", "--format", "--pix-fmt", "--pix_fmt", "--matrix", "--range",
                                  "--max-pixels", "--max-scans", "--jpeg-path", "-f", "--report", "--report-file", "--align", "--files-from", "--name", "--jobs",
                                  "--shard", "--quality", "--size", "-s", "--pix-fmt", "--pix_fmt", "--alpha", "--orientation"].contains(flag) {
                throw UsageError(message: "\(flag) takes no value")
            }
        }
        return o
    }

    /// YUV in: a Y4M stream, or — unless the content is a JPEG or PNG, whatever its name — a size was given
    /// or the name is a raw layout's.
    var isRawInput: Bool {
        guard let i = inputs.first, inputs.count == 1, i != "-" else { return false }
        if RawInput.isY4M(path: i) { return true }
        if RawInput.isImage(path: i) { return false }
        if inputSize != nil || inputLayout != nil { return true }
        if let dot = i.lastIndex(of: "."), PixelLayout(fileExtension: String(i[i.index(after: dot)...])) != nil { return true }
        return RawInput.isY4M(path: i)
    }

    /// Many files: more than one input, a folder, a list, or an output folder.
    var isBatch: Bool {
        if inputs.count > 1 || filesFrom != nil || shard != nil { return true }
        if let o = output, o != "-" {
            if o.hasSuffix("/") { return true }
            if FileStatus(path: o)?.kind == .directory { return true }
        }
        if let i = inputs.first, i != "-", FileStatus(path: i)?.kind == .directory { return true }
        return false
    }

    /// The decoder's options.
    var decodeOptions: DecodeOptions {
        var d = DecodeOptions(maxPixels: maxPixels, allowTruncated: allowTruncated, jpegPath: jpegPath,
                              pipelined: !inBatch, alpha: alpha, orientation: orientation)
        d.maxScans = maxScans
        return d
    }

    /// What to write to `output`: `--format`, else the name's extension (one rule for single files and
    /// batches: `OutputFormat.resolve`). Options the format cannot honour are usage errors.
    func outputFormat(for output: String) throws(UsageError) -> OutputFormat {
        let format: OutputFormat
        do { format = try OutputFormat.resolve(asked: self.format, path: output) } catch {
            throw UsageError(message: "\(displayPath(output)): \(error.reason) with --format")
        }
        if alpha == .keep && !format.isRaw {
            throw UsageError(message: "--alpha keep writes raw layouts only (an A plane after the 4:2:0 planes), not \(format.name)")
        }
        return format
    }
}

/// ignore | keep | premultiply | flatten | flatten=#RRGGBB (default white).
func parseAlpha(_ text: String) -> AlphaMode? {
    switch text.lowercased() {
    case "ignore": return .ignore
    case "keep": return .keep
    case "premultiply": return .premultiply
    case "flatten": return .flatten(r: 255, g: 255, b: 255)
    default:
        guard text.lowercased().hasPrefix("flatten=") else { return nil }
        var hex = text.dropFirst("flatten=".count)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        return .flatten(r: UInt8(v >> 16), g: UInt8((v >> 8) & 0xFF), b: UInt8(v & 0xFF))
    }
}

let helpText = """
    yuvconv — convert JPEG and PNG images to exact 8-bit YUV 4:2:0 (NV12 and friends)

    Usage:
      yuvconv [convert] INPUT -o OUTPUT [options]
      yuvconv convert INPUT... DIR/... -o OUTDIR/ [options]          many files
      yuvconv report FILE... [--report FMT] [--report-file PATH]      memory and quality, nothing written
      yuvconv --help | --version

    INPUT is a JPEG or PNG file (recognised by its content), raw YUV with --size, a .y4m file, or - for
    standard input. OUTPUT is a file, or - for standard output. Raw layouts are planes, tightly packed, no
    header: ffmpeg -f rawvideo -pix_fmt FORMAT -s WxH -i OUTPUT reads them.

    Conversion:
      -o, --output PATH        where to write; - is standard output
      -f, --format FMT         nv12 (default), nv21, yuv420p (alias i420), yv12;
                               y4m: a YUV4MPEG2 file (yuv420p, C420jpeg, XCOLORRANGE; no matrix tag);
                               png: RGB drawn back through the exact inverse (nearest chroma), to look at;
                               jpeg: compressed straight from the 4:2:0 planes, no RGB. A JPEG is JFIF,
                               BT.601 full range, by definition: --matrix and --range are then ignored.
                               Without --format the output's extension decides:
                               .nv12 .nv21 .yuv .i420 .yv12 .y4m .png .jpg .jpeg (any other is
                               refused; no extension, - and devices get nv12). In a batch each
                               output name (--name) decides the same way
          --matrix M           bt709 (default), bt601, bt2020 (non-constant luminance)
          --range R            full (default, 0–255) or limited (Y 16–235, C 16–240)
          --quality Q          JPEG quality 1-100 (default 90)
          --alpha MODE         ignore (default: the contract converts colour as stored); keep: an A plane
                               (W×H) after the 4:2:0 planes — yuva420p, or NV12 + A ("nv12a"), raw outputs
                               only; flatten[=#RRGGBB]: composite over a colour (default white) first;
                               premultiply: colour × alpha first (both rounded half up to the
                               source's 8 or 16 bits)
          --orientation M      auto (default): apply the EXIF orientation (JPEG Exif, PNG eXIf) first, so
                               the output is upright as viewers show it (a turned picture is held whole
                               while it is turned); ignore: convert the samples as stored (yuvref's output)
          --jpeg-path P        direct (default): convert a JPEG from its own YCbCr planes, never building
                               RGB (4:2:0 to bt601 full is then the decoder's planes, byte for byte);
                               rgb: decode to RGB first, then convert exactly
          --force, -y          replace an existing output file (inputs are never overwritten)
          --max-pixels N       refuse images with more pixels than N (default 268435456 = 16384²)
          --max-scans N        refuse progressive JPEGs with more than N scans (default 500, as
                               libjpeg-turbo's tools; real files have about 10)
          --allow-truncated    accept a JPEG whose data ends early or is damaged (libjpeg fills grey)
      -q, --quiet              no per-image line on standard error

    YUV as input (to another layout, Y4M, PNG or JPEG):
      -s, --size WxH           the raw input's size (a .y4m file carries its own)
          --pix-fmt FMT        the raw input's layout (default: from its extension, else nv12);
                               --matrix and --range then describe the input (Y4M: XCOLORRANGE wins)

    Many files:
      -o DIR/                  the output folder (made if missing)
      -r, --recursive          go into subfolders too (a folder gives its .jpg/.jpeg/.png files)
          --files-from FILE    also take the paths listed in FILE, one a line (- reads standard input)
      -0, --null               the list is NUL-separated (find -print0)
          --name TEMPLATE      output names: {stem} {name} {ext} {format} {dir} (default {stem}.{ext});
                               {dir} is the input's folder below the folder given — "dir/" its contents,
                               "dir" the folder itself, as rsync reads them — to mirror a tree
      -j, --jobs N             convert N files at once, one thread each (default: all cores)
      -u, --update             convert only when the output is missing or older than the input
          --fail-fast          stop at the first failure
          --shard K/N          take the K-th of N shares of the sorted input list (CI fleets)
      A failing file never stops the others; a summary lists every failure. The first SIGINT/SIGTERM
      stops starting files, removes unfinished ones, prints the summary and exits 130/143.

    Report (with `report`, or alongside a conversion):
          --report FMT         text, json (JSON Lines), csv or html: per image the memory as RGBA, RGB and
                               YUV, the saving, PSNR of Y, Cb, Cr and the RGB round trip, SSIM of Y, what
                               the conversion used; then totals. To standard output (standard error when
                               the data goes to -o -)
          --report-file PATH   write it to PATH instead (never replaces a file without --force)
          --align N            row alignment for the aligned size (default 64, as CoreVideo)

      -h, --help               this text
      -V, --version            the version

    Every value is the exact result of the conversion contract (round half up on the exact rational),
    bit for bit (of the flattened or premultiplied colours with --alpha). No colour management is applied.

    Exit status: 0 done, 1 an input could not be converted or an output not written, 2 usage error.
    """
