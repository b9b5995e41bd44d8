#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import YUVCore
import YUVIO

/// One file of a batch: where it came from and where it goes.
struct BatchItem {
    let input: String
    /// The input's folder below the folder argument it was found in ("" for files named directly).
    let dir: String
    var output = ""
}

/// The extension a layout's files get by default.
func fileExtension(_ layout: PixelLayout, y4m: Bool = false, png: Bool = false, jpeg: Bool = false) -> String {
    if y4m { return "y4m" }
    if jpeg { return "jpg" }
    if png { return "png" }
    switch layout {
    case .nv12: return "nv12"
    case .nv21: return "nv21"
    case .yuv420p: return "yuv"
    case .yv12: return "yv12"
    }
}

func isImageName(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: ".") else { return false }
    return ["jpg", "jpeg", "jpe", "png"].contains(name[name.index(after: dot)...].lowercased())
}

/// The image files of a folder (sorted), with subfolders when `recursive`. Hidden entries are skipped.
func listFolder(_ root: String, recursive: Bool) throws(FileError) -> [BatchItem] {
    var out: [BatchItem] = []
    var pending: [String] = [""]
    while let rel = pending.popLast() {
        let path = rel.isEmpty ? root : root + "/" + rel
        guard let d = opendir(path) else { throw FileError(path: path, reason: "cannot read the folder: \(String(cString: strerror(errno)))") }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(d)
        for name in names.sorted() {
            let full = path + "/" + name
            var st = stat()
            guard stat(full, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                if recursive { pending.append(rel.isEmpty ? name : rel + "/" + name) }
            } else if isImageName(name) {
                out.append(BatchItem(input: full, dir: rel))
            }
        }
    }
    return out
}

/// Reads a list of paths: lines, or NUL-separated records.
func readList(_ path: String, nul: Bool) throws(FileError) -> [String] {
    let f: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(dup(STDIN_FILENO), "rb") : fopen(path, "rb")
    guard let f else { throw FileError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n == 0 { break }
        bytes += buf[0..<n]
    }
    let sep: UInt8 = nul ? 0 : 10
    return bytes.split(separator: sep).map { String(decoding: $0, as: UTF8.self) }
        .map { nul ? $0 : ($0.hasSuffix("\r") ? String($0.dropLast()) : $0) }
        .filter { !$0.isEmpty }
}

/// Expands the name template for one input.
func outputName(_ template: String, item: BatchItem, layout: PixelLayout, y4m: Bool = false, png: Bool = false,
                jpeg: Bool = false) -> String {
    let base = item.input.split(separator: "/").last.map(String.init) ?? item.input
    let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
    var name = template.replacingAll("{stem}", stem).replacingAll("{name}", base)
        .replacingAll("{ext}", fileExtension(layout, y4m: y4m, png: png, jpeg: jpeg)).replacingAll("{format}", layout.rawValue)
        .replacingAll("{dir}", item.dir)
    while name.contains("//") { name = name.replacingAll("//", "/") }
    while name.hasPrefix("./") { name.removeFirst(2) }
    while name.hasPrefix("/") { name.removeFirst() }
    return name
}

/// Counters shared by the workers.
final class BatchState: @unchecked Sendable {
    private let lock = DispatchSemaphore(value: 1)
    var next = 0, done = 0, converted = 0, skipped = 0, failures: [(String, String)] = []
    var records: [Int: ImageRecord] = [:]
    var inputBytes = 0
    var stop = false

    func withLock<T>(_ body: () -> T) -> T {
        lock.wait()
        defer { lock.signal() }
        return body()
    }
}

/// The progress line, on a terminal only: done/total, images/s, MiB/s, ETA, failures.
struct Progress {
    let enabled: Bool
    let total: Int
    let start = monotonicSeconds()

    func show(_ s: BatchState) {
        guard enabled else { return }
        let (done, failed, bytes) = s.withLock { (s.done, s.failures.count, s.inputBytes) }
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
    if options.layout == nil && outDir.hasSuffix("/") == false {
        var st = stat()
        if stat(outDir, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR { return usage("-o \(outDir) is not a folder (end it with / to make one)") }
    }
    let layout = options.layout ?? .nv12
    // Gather, sort, shard.
    var items: [BatchItem] = []
    do throws(FileError) {
        for arg in options.inputs {
            var st = stat()
            if arg != "-" && stat(arg, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                // As rsync reads it: "dir/" means its contents, "dir" the folder itself — {dir} then starts
                // with the folder's own name.
                let root = arg.hasSuffix("/") && arg.count > 1 ? String(arg.dropLast()) : arg
                let prefix = arg.hasSuffix("/") ? "" : (root.split(separator: "/").last.map(String.init) ?? "")
                items += try listFolder(root, recursive: options.recursive).map {
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
        printErr("yuvconv: error: \(error)")
        return 1
    }
    items.sort { $0.input < $1.input }
    if let (k, n) = options.shard {
        items = items.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
    }
    // Names, and no two inputs onto one output.
    let dirPath = outDir.hasSuffix("/") ? String(outDir.dropLast()) : outDir
    var seen: [String: String] = [:]
    for i in items.indices {
        items[i].output = (dirPath.isEmpty ? "" : dirPath + "/") + outputName(options.nameTemplate, item: items[i], layout: layout, y4m: options.y4m, png: options.png,
                                                                  jpeg: options.jpeg)
        if let other = seen[items[i].output] {
            return usage("\(other) and \(items[i].input) would both write \(items[i].output) (change --name, e.g. '{dir}/{stem}.{ext}')")
        }
        seen[items[i].output] = items[i].input
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
    let shared = UncheckedBox((items, opts, layout, progress))
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, items.count))) { _ in
        let (items, opts, layout, progress) = shared.value
        while true {
            let index: Int? = state.withLock {
                if state.stop || state.next >= items.count { return nil }
                defer { state.next += 1 }
                return state.next
            }
            guard let i = index, interruptSignal() == nil else { return }
            let item = items[i]
            // Up to date, or there already: skipped (unless --force).
            var outSt = stat(), inSt = stat()
            if !opts.force && stat(item.output, &outSt) == 0 {
                let newer = stat(item.input, &inSt) == 0 && modified(inSt) > modified(outSt)
                if !(opts.update && newer) {
                    state.withLock { state.skipped += 1; state.done += 1 }
                    progress.show(state)
                    continue
                }
            }
            var o = opts
            if opts.update { o.force = true }   // refreshing an older output replaces it
            let dir = item.output.split(separator: "/").dropLast().joined(separator: "/")
            if !dir.isEmpty { makeFolders(item.output.hasPrefix("/") ? "/" + dir : dir) }
            let outcome = convertOne(input: item.input, output: item.output, layout: layout, options: o,
                                     keepForReport: opts.reportFormat != nil)
            state.withLock {
                state.done += 1
                state.records[i] = outcome.record
                if let f = outcome.failure {
                    state.failures.append((item.input, f.description))
                    if opts.failFast { state.stop = true }
                } else {
                    state.converted += 1
                    state.inputBytes += outcome.record.report?.inputBytes ?? 0
                }
            }
            if let f = outcome.failure, !progress.enabled { printErr("yuvconv: error: \(f)") }
            progress.show(state)
        }
    }
    progress.finish()
    let signal = interruptSignal()
    let notStarted = items.count - state.done
    // The summary: always, on standard error.
    var summary = "yuvconv: \(state.converted) converted, \(state.skipped) skipped (already there"
        + (options.update ? " and up to date" : "") + "), \(state.failures.count) failed"
    if notStarted > 0 { summary += ", \(notStarted) not started" + (signal != nil ? " (interrupted)" : " (--fail-fast)") }
    printErr(summary)
    for (_, why) in state.failures.sorted(by: { $0.0 < $1.0 }) { printErr("  failed: \(why)") }
    if let format = options.reportFormat {
        let records = (0..<items.count).compactMap { state.records[$0] }
        var sink: AtomicOutput?
        if let file = options.reportFile {
            do { sink = try AtomicOutput(path: file, force: options.force, inputs: items.map(\.input)) } catch {
                printErr("yuvconv: error: \(FileError(path: file, error))")
                return 1
            }
        }
        do { try emitReport(renderReport(records, format: format), to: sink, dataOnStdout: false) } catch {
            printErr("yuvconv: error: \(error)")
        }
    }
    if let signal { return 128 + signal }
    return state.failures.isEmpty ? 0 : 1
}

func modified(_ st: stat) -> Double {
    #if canImport(Darwin)
    return Double(st.st_mtimespec.tv_sec) + Double(st.st_mtimespec.tv_nsec) * 1e-9
    #else
    return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) * 1e-9
    #endif
}

/// mkdir -p.
func makeFolders(_ path: String) {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        current += "/" + part
        mkdir(current, 0o777)
    }
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
