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
        fputs("\r\u{1B}[K" + line, stderr)
    }

    func finish() {
        if enabled { fputs("\r\u{1B}[K", stderr) }
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// `yuvconv convert a.jpg b.png dir/ -o outdir/`: many files, several at once, none lost.
func runBatch(_ options: Options) -> Int32 {
    let plan: BatchPlan
    do throws(BatchPlanError) {
        let folder = try BatchOutputFolder(options.output)
        if options.reportFile != nil && options.reportFormat == nil { return usageFailure("--report-file needs --report FORMAT") }
        let inputs = try BatchInputs(operands: options.inputs, recursive: options.recursive, filesFrom: options.filesFrom,
                                     nul: options.nulSeparated)
        let skipped = inputs.skipped
        if !skipped.isEmpty && !options.quiet {
            printErr("yuvconv: warning: skipped \(skipped.count) folder entr\(skipped.count == 1 ? "y" : "ies") that "
                     + "\(skipped.count == 1 ? "is" : "are") not a regular file: "
                     + skipped.map(\.description).joined(separator: ", "))
        }
        plan = try BatchPlan(inputs, outputFolder: folder, template: options.nameTemplate, format: options.format,
                             needs: options.rawOnlyNeeds, shard: options.shard, reportFile: options.reportFile)
    } catch {
        if let failure = error.fileError {
            printErr("yuvconv: error: \(failure.cli)")
            return 1
        }
        return usageFailure(error.cliMessage)
    }
    let items = plan.items, protected = plan.protected
    var reportSink: AtomicOutput?
    if let file = options.reportFile {
        do { reportSink = try AtomicOutput(path: file, force: options.force, protected: protected) } catch {
            printErr("yuvconv: error: \(FileError(path: file, error).cli)")
            return 1
        }
    }
    installSignalCleanup()
    warnIgnoredOptions(options, format: options.format ?? items.first?.format ?? .raw(.nv12), rawInput: false)
    setGracefulInterrupt(true)
    let tty = isatty(STDERR_FILENO) != 0
    let term = getenv("TERM").map { String(cString: $0) } ?? ""
    let progress = Progress(enabled: tty && !options.quiet && term != "dumb", total: items.count)
    var opts = options
    opts.batchQuietLines = progress.enabled
    opts.inBatch = true
    let jobs = options.jobs > 0 ? options.jobs : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let state = BatchState()
    let shared = UncheckedSendable((items, opts, progress, protected))
    runOnThreads(max(1, min(jobs, items.count))) { _ in
        let (items, opts, progress, protected) = shared.value
        while true {
            let index: Int? = state.withLock { s in
                if s.stop || s.next >= items.count { return nil }
                defer { s.next += 1 }
                return s.next
            }
            guard let i = index, interruptSignal() == nil else { return }
            let item = items[i]
            // Up to date, or there already: skipped (unless --force).
            if !opts.force, let outSt = FileStatus(path: item.output) {
                let newer = (FileStatus(path: item.input)?.modified ?? 0) > outSt.modified
                if !(opts.update && newer) {
                    state.withLock { $0.skipped += 1; $0.done += 1 }
                    progress.show(state)
                    continue
                }
            }
            var o = opts
            if opts.update { o.force = true }   // refreshing an older output replaces it
            let dir = item.output.split(separator: "/").dropLast().joined(separator: "/")
            let why = dir.isEmpty ? nil : makeFolders(item.output.hasPrefix("/") ? "/" + dir : dir)
            let outcome = why.map { why in
                Outcome(record: ImageRecord(file: displayPath(item.input), error: why, report: nil, quality: nil,
                                            alignment: opts.alignment, peakRSS: 0),
                        failure: FileError(path: item.output, reason: why))
            } ?? convertOne(input: item.input, output: item.output, format: item.format, options: o,
                            protected: protected, keepForReport: opts.reportFormat != nil)
            state.withLock { s in
                s.done += 1
                s.records[i] = outcome.record
                if let f = outcome.failure {
                    s.failures.append((item.input, f.cli))
                    if opts.failFast { s.stop = true }
                } else {
                    s.converted += 1
                    s.inputBytes += outcome.record.report?.inputBytes ?? 0
                }
            }
            if let f = outcome.failure, !progress.enabled { printErr("yuvconv: error: \(f.cli)") }
            progress.show(state)
        }
    }
    progress.finish()
    let signal = interruptSignal()
    let final = state.withLock { $0 }
    let notStarted = items.count - final.done
    // The summary: always, on standard error.
    var summary = "yuvconv: \(final.converted) converted, \(final.skipped) skipped (already there"
        + (options.update ? " and up to date" : "") + "), \(final.failures.count) failed"
    if notStarted > 0 { summary += ", \(notStarted) not started" + (signal != nil ? " (interrupted)" : " (--fail-fast)") }
    printErr(summary)
    for (_, why) in final.failures.sorted(by: { $0.0 < $1.0 }) { printErr("  failed: \(why)") }
    if let format = options.reportFormat {
        let records = (0..<items.count).compactMap { final.records[$0] }
        do { try emitReport(renderReport(records, format: format), to: reportSink, dataOnStdout: false) } catch {
            printErr("yuvconv: error: \(error.cli)")
            return 1
        }
    }
    if let signal { return 128 + signal }
    return final.failures.isEmpty ? 0 : 1
}

/// mkdir -p.
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
