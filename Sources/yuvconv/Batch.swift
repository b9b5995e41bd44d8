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

/// Counters shared by the workers, behind one lock.
final class BatchState: Sendable {
    struct Counts {
        var next = 0, done = 0, converted = 0, skipped = 0, failures: [(String, String)] = []
        var records: [Int: ImageRecord] = [:]
        /// `--update`: each finished item's entry for the manifest (nil: drop it).
        var manifestChanges: [(name: String, entry: ManifestEntry?)] = []
        var inputBytes = 0
        var stop = false
    }

    private let counts = Mutex(Counts())

    func withLock<T>(_ body: (inout Counts) -> T) -> T { counts.withLock { body(&$0) } }
}

/// The progress line, on a terminal only: done/total, images/s, MiB/s, ETA, failures.
struct Progress {
    let enabled: Bool
    let total: Int
    let start = monotonicSeconds()

    func show(_ s: BatchState) {
        guard enabled else { return }
        let (done, failed, bytes) = s.withLock { ($0.done, $0.failures.count, $0.inputBytes) }
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
    progressOutput.withLock { _ in _ = fputs("\r\u{1B}[K" + text + "\n", stderr) }
}

/// One writer to the terminal at a time (the workers print from their own threads).
let progressOutput = Mutex(())

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The inputs a batch (or `report`) names, gathered, with a warning for the folder entries left out.
func gatherInputs(_ options: Options, standardInput: Bool = false) throws(BatchPlanError) -> BatchInputs {
    let inputs = try BatchInputs(operands: options.inputs, recursive: options.recursive, filesFrom: options.filesFrom,
                                 nul: options.nulSeparated, standardInput: standardInput)
    let skipped = inputs.skipped
    if !skipped.isEmpty && !options.quiet {
        printErr("yuvconv: warning: skipped \(skipped.count) folder entr\(skipped.count == 1 ? "y" : "ies") that "
                 + "\(skipped.count == 1 ? "is" : "are") not a regular file: "
                 + skipped.map(\.description).joined(separator: ", "))
    }
    return inputs
}

/// A plan that could not be made: a file error (exit 1) or a usage error (exit 2).
func planFailure(_ error: BatchPlanError) -> Int32 {
    error.fileError.map(fileFailure) ?? usageFailure(error.cliMessage)
}

/// The report file, checked and opened before any work (nil without --report-file).
func openReportFile(_ options: Options, protected: Set<FileIdentity>) throws(FileError) -> AtomicOutput? {
    guard let file = options.reportFile else { return nil }
    do { return try AtomicOutput(path: file, force: options.force, protected: protected) } catch {
        throw FileError(path: file, error)
    }
}

/// Prints a file error; exit status 1.
func fileFailure(_ error: FileError) -> Int32 {
    printErr("yuvconv: error: \(error.cli)")
    return 1
}

/// `yuvconv convert a.jpg b.png dir/ -o outdir/`: many files, several at once, none lost.
func runBatch(_ options: Options) -> Int32 {
    let plan: BatchPlan, folder: BatchOutputFolder
    do throws(BatchPlanError) {
        folder = try BatchOutputFolder(options.output)
        if options.reportFile != nil && options.reportFormat == nil { return usageFailure("--report-file needs --report FORMAT") }
        plan = try BatchPlan(try gatherInputs(options), outputFolder: folder, template: options.nameTemplate,
                             format: options.format, needs: options.rawOnlyNeeds, shard: options.shard,
                             reportFile: options.reportFile)
    } catch {
        return planFailure(error)
    }
    let items = plan.items, protected = plan.protected
    var update: UpdateManifest?
    if options.update {
        guard let manifest = UpdateManifest(folder: folder, plan: plan, options: options) else { return 2 }
        update = manifest
    }
    if options.dryRun { return dryRunBatch(plan, options: options, update: update) }
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    warnIgnoredOptions(options, format: options.format ?? items.first?.format ?? .raw(.nv12), rawInput: false)
    let run = BatchRun(options, count: items.count)
    let shared = UncheckedSendable((items, run.options, protected, update))
    run.start { i in
        let (items, opts, protected, update) = shared.value
        let item = items[i]
        let (action, kept) = update?.check(item, options: opts) ?? (BatchAction(item, force: opts.force), nil)
        if case .skip = action { return kept.flatMap { update?.kept(item, $0, options: opts) } }
        var o = opts
        o.force = opts.force || action.replaces
        if let why = outputFolder(of: item.output).flatMap(makeFolders) {
            var failed = Outcome.failed(item.input, FileError(path: item.output, reason: why), alignment: opts.alignment)
            if update != nil { failed.manifestChange = (item.name, nil) }
            return failed
        }
        let convert = {
            convertOne(input: item.input, output: item.output, format: item.format, options: o, protected: protected,
                       keepForReport: opts.reportFormat != nil)
        }
        return update?.convert(item, options: opts, convert) ?? convert()
    }
    var manifestFailed = false
    if let update, let error = update.write(run.state.withLock { $0.manifestChanges }, protected: protected) {
        printErr("yuvconv: error: \(error.cli)")
        manifestFailed = true
    }
    let status = run.finish(summary: "converted", skipped: "already there" + (options.update ? " and up to date" : ""),
                            always: true, report: options.reportFormat, to: reportSink)
    return manifestFailed && status == 0 ? 1 : status
}

/// One run over many files: `-j N` threads take the files in turn, a progress line on a terminal, the
/// outcomes kept in input order for the summary and the report; the first SIGINT/SIGTERM stops it.
struct BatchRun {
    var options: Options
    let count: Int
    let progress: Progress
    let state = BatchState()

    init(_ options: Options, count: Int) {
        let tty = isatty(STDERR_FILENO) != 0
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        progress = Progress(enabled: tty && !options.quiet && term != "dumb", total: count)
        var opts = options
        opts.batchQuietLines = progress.enabled
        opts.inBatch = true
        self.options = opts
        self.count = count
    }

    /// How many threads: -j N, else every core; never more than the files.
    var threads: Int {
        max(1, min(options.jobs > 0 ? options.jobs : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), count))
    }

    /// Runs `work` for every index on `threads` threads; `work` returns nil for a file it skipped.
    func start(_ work: @escaping @Sendable (Int) -> Outcome?) {
        installSignalCleanup()
        setGracefulInterrupt(true)
        let shared = UncheckedSendable((options, progress, state, count))
        runOnThreads(threads) { _ in
            let (opts, progress, state, count) = shared.value
            while true {
                let index: Int? = state.withLock { s in
                    if s.stop || s.next >= count { return nil }
                    defer { s.next += 1 }
                    return s.next
                }
                guard let i = index, interruptSignal() == nil else { return }
                guard let outcome = work(i) else {
                    state.withLock { $0.skipped += 1; $0.done += 1 }
                    progress.show(state)
                    continue
                }
                state.withLock { s in
                    s.done += 1
                    // Kept only for a report: without one a batch holds nothing per converted file.
                    if opts.reportFormat != nil || opts.reportOnly { s.records[i] = outcome.record }
                    if let change = outcome.manifestChange { s.manifestChanges.append(change) }
                    if outcome.skipped {
                        s.skipped += 1
                    } else if let f = outcome.failure {
                        s.failures.append((outcome.record.file, f.cli))
                        if opts.failFast { s.stop = true }
                    } else {
                        s.converted += 1
                        s.inputBytes += outcome.record.report?.inputBytes ?? 0
                    }
                }
                if let f = outcome.failure {
                    if progress.enabled { printAboveProgress("yuvconv: error: \(f.cli)") } else { printErr("yuvconv: error: \(f.cli)") }
                }
                progress.show(state)
            }
        }
        progress.finish()
    }

    /// The summary on standard error (`always`, or when something failed or was not started: "N `done`, M
    /// skipped (`skipped`), F failed", then every failure), the report in input order, and the exit status.
    func finish(summary done: String, skipped: String?, always: Bool, report format: ReportFormat?,
                to reportSink: AtomicOutput?) -> Int32 {
        let signal = interruptSignal()
        let final = state.withLock { $0 }
        let notStarted = count - final.done
        if always || !final.failures.isEmpty || notStarted > 0 {
            var line = "yuvconv: \(final.converted) \(done), "
                + (skipped.map { "\(final.skipped) skipped (\($0)), " } ?? "") + "\(final.failures.count) failed"
            if notStarted > 0 { line += ", \(notStarted) not started" + (signal != nil ? " (interrupted)" : " (--fail-fast)") }
            printErr(line)
            for (_, why) in final.failures.sorted(by: { $0.0 < $1.0 }) { printErr("  failed: \(why)") }
        }
        if let format {
            let records = (0..<count).compactMap { final.records[$0] }
            do { try emitReport(renderReport(records, format: format), to: reportSink, dataOnStdout: false) } catch {
                return fileFailure(error)
            }
        }
        if let signal { return 128 + signal }
        return final.failures.isEmpty ? 0 : 1
    }
}

/// mkdir -p: nil when the folder is there, else why it could not be made (a read-only parent says
/// "Permission denied", not the "No such file" the first file in it would otherwise meet).
func makeFolders(_ path: String) -> String? {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        current += "/" + part
        let rc = withFileSystemPath(current) { mkdir($0, 0o777) }
        if rc != 0 && errno != EEXIST {
            return "cannot make the folder \(displayPath(String(current.hasPrefix("./") ? current.dropFirst(2) : current[...]))): "
                + String(cString: strerror(errno))
        }
    }
    return FileStatus(path: path)?.kind == .directory ? nil : "\(displayPath(path)) is not a folder"
}
