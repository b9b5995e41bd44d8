#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore
import YUVIO
import YUVReport
import Synchronization

/// A dry run's single conversion would open its stream input (`main`'s checks of its output passed): see `isUnreadStream`.
let streamWouldOpen = Atomic<Bool>(false)

/// A usage error: printed with a hint to `--help`, exit 2.
struct UsageError: Error {
    let message: String
    /// The refusal is about standard error's own file (`refuseAboutStandardError`): not said there when it is one.
    var aboutStandardError = false
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
    /// The options the command line gave, by their long names (for the warnings on options that do nothing).
    var given: Set<String> = []
    /// `--range` was given (a Y4M input without XCOLORRANGE is otherwise limited range, as FFmpeg reads it).
    var rangeGiven = false
    var force = false
    /// `--dry-run`: say what would be done, write nothing.
    var dryRun = false
    var quiet = false
    /// `--color-management auto|off`.
    var colourManagement = true
    /// `--primaries`: the target RGB space (nil: the matrix's).
    var primaries: Primaries?
    /// `--chroma-loc`: where chroma samples sit (nil: centre; a Y4M input's own tag).
    var siting: ChromaLocation?
    /// `--depth 8|10`: the output's bits per sample (nil: the layout's own; Y4M 8, or a YUV input's depth).
    var depth: Int?
    /// `--chroma-filter box|sharp`.
    var chromaFilter = ChromaFilter.box
    /// `--metrics`: PSNR and SSIM in the report, measured as the conversion streams (`QualityProbe`).
    var metrics = false
    var verbose = false
    var maxPixels = ImageDecoder.defaultMaxPixels
    var maxScans = ImageDecoder.defaultMaxScans
    /// `--max-memory`: the most bytes a picture held whole may take; nil: by the file's size.
    var maxMemory: Int?
    var allowTruncated = false
    var jpegPath = JPEGPath.auto
    var orientation = OrientationMode.auto
    /// `yuvconv report INPUT…`: measure, write no image.
    var reportOnly = false
    var reportFormat: ReportFormat?
    var reportFile: String?
    /// `--align N`: rows of raw outputs padded to N bytes, and the report's aligned figure; without it the
    /// files are tight and the report shows CoreVideo's 64.
    var alignment = 64
    var alignGiven = false
    /// `--align-height M`: the planes of raw outputs padded to a multiple of M luma rows (1: none).
    var heightAlignment = 1
    var heightAlignGiven = false
    /// Whether padding was asked for (`--align` or `--align-height`, whatever the value, 1 included).
    var paddingAsked: Bool { alignGiven || heightAlignGiven }
    /// The row alignment of written raw frames: 1 (tight) unless `--align` was given.
    var fileAlignment: Int { alignGiven ? alignment : 1 }
    /// Whether a file of `format` is written with padded rows or planes when its sizes need it
    /// (`--align`, `--align-height`, raw layouts only).
    func padsRows(of format: OutputFormat) -> Bool { format.isRaw && paddingAsked }
    /// The row alignment of the report's aligned figure: CoreVideo's 64 when no padding was asked for; the
    /// written frame's when `--align` or `--align-height` was, so that the figure is the file's size.
    var reportAlignment: Int { paddingAsked ? fileAlignment : alignment }
    /// A report line for `report` of a conversion to `format`, its layout fields — the aligned figure's
    /// alignments, whether the file is padded (so not plain rawvideo: no ffmpeg arguments), whether it is raw
    /// planes at all — decided here for every way a line is made (converted, kept by --update, measured).
    func record(file: String, report: ConversionReport, quality: QualityReport?, peakRSS: Int,
                format: OutputFormat) -> ImageRecord {
        var record = ImageRecord(file: file, error: nil, report: report, quality: quality, alignment: reportAlignment,
                                 peakRSS: peakRSS)
        record.heightAlignment = heightAlignment
        record.filePadded = padsRows(of: format) && record.alignedBytes != record.yuvBytes
        record.rawVideo = format.isRaw
        if case .y4m = format { record.y4m = true }
        return record
    }
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
    /// `--man`: print the manual page; `--completion SHELL`: print a completion script.
    var showMan = false
    var completionShell: Shell?

    /// Reads the command line: an optional verb, then operands and the options of `OptionSpec.groups`. The verb
    /// is the first operand, whether options come before it or not (`yuvconv -q report x.png`, as git and cargo
    /// take `-C DIR status`): a file named `report` or `convert` there is given as `./report`, or after `--`.
    static func parse(_ args: [String]) throws(UsageError) -> Options {
        var o = Options()
        var verbTaken = false
        /// The options given before a verb that comes after them, as typed: `report` refuses those for convert.
        var typedBefore: [(flag: String, option: OptionSpec)] = []
        var words = CommandWords(args)
        while let word = words.next() {
            let option: OptionSpec, flag: String, inline: String?, next: String?, arg: String
            switch word {
            case .operand(let operand, let afterDashes):
                if !afterDashes && !verbTaken && o.inputs.isEmpty && (operand == "convert" || operand == "report") {
                    verbTaken = true
                    if operand == "report" {
                        o.reportOnly = true
                        if let (flag, option) = typedBefore.first(where: { $0.option.notInReport != nil }) {
                            throw UsageError(message: "\(flag) is for convert: report \(option.notInReport!)")
                        }
                    }
                    continue
                }
                // An empty name (an unset shell variable, most often) names no file: a usage error, not a search.
                if operand.isEmpty { throw UsageError(message: "an input is an empty name") }
                o.inputs.append(operand)
                continue
            case .endOfOptions:
                continue
            case .unknown(_, let error):
                throw error
            case .option(let o1, let f, let i, let n, let a):
                (option, flag, inline, next, arg) = (o1, f, i, n, a)
            }
            let scalars = Array(arg.unicodeScalars), long = arg.hasScalarPrefix("--")
            if o.reportOnly, let why = option.notInReport { throw UsageError(message: "\(flag) is for convert: report \(why)") }
            if !verbTaken { typedBefore.append((flag, option)) }
            var value = ""
            if option.value == nil {
                if inline != nil { throw UsageError(message: "\(flag) takes no value") }
            } else if let inline {
                value = inline
            } else {
                guard let next else { throw UsageError(message: "\(flag) needs a value") }
                value = next
            }
            if option.value != nil && value.isEmpty { throw UsageError(message: "\(flag) needs a value, not an empty one") }
            let name = option.longName ?? flag
            if option.once && o.given.contains(name) {
                throw UsageError(message: "only one \(option.shortName.map { "\($0) (\(name))" } ?? name) may be given: it names a "
                                 + "file, and a second would drop the first" + (name == "--files-from" ? " (join the lists: cat a b)" : ""))
            }
            do throws(UsageError) {
                try option.apply(&o, flag, value)
            } catch {
                // `-force` is -f orce, as getopt reads it: a bad value there most likely meant the long option.
                let asLong = "-" + String(scalars: scalars.prefix { $0 != "=" })
                if !long, inline != nil, scalars.count > 2, OptionSpec.byName[asLong] != nil {
                    throw UsageError(message: "\(error.message) ('\(arg)' reads as \(flag) \(value); did you mean \(asLong)?)")
                }
                throw error
            }
            o.given.insert(name)
        }
        // Every route (one file, a batch, YUV input) refuses it here, before any input is looked at.
        if !o.reportOnly && o.reportFile != nil && o.reportFormat == nil
            && !(o.showHelp || o.showVersion || o.showMan || o.completionShell != nil) {
            throw UsageError(message: "--report-file needs --report FORMAT")
        }
        return o
    }

    /// YUV in: a Y4M stream, or — unless the content is a JPEG or PNG, whatever its name — a size was given
    /// or the name is a raw layout's.
    var isRawInput: Bool {
        guard let i = inputs.first, inputs.count == 1 else { return false }
        // The first bytes, read once: a Y4M stream is YUV and a JPEG or PNG an image, whatever the name.
        let head = RawInput.head(i, 10)
        if RawInput.isY4M(head: head) { return true }
        // A named stream (a FIFO, `<(…)`) left unopened, its run to be refused (`StandardInput.opensStreams`: a
        // conflict of options, an output that exists), has no bytes to tell its kind: the image route, which refuses
        // it before its writer is let in. With --size it was taken for raw YUV unread, sharp chroma's conflict with a
        // 10-bit output was waved through as an option YUV input ignores, and a PNG written into it read as planes.
        // A dry run too, which opens no stream: it says what the run would (it listed such a run as converting).
        if isUnreadStream(i) { return false }
        // Unless a size was given and a regular file is exactly one raw frame of it: a frame whose first
        // samples happen to be FF D8 FF (bright pixels) is not a JPEG (nor one that spells "YUV4MPEG" a Y4M
        // stream: `runRawInput` asks `isOneRawFrame` too).
        if RawInput.isImage(head: head) { return isOneRawFrame(i) }
        // Otherwise raw YUV when a size says so (on standard input only then), or a layout or its extension does.
        if i == "-" { return inputSize != nil }
        return inputSize != nil || inputLayout != nil || Self.extensionLayout(of: i) != nil
    }

    /// Whether `path` names a stream (a FIFO, a device, `<(…)`; not standard input, which is always looked at) left
    /// unopened, so that nothing is known of its kind: a run to be refused, or a dry run.
    /// A dry run opens none, and takes a stream as unread only where the run would not open it either
    /// (`streamWouldOpen`): else a FIFO given `--size` went to the image route's dry run and skipped the raw route's
    /// checks the run makes (`--report` with YUV input, `--max-pixels`, no `--size`).
    func isUnreadStream(_ path: String) -> Bool {
        path != "-" && !readsStandardInput(path) && FileStatus(path: path).map { $0.kind != .regular } == true
            && !StandardInput.opensStreams.load(ordering: .relaxed)
            && !(dryRun && streamWouldOpen.load(ordering: .relaxed))
    }

    /// The layout raw YUV input `path` is read as: `--pix-fmt`, else its extension's, else NV12.
    func rawLayout(of path: String) -> PixelLayout { inputLayout ?? Self.extensionLayout(of: path) ?? .nv12 }

    /// The raw layout `path`'s extension names (`.nv12`, `.yuv`, …), or nil.
    static func extensionLayout(of path: String) -> PixelLayout? {
        path.lastIndex(of: ".").flatMap { PixelLayout(fileExtension: String(path[path.index(after: $0)...])) }
    }

    /// True when `path` begins like a JPEG, PNG or Y4M stream but is a raw frame: `--size` was given, it is a
    /// regular file of exactly one frame of that size and `rawLayout(of:)`, and it does not read as what it
    /// begins like (a frame whose first samples happen to be FF D8 FF; a real JPEG of that byte count stays one).
    func isOneRawFrame(_ path: String) -> Bool {
        if !RawInput.isRegular(path) { return isOneRawFrameOnStream(path) }
        guard let size = inputSize, let st = FileStatus(path: path), st.kind == .regular,
              let need = try? RawInput.frameBytes(width: size.width, height: size.height, layout: rawLayout(of: path),
                                                  maxPixels: maxPixels) else { return false }
        // Bytes that start like a JPEG and break its segments at once are the raw frame, whatever their length: the
        // raw reader says a wrong one (as a stream's look decides; the JPEG reader's message said nothing of --size).
        guard st.size == need else { return Self.isRefusedAsJPEG(path) }
        if RawInput.isY4M(path: path) { return (try? RawInput.readY4M(path: path, maxPixels: maxPixels)) == nil }
        guard let source = try? InputSource(path: path, maxPixels: maxPixels) else { return true }
        return (try? ImageDecoder(source: source, maxPixels: maxPixels)) == nil
    }

    /// The same for standard input or a stream named as the input (a FIFO, `/dev/stdin`, `<(…)`): its first bytes
    /// (kept for whoever reads them next) are read by libjpeg as a JPEG's header (`yc_jpeg_header_state`). Read,
    /// it is the JPEG; refused, the raw frame — whose length the raw reader then checks, holding it under its
    /// memory limit; while the bytes end inside a header that may still read, more are looked at, up to 16 MiB
    /// (a JPEG may carry any number of 64 KiB APP segments: a header past one MiB was taken for a raw frame).
    /// Ended inside one, or past the look, the length decides: one frame exactly, or a frame at least as long as
    /// what came, is the raw frame. A PNG or Y4M signature in a raw frame (8 and 9 exact bytes) is left to its
    /// reader.
    private func isOneRawFrameOnStream(_ path: String) -> Bool {
        guard let size = inputSize,
              let need = try? RawInput.frameBytes(width: size.width, height: size.height, layout: rawLayout(of: path),
                                                  maxPixels: maxPixels),
              RawInput.isJPEG(head: RawInput.head(path, 3)) else { return false }
        // Standard input redirected from a file: its size says, as a named file's does (a JPEG of another size is one).
        if readsStandardInput(path), let st = FileStatus(descriptor: STDIN_FILENO), st.kind == .regular,
           st.size - Int(max(lseek(STDIN_FILENO, 0, SEEK_CUR), 0)) != need {
            return Self.isRefusedAsJPEG(path)
        }
        // Read at each doubling or pause of the writer, so that a small JPEG is not held until its writer closes
        // the pipe, and a header trickled in is parsed a few times, not after every read.
        let cap = 16 << 20
        var request = 1 << 16, seen = -1
        while true {
            let (state, count) = StandardInput.withPeekMore(path, request) { bytes in
                (bytes.withUnsafeBufferPointer { yc_jpeg_header_state($0.baseAddress, $0.count) }, bytes.count)
            }
            if state == 1 { return false }
            if state == 0 { return true }
            if count < request && count == seen { return count == need }   // the end, inside a header
            if count >= request {
                if request >= cap { return need >= count }   // past the look: a frame at least that long
                request = min(cap, 2 * request)
            }
            seen = count
        }
    }

    /// Whether a file (or standard input from one) that starts FF D8 FF is refused by libjpeg as a JPEG's header
    /// (not merely cut short where the look stopped): then it is no JPEG. The look starts at 64 KiB and doubles
    /// while the header goes on past it, up to 16 MiB, as a stream's does: random samples after FF D8 FF read as
    /// segments whose lengths reach past 64 KiB (one raw frame in 40 got a JPEG's message, not its length's).
    static func isRefusedAsJPEG(_ path: String) -> Bool {
        var request = 1 << 16
        while true {
            let head = RawInput.head(path, request)
            guard RawInput.isJPEG(head: Array(head.prefix(3))) else { return false }
            let state = head.withUnsafeBufferPointer { yc_jpeg_header_state($0.baseAddress, $0.count) }
            if state != 2 || head.count < request || request >= 16 << 20 { return state == 0 }
            request *= 2
        }
    }

    /// Many files: more than one input, a folder, a list, or an output folder.
    var isBatch: Bool {
        if inputs.count > 1 || filesFrom != nil || shard != nil { return true }
        if let o = output, o != "-" {
            if o.hasScalarSuffix("/") { return true }
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
        d.maxMemory = maxMemory
        // One conversion has the process, and its cores, to itself (`YUVCONV_AFFINITY=off` leaves the threads to the
        // scheduler).
        d.placesThreads = !inBatch && !(getenv("YUVCONV_AFFINITY").map {
            ["off", "0", "no", "false"].contains(String(cString: $0).lowercased())
        } ?? false)
        d.colourManagement = colourManagement
        d.primaries = primaries
        d.chromaFilter = chromaFilter
        d.sayDroppedAlpha = !given.contains("--alpha")
        return d
    }

    /// What this run asks of its outputs that only raw layouts carry, in the order they are named. YUV input
    /// (`rawInput`) ignores --chroma-filter, with a warning: sharp chroma asks nothing of its output there.
    func rawOnlyNeeds(rawInput: Bool = false) -> [OutputFormat.RawOnly] {
        (alignGiven && alignment > 1 ? [.rowPadding] : []) + (alignGiven && alignment > 1 && alignment % 2 == 1 ? [.oddRowPadding] : [])
            + (heightAlignment > 1 ? [.planePadding] : [])
            + (alpha == .keep ? [.alphaPlane] : []) + (depth.map { [.bitDepth($0)] } ?? [])
            + (chromaFilter == .sharp && !rawInput ? [.sharpChroma] : [])
    }

    /// Sharp chroma against the other options, for the routes that make chroma from RGB (one picture, a batch,
    /// `report`): it is centre-sited and 8-bit. YUV input ignores --chroma-filter (a warning), so an option
    /// it ignores refuses nothing there (`s.y4m -o s.p010 --chroma-filter sharp` was a usage error, while a
    /// 10-bit Y4M to a 10-bit Y4M drew the warning).
    func sharpChromaConflict() -> UsageError? {
        guard chromaFilter == .sharp else { return nil }
        if let s = siting, s != .center {
            return UsageError(message: "--chroma-filter sharp makes centre-sited chroma (for bilinear players); "
                              + "not with --chroma-loc \(s.rawValue)")
        }
        if depth == 10 { return UsageError(message: "--chroma-filter sharp writes 8-bit samples; not with --depth 10") }
        return nil
    }

    /// The matrix, range and siting a conversion to `format` is made with — the one place `convert` and `report`
    /// take them from (`report -f jpeg --chroma-loc left` said bt709 and left-sited, and gave a read-back filter,
    /// for what `convert` makes BT.601 and centre-sited): a JPEG is JFIF, BT.601 full range whatever was asked;
    /// JPEG and PNG outputs are centre-sited (`--chroma-loc` draws a warning for them).
    func made(for format: OutputFormat) -> (spec: ConversionSpec, siting: ChromaLocation) {
        (format == .jpeg ? ConversionSpec(matrix: .bt601, range: .full) : spec,
         format == .jpeg || format == .png ? .center : siting ?? .center)
    }

    /// The layout a conversion writes for `format` (`--depth 10` makes Y4M yuv420p10le).
    func layout(for format: OutputFormat) -> PixelLayout { format.layout(bitDepth: depth ?? format.layout.bitDepth) }

    /// What to write to `output`: `--format`, else the name's extension (one rule for single files and
    /// batches: `OutputFormat.resolve`). Options the format cannot honour are usage errors.
    func outputFormat(for output: String, rawInput: Bool = false) throws(UsageError) -> OutputFormat {
        if !rawInput, let conflict = sharpChromaConflict() { throw conflict }
        do { return try OutputFormat.resolve(asked: format, path: output, needs: rawOnlyNeeds(rawInput: rawInput)) } catch {
            throw UsageError(message: error.cliMessage)
        }
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
        // Six hex digits and nothing else: UInt32(_:radix:) also takes a sign (`#+12345` was #012345).
        guard hex.count == 6, hex.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }),
              let v = UInt32(hex, radix: 16) else { return nil }
        return .flatten(r: UInt8(v >> 16), g: UInt8((v >> 8) & 0xFF), b: UInt8(v & 0xFF))
    }
}
