#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVCore
import YUVIO
import YUVReport
import Synchronization

let version = "0.4.8"
/// The last version whose changes moved an output's bytes: `--update`'s options key carries it (not `version`), so a
/// release that writes the same bytes does not convert a whole folder again. Raise it with any change of bytes.
let outputBytesVersion = "0.4.8"

/// Every message goes out here, so no text in one — an option's value, an environment variable, a decoder's
/// or a file's words — can drive the terminal: control characters other than the newlines and tabs of the
/// message's own layout are shown as \xNN (file names are escaped where they are named, `displayPath`).
func printErr(_ s: String) {
    let text = PathBytes.escapingControls(s) + "\n"
    // Held until the run knows whether standard error is one of its inputs (`heldMessages`).
    if holdMessage(text) { return }
    // While a batch's progress line is in use on a terminal: the line cleared first (a warning began on its end),
    // and the next `Progress.show` draws it again below — under its lock, so that no job's `show` draws it between
    // the clearing and the text. (Nothing run under that lock prints through printErr: `show`, `finish`,
    // `printAboveProgress` and `clearingProgress`'s report writes write directly.)
    if progressActive.load(ordering: .sequentiallyConsistent) {
        progressOutput.withLock { _ in
            if progressLineShown.load(ordering: .relaxed) {
                writeStandardError("\r\u{1B}[K")
                progressLineShown.store(false, ordering: .relaxed)
            }
            writeStandardError(text)
        }
        return
    }
    writeStandardError(text)
}

/// Every message's (and a report's there) one way to standard error: whole (a non-blocking, full pipe waited
/// for: `writeWhole`), one at a time (lines of the jobs never mixed, as stdio's lock kept them). 0, or the errno.
let standardErrorLock = Mutex(())
@discardableResult
func writeStandardError(_ text: String) -> Int32 {
    standardErrorLock.withLock { _ in Array(text.utf8).withUnsafeBytes { writeWhole(STDERR_FILENO, $0) } }
}

/// The per-image line: size, source sampling, the memory it costs as RGBA against the YUV layout, and
/// what the conversion itself used — with the process's peak for a single conversion only (in a batch that
/// would be the peak so far, not the image's).
/// `padded`: the size of the file written with `--align`/`--align-height` padding (nil: none), said beside the
/// tight size the saving is of.
func summaryLine(name: String, report r: ConversionReport, processPeak: Bool = true, padded: Int? = nil) -> String {
    let g = r.geometry, layout = r.layout.rawValue + (r.alphaBytes > 0 ? "+A" : "")
    let yuv = FrameLayout(width: g.width, height: g.height, pixelLayout: r.layout).byteCount + r.alphaBytes
    let saving = Saving(baseline: g.rgbaBytes, ours: yuv)
    let file = padded.map { " (the file \(formatBytes($0)), padded)" } ?? ""
    return "\(name): \(g.width)x\(g.height) \(r.info.container.rawValue) \(r.info.sampling) -> \(layout) "
        + "(\(r.spec)): RGBA \(formatBytes(g.rgbaBytes)), \(layout) \(formatBytes(yuv))\(file), "
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

/// Whether a single conversion writing `output` is refused for where its data and report go, whatever its input
/// holds — the output and the report one file (`--report-file` the output, or the report on the standard stream the
/// data takes: `-o - --report json > f 2>&1`), the data on standard error or its file without -q (`-o /dev/stderr`,
/// `-o - > f 2>&1`), or a standard stream on a file with data where writing would start, without --force — as the
/// image route refuses it next (`refuseStandardStreamHazards` and the checks before it).
/// Such a run opens no stream input: a waiting writer was let in, then cut off.
func refusedForItsStreams(_ options: Options, output: String) -> Bool {
    let data = AtomicOutput.standardDescriptor(output)
    let reportStream = options.reportFormat != nil && options.reportFile == nil
    if let report = options.reportFile ?? (reportStream ? (data == STDOUT_FILENO ? "/dev/stderr" : "-") : nil),
       clashingOutputs([output, report]) != nil {
        return true
    }
    // The data on standard error, or on the file standard error is open on, with messages to say (not -q).
    if !options.quiet, let fd = data {
        if fd == STDERR_FILENO { return true }
        if let out = FileStatus(descriptor: fd), let err = FileStatus(descriptor: STDERR_FILENO), out.kind != .characterDevice,
           out.identity == err.identity {
            return true
        }
    }
    var written = data.map { [$0] } ?? []
    if reportStream { written.append(data == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO) }
    if let file = options.reportFile, let d = AtomicOutput.standardDescriptor(file) { written.append(d) }
    return !options.force && written.contains { AtomicOutput.overwrites(descriptor: $0) != nil }
}

/// One file with `-o` an existing folder (or `DIR/`) is a batch, and a batch takes JPEG and PNG: raw YUV or a Y4M
/// file there failed with the advice to name the file and `-o` it — which the user had done. Said as what it is.
func refuseYUVIntoFolder(_ o: Options) -> Int32? {
    guard o.inputs.count == 1, o.filesFrom == nil, o.shard == nil, let out = o.output, out != "-",
          let input = o.inputs.first, input != "-", FileStatus(path: input)?.kind == .regular else { return nil }
    let exists = FileStatus(path: out)?.kind == .directory
    guard exists || out.unicodeScalars.last == "/", o.isRawInput else { return nil }
    let kind = RawInput.isY4M(path: input) ? "a Y4M stream" : "raw YUV"
    // Split by scalar, as every path the tool splits (`pathParts`, `around(last:)`: BatchNames' `{stem}`).
    let folder = (out.isAbsolutePath ? "/" : "") + out.pathParts.joined(separator: "/")
    let base = input.pathParts.last ?? input
    let stem = base.around(last: ".").map(\.0).flatMap { $0.isEmpty ? nil : $0 } ?? base
    // The extension of the format asked for (-f nv21: .nv21), else a PNG's: a name that says what is written.
    let example = joinedPath(folder, stem + "." + (o.format?.fileExtension ?? "png"))
    return usageFailure("\(displayPath(input)) is \(kind), which converts to one named file, and -o \(displayOutputPath(out)) "
                        + (exists ? "is a folder" : "names a folder (it ends in /)") + " (a batch, which takes JPEG and PNG): "
                        + "name the file, e.g. -o \(displayOutputPath(example))" + (exists ? "" : ", once the folder exists"))
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

func run(_ args: [String]) -> Int32 {
    let options: Options
    do {
        options = try Options.parse(args)
    } catch {
        return usageFailure(error)
    }
    // --help, --version, --man and --completion print and convert nothing: a file named with them is a mistake
    // (`yuvconv --version photo.jpg`), not silently ignored.
    // The runs that print text on standard output and convert nothing: help, version, man page, completion script,
    // and a dry run's listing.
    let informational = options.showHelp || options.showVersion || options.showMan || options.completionShell != nil
    let printsListing = informational || options.dryRun
    if informational {
        let which = options.showHelp ? "--help" : options.showVersion ? "--version" : options.showMan ? "--man" : "--completion"
        if let extra = options.inputs.first { return usageFailure("\(which) takes no file (got '\(displayPath(extra))')") }
        // Nor a file named by an option: an output, a report file or a list (`--version -o x.nv12` exited 0, writing
        // nothing where a file was asked for).
        let named: [(String, String?)] = [("-o", options.output), ("--report-file", options.reportFile),
                                           ("--files-from", options.filesFrom)]
        if let (flag, path) = named.first(where: { $0.1 != nil }), let path {
            return usageFailure("\(which) takes no file (got \(flag) '\(path == "-" ? "-" : displayPath(path))')")
        }
        // Any other option does nothing here: said, as an option that does nothing for a conversion is.
        // The other three of these among them (`--version --help` printed the help alone, without a word).
        let quietOnes: Set<String> = [which, "--quiet", "--verbose", "--force"]
        let idle = options.given.subtracting(quietOnes).sorted()
        if !idle.isEmpty {
            printErr("yuvconv: warning: \(idle.joined(separator: ", ")) \(idle.count == 1 ? "does" : "do") nothing with \(which); "
                     + "\(idle.count == 1 ? "it is" : "they are") ignored")
        }
    }
    // What these print is the output asked for: lost to a standard output closed at start (reopened on
    // /dev/null, `protectStandardDescriptors`), it is an error, as data or a report there is.
    if printsListing, standardDescriptorWasClosed(STDOUT_FILENO) {
        printErr("yuvconv: error: <stdout>: standard output is closed")
        return 1
    }
    // Open for reading only, what they print cannot go there, --force or not (a dry run hashed and listed
    // everything, then failed on EBADF).
    if printsListing, let why = readOnlyProblem(STDOUT_FILENO) { return environmentFailure(why) }
    // Standard output open read-write on a file with data where writing starts (`1<>old`): written over only with
    // --force, which then cuts the file where this run's writing ends (at exit, below). Text the run prints there
    // (help, a dry run's listing) was written over the start of the file, its tail kept, without --force.
    if case .descriptorHasData? = AtomicOutput.overwrites(descriptor: STDOUT_FILENO) {
        if options.force {
            standardOutputReplaced.store(true, ordering: .relaxed)
        } else if printsListing {
            return usageFailure("standard output is open on a file with data where writing would start (\(standardOutputFileName)); "
                                + "use --force to write over it")
        }
    }
    if options.showHelp {
        printText(helpText + "\n")
        return 0
    }
    // The man page and completion scripts run no kernels: a CPU pin has nothing to say to them (a bad one
    // failed them, so a package build that pinned a tier could not make its man page).
    if options.showMan {
        printText(manPage)
        return 0
    }
    if let shell = options.completionShell {
        printText(completionScript(shell))
        return 0
    }
    // A pin the CPU cannot honour is refused rather than quietly ignored: a benchmark or a test that asked
    // for a tier must not measure another; --version, which names the tier in use, too.
    if let problem = CPUTier.environmentProblem { return usageFailure(problem) }
    if options.showVersion {
        // Pinned whenever YUVCONV_CPU names a tier, the best one included (`avx512` on a VNNI CPU said nothing).
        let pinned = getenv("YUVCONV_CPU").map { String(cString: $0).isEmpty } == false ? ", pinned by YUVCONV_CPU" : ""
        printText("yuvconv \(version)\nkernels: \(CPUTier.current) (this CPU runs up to \(CPUTier.best)\(pinned))\n")
        return 0
    }
    // Before anything looks at standard input (sniffing a Y4M stream would wait there).
    if isatty(STDIN_FILENO) != 0, options.inputs.contains(where: readsStandardInput) {
        return usageFailure("standard input is a terminal, and a picture is not typed in: pipe or redirect one into it "
                            + "(yuvconv - -o out.nv12 < photo.jpg)")
    }
    // A terminal named as an input (`/dev/tty`, `/dev/pts/N`, `/dev/console`) as `-` on one: a usage error, before any
    // work and in a dry run too (it was exit 1 at its open, and a dry run listed it as to convert).
    if let terminal = options.inputs.first(where: { !readsStandardInput($0) && namesTerminal($0) }) {
        return usageFailure("\(terminal) is a terminal, and a picture is not typed in: pipe or redirect one, or name a file")
    }
    if let refused = refuseReadingOwnStreams(options) { return refused }
    if options.reportOnly { return runReport(options) }
    if let refused = refuseYUVIntoFolder(options) { return refused }
    if options.isBatch { return runBatch(options) }
    // The route is chosen by the input's first bytes, a FIFO's or device's too (opened once, its bytes kept for
    // the reader) — when the run is to go ahead: not in a dry run, nor when its output or report file would be
    // refused (no -o, an unknown format, a terminal, a file there without --force, no folder), which would cut a
    // waiting writer off for nothing. (Both routes make these checks again, with their messages.)
    let inputIDs = Set(options.inputs.flatMap(inputIdentities))
    // (Sharp chroma's conflicts count here, though YUV input ignores them: a stream's kind is not known before
    // its first bytes, and a run the RGB route refuses must not take a waiting writer's bytes first.)
    // A dry run opens none, but is told whether the run would (`streamWouldOpen`): when it would, a stream named as
    // a raw frame (`--size`, a layout's name) is predicted to be one, as before, and the raw route's checks are made;
    // when it would not, the image route's refusal is the run's (`Options.isUnreadStream`).
    if options.inputs.count == 1, let out = options.output, (try? options.outputFormat(for: out)) != nil,
       (try? refuseTerminal(out)) != nil,
       (try? AtomicOutput.check(path: out, force: options.force, inputs: options.inputs, protected: inputIDs)) != nil,
       creationProblem(out, makesFolders: false) == nil,
       options.reportFile.map({ (try? AtomicOutput.check(path: $0, force: reportReplaces($0, options, found: reportStatus($0)), inputs: options.inputs,
                                                         protected: inputIDs)) != nil }) ?? true,
       !refusedForItsStreams(options, output: out) {
        if options.dryRun { streamWouldOpen.store(true, ordering: .relaxed) } else { StandardInput.opensStreams.store(true, ordering: .relaxed) }
    }
    if options.isRawInput { return runRawInput(options) }
    let input: String, output: String, format: OutputFormat
    do throws(UsageError) {
        guard let first = options.inputs.first else { throw UsageError(message: "no input given") }
        guard options.inputs.count == 1 else {
            throw UsageError(message: "one input at a time (got \(options.inputs.count)); `yuvconv report` takes many")
        }
        guard let out = options.output else { throw UsageError(message: "no output given (-o PATH, or -o - for stdout)") }
        try refuseTerminal(out)
        if let file = options.reportFile, let (a, b) = clashingOutputs([out, file]) {
            throw UsageError(message: "-o \(displayOutputPath(a)) and --report-file \(displayOutputPath(b)) are the same file")
        }
        // Without a report file the report goes to standard output, or standard error when the data does
        // (`emitReport`): that stream may be the output too (`-o /dev/fd/5 5>&1`, `-o - 2>&1`).
        if options.reportFormat != nil, options.reportFile == nil {
            let stream = AtomicOutput.standardDescriptor(out) == STDOUT_FILENO ? "/dev/stderr" : "-"
            if clashingOutputs([out, stream]) != nil {
                let name = stream == "-" ? "standard output" : "standard error"
                throw UsageError(message: "-o \(displayOutputPath(out)) and the report on \(name) are the same file; name a --report-file",
                                 aboutStandardError: stream == "/dev/stderr")
            }
        }
        input = first
        output = out
        format = try options.outputFormat(for: out)
    } catch {
        return usageFailure(error)
    }
    let protected = inputIDs   // the one input's identity, found above
    if let refused = refuseInputsAsStandardStreams(protected) { return refused }
    // The data's descriptor, when it goes to one; a report without a file goes to standard output, or to
    // standard error when the data is on standard output (`emitReport`).
    let dataDescriptor = AtomicOutput.standardDescriptor(output)
    let reportStream: [Int32] = options.reportFormat != nil && options.reportFile == nil
        ? [dataDescriptor == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO] : []
    // `--report-file /dev/stderr` (or /dev/fd/N) is a descriptor written too: over a file's bytes (`2<>f`), refused
    // here like the others — said nowhere when it is standard error itself, whose file the sentence would damage.
    let reportDescriptor = options.reportFile.flatMap(AtomicOutput.standardDescriptor).map { [$0] } ?? []
    if let refused = refuseStandardStreamHazards(written: (dataDescriptor.map { [$0] } ?? []) + reportStream + reportDescriptor,
                                                 dataDescriptor: dataDescriptor, force: options.force, quiet: options.quiet,
                                                 replaced: [output] + (options.reportFile.map { [$0] } ?? [])) {
        return refused
    }
    let written = options.quiet ? dataAwayFromMessages(output) : output
    // Standard error is none of the files this run reads or writes: the messages held until now go out.
    releaseMessages(drop: false)
    // After the checks above, which silence standard error when it is the data's file (`-o - -q > f 2>&1`,
    // `-o /dev/stderr -q`): a warning printed before them went into the picture.
    // (A stream left unopened, its kind unknown, is not said to be a JPEG or PNG that ignores --size.)
    warnIgnoredOptions(options, format: format, rawInput: false, single: true,
                       pngInput: RawInput.head(input, 8).starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
                       output: output, kindUnknown: options.isUnreadStream(input))
    if options.dryRun { return dryRunOne(input: input, output: output, format: format, options: options, protected: protected) }
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    // The report on standard error (beside the data on standard output, or `--report-file /dev/stderr`): the
    // per-image line is left out there (the report says the same), so that what follows the warnings is the
    // report alone.
    var single = options
    // Known by the file, not the descriptor's number: `--report-file /dev/fd/3 3>>r.json 2>>r.json` is the same.
    if reportStream == [STDERR_FILENO] || options.reportFile.map(isStandardErrorsFile) == true {
        single.quiet = true
    }
    // What is at the output's name now, before any work: `--force` replaces that file and nothing that appears
    // there during the run (another program's file is kept and the run fails, as in a batch).
    let before = AtomicOutput.Before.lookingAt(written)
    let outcome = convertOne(input: input, output: written, format: format, options: single, protected: protected,
                             keepForReport: options.reportFormat != nil, before: before)
    if let failure = outcome.failure { printErr("yuvconv: error: \(failure.cli)") }
    // A warning about the options (as a batch's and `report`'s "none of this run's inputs has any"), not about the
    // file: no file's name before it, since every warning under a file's name is one its report counts.
    if let info = outcome.record.report?.info, !info.hasAlpha, let w = options.alphaWithoutAlpha(single: true) {
        printErr("yuvconv: warning: \(w)")
    }
    // The report lists a failed file too (its line with the reason, and the totals), as a batch's does.
    guard let format = options.reportFormat else { return outcome.failure == nil ? 0 : 1 }
    do {
        // The totals' peak is the process's, read now, as a batch's is: a failed file's record has none.
        try emitReport(renderReport([outcome.record], format: format, peakRSS: peakResidentBytes()), to: reportSink,
                       dataOnStdout: AtomicOutput.standardDescriptor(output) == STDOUT_FILENO)
    } catch {
        if !readerGone { printErr("yuvconv: error: \(error.cli)") }
        return 1
    }
    return outcome.failure == nil ? 0 : 1
}

/// Prints the warnings for options that do nothing here (with -q too: -q drops the per-image lines only).
func warnIgnoredOptions(_ options: Options, format: OutputFormat, rawInput: Bool, single: Bool = false, pngInput: Bool = false,
                        output: String? = nil, others: Int = 0, sameDepthCopy: Bool = false, kindUnknown: Bool = false) {
    for w in options.ignoredOptionWarnings(format: format, rawInput: rawInput, single: single, pngInput: pngInput,
                                           sameDepthCopy: sameDepthCopy, kindUnknown: kindUnknown) {
        printErr("yuvconv: warning: \(w)")
    }
    // A name that says one format while -f writes another (a batch: the first such output, and how many more).
    if let output, let named = OutputFormat.contradiction(asked: options.format, path: output) {
        let more = others == 0 ? "" : others == 1 ? " (and 1 more output whose name says another format)"
            : " (and \(others) more outputs whose names say another format)"
        printErr("yuvconv: warning: \(displayOutputPath(output))\(more): "
                 + "the name says \(named.displayName), but --format writes \(format.displayName) into it")
    }
}

/// What the decoder tolerated or could not apply (a damaged chunk, a profile not applied): a line for each kind
/// (damage to the pixels first) with how many came when more than one, and the warnings of kinds not kept, for
/// `convert` and `report` alike; one write, so a batch's other jobs cannot come between the lines. With -q too:
/// -q silences the per-image line, not what went wrong.
func warnAboutDecoding(name: String, report: ConversionReport) {
    if report.warnings > 0 {
        // Restored from a manifest: its first warning (once: the kinds' counts are not kept), and how many more.
        let kinds = report.warningKinds.isEmpty ? [WarningKind(text: report.firstWarning)] : report.warningKinds
        let others = report.warnings - kinds.reduce(0) { $0 + $1.count }
        var lines = kinds.map { "yuvconv: warning: \(name): \($0.text)" + ($0.count > 1 ? " (\($0.count) times)" : "") }
        if others > 0 {
            lines.append("yuvconv: warning: \(name): and \(others) more warning\(others == 1 ? "" : "s")"
                         + (report.warningKinds.isEmpty ? "" : " of other kinds"))
        }
        printErr(lines.joined(separator: "\n"))
    }
}

// When the run began, first of all: `--force` replaces only files that were there then (`Before.found`).
AtomicOutput.Before.beginRun()
// Descriptors 0–2 first: nothing opened later may land on a closed one.
protectStandardDescriptors()
// Too tight an address-space limit to start: said with a literal (no allocation), exit 1, not a trap later.
if !prepareForAddressSpaceLimit() {
    fputs("yuvconv: error: out of memory: the address-space limit (ulimit -v) leaves too little to start\n", stderr)
    exit(1)
}
/// Text for standard output (help, the man page, completions, the version): its first failed write's errno is
/// kept (`firstStdoutErrno`), which main's final check says and decides by (a large write fails at once, and
/// the errno would be gone by then).
func printText(_ text: String) {
    let code = Array(text.utf8).withUnsafeBytes { writeWhole(STDOUT_FILENO, $0) }
    if code != 0 {
        textOutputFailed = true
        _ = stdoutFailure("write failed", errno: code)
    }
}
/// A write of `printText`'s failed (for main's final check: they go around stdio, whose error flag stays clear).
nonisolated(unsafe) var textOutputFailed = false

// A closed pipe is a write error (EPIPE, exit 1), from the first byte: `--help | head -1`, a dry run piped into
// `grep -q` were killed by SIGPIPE before the signal handlers were installed. Image data cut short is said as an
// error; text whose reader went away ends the run quietly (`stdoutFailure`).
signal(SIGPIPE, SIG_IGN)
// SIGINT and SIGTERM are honoured from the start, also when the parent ignores them (a background job of a
// script: `yuvconv … &` inherits SIGINT ignored): a batch still reading a large manifest or walking folders took
// no notice of SIGINT until its first file. The one place they are installed (a program using the library
// calls it itself, if it wants them).
installSignalCleanup()
// …and blocked by the parent: a mask is inherited across exec (the main thread, before any other exists).
unblockStopSignals()
/// Set by `run` when --force lets the run write over standard output's file (`1<>old`).
let standardOutputReplaced = Atomic<Bool>(false)
// Standard output open read-write on a file with data from its position on (`1<>old`, which only --force
// lets the run write): what the run writes there replaces that data, so the file is cut where it ends (below) —
// a report as an image (`AtomicOutput` cuts an image's own file the same way). Taken before anything is written.
let standardOutputStart: off_t? = {
    guard case .descriptorHasData? = AtomicOutput.overwrites(descriptor: STDOUT_FILENO) else { return nil }
    return lseek(STDOUT_FILENO, 0, SEEK_CUR)
}()
guard let arguments = processArguments() else {
    printErr("yuvconv: error: cannot read the command line (started without arguments, or without /proc where "
             + "the Swift runtime reads them)")
    releaseMessages(drop: standardErrorMustStayUntouched)
    exit(2)
}
// On a stack with room for a batch's and a conversion's frames, whatever `ulimit -s` left the main thread.
let commandLine = arguments
var status = onRoomyStack { run(commandLine) }
// Whatever went to standard output must have arrived (`> /dev/full`). A reader that stopped reading text
// (`--man | head -1`, a dry run's listing piped into `head`) ends the run with status 1 and no message
// (`stdoutFailure`); image data cut short says so where it is written (IOFaultTests).
let flushFailed = fflush(stdout) != 0, flushErrno = errno
if flushFailed || ferror(stdout) != 0 || textOutputFailed {
    // errno only from the flush that failed now: a sticky error from an earlier write has none left to tell.
    let failure = stdoutFailure("write failed", errno: flushFailed ? flushErrno : firstStdoutErrno)
    if !readerGone { printErr("yuvconv: error: \(failure.cli)") }
    status = max(status, 1)
}
if let start = standardOutputStart, standardOutputReplaced.load(ordering: .relaxed) {
    let end = lseek(STDOUT_FILENO, 0, SEEK_CUR)
    if end > start, let st = FileStatus(descriptor: STDOUT_FILENO), st.size > Int(end), ftruncate(STDOUT_FILENO, end) != 0 {
        printErr("yuvconv: error: <stdout>: cannot cut off the old data after what was written: \(systemMessage())")
        status = max(status, 1)
    }
}
// A run that ended before it checked its inputs against standard error (a usage error, --help): its messages
// now, unless standard error may be an input.
releaseMessages(drop: standardErrorMustStayUntouched)
exit(status)
