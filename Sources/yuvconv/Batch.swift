#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

/// Counters shared by the workers, behind one lock, and what finished out of order, waiting for the items
/// before it (at most the reorder window).
final class BatchState: Sendable {
    struct Counts {
        /// The index the next item taken gets; every index below `emitted` has been handed on, in order.
        var next = 0, emitted = 0
        var done = 0, converted = 0, skipped = 0, failed = 0
        /// Failures that came after a signal (the file may have been cut short by it).
        var failedAfterSignal = 0
        var inputBytes = 0
        /// Converted inputs that were JPEGs: none, and the JPEG-only options given did nothing.
        var jpegInputs = 0
        var stop = false, exhausted = false
        var waiting: [Int: Finished] = [:]
    }

    private let counts = Mutex(Counts())

    func withLock<T>(_ body: (inout Counts) -> T) -> T { counts.withLock { body(&$0) } }
}

/// What a finished item hands on, in input order: its report piece (rendered by the worker), its failure
/// for the summary, its `--update` manifest change.
struct Finished: @unchecked Sendable {
    var piece: ReportPiece?
    var failure: String?
    var manifestChange: (name: String, entry: ManifestEntry?)?
}

/// The folder of a batch's report file when the batch makes it: missing, and inside the output folder (which the
/// batch makes too). Nil otherwise: a report file elsewhere needs its folder there.
func reportFolderToMake(_ file: String, outputFolder folder: String) -> String? {
    guard let dir = outputFolder(of: file), FileStatus(path: dir) == nil,
          isBelow(BatchPlan.resolved(dir), BatchPlan.resolved(folder)) else { return nil }
    return dir
}

/// Whether the resolved path `path` is the folder `folder` or below it: by whole names (`out2` is not below
/// `out`).
func isBelow(_ path: String, _ folder: String) -> Bool {
    let f = folder.hasSuffix("/") ? folder : folder + "/"
    return path == folder || path.hasPrefix(f)
}

/// Why the folders `reportFolderToMake` gives may not be made: one below the output folder is named as
/// --update's manifest or its lock file (it would stand where --update writes its file). For the run and its
/// dry run alike, before anything is made.
func reportFolderProblem(_ file: String, outputFolder folder: String) -> String? {
    guard let dir = reportFolderToMake(file, outputFolder: folder) else { return nil }
    let below = BatchPlan.resolved(dir).dropFirst(BatchPlan.resolved(folder).count).drop { $0 == "/" }
    return AtomicOutput.reservedNameProblem(String(below) + "/" + (file.split(separator: "/").last.map(String.init) ?? ""))
}

/// What a batch hands on in input order, as each item's turn comes (under the state's lock): the report,
/// written as it goes; the failures, set aside on disk for the summary; `--update`'s manifest changes, set
/// aside on disk for the manifest. Nothing per file is kept in memory.
final class BatchOutputs: @unchecked Sendable {
    let report: ReportStream?
    let writer: ReportWriter?
    /// The summary's failure lines, in input order.
    let failures = Spool()
    /// `--update`: each finished output's new manifest entry, or its name alone to drop it.
    let manifestChanges = Spool()

    init(report format: ReportFormat?, to sink: AtomicOutput?) {
        let writer = format.map { _ in ReportWriter(sink) }
        self.writer = writer
        report = format.map { f in ReportStream(format: f) { writer!.write($0) } }
    }

    func emit(_ f: Finished) {
        if let piece = f.piece { report?.append(piece) }
        if let why = f.failure { failures.appendRecord(Array(why.utf8)) }
        if let (name, entry) = f.manifestChange { ManifestChange.write(name: name, entry: entry, to: manifestChanges) }
    }
}

/// The progress line, on a terminal only: done/total, images/s, MiB/s, ETA, failures.
struct Progress {
    let enabled: Bool
    let total: Int
    let start = monotonicSeconds()

    func show(_ s: BatchState) {
        guard enabled else { return }
        let (done, failed, bytes) = s.withLock { ($0.done, $0.failed, $0.inputBytes) }
        let t = max(monotonicSeconds() - start, 1e-6)
        let rate = Double(done) / t
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let line = "\(done)/\(total) · \(formatFixed(rate, decimals: 1)) img/s · "
            + "\(formatFixed(Double(bytes) / 1_048_576 / t, decimals: 1)) MiB/s · ETA \(Int(eta.rounded()))s"
            + (failed > 0 ? " · \(failed) failed" : "")
        progressOutput.withLock { _ in _ = fputs("\r\u{1B}[K" + line, stderr) }
    }

    func finish() {
        if enabled { fputs("\r\u{1B}[K", stderr) }
    }
}

/// A line above the progress line: the line is cleared, the text printed, and the next `show` redraws the
/// progress below it — so failures (and with -v every image) stay on the terminal instead of vanishing.
func printAboveProgress(_ text: String) {
    progressOutput.withLock { _ in _ = fputs("\r\u{1B}[K" + PathBytes.escapingControls(text) + "\n", stderr) }
}

/// One writer to the terminal at a time (the workers print from their own threads).
let progressOutput = Mutex(())

/// The inputs a batch (or `report`) names, gathered, with a warning for the folder entries left out.
func gatherInputs(_ options: Options, standardInput: Bool = false) throws(BatchPlanError) -> BatchInputs {
    let inputs = try BatchInputs(operands: options.inputs, recursive: options.recursive, filesFrom: options.filesFrom,
                                 nul: options.nulSeparated, standardInput: standardInput)
    let skipped = inputs.skipped, n = inputs.skippedCount
    // A warning: printed with -q too (-q silences the per-image lines, not what went unconverted).
    if n > 0 {
        printErr("yuvconv: warning: skipped \(n) folder entr\(n == 1 ? "y" : "ies") that "
                 + "\(n == 1 ? "is" : "are") not a regular file or a folder to walk: "
                 + skipped.map(\.description).joined(separator: ", ") + (n > skipped.count ? ", … (\(n - skipped.count) more)" : ""))
    }
    return inputs
}

/// A plan that could not be made: a file error (exit 1) or a usage error (exit 2).
func planFailure(_ error: BatchPlanError) -> Int32 {
    error.fileError.map(fileFailure) ?? usageFailure(error.cliMessage)
}

/// Prints a file error; exit status 1.
func fileFailure(_ error: FileError) -> Int32 {
    printErr("yuvconv: error: \(error.cli)")
    return 1
}

/// Whether `path` leads to the pipe or socket standard input is (not a file or device it was redirected from,
/// such as /dev/null under cron, which may also be named as an input).
func isStandardInputStream(_ path: String) -> Bool {
    guard let stdin = FileStatus(descriptor: STDIN_FILENO), stdin.kind == .fifo || stdin.kind == .socket,
          let named = FileStatus(path: path) else { return false }
    return named.identity == stdin.identity
}

/// A batch's or `report`'s report onto standard error (`--report-file /dev/stderr`, `/dev/fd/2`): the run's
/// failures, progress and summary go there too and would be mixed into it (a single conversion leaves its
/// per-image line out instead, and has no summary). Refused before any work, for both commands.
func refuseReportOnStandardError(_ options: Options) -> Int32? {
    guard let file = options.reportFile, AtomicOutput.standardDescriptor(file) == STDERR_FILENO
            || (outputKey(file).hasPrefix("id:") && outputKey(file) == outputKey("/dev/stderr")) else { return nil }
    return usageFailure("\(file == "-" ? "<stdout>" : displayPath(file)) is standard error, which carries the run's messages and summary: they "
                        + "would be mixed into the report (name a file, or leave out --report-file for standard output)")
}

/// Standard input with --shard, for `convert` and `report` alike: a stream is not split among shards (the
/// first shard would take it and the others say nothing of it), and neither "one of many" nor "give -o FILE"
/// (which --shard then refuses) says why.
func refuseShardedStandardInput(_ options: Options, doing remedy: String) -> Int32? {
    // `-`, /dev/stdin, /dev/fd/0, alone or among files (`report - a.png --shard 2/2` dropped it without a word),
    // or another name of a stream standard input is (`//dev/stdin`, a link to it: the same pipe).
    guard options.shard != nil, options.inputs.contains(where: { readsStandardInput($0) || isStandardInputStream($0) }) else {
        return nil
    }
    return usageFailure(shardedStandardInput(remedy))
}

/// The refusal of standard input under --shard: given as an operand (above) or named in a --files-from list
/// (`BatchInputs.listsStandardInput`, known once the list is read).
func shardedStandardInput(_ remedy: String) -> String {
    "--shard splits a batch of files among runs; standard input is one stream: \(remedy)"
}

/// `yuvconv convert a.jpg b.png dir/ -o outdir/`: many files, several at once, none lost.
func runBatch(_ options: Options) -> Int32 {
    // `yuvconv convert -o out/` with nothing to convert is a mistake (an empty `$FILES` in a script), as for
    // `report`: refused, not a green run. A list (--files-from) or a folder may hold no file.
    guard !options.inputs.isEmpty || options.filesFrom != nil else {
        return usageFailure("convert needs at least one file, folder or --files-from list")
    }
    if let refused = refuseShardedStandardInput(options, doing: "convert it without --shard, to a file (-o FILE)") {
        return refused
    }
    if let refused = refuseReportOnStandardError(options) { return refused }
    let plan: BatchPlan, folder: BatchOutputFolder
    do throws(BatchPlanError) {
        folder = try BatchOutputFolder(options.output)
        if options.reportFile != nil && options.reportFormat == nil { return usageFailure("--report-file needs --report FORMAT") }
        let inputs = try gatherInputs(options)
        if options.shard != nil && inputs.listsStandardInput {
            return usageFailure(shardedStandardInput("convert it without --shard, to a file (-o FILE)"))
        }
        // One file given twice under one path (`in in/` with a {dir} name, a list and its folder): two outputs
        // of one input, and two lines of the report — refused as `report` refuses it, whatever names it gets.
        if let (first, second) = try repeatedInput(inputs) {
            return planFailure(.sameOutput(first: first, second: second, output: first))
        }
        plan = try BatchPlan(inputs, outputFolder: folder, template: options.nameTemplate,
                             format: options.format, needs: options.rawOnlyNeeds, shard: options.shard,
                             // Without a report file the report goes to standard output: that may be an output too.
                             reportFile: options.reportFile ?? (options.reportFormat != nil ? "-" : nil),
                             alsoWritten: (options.reportFile.map { [$0] } ?? [])
                                 + (options.update ? [folder.path(of: Manifest.fileName)] : []))
    } catch {
        return planFailure(error)
    }
    let protected = plan.protected
    if let refused = refuseInputsAsStandardStreams(protected) { return refused }
    // The files this run replaces: the report file, and --update's manifest.
    let manifest = options.update ? [folder.path(of: Manifest.fileName)] : []
    if let refused = refuseStandardStreamHazards(written: options.reportFormat != nil && options.reportFile == nil ? [STDOUT_FILENO] : [],
                                                 force: options.force,
                                                 replaced: (options.reportFile.map { [$0] } ?? []) + manifest) {
        return refused
    }
    // Standard error open on an output the batch replaces: its lines and summary would be lost with it.
    let errKey = outputKey("/dev/stderr")
    if errKey.hasPrefix("id:") {
        var items = plan.reader()
        while let item = items.next() {
            if outputKey(item.output) == errKey {
                return usageFailure("\(displayPath(item.output)) is the file standard error is open on: what is written there would be lost")
            }
        }
    }
    var update: UpdateManifest?
    if options.update {
        var failure: Int32 = 0
        guard let manifest = UpdateManifest(folder: folder, plan: plan, options: options, failure: &failure) else {
            return failure
        }
        update = manifest
    }
    // Said by the dry run too, as the run would say them.
    var first = plan.reader()
    warnIgnoredOptions(options, format: options.format ?? first.next()?.format ?? .raw(.nv12), rawInput: false)
    if options.dryRun { return dryRunBatch(plan, options: options, update: update, outputFolder: folder.path) }
    // A report file inside the output folder, which the batch makes when it is missing: made first (a name
    // the system cannot hold refused before that).
    if let file = options.reportFile, let why = PathBytes.lengthProblem(file) {
        return fileFailure(FileError(output: file, reason: "the name cannot be made: \(why)"))
    }
    if let file = options.reportFile, let why = reportFolderProblem(file, outputFolder: folder.path) {
        return fileFailure(FileError(output: file, reason: why))
    }
    if let file = options.reportFile, let dir = reportFolderToMake(file, outputFolder: folder.path), let why = makeFolders(dir) {
        return fileFailure(FileError(output: file, reason: why))
    }
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    let run = BatchRun(options, count: plan.count, report: options.reportFormat, to: reportSink)
    let shared = UncheckedSendable((run.options, protected, update))
    let watch = OutputFolderWatch(folder.path)
    var items = plan.reader()
    run.start(next: { items.next() }) { item in
        let (opts, protected, update) = shared.value
        let (action, kept) = update?.check(item, options: opts) ?? (BatchAction(item, force: opts.force), nil)
        // A signal while that check hashed the input or output (seconds, for a file of gigabytes): not started,
        // rather than converted into an interruption that would drop a manifest entry still true.
        if update != nil, interruptSignal() != nil { return .notStarted(item.input) }
        // With --update, an output there that it may not replace (`Update.check`) is a failure the report
        // lists, not a silent skip: the run did not bring it up to date (--force would, where it can: `refusal`).
        if case .skip(upToDate: false) = action, let update {
            return Outcome.failed(item.input, update.refusal(item, protected: protected),
                                  alignment: opts.reportAlignment)
        }
        if case .skip = action {
            if let kept, let update { return update.kept(item, kept, options: opts) }
            // Already there, no --force: a line of its own in the report, so every input has one.
            var record = ImageRecord(file: displayPath(item.input), error: nil, report: nil, quality: nil,
                                     alignment: opts.reportAlignment, peakRSS: 0)
            record.skipped = BatchAction.alreadyThere
            record.outputPath = displayPath(item.output)
            return Outcome(record: record, failure: nil, skipped: true)
        }
        var o = opts
        o.force = opts.force || action.replaces
        // Its names first: a folder named as --update's manifest is refused before it is made.
        if let why = AtomicOutput.reservedNameProblem(item.name) ?? watch.prepare(outputFolder(of: item.output), for: item.output) {
            var failed = Outcome.failed(item.input, FileError(path: item.output, reason: why), alignment: opts.reportAlignment)
            failed.manifestChange = update?.failureChange(item)
            return failed
        }
        let convert = {
            convertOne(input: item.input, output: item.output, format: item.format, options: o, protected: protected,
                       keepForReport: opts.reportFormat != nil)
        }
        return update?.convert(item, options: opts, convert) ?? convert()
    }
    var status: Int32 = 0
    if let error = plan.readFailure {
        printErr("yuvconv: error: \(error.cli)")
        status = 1
    }
    if let update, let error = update.write(run.outputs.manifestChanges, protected: protected) {
        printErr("yuvconv: error: \(error.cli)")
        // A signal that stopped the manifest's write cut the run short: its status says so.
        status = interruptSignal().map { 128 + $0 } ?? 1
    }
    let ran = run.finish(summary: "converted", skipped: "already there" + (options.update ? " and up to date" : ""),
                         always: true)
    // A signal that stopped the manifest's write says so over a failed file's 1.
    return ran == 0 || status > 1 ? status : ran
}

/// One run over many files: `-j N` threads take the items in turn, a progress line on a terminal, the
/// outcomes handed on in input order (a reorder window: an item that finishes before those before it waits
/// for them) to the report, written as it goes, and the summary; the first SIGINT/SIGTERM stops it.
struct BatchRun {
    var options: Options
    let count: Int
    let progress: Progress
    let state = BatchState()
    let outputs: BatchOutputs

    /// `report`: the format of the report written as the run goes, to `sink` (else standard output).
    init(_ options: Options, count: Int, report: ReportFormat?, to sink: AtomicOutput?) {
        let tty = isatty(STDERR_FILENO) != 0
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        progress = Progress(enabled: tty && !options.quiet && term != "dumb", total: count)
        var opts = options
        opts.batchQuietLines = progress.enabled
        opts.inBatch = true
        self.options = opts
        self.count = count
        outputs = BatchOutputs(report: report, to: sink)
    }

    /// How many threads: -j N, else every core; never more than the files.
    var threads: Int {
        max(1, min(options.jobs > 0 ? options.jobs : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), count))
    }

    /// How far an item may run ahead of the first one not yet handed on: finished items wait at most this
    /// many (their report lines: a few KiB each), and when it is reached no new item starts until the slow
    /// one finishes. `YUVCONV_REORDER_WINDOW=N` sets it, for the tests that hold the order to a small one.
    var window: Int {
        if let v = getenv("YUVCONV_REORDER_WINDOW").flatMap({ Int(String(cString: $0)) }), v >= 1 { return v }
        return max(64, 16 * threads)
    }

    /// Runs `work` for every item `next` gives (called under the lock, in turn) on `threads` threads; `work`
    /// returns nil for a file it skipped.
    func start(next: @escaping () -> BatchItem?, _ work: @escaping @Sendable (BatchItem) -> Outcome?) {
        setGracefulInterrupt(true)
        let format = options.reportFormat ?? (options.reportOnly ? .text : nil)
        /// What every thread shares (a class: a closure in a destructured tuple crashes Swift 6.3's compiler).
        final class Shared: @unchecked Sendable {
            let next: () -> BatchItem?
            init(_ next: @escaping () -> BatchItem?) { self.next = next }
        }
        let source = Shared(next)
        let shared = UncheckedSendable((options, progress, state, outputs, window, format))
        runOnThreads(threads) { _ in
            let (opts, progress, state, outputs, window, format) = shared.value
            let next = source.next
            while interruptSignal() == nil {
                enum Take { case item(Int, BatchItem), wait, end }
                let take: Take = state.withLock { s in
                    // Standard output's reader gone (the report's): no more files, those started finish.
                    if s.stop || s.exhausted || readerGone { return .end }
                    if s.next - s.emitted >= window { return .wait }
                    guard let item = next() else {
                        s.exhausted = true
                        return .end
                    }
                    defer { s.next += 1 }
                    return .item(s.next, item)
                }
                guard case .item(let i, let item) = take else {
                    if case .end = take { return }
                    usleep(200)
                    continue
                }
                let outcome = work(item)
                let started = outcome?.notStarted != true
                // Rendered here, off the lock.
                let finished = started
                    ? Finished(piece: outcome.flatMap { o in format.map { ReportPiece(o.record, format: $0) } },
                               failure: outcome?.failure?.cli, manifestChange: outcome?.manifestChange)
                    : Finished(piece: nil, failure: nil, manifestChange: nil)
                state.withLock { s in
                    // One not started is not counted as done: the summary and the status say the run was cut short.
                    if started, let outcome {
                        s.done += 1
                        if outcome.skipped {
                            s.skipped += 1
                        } else if outcome.failure != nil {
                            s.failed += 1
                            if interruptSignal() != nil { s.failedAfterSignal += 1 }
                            if opts.failFast { s.stop = true }
                        } else {
                            s.converted += 1
                            s.inputBytes += outcome.record.report?.inputBytes ?? 0
                            if outcome.record.report?.info.container == .jpeg { s.jpegInputs += 1 }
                        }
                    } else if started {
                        s.done += 1
                        s.skipped += 1
                    }
                    s.waiting[i] = finished
                    while let f = s.waiting.removeValue(forKey: s.emitted) {
                        outputs.emit(f)
                        s.emitted += 1
                    }
                }
                if let f = outcome?.failure {
                    if progress.enabled { printAboveProgress("yuvconv: error: \(f.cli)") } else { printErr("yuvconv: error: \(f.cli)") }
                }
                progress.show(state)
            }
        }
        progress.finish()
    }

    /// The summary on standard error (`always`, or when something failed or was not started: "N `done`, M
    /// skipped (`skipped`), F failed", then every failure, in input order), the report's totals, and the exit
    /// status.
    func finish(summary done: String, skipped: String?, always: Bool) -> Int32 {
        let signal = interruptSignal()
        let final = state.withLock { $0 }
        let notStarted = count - final.done
        // Every input converted and none a JPEG: the JPEG-only options given did nothing (a single file says
        // so up front; a batch knows only now).
        if final.converted > 0 && final.converted == count && final.jpegInputs == 0, let w = options.jpegOptionsWithoutJPEG {
            printErr("yuvconv: warning: \(w)")
        }
        if always || final.failed > 0 || notStarted > 0 {
            var line = "yuvconv: \(final.converted) \(done), "
                + (skipped.map { "\(final.skipped) skipped (\($0)), " } ?? "") + "\(final.failed) failed"
            if notStarted > 0 {
                line += ", \(notStarted) not started"
                    + (signal != nil ? " (interrupted)" : readerGone ? " (standard output's reader stopped reading)" : " (--fail-fast)")
            }
            printErr(line)
            var failures = outputs.failures.reader()
            while let why = failures.nextRecord() { printErr("  failed: " + String(decoding: why, as: UTF8.self)) }
        }
        // A signal that cut nothing short (it came after every input had finished) leaves the run's own status,
        // as its report is put in place below: 130 with a complete report said "interrupted" of a finished run.
        let cutShort = notStarted > 0 || final.failedAfterSignal > 0
        var status: Int32 = signal.flatMap { cutShort ? 128 + $0 : nil } ?? (final.failed == 0 ? 0 : 1)
        if let error = outputs.failures.failure {
            printErr("yuvconv: error: \(error.cli)")
            if status == 0 { status = 1 }
        }
        if let report = outputs.report, let writer = outputs.writer {
            var failure: FileError?
            do throws(FileError) {
                try report.finish(peakRSS: peakResidentBytes(), notStarted: notStarted, interrupted: signal != nil)
            } catch { failure = error }
            // An interrupted run's report file is not put in place when it would cover part of the inputs, over
            // a complete report of an earlier run (a report on standard output says so in its totals); a signal
            // after every input had finished cut nothing short.
            let dropPartial = signal != nil && writer.isFile && cutShort
            if let error = writer.finish(abort: failure != nil || dropPartial) ?? failure {
                // Never below a signal's 128+N (Ctrl-C on `yuvconv … | jq` ends the reader too).
                status = max(status, readerGone ? 1 : fileFailure(error))
            } else if dropPartial {
                printErr("yuvconv: the report file was not written (interrupted); what was there is as it was")
            }
        }
        return status
    }
}
