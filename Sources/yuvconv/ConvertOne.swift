#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

// One file converted to one output: what a single conversion and each item of a batch do.

/// What converting one file came to.
struct Outcome {
    var record: ImageRecord
    var failure: FileError?
    /// Kept as up to date by `--update` (its record from the manifest), not converted.
    var skipped = false
    /// With `--update`: the manifest's new entry for the output named (a failed conversion has none: its line stays).
    var manifestChange: (name: String, entry: ManifestEntry?)?
    /// A signal came before it started (while `--update` hashed its input or output): counted as not started,
    /// nothing recorded, its manifest entry as it was.
    var notStarted = false
    /// The run starts no more files after this one, for this reason (`--update`'s journal could not be kept).
    var stopsRun: String?

    static func notStarted(_ input: String) -> Outcome {
        var o = Outcome(record: ImageRecord(file: displayPath(input), error: nil, report: nil, quality: nil, alignment: 1,
                                            peakRSS: 0), failure: nil)
        o.notStarted = true
        return o
    }

    /// A file that failed: its record says why.
    static func failed(_ input: String, _ error: FileError, alignment: Int) -> Outcome {
        // A failure of the output (a folder at its name, a full disk) names it: the line is the input's.
        let why = error.path == input ? error.cliReason : error.cli
        return Outcome(record: ImageRecord(file: displayPath(input), error: why, report: nil, quality: nil,
                                    alignment: alignment, peakRSS: 0), failure: error)
    }
}

/// Converts `input` to `output` (atomically), prints its line unless quiet, and measures it when a report
/// wants it. Never throws: a failure is part of the outcome. Files in `protected` (every input of the run)
/// are never written. The output is hashed as it is written for a report that shows the hash (JSON, CSV) and for
/// `--update`'s manifest only: SHA-256 costs about a fifth of a JPEG's conversion.
/// `before`: what a batch's plan saw at the output (`AtomicOutput.Before`).
/// `beforeNaming`: told the output's report and digest just before the output is named
/// (`AtomicOutput.beforeNaming`: `--update`'s journal); what it returns, if anything, fails the output unnamed.
func convertOne(input: String, output: String, format: OutputFormat, options: Options, protected: any FileIdentitySet,
                keepForReport: Bool, before: AtomicOutput.Before = .unknown,
                beforeNaming: ((ConversionReport, OutputDigest) -> String?)? = nil) -> Outcome {
    let name = displayPath(input)
    var decodeOptions = options.decodeOptions
    decodeOptions.listed = protected
    func failed(_ e: FileError) -> Outcome { .failed(input, e, alignment: options.reportAlignment) }
    // The whole job under one admission (`Ledger.beginWork`): the conversion, the JPEG encoder's picture and
    // buffers, the commit, sharp chroma's second reading — another job never takes the room meanwhile. Not
    // admitted, the conversion asks again and fails with the reason.
    let admitted = Ledger.beginWork()
    defer { if admitted { Ledger.endWork() } }
    // Check the output first, so a refused overwrite costs no decoding.
    let sink: AtomicOutput
    do {
        sink = try AtomicOutput(path: output, force: options.force, inputs: [input], protected: protected,
                                hashing: (keepForReport && options.reportFormat?.showsOutputDigest == true) || options.update,
                                before: before)
    } catch {
        // In a batch the failure is listed under its input, as every other one is (`in/a.png: cannot write out/a.nv12:
        // no process opened the FIFO to read it within 5 s`); a single conversion's refusal names its output alone.
        return failed(options.inBatch ? FileError(input: input, writing: output, error) : FileError(output: output, error))
    }
    // A JPEG is JFIF: its planes are BT.601 full range whatever was asked; JPEG and PNG are centre-sited.
    let (spec, siting) = options.made(for: format)
    // PSNR and SSIM only with --metrics: measured as the bands stream (no second decode, no whole picture; sharp
    // chroma's comparison with the box reads the file again, below).
    let measure = keepForReport && options.metrics
    var memory = format == .jpeg ? MemorySink(fitting: .jpeg) : nil
    var report: ConversionReport
    do throws(FileError) {
        let out: BandSink?
        switch format {
        case .jpeg: out = nil
        case .png: out = PNGSink(output: sink, spec: spec, primaries: decodeOptions.target(for: spec))
        case .y4m: out = OutputSink(output: sink, container: .y4m(spec.range, siting))
        case .raw: out = OutputSink(output: sink, container: .raw)
        }
        let into: BandSink = out.map { o in memory.map { TeeSink(o, $0) } ?? o } ?? memory!
        report = try convert(path: input, spec: spec, layout: options.layout(for: format), into: into, options: decodeOptions,
                             alignment: format.isRaw ? options.fileAlignment : 1,
                             heightAlignment: format.isRaw ? options.heightAlignment : 1, metrics: measure,
                             siting: siting,
                             outputName: output)
        if format == .jpeg {
            do throws(WriteError) {
                try encodeJPEG(memory!.image!, quality: options.quality, primaries: report.primaries) {
                    (part: UnsafeRawBufferPointer) throws(WriteError) in try sink.write(part)
                }
            } catch {
                throw FileError(input: input, writing: output, error)
            }
            memory = nil   // the picture held for the encoder
        }
    } catch {
        sink.abort()
        return failed(error)
    }
    if let beforeNaming { sink.beforeNaming = { [report] in beforeNaming(report, $0) } }
    do {
        try sink.commit()
    } catch {
        sink.abort()
        return failed(FileError(input: input, writing: output, error))
    }
    // Read after the last allocation of this conversion (the JPEG encoder's included).
    let peak = peakResidentBytes()
    // Sharp chroma's gain over the box: the file read and measured again, now that this conversion is written and
    // what it held released. The output is whole: a signal meanwhile leaves the figure out, not the file.
    if measure, let box = try? boxBilinearPSNR(path: input, report: report, spec: spec, layout: options.layout(for: format),
                                               options: decodeOptions, siting: siting) {
        report.quality?.psnrRGBBilinearBox = box
    }
    warnAboutDecoding(name: name, report: report)
    var record = options.record(file: name, report: report, quality: report.quality, peakRSS: peak, format: format)
    // A raw output padded by --align/--align-height: its file's size too (the line's figure is the tight planes').
    let padded = record.filePadded ? record.alignedBytes : nil
    let line = { summaryLine(name: name, report: report, processPeak: !options.inBatch, padded: padded) }
    if !options.quiet && !options.batchQuietLines { printErr(line()) }
    if !options.quiet && options.batchQuietLines && options.verbose { printAboveProgress(line()) }
    record.output = sink.digest
    record.outputPath = sink.isStandardOutput ? "-" : displayPath(output)
    return Outcome(record: record, failure: nil)
}
