#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVCore
import YUVIO
import YUVReport

/// One file of a batch: where it came from and where it goes.
struct BatchItem {
    let input: String
    /// The input's folder below the folder argument it was found in ("" for files named directly).
    let dir: String
    var output = ""
    /// What its output name says to write (`OutputFormat.resolve`).
    var format = OutputFormat.raw(.nv12)
}

func isImageName(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: ".") else { return false }
    return ["jpg", "jpeg", "jpe", "png"].contains(name[name.index(after: dot)...].lowercased())
}

/// The image files of a folder (sorted), with subfolders when `recursive`. Hidden entries are skipped, and
/// so is anything that is not a regular file (a FIFO would block the run, a device be read forever): those
/// are returned in `skipped` with what they are.
func listFolder(_ root: String, recursive: Bool) throws(FileError) -> (items: [BatchItem], skipped: [String]) {
    var out: [BatchItem] = [], skipped: [String] = []
    var pending: [String] = [""]
    while let rel = pending.popLast() {
        let path = rel.isEmpty ? root : root + "/" + rel
        guard let d = withFileSystemPath(path, { opendir($0) }) else {
            throw FileError(path: path, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
        }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                PathBytes.decode(raw.prefix { $0 != 0 })
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(d)
        for name in names.sorted() {
            let full = path + "/" + name
            guard let st = FileStatus(path: full) else { continue }
            switch st.kind {
            case .directory:
                if recursive { pending.append(rel.isEmpty ? name : rel + "/" + name) }
            case .regular:
                if isImageName(name) { out.append(BatchItem(input: full, dir: rel)) }
            default:
                if isImageName(name) { skipped.append("\(displayPath(full)) (\(describe(st.kind)))") }
            }
        }
    }
    return (out, skipped)
}

/// What a file that is not a regular one is, for messages.
func describe(_ kind: FileStatus.Kind) -> String {
    switch kind {
    case .fifo: return "a FIFO"
    case .characterDevice, .blockDevice: return "a device"
    case .socket: return "a socket"
    default: return "not a regular file"
    }
}

/// Reads a list of paths: lines, or NUL-separated records; at most 256 MiB.
func readList(_ path: String, nul: Bool) throws(FileError) -> [String] {
    let limit = 256 << 20
    // A named pipe waits for its writer here (`producer > list & yuvconv --files-from list`), as `cat` would:
    // the list is what the user asked to read.
    let fd = path == "-" ? dup(STDIN_FILENO) : withFileSystemPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { throw FileError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buf, buf.count)
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw FileError(path: path, reason: "read failed: \(String(cString: strerror(errno)))") }
        if n == 0 { break }
        bytes += buf[0..<n]
        if bytes.count > limit { throw FileError(path: path, reason: "the list is longer than 256 MiB") }
    }
    let sep: UInt8 = nul ? 0 : 10
    return bytes.split(separator: sep).map { record in
        PathBytes.decode(!nul && record.last == 13 ? record.dropLast() : record)
    }.filter { !$0.isEmpty }
}

/// Expands the name template for one input: `{ext}` and `{format}` are those of `format` (what --format
/// asked for, NV12 by default); the expanded name's own extension then decides what is written.
func outputName(_ template: String, item: BatchItem, format: OutputFormat) -> String {
    let base = item.input.split(separator: "/").last.map(String.init) ?? item.input
    let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
    var name = template.replacingAll("{stem}", stem).replacingAll("{name}", base)
        .replacingAll("{ext}", format.fileExtension).replacingAll("{format}", format.name)
        .replacingAll("{dir}", item.dir)
    while name.contains("//") { name = name.replacingAll("//", "/") }
    while name.hasPrefix("./") { name.removeFirst(2) }
    while name.hasPrefix("/") { name.removeFirst() }
    return name
}

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
    func usage(_ m: String) -> Int32 {
        printErr("yuvconv: error: \(m)\nTry 'yuvconv --help'.")
        return 2
    }
    guard let outDir = options.output, outDir != "-" else { return usage("many inputs need an output folder: -o DIR/") }
    if !outDir.hasSuffix("/") && FileStatus(path: outDir)?.kind != .directory {
        return usage("-o \(displayPath(outDir)) is not a folder (end it with / to make one)")
    }
    if options.reportFile != nil && options.reportFormat == nil { return usage("--report-file needs --report FORMAT") }
    // Gather, sort, shard.
    var items: [BatchItem] = []
    var skipped: [String] = []
    do throws(FileError) {
        for arg in options.inputs {
            if arg != "-", FileStatus(path: arg)?.kind == .directory {
                // As rsync reads it: "dir/" means its contents, "dir" the folder itself — {dir} then starts
                // with the folder's own name.
                let root = arg.hasSuffix("/") && arg.count > 1 ? String(arg.dropLast()) : arg
                let prefix = arg.hasSuffix("/") ? "" : (root.split(separator: "/").last.map(String.init) ?? "")
                let listed = try listFolder(root, recursive: options.recursive)
                skipped += listed.skipped
                items += listed.items.map {
                    BatchItem(input: $0.input, dir: prefix.isEmpty ? $0.dir : ($0.dir.isEmpty ? prefix : prefix + "/" + $0.dir))
                }
            } else {
                if arg == "-" { return usage("standard input cannot be one of many inputs") }
                items.append(BatchItem(input: arg, dir: ""))
            }
        }
        if let list = options.filesFrom {
            items += try readList(list, nul: options.nulSeparated).map { BatchItem(input: $0, dir: "") }
        }
    } catch {
        printErr("yuvconv: error: \(error.cli)")
        return 1
    }
    if !skipped.isEmpty && !options.quiet {
        printErr("yuvconv: warning: skipped \(skipped.count) folder entr\(skipped.count == 1 ? "y" : "ies") that "
                 + "\(skipped.count == 1 ? "is" : "are") not a regular file: " + skipped.joined(separator: ", "))
    }
    items.sort { $0.input < $1.input }
    if let (k, n) = options.shard {
        items = items.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
    }
    // Names and formats (one rule with single files), and no two inputs onto one output.
    if options.nameTemplate.isEmpty { return usage("--name needs a template, e.g. '{stem}.{ext}'") }
    let dirPath = outDir.hasSuffix("/") ? String(outDir.dropLast()) : outDir
    let named = options.format ?? .raw(.nv12)
    var seen: [String: String] = [:]
    for i in items.indices {
        let name = outputName(options.nameTemplate, item: items[i], format: named)
        if name.isEmpty || name.hasSuffix("/") || name.split(separator: "/").contains("..") {
            return usage("--name '\(displayPath(options.nameTemplate))' gives '\(displayPath(name))' for \(displayPath(items[i].input)): "
                         + "an output name must be a file inside the output folder (no '..', not empty)")
        }
        items[i].output = (dirPath.isEmpty ? "" : dirPath + "/") + name
        do throws(UsageError) { items[i].format = try options.outputFormat(for: items[i].output) } catch {
            return usage(error.message)
        }
        if let other = seen[items[i].output] {
            return usage("\(displayPath(other)) and \(displayPath(items[i].input)) would both write \(displayPath(items[i].output)) "
                         + "(change --name, e.g. '{name}.{ext}')")
        }
        seen[items[i].output] = items[i].input
    }
    // Before anything is written: no output (nor the report) may be any input of the batch, and the report
    // may not be one of the outputs.
    var protected = Set(items.compactMap { inputIdentity($0.input) })
    if let list = options.filesFrom, let id = inputIdentity(list) { protected.insert(id) }
    for item in items {
        if let st = FileStatus(path: item.output), protected.contains(st.identity) {
            printErr("yuvconv: error: \(displayPath(item.output)): is an input of this batch; refusing to overwrite an input")
            return 1
        }
    }
    if let file = options.reportFile {
        let keys = Set(items.map { outputKey($0.output) })
        if keys.contains(outputKey(file)) { return usage("--report-file \(displayPath(file)) is also an image output") }
    }
    var reportSink: AtomicOutput?
    if let file = options.reportFile {
        do { reportSink = try AtomicOutput(path: file, force: options.force, protected: protected) } catch {
            printErr("yuvconv: error: \(FileError(path: file, error).cli)")
            return 1
        }
    }
    installSignalCleanup()
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
