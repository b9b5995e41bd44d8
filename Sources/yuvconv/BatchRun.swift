#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import Synchronization
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

// Running a planned batch's items on threads (`BatchRun`): what the workers share, the outcomes handed on in input
// order to the report, the failures and the manifest, the progress line, and the summary and exit status.
// Batch.swift plans the batch and checks what can be checked before any work.

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
        /// Converted inputs that had alpha (a PNG's alpha channel or tRNS): none, and --alpha did nothing.
        var alphaInputs = 0
        /// Outputs kept as up to date (`--update`) whose manifest line has no quality figures, with --metrics asked.
        var keptUnmeasured = 0
        /// Of those kept with their figures, sharp-chroma ones: the manifest does not keep the box comparison.
        var keptWithoutBox = 0
        var stop = false, exhausted = false
        /// Why the run started no more files, when an outcome stopped it (`Outcome.stopsRun`).
        var stopReason: String?
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
        if let (name, entry) = f.manifestChange {
            // A line this run writes that the next could not read: never silent (the next run refuses the output).
            if let why = entry?.unreadableBecause {
                printErr("yuvconv: warning: \(displayPath(name)): its line in the manifest cannot be read back (\(why)); the "
                         + "output is not recorded, and the next --update keeps it as not yuvconv's (--force converts it again)")
            }
            ManifestChange.write(name: name, entry: entry, to: manifestChanges)
        }
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
        var fields = ["\(done)/\(total)", "\(formatFixed(rate, decimals: 1)) img/s",
                      "\(formatFixed(Double(bytes) / 1_048_576 / t, decimals: 1)) MiB/s", "ETA \(Int(eta.rounded()))s"]
        if failed > 0 { fields.append("\(failed) failed") }
        // Within the terminal's width, less its last column: a line that wrapped left a row behind at every redraw
        // (`\r\e[K` clears the last row only), filling a narrow terminal. Cut between fields, never inside one
        // (2986/3000 cut to 2986/300 read as another count), failures first where it is cut; a field wider than
        // the terminal is not shown.
        let columns = Int(yc_terminal_columns(STDERR_FILENO))
        let joined = { (f: [String]) in f.joined(separator: " · ") }
        if columns > 0 && joined(fields).count > columns - 1 {
            if failed > 0 { fields.insert(fields.removeLast(), at: 0) }
            while fields.count > 0 && joined(fields).count > columns - 1 { fields.removeLast() }
        }
        let line = joined(fields)
        progressOutput.withLock { _ in
            writeStandardError("\r\u{1B}[K" + line)
            progressLineShown.store(true, ordering: .relaxed)
        }
    }

    /// Before the jobs start: from now to `finish`, every message takes `progressOutput` (`printErr`), so that none
    /// lands on the end of a line another job's `show` draws meanwhile.
    func begin() {
        guard enabled else { return }
        progressActive.store(true, ordering: .sequentiallyConsistent)
    }

    func finish() {
        guard enabled else { return }
        progressOutput.withLock { _ in
            writeStandardError("\r\u{1B}[K")
            progressLineShown.store(false, ordering: .relaxed)
            progressActive.store(false, ordering: .sequentiallyConsistent)
        }
    }
}

/// A line above the progress line: the line is cleared, the text printed, and the next `show` redraws the
/// progress below it — so failures (and with -v every image) stay on the terminal instead of vanishing.
func printAboveProgress(_ text: String) {
    _ = progressOutput.withLock { _ in writeStandardError("\r\u{1B}[K" + PathBytes.escapingControls(text) + "\n") }
}

/// One writer to the terminal at a time (the workers print from their own threads). Nothing run while it is held
/// may call `printErr`, which takes it during a batch with a progress line: Swift's Mutex traps on a recursive
/// lock (SIGILL), so such a call would stop the process.
let progressOutput = Mutex(())

/// Whether a progress line is on standard error's terminal now (drawn, not yet cleared by `finish`).
let progressLineShown = Atomic<Bool>(false)
/// Whether a batch with a progress line is under way (`Progress.begin` to `finish`).
let progressActive = Atomic<Bool>(false)

/// `body` (a write to the terminal standard error is on: `applies`) with the progress line cleared first while it is
/// shown: a report written there began on the end of the progress line. The next `show` redraws it.
func clearingProgress<T>(when applies: Bool, _ body: () -> T) -> T {
    guard applies else { return body() }
    return progressOutput.withLock { _ in
        if progressLineShown.load(ordering: .relaxed) {
            writeStandardError("\r\u{1B}[K")
            progressLineShown.store(false, ordering: .relaxed)
        }
        return body()
    }
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
        descriptorJobs = jobsTheDescriptorLimitHolds()
    }

    /// The jobs the open-file limit holds, looked at once (a listing of the open descriptors: `openDescriptors`).
    private let descriptorJobs: Int

    /// How many threads: -j N, else every core; never more than the files, nor than the open-file limit holds
    /// (with more, files failed for "Too many open files" or not, by timing).
    var threads: Int { max(1, min(asked, descriptorJobs)) }

    /// -j N, else every core; never more than the files.
    private var asked: Int {
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
        let threads = self.threads
        if threads < asked && options.jobs > 0 {
            // (A warning: -q leaves it. "At most": the count keeps a margin, and one job needs about three.)
            printErr("yuvconv: warning: the open-file limit (ulimit -n) holds at most \(threads) job\(threads == 1 ? "" : "s") "
                     + "at a time, not \(options.jobs): -j \(threads)")
        }
        progress.begin()
        runOnThreads(threads, room: Ledger.roomForJobs) { _ in
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
                    if let why = outcome?.stopsRun {
                        s.stop = true
                        if s.stopReason == nil { s.stopReason = why }
                    }
                    // One not started is not counted as done: the summary and the status say the run was cut short.
                    if started, let outcome {
                        s.done += 1
                        if outcome.skipped {
                            s.skipped += 1
                            if opts.metrics && opts.reportFormat != nil && outcome.record.upToDate {
                                if outcome.record.quality == nil {
                                    s.keptUnmeasured += 1
                                } else if outcome.record.report?.chromaFilter == .sharp
                                            && outcome.record.quality?.psnrRGBBilinearBox == nil {
                                    s.keptWithoutBox += 1
                                }
                            }
                        } else if outcome.failure != nil {
                            s.failed += 1
                            if interruptSignal() != nil { s.failedAfterSignal += 1 }
                            if opts.failFast { s.stop = true }
                        } else {
                            s.converted += 1
                            s.inputBytes += outcome.record.report?.inputBytes ?? 0
                            if outcome.record.report?.info.container == .jpeg { s.jpegInputs += 1 }
                            if outcome.record.report?.info.hasAlpha == true { s.alphaInputs += 1 }
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
    /// skipped (`skipped`), F failed", then every failure, in input order — unless the run was one file named alone,
    /// whose error line said it), the report's totals, and the exit status.
    /// `lost`: what else of the run failed, said above (`--update`'s manifest), for the summary's end.
    func finish(summary done: String, skipped: String?, always: Bool, lost: String? = nil) -> Int32 {
        let signal = interruptSignal()
        let final = state.withLock { $0 }
        let notStarted = count - final.done
        // Every input converted and none a JPEG: the JPEG-only options given did nothing (a single file says
        // so up front; a batch knows only now).
        if final.converted > 0 && final.converted == count && final.jpegInputs == 0,
           let w = options.jpegOptionsWithoutJPEG(single: count == 1 && options.namesOneFile) {
            printErr("yuvconv: warning: \(w)")
        }
        // (A batch of one says it as a batch: its line names no file, so "this one" would name none.)
        if final.converted > 0 && final.converted == count && final.alphaInputs == 0,
           let w = options.alphaWithoutAlpha(single: false) {
            printErr("yuvconv: warning: \(w)")
        }
        // --metrics measures what a run converts; a kept output's figures are its manifest line's, made by a run
        // without --metrics: its report line's quality is null, which is worth a word rather than a silent gap.
        if final.keptUnmeasured > 0 {
            let n = final.keptUnmeasured
            printErr("yuvconv: warning: \(n) output\(n == 1 ? "" : "s") kept as up to date \(n == 1 ? "has" : "have") no quality "
                     + "figures in the report (made without --metrics, and not converted again); `yuvconv report` measures "
                     + "the inputs without writing anything")
        }
        // Sharp chroma's comparison with the box is measured by reading the input again; the manifest keeps the
        // figures a conversion measured, not that one, so a kept output's line has it empty (it was a silent null).
        if final.keptWithoutBox > 0 {
            let n = final.keptWithoutBox
            printErr("yuvconv: warning: \(n) sharp-chroma output\(n == 1 ? "" : "s") kept as up to date \(n == 1 ? "has" : "have") "
                     + "no comparison with the box filter in the report (psnr_rgb_bilinear_box_db, sharp_gain_db: the manifest "
                     + "does not keep it); `yuvconv report --chroma-filter sharp --metrics` measures it without writing anything")
        }
        // A signal that cut nothing short (it came after every input had finished, or while the last file was
        // encoded, which it lets finish) leaves the run's own status, as its report is put in place below: 130 with a
        // complete report said "interrupted" of a finished run. The summary and the report say the same.
        let cutShort = notStarted > 0 || final.failedAfterSignal > 0
        // The report is finished before the summary, which says when it could not be written: the summary said
        // "0 failed" and the run then failed on its report (a full disk), exit 1 — the one line a CI log shows.
        var reportStatus: Int32 = 0, reportLost: String?
        if let report = outputs.report, let writer = outputs.writer {
            var failure: FileError?
            do throws(FileError) {
                try report.finish(peakRSS: peakResidentBytes(), notStarted: notStarted, interrupted: signal != nil && cutShort)
            } catch {
                // What the report sets aside in temporary files until its end (an HTML report's rows, the figures
                // for a median) could not be kept: said as the report's failure ("/tmp: cannot write a temporary
                // file" named neither the report nor that it was lost).
                // A file is not put in place, and an HTML page is written whole at the end; a JSON, CSV or text
                // report to a stream has its image lines out already, and lacks only its totals.
                let file = options.reportFile.map { $0 == "-" ? "<stdout>" : $0 } ?? "<stdout>"
                let lost = writer.isFile || options.reportFormat == .html ? "the report was not written"
                    : "the report's totals were not written (its image lines were)"
                failure = FileError(path: file, reason: "\(lost): what it keeps until its end could not be set aside "
                                    + "(\(error.reason))")
            }
            // An interrupted run's report file is not put in place when it would cover part of the inputs, over
            // a complete report of an earlier run (a report on standard output says so in its totals); a signal
            // after every input had finished cut nothing short.
            let dropPartial = signal != nil && writer.isFile && cutShort
            if let error = writer.finish(abort: failure != nil || dropPartial) ?? failure {
                reportStatus = readerGone ? 1 : fileFailure(error)
                if !readerGone { reportLost = "the report failed (above)" }
            } else if dropPartial {
                printErr("yuvconv: the report file was not written (interrupted); what was there is as it was")
            }
        }
        if always || final.failed > 0 || notStarted > 0 {
            var line = "yuvconv: \(final.converted) \(done), "
                + (skipped.map { "\(final.skipped) \($0), " } ?? "") + "\(final.failed) failed"
            if notStarted > 0 {
                line += ", \(notStarted) not started"
                    + (signal != nil ? " (interrupted)" : readerGone ? " (standard output's reader stopped reading)"
                       : final.stopReason.map { " (\($0))" } ?? " (--fail-fast)")
            } else if signal != nil && cutShort {
                line += " (interrupted)"   // during the last files, which failed: nothing was left to start
            }
            // (The one line a CI log shows: "0 failed" with exit 1 said nothing of a manifest that was not written.)
            for what in [reportLost, lost].compactMap({ $0 }) { line += "; " + what }
            printErr(line)
            // Of one file named alone, its error line above says it all (`report x.y4m` said it three times, with the
            // report's); a shard, a list or a folder lists its failures, whatever their number (CI gathers them).
            var failures = outputs.failures.reader()
            let alone = count == 1 && options.inputs.count == 1 && options.filesFrom == nil && options.shard == nil
                && FileStatus(path: options.inputs[0])?.kind != .directory
            while !alone, let why = failures.nextRecord() { printErr("  failed: " + String(decoding: why, as: UTF8.self)) }
        }
        var status: Int32 = signal.flatMap { cutShort ? 128 + $0 : nil } ?? (final.failed == 0 ? 0 : 1)
        if let error = outputs.failures.failure {
            // The list above then holds the failures set aside before it (or none): the rest could not be kept.
            printErr("yuvconv: error: the list of failed files is incomplete: \(error.cli)")
            if status == 0 { status = 1 }
        }
        // Never below a signal's 128+N (Ctrl-C on `yuvconv … | jq` ends the reader too).
        return max(status, reportStatus)
    }
}
