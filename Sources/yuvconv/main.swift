#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

let version = "0.2.0"

/// Every message goes out here, so no text in one — an option's value, an environment variable, a decoder's
/// or a file's words — can drive the terminal: control characters other than the newlines and tabs of the
/// message's own layout are shown as \xNN (file names are escaped where they are named, `displayPath`).
func printErr(_ s: String) {
    fputs(PathBytes.escapingControls(s) + "\n", stderr)
}

/// The per-image line: size, source sampling, the memory it costs as RGBA against the YUV layout, and
/// what the conversion itself used — with the process's peak for a single conversion only (in a batch that
/// would be the peak so far, not the image's).
func summaryLine(name: String, report r: ConversionReport, processPeak: Bool = true) -> String {
    let g = r.geometry, layout = r.layout.rawValue + (r.alphaBytes > 0 ? "+A" : "")
    let yuv = FrameLayout(width: g.width, height: g.height, pixelLayout: r.layout).byteCount + r.alphaBytes
    let saving = Saving(baseline: g.rgbaBytes, ours: yuv)
    return "\(name): \(g.width)x\(g.height) \(r.info.container.rawValue) \(r.info.sampling) -> \(layout) "
        + "(\(r.spec)): RGBA \(formatBytes(g.rgbaBytes)), \(layout) \(formatBytes(yuv)), "
        + "saves \(formatBytes(saving.bytes)) (\(formatFixed(saving.percent, decimals: 1))%); "
        + (r.colour.map { "\($0), " } ?? "")
        + "\(r.path)" + (r.chromaFilter == .sharp ? ", sharp chroma" : "")
        + (r.orientation.isIdentity ? "" : ", " + r.orientationText)
        + ", buffers \(formatBytes(r.ledgerPeakBytes))" + (processPeak ? ", peak RSS \(formatBytes(peakResidentBytes()))" : "")
}

/// Prints a usage error with the hint to `--help`; exit status 2. The message is one line: a newline, carriage
/// return or tab in it comes from a value it quotes (an option's, an environment variable's) and is shown as
/// \xNN.
func usageFailure(_ message: String) -> Int32 {
    printErr("yuvconv: error: \(PathBytes.escapingControls(message, keepLayout: false))\nTry 'yuvconv --help'.")
    return 2
}

/// Two outputs of one run that reach one file (the report file and the converted image, say): a usage error.
func clashingOutputs(_ paths: [String]) -> (String, String)? {
    var seen: [String: String] = [:]
    for p in paths {
        let key = outputKey(p)
        if let other = seen[key] { return (other, p) }
        seen[key] = p
    }
    return nil
}

/// A file this run replaces (through a temporary file renamed over it) that standard output or error is open
/// on: what was written there would go to the replaced file and be lost (`-o x.nv12 --force 2>x.nv12`).
/// The usage error's text, or nil.
func replacedStandardStream(_ paths: [String]) -> String? {
    let streams = [(outputKey("-"), "standard output"), (outputKey("/dev/stderr"), "standard error")].filter { $0.0.hasPrefix("id:") }
    for p in paths where AtomicOutput.standardDescriptor(p) == nil {
        let key = outputKey(p)
        if let (_, name) = streams.first(where: { $0.0 == key }) {
            return "\(displayOutputPath(p)) is the file \(name) is open on: what is written there would be lost"
        }
    }
    return nil
}

/// Points standard error at /dev/null: when nothing may be written there (it is an input, or a disk, or the
/// data's own file), the exit status alone speaks.
func silenceStandardError() {
    let null = open("/dev/null", O_WRONLY)
    if null >= 0 { dup2(null, STDERR_FILENO); close(null) }
}

/// Every entry point's check of the standard streams before any work, beside `refuseInputsAsStandardStreams`:
/// what the run writes to a standard stream (`written`: standard output for data or a report, standard error
/// for a report beside data on standard output) may not go over a disk or over a file's bytes from its
/// position on (`AtomicOutput.overwrites`) without `force`; data on a descriptor (`dataDescriptor`) may not
/// share its file or pipe with standard error (`> f 2>&1`: messages inside the picture) — with `quiet` standard
/// error is then silenced, so only the data and the exit status go out; and no file the run replaces
/// (`replaced`: outputs by name, the report file, the manifest) may be one a standard stream is open on.
/// Prints the usage error and gives its status, or nil.
func refuseStandardStreamHazards(written: [Int32], dataDescriptor: Int32? = nil, force: Bool, quiet: Bool = false,
                                 replaced: [String]) -> Int32? {
    // Data named onto standard error itself (`-o /dev/stderr`, `/dev/fd/2`): every message would land in it,
    // warnings before the picture and the per-image line after. With -q every message is silenced instead
    // (`dataAwayFromMessages`), as for data on standard output that standard error shares.
    // Closed at start, it is /dev/null now (`protectStandardDescriptors`): the picture would be lost, exit 0. Nothing
    // can say so there; the status does, as for a closed standard output.
    if dataDescriptor == STDERR_FILENO && standardDescriptorWasClosed(STDERR_FILENO) { return 1 }
    if dataDescriptor == STDERR_FILENO && !quiet {
        return usageFailure("the output is standard error, which carries yuvconv's messages: they would be mixed into "
                            + "the data (-q silences them all; or use -o - for standard output, or name a file)")
    }
    for fd in Set(written) where !force {
        guard let over = AtomicOutput.overwrites(descriptor: fd) else { continue }
        // Standard error itself cannot carry the message: silenced, the exit status (2) says it.
        if fd == STDERR_FILENO {
            silenceStandardError()
            return 2
        }
        let name = fd == STDOUT_FILENO ? "standard output" : "descriptor \(fd)"
        return usageFailure(over == .blockDevice ? "\(name) is a block device (a disk or partition); use --force to write over it"
                            : "\(name) is open on a file with data where writing would start; use --force to write over it")
    }
    if let fd = dataDescriptor, fd != STDERR_FILENO, let out = FileStatus(descriptor: fd),
       let err = FileStatus(descriptor: STDERR_FILENO), out.kind != .characterDevice, out.identity == err.identity {
        if !quiet {
            return usageFailure("standard error is the file or pipe the data goes to: messages would be mixed into it "
                                + "(send 2> elsewhere, or -q)")
        }
        silenceStandardError()
    }
    if let message = replacedStandardStream(replaced) { return usageFailure(message) }
    return nil
}

func run(_ args: [String]) -> Int32 {
    let options: Options
    do {
        options = try Options.parse(args)
    } catch {
        return usageFailure(error.message)
    }
    // --help, --version, --man and --completion print and convert nothing: a file named with them is a mistake
    // (`yuvconv --version photo.jpg`), not silently ignored.
    if (options.showHelp || options.showVersion || options.showMan || options.completionShell != nil),
       let extra = options.inputs.first {
        return usageFailure("\(options.showHelp ? "--help" : options.showVersion ? "--version" : options.showMan ? "--man" : "--completion") "
                            + "takes no file (got '\(displayPath(extra))')")
    }
    // What these print is the output asked for: lost to a standard output closed at start (reopened on
    // /dev/null, `protectStandardDescriptors`), it is an error, as data or a report there is.
    if options.showHelp || options.showVersion || options.showMan || options.completionShell != nil || options.dryRun,
       standardDescriptorWasClosed(STDOUT_FILENO) {
        printErr("yuvconv: error: <stdout>: standard output is closed")
        return 1
    }
    if options.showHelp {
        print(helpText)
        return 0
    }
    // A pin the CPU cannot honour is refused rather than quietly ignored: a benchmark or a test that asked
    // for a tier must not measure another.
    if let problem = CPUTier.environmentProblem { return usageFailure(problem) }
    if options.showVersion {
        let pinned = CPUTier.current != CPUTier.best ? ", pinned by YUVCONV_CPU" : ""
        print("yuvconv \(version)\nkernels: \(CPUTier.current) (this CPU runs up to \(CPUTier.best)\(pinned))")
        return 0
    }
    if options.showMan {
        print(manPage, terminator: "")
        return 0
    }
    if let shell = options.completionShell {
        print(completionScript(shell), terminator: "")
        return 0
    }
    // Before anything looks at standard input (sniffing a Y4M stream would wait there).
    if isatty(STDIN_FILENO) != 0, options.inputs.contains(where: readsStandardInput) {
        return usageFailure("standard input is a terminal, and a picture is not typed in: pipe or redirect one into it "
                            + "(yuvconv - -o out.nv12 < photo.jpg)")
    }
    if options.reportOnly { return runReport(options) }
    if options.isBatch { return runBatch(options) }
    if options.isRawInput { return runRawInput(options) }
    let input: String, output: String, format: OutputFormat
    do throws(UsageError) {
        guard let first = options.inputs.first else { throw UsageError(message: "no input given") }
        guard options.inputs.count == 1 else {
            throw UsageError(message: "one input at a time (got \(options.inputs.count)); `yuvconv report` takes many")
        }
        guard let out = options.output else { throw UsageError(message: "no output given (-o PATH, or -o - for stdout)") }
        try refuseTerminal(out)
        if options.reportFile != nil && options.reportFormat == nil {
            throw UsageError(message: "--report-file needs --report FORMAT")
        }
        if let file = options.reportFile, let (a, b) = clashingOutputs([out, file]) {
            throw UsageError(message: "-o \(displayOutputPath(a)) and --report-file \(displayOutputPath(b)) are the same file")
        }
        // Without a report file the report goes to standard output, or standard error when the data does
        // (`emitReport`): that stream may be the output too (`-o /dev/fd/5 5>&1`, `-o - 2>&1`).
        if options.reportFormat != nil, options.reportFile == nil {
            let stream = AtomicOutput.standardDescriptor(out) == STDOUT_FILENO ? "/dev/stderr" : "-"
            if clashingOutputs([out, stream]) != nil {
                let name = stream == "-" ? "standard output" : "standard error"
                throw UsageError(message: "-o \(displayOutputPath(out)) and the report on \(name) are the same file; name a --report-file")
            }
        }
        input = first
        output = out
        format = try options.outputFormat(for: out)
    } catch {
        return usageFailure(error.message)
    }
    let protected = Set([inputIdentity(input)].compactMap { $0 })
    if let refused = refuseInputsAsStandardStreams(protected) { return refused }
    // The data's descriptor, when it goes to one; a report without a file goes to standard output, or to
    // standard error when the data is on standard output (`emitReport`).
    let dataDescriptor = AtomicOutput.standardDescriptor(output)
    let reportStream: [Int32] = options.reportFormat != nil && options.reportFile == nil
        ? [dataDescriptor == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO] : []
    if let refused = refuseStandardStreamHazards(written: (dataDescriptor.map { [$0] } ?? []) + reportStream,
                                                 dataDescriptor: dataDescriptor, force: options.force, quiet: options.quiet,
                                                 replaced: [output] + (options.reportFile.map { [$0] } ?? [])) {
        return refused
    }
    let written = options.quiet ? dataAwayFromMessages(output) : output
    // After the checks above, which silence standard error when it is the data's file (`-o - -q > f 2>&1`,
    // `-o /dev/stderr -q`): a warning printed before them went into the picture.
    warnIgnoredOptions(options, format: format, rawInput: false, single: true,
                       pngInput: RawInput.head(input, 8).starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    if options.dryRun { return dryRunOne(input: input, output: output, format: format, options: options, protected: protected) }
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    // The report on standard error (beside the data on standard output, or `--report-file /dev/stderr`): the
    // per-image line is left out there (the report says the same), so that what follows the warnings is the
    // report alone.
    var single = options
    if reportStream == [STDERR_FILENO] || options.reportFile.flatMap(AtomicOutput.standardDescriptor) == STDERR_FILENO {
        single.quiet = true
    }
    let outcome = convertOne(input: input, output: written, format: format, options: single, protected: protected,
                             keepForReport: options.reportFormat != nil)
    if let failure = outcome.failure { printErr("yuvconv: error: \(failure.cli)") }
    // The report lists a failed file too (its line with the reason, and the totals), as a batch's does.
    guard let format = options.reportFormat else { return outcome.failure == nil ? 0 : 1 }
    do {
        try emitReport(renderReport([outcome.record], format: format), to: reportSink,
                       dataOnStdout: AtomicOutput.standardDescriptor(output) == STDOUT_FILENO)
    } catch {
        printErr("yuvconv: error: \(error.cli)")
        return 1
    }
    return outcome.failure == nil ? 0 : 1
}

/// Prints the warnings for options that do nothing here (with -q too: -q drops the per-image lines only).
func warnIgnoredOptions(_ options: Options, format: OutputFormat, rawInput: Bool, single: Bool = false, pngInput: Bool = false) {
    for w in options.ignoredOptionWarnings(format: format, rawInput: rawInput, single: single, pngInput: pngInput) {
        printErr("yuvconv: warning: \(w)")
    }
}

/// What the decoder tolerated or could not apply (a damaged chunk, a profile not applied): its first warning
/// and how many more, for `convert` and `report` alike. With -q too: -q silences the per-image line, not what
/// went wrong.
func warnAboutDecoding(name: String, report: ConversionReport) {
    guard report.warnings > 0 else { return }
    printErr("yuvconv: warning: \(name): \(report.firstWarning)" + (report.warnings > 1 ? " (+\(report.warnings - 1) more)" : ""))
}

/// Standard output or standard error that is one of the inputs (`1<>in.png`, `2>>in.png`): what yuvconv writes
/// there — converted data, a report, its lines and messages — would overwrite or extend that input. The one
/// place that refuses it, before any work, for every command. A message about standard error cannot go to
/// standard error either, so it is pointed at /dev/null and the exit status (1) alone says it.
func refuseInputsAsStandardStreams(_ protected: any FileIdentitySet) -> Int32? {
    for fd in [STDERR_FILENO, STDOUT_FILENO] {
        guard AtomicOutput.isOpen(onInput: fd, { protected.contains($0) }) else { continue }
        if fd == STDERR_FILENO {
            silenceStandardError()
            return 1
        }
        printErr("yuvconv: error: standard output is an input file; refusing to overwrite an input")
        return 1
    }
    return nil
}

/// `-o /dev/stderr -q`: the data goes to standard error's file through a descriptor of its own, and standard
/// error is silenced (every message, warnings and errors too), so that only the data and the exit status go
/// out. Any other output is returned as it is.
func dataAwayFromMessages(_ output: String) -> String {
    guard AtomicOutput.standardDescriptor(output) == STDERR_FILENO else { return output }
    let fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
    guard fd >= 0 else { return output }
    silenceStandardError()
    return "/dev/fd/\(fd)"
}

/// Binary data is not for a terminal: standard output or a descriptor on one, or the user's terminal named as
/// the output (`-o /dev/tty`, or the `/dev/pts/N` a standard stream is on). Other devices are not opened to ask
/// (opening a serial port resets the board on it): a terminal is known by its device number, the one the
/// standard streams show, or /dev/tty's.
func refuseTerminal(_ output: String) throws(UsageError) {
    func device(_ p: String) -> dev_t? {
        var st = stat()
        return withFileSystemPath(p, { stat($0, &st) }) == 0 && (st.st_mode & S_IFMT) == S_IFCHR ? st.st_rdev : nil
    }
    let onTerminal: Bool
    if let fd = AtomicOutput.standardDescriptor(output) {
        onTerminal = isatty(fd) != 0
    } else if let named = device(output) {
        let terminals = [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].compactMap { fd -> dev_t? in
            var st = stat()
            return isatty(fd) != 0 && fstat(fd, &st) == 0 ? st.st_rdev : nil
        }
        // /dev/tty (5, 0) under any name: `//dev/tty`, a link to it, a node made for it.
        onTerminal = named == device("/dev/tty") || terminals.contains(named)
    } else {
        onTerminal = false
    }
    if onTerminal {
        throw UsageError(message: "refusing to write binary data to a terminal; redirect it or name a file")
    }
}

/// What converting one file came to.
struct Outcome {
    var record: ImageRecord
    var failure: FileError?
    /// Kept as up to date by `--update` (its record from the manifest), not converted.
    var skipped = false
    /// With `--update`: the manifest's new entry for the output named, or nil to drop it (a failed conversion).
    var manifestChange: (name: String, entry: ManifestEntry?)?
    /// A signal came before it started (while `--update` hashed its input or output): counted as not started,
    /// nothing recorded, its manifest entry as it was.
    var notStarted = false

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
/// are never written. The output is hashed as it is written for a report and for `--update`'s manifest
/// only: SHA-256 costs about as much again as the conversion.
func convertOne(input: String, output: String, format: OutputFormat, options: Options, protected: any FileIdentitySet,
                keepForReport: Bool) -> Outcome {
    let name = displayPath(input)
    let decodeOptions = options.decodeOptions
    func failed(_ e: FileError) -> Outcome { .failed(input, e, alignment: options.reportAlignment) }
    // Check the output first, so a refused overwrite costs no decoding.
    let sink: AtomicOutput
    do {
        sink = try AtomicOutput(path: output, force: options.force, inputs: [input], protected: protected,
                                hashing: keepForReport || options.update)
    } catch {
        return failed(FileError(output: output, error))
    }
    // A JPEG is JFIF: its planes are BT.601 full range whatever was asked.
    let spec = format == .jpeg ? ConversionSpec(matrix: .bt601, range: .full) : options.spec
    // PSNR and SSIM only with --metrics: measured as the bands stream (no second decode, no whole picture).
    let measure = keepForReport && options.metrics
    let memory = format == .jpeg ? MemorySink(fitting: .jpeg) : nil
    let report: ConversionReport
    do throws(FileError) {
        let out: BandSink?
        switch format {
        case .jpeg: out = nil
        case .png: out = PNGSink(output: sink, spec: spec, primaries: decodeOptions.target(for: spec))
        case .y4m: out = OutputSink(output: sink, container: .y4m(spec.range, options.siting ?? .center))
        case .raw: out = OutputSink(output: sink, container: .raw)
        }
        let into: BandSink = out.map { o in memory.map { TeeSink(o, $0) } ?? o } ?? memory!
        report = try convert(path: input, spec: spec, layout: options.layout(for: format), into: into, options: decodeOptions,
                             alignment: format.isRaw ? options.fileAlignment : 1,
                             heightAlignment: format.isRaw ? options.heightAlignment : 1, metrics: measure,
                             siting: format == .jpeg || format == .png ? .center : options.siting ?? .center,
                             outputName: output)
        if format == .jpeg {
            do throws(WriteError) {
                try sink.write(try encodeJPEG(memory!.image!, quality: options.quality, primaries: decodeOptions.target(for: spec)))
            } catch {
                throw FileError(input: input, writing: output, error)
            }
        }
    } catch {
        sink.abort()
        return failed(error)
    }
    do {
        try sink.commit()
    } catch {
        sink.abort()
        return failed(FileError(input: input, writing: output, error))
    }
    // Read after the last allocation of this conversion (the JPEG encoder's included).
    let peak = peakResidentBytes()
    warnAboutDecoding(name: name, report: report)
    let line = { summaryLine(name: name, report: report, processPeak: !options.inBatch) }
    if !options.quiet && !options.batchQuietLines { printErr(line()) }
    if !options.quiet && options.batchQuietLines && options.verbose { printAboveProgress(line()) }
    var record = options.record(file: name, report: report, quality: report.quality, peakRSS: peak, format: format)
    record.output = sink.digest
    record.outputPath = sink.isStandardOutput ? "-" : displayPath(output)
    return Outcome(record: record, failure: nil)
}

/// Writes a report to its file (atomically), or to standard output — standard error when the converted
/// data is on standard output. A report that cannot be written (standard output closed, a full disk,
/// `/dev/full`) is an error, never silently lost.
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
        if standardDescriptorWasClosed(STDOUT_FILENO) {
            throw FileError(path: "<stdout>", reason: "cannot write the report: standard output is closed")
        }
        clearerr(stdout)
        if fputs(text + "\n", stdout) < 0 || fflush(stdout) != 0 || ferror(stdout) != 0 {
            throw FileError(path: "<stdout>", reason: "cannot write the report: \(String(cString: strerror(errno)))")
        }
    }
}

// Descriptors 0–2 first: nothing opened later may land on a closed one.
protectStandardDescriptors()
// Too tight an address-space limit to start: said with a literal (no allocation), exit 1, not a trap later.
if !prepareForAddressSpaceLimit() {
    fputs("yuvconv: error: out of memory: the address-space limit (ulimit -v) leaves too little to start\n", stderr)
    exit(1)
}
// A closed pipe is a write error (EPIPE, exit 1 with a message), from the first byte: `--help | head -1`, a
// dry run piped into `grep -q` were ended by SIGPIPE before the signal handlers were installed.
signal(SIGPIPE, SIG_IGN)
// SIGINT and SIGTERM are honoured from the start, also when the parent ignores them (a background job of a
// script: `yuvconv … &` inherits SIGINT ignored): a batch still reading a large manifest or walking folders took
// no notice of SIGINT until its first file. The one place the command installs them (AtomicOutput does it for
// programs using the library).
installSignalCleanup()
// Memory refused for a conversion's buffers (an address-space limit): an error naming the file, its temporary
// files removed, exit 1 — not a trap.
Ledger.exhausted = { bytes in
    let file = currentInputName().map { $0 + ": " } ?? ""
    printErr("yuvconv: error: \(file)" + Ledger.outOfMemory(bytes, for: "the conversion's buffers")
             + " (an address-space limit such as ulimit -v may be too low)")
    removeTemporaryFiles()
    exit(1)
}
guard let arguments = processArguments() else {
    printErr("yuvconv: error: cannot read the command line (started without arguments, or without /proc where "
             + "the Swift runtime reads them)")
    exit(2)
}
var status = run(arguments)
// Whatever went to standard output must have arrived (`> /dev/full`).
if fflush(stdout) != 0 || ferror(stdout) != 0 {
    if status == 0 {
        printErr("yuvconv: error: <stdout>: write failed: \(String(cString: strerror(errno)))")
    }
    status = max(status, 1)
}
exit(status)
