#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

let version = "0.1.0"

func printErr(_ s: String) {
    fputs(s + "\n", stderr)
}

/// The per-image line: size, source sampling, the memory it costs as RGBA against the YUV layout, and
/// what the conversion itself used.
func summaryLine(name: String, report r: ConversionReport) -> String {
    let g = r.geometry, layout = r.layout.rawValue + (r.alphaBytes > 0 ? "+A" : "")
    let saving = Saving(baseline: g.rgbaBytes, ours: g.tightBytes + r.alphaBytes)
    return "\(name): \(g.width)x\(g.height) \(r.info.container.rawValue) \(r.info.sampling) -> \(layout) "
        + "(\(r.spec)): RGBA \(formatBytes(g.rgbaBytes)), \(layout) \(formatBytes(g.tightBytes + r.alphaBytes)), "
        + "saves \(formatBytes(saving.bytes)) (\(formatFixed(saving.percent, decimals: 1))%); "
        + "\(r.path)" + (r.orientation.isIdentity ? "" : ", \(r.orientation) (EXIF \(r.orientation.exif))")
        + ", buffers \(formatBytes(r.ledgerPeakBytes)), peak RSS \(formatBytes(peakResidentBytes()))"
}

func run(_ args: [String]) -> Int32 {
    let options: Options
    do {
        options = try Options.parse(args)
    } catch {
        printErr("yuvconv: error: \(error.message)\nTry 'yuvconv --help'.")
        return 2
    }
    if options.showHelp {
        print(helpText)
        return 0
    }
    if options.showVersion {
        print("yuvconv \(version)")
        return 0
    }
    if options.reportOnly { return runReport(options) }
    if options.isBatch { return runBatch(options) }
    if options.isRawInput { return runRawInput(options) }
    let input: String, output: String, layout: PixelLayout
    do throws(UsageError) {
        guard let first = options.inputs.first else { throw UsageError(message: "no input given") }
        guard options.inputs.count == 1 else {
            throw UsageError(message: "one input at a time (got \(options.inputs.count)); `yuvconv report` takes many")
        }
        guard let out = options.output else { throw UsageError(message: "no output given (-o PATH, or -o - for stdout)") }
        if out == "-" && isatty(STDOUT_FILENO) != 0 {
            throw UsageError(message: "refusing to write binary data to a terminal; redirect it or name a file")
        }
        if options.reportFile != nil && options.reportFormat == nil {
            throw UsageError(message: "--report-file needs --report FORMAT")
        }
        input = first
        output = out
        layout = try options.resolvedLayout(output: out)
    } catch {
        printErr("yuvconv: error: \(error.message)\nTry 'yuvconv --help'.")
        return 2
    }
    installSignalCleanup()
    var reportSink: AtomicOutput?
    if let file = options.reportFile {
        do {
            reportSink = try AtomicOutput(path: file, force: options.force, inputs: [input, output])
        } catch {
            printErr("yuvconv: error: \(FileError(path: file, error))")
            return 1
        }
    }
    let outcome = convertOne(input: input, output: output, layout: layout, options: options,
                             keepForReport: options.reportFormat != nil)
    if let failure = outcome.failure {
        reportSink?.abort()
        printErr("yuvconv: error: \(failure)")
        return 1
    }
    if let format = options.reportFormat {
        do {
            try emitReport(renderReport([outcome.record], format: format), to: reportSink, dataOnStdout: output == "-")
        } catch {
            printErr("yuvconv: error: \(error)")
            return 1
        }
    }
    return 0
}

/// What converting one file came to.
struct Outcome {
    var record: ImageRecord
    var failure: FileError?
}

/// Converts `input` to `output` (atomically), prints its line unless quiet, and measures it when a report
/// wants it. Never throws: a failure is part of the outcome.
func convertOne(input: String, output: String, layout: PixelLayout, options: Options, keepForReport: Bool) -> Outcome {
    let name = input == "-" ? "<stdin>" : input
    let decodeOptions = DecodeOptions(maxPixels: options.maxPixels, allowTruncated: options.allowTruncated,
                                      jpegPath: options.jpegPath, pipelined: !options.inBatch, alpha: options.alpha,
                                      orientation: options.orientation)
    if options.alpha == .keep && (options.wantsJPEG(output: output) || options.wantsPNG(output: output)
                                  || options.wantsY4M(output: output)) {
        return failed(FileError(path: output, reason: "--alpha keep writes raw layouts only (an A plane after the 4:2:0 planes)"))
    }
    func failed(_ e: FileError) -> Outcome {
        Outcome(record: ImageRecord(file: name, error: e.reason, report: nil, quality: nil,
                                    alignment: options.alignment, peakRSS: 0), failure: e)
    }
    // Check the output first, so a refused overwrite costs no decoding.
    let sink: AtomicOutput
    do {
        sink = try AtomicOutput(path: output, force: options.force, inputs: [input])
    } catch {
        return failed(FileError(path: output, error))
    }
    let jpeg = options.wantsJPEG(output: output)
    // A JPEG is JFIF: its planes are BT.601 full range whatever was asked.
    let spec = jpeg ? ConversionSpec(matrix: .bt601, range: .full) : options.spec
    let memory = (keepForReport && input != "-") || jpeg ? MemorySink() : nil
    let report: ConversionReport
    do throws(FileError) {
        if jpeg {
            report = try convert(path: input, spec: spec, layout: .yuv420p, into: memory!, options: decodeOptions)
            do throws(WriteError) {
                try sink.write(try encodeJPEG(memory!.image!, quality: options.quality))
            } catch {
                throw FileError(path: output, error)
            }
        } else {
            let out: BandSink = options.wantsPNG(output: output) ? PNGSink(output: sink, spec: spec)
                : OutputSink(output: sink, container: options.wantsY4M(output: output) ? .y4m(spec.range) : .raw,
                             alpha: options.alpha == .keep)
            report = try convert(path: input, spec: spec, layout: layout,
                                 into: memory.map { TeeSink(out, $0) } ?? out, options: decodeOptions)
        }
    } catch {
        sink.abort()
        return failed(error)
    }
    let peak = peakResidentBytes()
    do {
        try sink.commit()
    } catch {
        sink.abort()
        return failed(FileError(path: sink.isStandardOutput ? "<stdout>" : output, error))
    }
    if report.warnings > 0 && !options.quiet {
        printErr("yuvconv: warning: \(name): \(report.firstWarning)"
            + (report.warnings > 1 ? " (+\(report.warnings - 1) more)" : ""))
    }
    if !options.quiet && !options.batchQuietLines { printErr(summaryLine(name: name, report: report)) }
    var quality: QualityReport?
    if let image = memory?.image {
        do {
            quality = try measureQuality(path: input, image: image, spec: spec, options: decodeOptions)
        } catch {
            printErr("yuvconv: warning: \(name): quality not measured: \(error.reason)")
        }
    }
    return Outcome(record: ImageRecord(file: name, error: nil, report: report, quality: quality,
                                       alignment: options.alignment, peakRSS: peak), failure: nil)
}

/// Writes a report to its file (atomically), or to standard output — standard error when the converted
/// data is on standard output.
func emitReport(_ text: String, to sink: AtomicOutput?, dataOnStdout: Bool) throws(FileError) {
    if let sink {
        do {
            try sink.write(Array((text + "\n").utf8))
            try sink.commit()
        } catch {
            sink.abort()
            throw FileError(path: sink.path, error)
        }
    } else if dataOnStdout {
        fputs(text + "\n", stderr)
    } else {
        fputs(text + "\n", stdout)
        fflush(stdout)
    }
}

/// `yuvconv report FILE…`: convert each in memory, measure, print the report with totals. Exit 1 when any
/// file failed (it is still listed, with its reason).
func runReport(_ options: Options) -> Int32 {
    guard !options.inputs.isEmpty else {
        printErr("yuvconv: error: report needs at least one file\nTry 'yuvconv --help'.")
        return 2
    }
    if options.output != nil {
        printErr("yuvconv: error: report writes no image; use --report-file for the report\nTry 'yuvconv --help'.")
        return 2
    }
    installSignalCleanup()
    let layout = options.layout ?? .nv12
    let decodeOptions = DecodeOptions(maxPixels: options.maxPixels, allowTruncated: options.allowTruncated,
                                      jpegPath: options.jpegPath, alpha: options.alpha,
                                      orientation: options.orientation)
    var reportSink: AtomicOutput?
    if let file = options.reportFile {
        do {
            reportSink = try AtomicOutput(path: file, force: options.force, inputs: options.inputs)
        } catch {
            printErr("yuvconv: error: \(FileError(path: file, error))")
            return 1
        }
    }
    var records: [ImageRecord] = []
    var failed = false
    for input in options.inputs {
        let name = input == "-" ? "<stdin>" : input
        do {
            let memory = MemorySink()
            let report = try convert(path: input, spec: options.spec, layout: layout, into: memory, options: decodeOptions)
            let peak = peakResidentBytes()
            var quality: QualityReport?
            if input != "-" {
                quality = try measureQuality(path: input, image: memory.image!, spec: options.spec, options: decodeOptions)
            }
            records.append(ImageRecord(file: name, error: nil, report: report, quality: quality,
                                       alignment: options.alignment, peakRSS: peak))
        } catch {
            failed = true
            printErr("yuvconv: error: \(error)")
            records.append(ImageRecord(file: name, error: error.reason, report: nil, quality: nil,
                                       alignment: options.alignment, peakRSS: 0))
        }
    }
    do {
        try emitReport(renderReport(records, format: options.reportFormat ?? .text), to: reportSink, dataOnStdout: false)
    } catch {
        printErr("yuvconv: error: \(error)")
        return 1
    }
    return failed ? 1 : 0
}

exit(run(Array(CommandLine.arguments.dropFirst())))

/// YUV in (raw planes or Y4M), re-encoded: another layout, Y4M, PNG (through the exact inverse of the
/// input's matrix and range) or JPEG (BT.601 full range planes; other inputs go through the exact inverse
/// and the exact forward conversion, two roundings).
func runRawInput(_ options: Options) -> Int32 {
    let input = options.inputs[0]
    guard let output = options.output else {
        printErr("yuvconv: error: no output given (-o PATH, or -o - for stdout)\nTry 'yuvconv --help'.")
        return 2
    }
    let name = input == "-" ? "<stdin>" : input
    let layout: PixelLayout
    do throws(UsageError) { layout = try options.resolvedLayout(output: output) } catch {
        printErr("yuvconv: error: \(error.message)\nTry 'yuvconv --help'.")
        return 2
    }
    installSignalCleanup()
    do throws(FileError) {
        var image: YUVImage
        var spec = options.spec
        if RawInput.isY4M(path: input) {
            let (img, range) = try RawInput.readY4M(path: input, maxPixels: options.maxPixels)
            image = img
            if let range { spec.range = range }
        } else {
            guard let size = options.inputSize else {
                printErr("yuvconv: error: \(name): raw YUV needs --size WxH\nTry 'yuvconv --help'.")
                return 2
            }
            var inLayout = options.inputLayout ?? .nv12
            if options.inputLayout == nil, let dot = input.lastIndex(of: "."),
               let l = PixelLayout(fileExtension: String(input[input.index(after: dot)...])) { inLayout = l }
            image = try RawInput.read(path: input, width: size.width, height: size.height, layout: inLayout,
                                      maxPixels: options.maxPixels)
        }
        let sink: AtomicOutput
        do { sink = try AtomicOutput(path: output, force: options.force, inputs: [input]) } catch {
            throw FileError(path: output, error)
        }
        do throws(WriteError) {
            if options.wantsJPEG(output: output) {
                var planes = RawInput.repack(image, to: .yuv420p)
                if spec != ConversionSpec(matrix: .bt601, range: .full) {
                    planes = reconvert(planes, from: spec, to: ConversionSpec(matrix: .bt601, range: .full))
                }
                try sink.write(try encodeJPEG(planes, quality: options.quality))
            } else if options.wantsPNG(output: output) {
                try RawInput.emit(RawInput.repack(image, to: .yuv420p), into: PNGSink(output: sink, spec: spec))
            } else {
                let container: OutputSink.Container = options.wantsY4M(output: output) ? .y4m(spec.range) : .raw
                try RawInput.emit(RawInput.repack(image, to: layout), into: OutputSink(output: sink, container: container))
            }
            try sink.commit()
        } catch {
            sink.abort()
            throw FileError(path: output, error)
        }
        if !options.quiet {
            printErr("\(name): \(image.width)x\(image.height) YUV \(image.layout.rawValue) (\(spec)) -> \(output == "-" ? "<stdout>" : output)")
        }
        return 0
    } catch {
        printErr("yuvconv: error: \(error)")
        return 1
    }
}

/// A yuv420p picture in one matrix and range to another: the exact inverse to 8-bit RGB, then the exact
/// conversion (two roundings).
func reconvert(_ image: YUVImage, from: ConversionSpec, to: ConversionSpec) -> YUVImage {
    let w = image.width, h = image.height
    var rgb = [UInt8](repeating: 0, count: 3 * w * h)
    var src = image
    src.bytes.withUnsafeMutableBufferPointer { b in
        rgb.withUnsafeMutableBufferPointer { r in
            YUVToRGB(spec: from).convertRows(PlaneTargets(picture: b.baseAddress!, width: w, height: h, layout: .yuv420p),
                                             first: 0, count: h, into: r.baseAddress!, stride: 3 * w)
        }
    }
    return rgb.withUnsafeBytes {
        RGBToYUV420(spec: to, source: .rgb8).convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .yuv420p)
    }
}
