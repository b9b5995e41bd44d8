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
    let g = r.geometry, layout = r.layout.rawValue
    let saving = Saving(baseline: g.rgbaBytes, ours: g.tightBytes)
    return "\(name): \(g.width)x\(g.height) \(r.info.container.rawValue) \(r.info.sampling) -> \(layout) "
        + "(\(r.spec)): RGBA \(formatBytes(g.rgbaBytes)), \(layout) \(formatBytes(g.tightBytes)), "
        + "saves \(formatBytes(saving.bytes)) (\(formatFixed(saving.percent, decimals: 1))%); "
        + "\(r.path), buffers \(formatBytes(r.ledgerPeakBytes)), peak RSS \(formatBytes(peakResidentBytes()))"
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
    let input: String, output: String, layout: PixelLayout
    do throws(UsageError) {
        guard let first = options.inputs.first else { throw UsageError(message: "no input given") }
        guard options.inputs.count == 1 else {
            throw UsageError(message: "one input at a time (got \(options.inputs.count))")
        }
        guard let out = options.output else { throw UsageError(message: "no output given (-o PATH, or -o - for stdout)") }
        if out == "-" && isatty(STDOUT_FILENO) != 0 {
            throw UsageError(message: "refusing to write binary YUV to a terminal; redirect it or name a file")
        }
        input = first
        output = out
        layout = try options.resolvedLayout(output: out)
    } catch {
        printErr("yuvconv: error: \(error.message)\nTry 'yuvconv --help'.")
        return 2
    }
    installSignalCleanup()
    do {
        // Check the output first, so a refused overwrite costs no decoding.
        let sink: AtomicOutput
        do {
            sink = try AtomicOutput(path: output, force: options.force, inputs: [input])
        } catch {
            throw FileError(path: output, error)
        }
        let report: ConversionReport
        do {
            report = try convert(path: input, spec: options.spec, layout: layout, into: OutputSink(output: sink),
                                 options: DecodeOptions(maxPixels: options.maxPixels,
                                                        allowTruncated: options.allowTruncated,
                                                        jpegPath: options.jpegPath))
        } catch {
            sink.abort()
            throw error
        }
        do {
            try sink.commit()
        } catch {
            sink.abort()
            throw FileError(path: sink.isStandardOutput ? "<stdout>" : output, error)
        }
        let name = input == "-" ? "<stdin>" : input
        if report.warnings > 0 && !options.quiet {
            printErr("yuvconv: warning: \(name): \(report.firstWarning)"
                + (report.warnings > 1 ? " (+\(report.warnings - 1) more)" : ""))
        }
        if !options.quiet { printErr(summaryLine(name: name, report: report)) }
        return 0
    } catch {
        printErr("yuvconv: error: \(error)")
        return 1
    }
}

exit(run(Array(CommandLine.arguments.dropFirst())))
