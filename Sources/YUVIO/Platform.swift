#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import CShims
import Synchronization

/// The C library's message for an errno value.
func errnoMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// `.reference` when `YUV_FORCE_REFERENCE=1` asks every driver to use the scalar reference rows
/// (as libjpeg-turbo's `JSIMD_FORCENONE` does), else `.fast`.
public func kernelChoiceFromEnvironment() -> KernelChoice {
    if let v = getenv("YUV_FORCE_REFERENCE"), String(cString: v) == "1" { return .reference }
    return .fast
}

/// Removes temporary outputs on SIGINT/SIGTERM/SIGHUP and the other signals that end a process (then ends it
/// as the signal would), and turns SIGPIPE into an EPIPE write error: process-wide, replacing the handlers a
/// program had (`yc_signals.h` lists the signals). Opt-in: the command calls it at start-up; `AtomicOutput`
/// never does, so a program using the library keeps its own signal handling unless it asks for this.
public func installSignalCleanup() {
    yc_install_signal_cleanup()
}

/// For a command's main thread at start-up: SIGINT and SIGTERM unblocked when the parent left them blocked
/// (`yc_unblock_stop_signals`). A library user's threads keep their own masks.
public func unblockStopSignals() {
    yc_unblock_stop_signals()
}

/// Whether an input path reads standard input: `-`, or a name of descriptor 0 (`/dev/stdin`, `/dev/fd/0`,
/// `/proc/self/fd/0`).
public func readsStandardInput(_ path: String) -> Bool {
    path == "-" || path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0"
}

/// Right after an `open` of `path` failed: when it failed because `path` is a Unix socket (ENXIO, which a FIFO
/// without a reader gives too), the reason to give, ending with `remedy`; else nil.
public func socketRefusal(_ path: String, remedy: String) -> String? {
    guard errno == ENXIO, FileStatus(path: path)?.kind == .socket else { return nil }
    return socketReason(remedy: remedy)
}

/// Why a Unix socket is refused where a file is read or written, ending with `remedy`.
public func socketReason(remedy: String) -> String {
    "it is a socket, which cannot be opened as a file (\(remedy))"
}

/// Says which input this thread converts, for a message that must name it without a way back to the caller
/// (a signal's cleanup, a library's out-of-memory word); nil when done.
public func setCurrentInput(_ name: String?) { yc_set_current_input(name) }

/// The input this thread (or, on a pipeline's worker, the last one started) converts, as messages show it.
public func currentInputName() -> String? { yc_current_input().map { String(cString: $0) } }

/// Removes every temporary output file now: the process is about to exit on an error it cannot return from.
public func removeTemporaryFiles() { yc_remove_temps() }

/// Batch mode: the first SIGINT/SIGTERM asks the run to stop instead of ending it.
public func setGracefulInterrupt(_ on: Bool) { yc_set_graceful_interrupt(on ? 1 : 0) }

/// The signal that asked the run to stop (SIGINT 2, SIGTERM 15), or nil.
public func interruptSignal() -> Int32? {
    let s = yc_interrupted()
    return s == 0 ? nil : s
}

/// The identity of the pipe or socket standard input is, or nil (a file or device it was redirected from, such as
/// /dev/null under cron, which may also be named as an input): what other names of standard input lead to.
public func standardInputStreamIdentity() -> FileIdentity? {
    guard let st = FileStatus(descriptor: STDIN_FILENO), st.kind == .fifo || st.kind == .socket else { return nil }
    return st.identity
}

/// Notes that standard output's reader went away (EPIPE on text written there), for every thread.
public func noteReaderGone() { yc_note_reader_gone() }

/// Whether standard output's reader went away (`noteReaderGone`): a batch starts no more files.
public var readerGone: Bool { yc_reader_gone() != 0 }

/// Opens /dev/null on any of descriptors 0–2 that is closed, so that no file opened later lands on one of
/// them (a temporary output on descriptor 2 would receive log lines). Call it first thing.
public func protectStandardDescriptors() {
    _ = yc_protect_standard_descriptors()
}

/// Under an address-space limit (`ulimit -v`), before anything else: every thread that allocates takes one
/// malloc arena (glibc reserves 64 MiB of address space for each), so threads share one, and the process
/// needs a few MiB to start at all. False when even those are not to be had (the caller says so and exits).
public func prepareForAddressSpaceLimit() -> Bool {
    yc_prepare_address_space_limit(8 << 20) != 0
}

/// The arguments after the program's name, as the bytes they are (`CommandLine.arguments` repairs invalid
/// UTF-8, losing file names). From the C start-up where it hands them over, else from `CommandLine` (which on
/// Linux reads /proc/self/cmdline: without /proc it has none, and the program then runs with no arguments
/// rather than trapping). Nil when neither source has any (not even the program's name): the command line
/// cannot be read, which is not the same as no arguments.
public func processArguments() -> [String]? {
    var count: Int32 = -1
    let captured = yc_arguments(&count)
    let argc = count > 0 ? Int(count) : Int(CommandLine.argc)
    guard argc > 0 else { return nil }
    guard argc > 1 else { return [] }
    return (1..<argc).compactMap { i in
        guard let p = count > 0 ? captured?[i] : CommandLine.unsafeArgv[i] else { return nil }
        return PathBytes.decode(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self),
                                                    count: strlen(p)))
    }
}

/// True when descriptor 0, 1 or 2 was closed when the process started (see `protectStandardDescriptors`):
/// data for a closed standard output is an error, not silently discarded.
public func standardDescriptorWasClosed(_ fd: Int32) -> Bool {
    yc_standard_descriptor_was_closed(fd) != 0
}

/// Runs `body(i)` for i in 0..<count on `count` threads of its own (not a shared pool: `-j N` means N at
/// once, whatever the core count) and returns when all have finished. `room(n)` says whether there is memory
/// for n jobs at once, each on a thread of its own (a batch's jobs under an address-space limit,
/// `Ledger.roomForJobs`): asked before each thread is started, and when it says no, no more are started and
/// those started do the work; without room for two, the one job runs on the calling thread.
public func runOnThreads(_ count: Int, room: (Int) -> Bool = { _ in true }, _ body: @escaping @Sendable (Int) -> Void) {
    // One job, or room for one only (not for two: `room(1)` asked for one beside this thread's, and a batch under a
    // limit that held one conversion started its job on a new thread's 8 MiB stack, where `-j 1` converted the file
    // that `-j 2` failed): it runs here, on no new thread's stack.
    if count <= 1 || !room(2) {
        body(0)
        return
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        // No room for another thread (the first's stack took some of what `room(2)` saw): the calling thread does the
        // job itself, and starts no more. It broke off and waited idle, its one job on a thread of its own: a batch
        // that -j 1 converted failed a file with -j 2 (a reviewer's find).
        if i > 0, !room(i + 1) {
            body(i)
            break
        }
        if let t = startThread({ body(i) }) {
            threads.append(t)
        } else {
            body(i)   // no thread to be had: run it here
        }
    }
    threads.forEach(joinThread)
}

/// Starts `body` on a thread of its own, for `joinThread`; nil when the system gives no thread.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let job = Unmanaged.passRetained(Job(body)).toOpaque()
    var t = pthread_t()
    // The stack the ledger counts a thread for, whatever glibc's default (the stack limit at the start, which
    // `ulimit -s 64` made 64 KiB: a batch's frames and a conversion's overran it, SIGSEGV).
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    _ = pthread_attr_setstacksize(&attr, Ledger.threadStackBytes)
    let rc = pthread_create(&t, &attr, { arg in
        Unmanaged<Job>.fromOpaque(arg!).takeRetainedValue().body()
        return nil
    }, job)
    if rc != 0 {
        Unmanaged<Job>.fromOpaque(job).release()
        return nil
    }
    return t
}

func joinThread(_ t: pthread_t) { pthread_join(t, nil) }

#if canImport(Glibc)
private let stackResource = __rlimit_resource_t(RLIMIT_STACK.rawValue)
#else
private let stackResource = RLIMIT_STACK
#endif

/// The stack limit (`ulimit -s`, soft and hard), nil when it cannot be read.
func stackLimit() -> rlimit? {
    var limit = rlimit()
    return getrlimit(stackResource, &limit) == 0 ? limit : nil
}

/// Sets the stack limit; true when it took.
func setStackLimit(_ limit: rlimit) -> Bool {
    var l = limit
    return setrlimit(stackResource, &l) == 0
}

/// Runs a command's `body` where the stack has room for its work: here when the stack limit gives the main
/// thread `Ledger.minimumStackBytes`, or can be raised to that (its hard limit allows it); else on a thread with
/// a stack of that size (`ulimit -s 64`, which sets the hard limit too, ended every batch in SIGSEGV while a
/// single conversion passed). The result is `body`'s.
public func onRoomyStack(_ body: @escaping @Sendable () -> Int32) -> Int32 {
    let want = rlim_t(Ledger.minimumStackBytes)
    guard var limit = stackLimit(), limit.rlim_cur != rlim_t.max, limit.rlim_cur < want else { return body() }
    if limit.rlim_max == rlim_t.max || limit.rlim_max >= want {
        limit.rlim_cur = want
        if setStackLimit(limit) { return body() }   // the main stack grows to the new limit
    }
    final class Result: @unchecked Sendable { var status: Int32 = 0 }
    let result = Result()
    guard let t = startThread({ result.status = body() }) else { return body() }
    joinThread(t)
    return result.status
}

/// A key that names where an output goes, equal for two paths that reach the same file (links, `./a` and
/// `a`, an existing file by device and inode) or the same descriptor: two outputs of one run must differ.
/// A descriptor open on a file, pipe, socket or disk is keyed by what it is open on, so `-o -` with standard
/// output redirected to the report file (or `/dev/fd/5` a copy of standard output) is the same output; a
/// terminal or other character device keeps its descriptor's key.
public func outputKey(_ path: String) -> String {
    if let fd = AtomicOutput.standardDescriptor(path) {
        if let st = FileStatus(descriptor: fd), st.kind != .characterDevice, st.kind != .directory {
            return "id:\(st.device):\(st.inode)"
        }
        return "fd:\(fd)"
    }
    let real = (try? AtomicOutput.resolveLinks(path)) ?? path
    if let st = FileStatus(path: real) { return "id:\(st.device):\(st.inode)" }
    // Not there yet: its deepest folder that is, by identity, and the names below it, from the path resolved
    // (links followed, `.`, `..` and `//` applied), so that `./out/a`, `out//a` and `out/x/../a` are one output
    // before `out` or `out/x` is made. Names by their bytes, in hex: keys compare as Swift strings, which take one
    // name in NFC and NFD as equal.
    func hex(_ s: String) -> String { PathBytes.encode(s).map { String($0, radix: 16) }.joined(separator: ".") }
    // A relative name when the current folder cannot be read (removed, or its path too long): keyed by its text.
    if !real.isAbsolutePath && getcwd(nil, 0).map({ free($0); return false }) ?? true { return "path:" + hex(real) }
    var place = resolvedPath(real)
    if let st = FileStatus(path: place) { return "id:\(st.device):\(st.inode)" }
    var names: [String] = []
    while place != "/" {
        let (dir, name) = splitPath(place)
        names.insert(name, at: 0)
        if let d = FileStatus(path: dir) {
            // Where the folder does not tell upper from lower case, `É.nv12` and `é.nv12` are one output.
            let folds = foldsCaseCached(dir)
            let below = names.map { hex(folds ? caseFolded($0) : $0) }
            return "in:\(d.device):\(d.inode)/" + below.joined(separator: "/")
        }
        place = dir
    }
    return "path:" + names.map(hex).joined(separator: "/")
}

/// `foldsCase` of the folder last asked (a batch's outputs come folder by folder; outputKey is asked of each).
private func foldsCaseCached(_ folder: String) -> Bool {
    // By bytes: Swift's == takes `café` in NFC and NFD, two folders, for one.
    if let hit = lastFoldsCase.withLock({ $0.map { $0.folder.utf8.elementsEqual(folder.utf8) } == true ? $0?.folds : nil }) { return hit }
    let folds = foldsCase(folder)
    lastFoldsCase.withLock { $0 = (folder, folds) }
    return folds
}
private let lastFoldsCase = Mutex<(folder: String, folds: Bool)?>(nil)

/// The realtime clock, in seconds since 1970: the clock file times are set by.
public func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The monotonic clock, in seconds (rates and waits: never set back).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// `yc_cut_back`: `fd`'s file cut back to `start` when what follows is this output's own (`written`: the bytes
/// its writes put there, counted as they returned; an appending descriptor only when those are exactly the file's
/// last bytes) — a failed output leaves none of itself and nobody else's bytes are cut. With `cutSlot` (an output
/// registered for the signal handler's cut, whose guarded writes recorded where they landed), by that record: an
/// appended output whose first write came after another program's bytes is cut back to its own first byte.
@discardableResult
public func cutBack(_ fd: Int32, to start: AtomicOutput.WritingStart, written: Int, cutSlot: Int32 = -1) -> Bool {
    if cutSlot >= 0 { return yc_cut_back_registered(cutSlot, fd) != 0 }
    return yc_cut_back(fd, Int64(start.offset), Int64(start.size), start.appends ? 1 : 0, Int64(written), -1) != 0
}

/// How many batch jobs the open-file limit holds at once (`ulimit -n`): each conversion holds up to
/// `descriptorsPerJob` descriptors at once (its input, its output, the output's folder, and the signal registry's own
/// descriptor of that folder while a temporary name exists: a `--force` replacement's), and the
/// run keeps a few of its own besides those open now (a manifest's journal and lock, a sorted copy). Int.max when
/// the limit is too high to matter (a million or more). 0 when the count leaves none: one job
/// runs all the same (it needs about three), and meets the limit, if it must, with the reason.
public func jobsTheDescriptorLimitHolds() -> Int {
    // Far above what -j's most (1024 jobs) needs beside any number a parent could have left open: no count.
    guard let soft = openFileLimit(), soft < 1 << 20 else { return Int.max }
    return max(0, (Int(soft) - openDescriptors(below: Int32(soft)) - runDescriptors) / descriptorsPerJob)
}

/// How many descriptors are open (those a parent left open included: 8100 inherited under a limit of 8193 made
/// files fail while a limit of 8192, looked at, held them): the entries of /proc/self/fd (Linux) or /dev/fd, less
/// the one the listing itself holds; else each descriptor below `limit` asked.
func openDescriptors(below limit: Int32) -> Int {
    #if os(Linux)
    let listing = "/proc/self/fd"
    #else
    let listing = "/dev/fd"
    #endif
    if let dir = opendir(listing) {
        var entries = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { entries += 1 }
        }
        closedir(dir)
        return max(0, entries - 1)
    }
    var open = 0
    for fd in 0..<min(limit, 65536) where fcntl(fd, F_GETFD) != -1 { open += 1 }
    return open
}

/// Descriptors one conversion of a batch holds at most at once, with a margin (three measured: a batch of JPEGs
/// to NV12 converts with -j 1 under `ulimit -n 6`, and each job more needs three more).
let descriptorsPerJob = 4
/// Descriptors a batch run holds beside its jobs' (the manifest's journal and lock, a spool file).
let runDescriptors = 4

/// The soft limit on open descriptors (`ulimit -n`), nil when it cannot be read.
public func openFileLimit() -> rlim_t? {
    var r = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    return getrlimit(resource, &r) == 0 ? r.rlim_cur : nil
}

/// The descriptor `/dev/fd/N` or `/proc/self/fd/N` names by its spelling alone, or nil.
public func descriptorNumbered(_ path: String) -> Int32? {
    for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
        if let n = Int32(path.dropFirst(prefix.count)), n >= 0 { return n }
    }
    return nil
}
