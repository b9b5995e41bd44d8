#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVBatch
import YUVIO
import YUVCore

// What the standard streams may carry, checked by every command before any work: no data or report over an
// input, a disk or a file's bytes; no data where the messages go (or, with -q, the messages silenced); no
// binary on a terminal, none read from one.

/// A file this run replaces (through a temporary file renamed over it) that standard output or error is open
/// on: what was written there would go to the replaced file and be lost (`-o x.nv12 --force 2>x.nv12`).
/// The usage error (about standard error's own file when it is that stream), or nil.
func replacedStandardStream(_ paths: [String]) -> UsageError? {
    let streams = [(outputKey("-"), "standard output"), (outputKey("/dev/stderr"), "standard error")].filter { $0.0.hasPrefix("id:") }
    for p in paths where AtomicOutput.standardDescriptor(p) == nil {
        let key = outputKey(p)
        if let (_, name) = streams.first(where: { $0.0 == key }) {
            return UsageError(message: "\(displayOutputPath(p)) is the file \(name) is open on: what is written there would be lost",
                              aboutStandardError: name == "standard error")
        }
    }
    return nil
}

/// The one way to refuse a run because standard error is open on a file the run writes — an output, the report
/// file or the manifest it would replace, the data's own file (`-o /dev/stderr`, `-o - >>f 2>&1`): the refusal
/// (and every message held until then) is said there unless that is a regular file with bytes in it, which are
/// what the refusal protects (`2<>out.nv12` would have the message written over its first bytes, `2>>manifest`
/// appended to it); then standard error is silenced and the status (2) alone speaks, as for an input
/// (`refuseInputsAsStandardStreams`). A terminal, a pipe or an empty file gets the sentence.
func refuseAboutStandardError(_ message: String) -> Int32 {
    if let err = FileStatus(descriptor: STDERR_FILENO), err.kind == .regular, err.size > 0 {
        releaseMessages(drop: true)
        silenceStandardError()
        return 2
    }
    return usageFailure(message)
}

/// A usage error, said by `refuseAboutStandardError` when it is about standard error's file.
func usageFailure(_ error: UsageError) -> Int32 {
    error.aboutStandardError ? refuseAboutStandardError(error.message) : usageFailure(error.message)
}

/// Whether `path` is standard error or its file: `/dev/stderr`, `/dev/fd/2`, or any name or descriptor open on the
/// file standard error is (`--report-file /dev/fd/3 3>>r.json 2>>r.json`). Not a terminal named otherwise
/// (`$(tty)`, `/dev/tty`): a report there is read, not parsed, and its lines clear the progress line first
/// (`testTerminalBatchKeepsFailuresAbove`).
func isStandardErrorsFile(_ path: String) -> Bool {
    if AtomicOutput.standardDescriptor(path) == STDERR_FILENO { return true }
    let key = outputKey(path)
    return key.hasPrefix("id:") && key == outputKey("/dev/stderr")
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
        return refuseAboutStandardError("the output is standard error, which carries yuvconv's messages: they would be mixed into "
                            + "the data (-q silences them all; or use -o - for standard output, or name a file)")
    }
    // Open for reading only (`1</dev/null`, `1<file`): nothing can be written there, --force or not. Said before any
    // work: a batch converted everything, then failed on its report ("Bad file descriptor"), and `-o -` was told
    // to use --force, which could not help.
    // (Another descriptor named as the output, `-o /dev/stdin`, is refused by the output's own check, before the
    // work, and listed as refused by a dry run.)
    if written.contains(STDOUT_FILENO), let why = readOnlyProblem(STDOUT_FILENO) { return environmentFailure(why) }
    for fd in Set(written) where !force {
        // Another descriptor open for reading only is the output's own check's to refuse (`-o /dev/fd/3 3<file` was
        // told to use --force here, which could not help).
        guard readOnlyProblem(fd) == nil, let over = AtomicOutput.overwrites(descriptor: fd) else { continue }
        // Standard error itself cannot carry the message: silenced, the exit status (2) says it.
        if fd == STDERR_FILENO {
            releaseMessages(drop: true)
            silenceStandardError()
            return 2
        }
        let name = fd == STDOUT_FILENO ? "standard output" : "descriptor \(fd)"
        return usageFailure(over == .blockDevice ? "\(name) is a block device (a disk or partition); use --force to write over it"
                            : "\(name) is open on a file with data where writing would start (\(descriptorFileName(fd))); use --force to "
                              + "write over it")
    }
    if let fd = dataDescriptor, fd != STDERR_FILENO, let out = FileStatus(descriptor: fd),
       let err = FileStatus(descriptor: STDERR_FILENO), out.kind != .characterDevice, out.identity == err.identity {
        if !quiet {
            return refuseAboutStandardError("standard error is the file or pipe the data goes to: messages would be mixed "
                                            + "into it (send 2> elsewhere, or -q)")
        }
        silenceStandardError()
    }
    if let refusal = replacedStandardStream(replaced) { return usageFailure(refusal) }
    return nil
}

/// An error of the environment the run was started in, not of its words: said without `--help`'s hint (which
/// would fail the same way), exit 2 as a usage error.
func environmentFailure(_ message: String) -> Int32 {
    printErr("yuvconv: error: \(PathBytes.escapingControls(message, keepLayout: false))")
    return 2
}

/// Why `fd`, open for reading only (`1</dev/null`, `1<file`), cannot take what the run writes there, or nil.
func readOnlyProblem(_ fd: Int32) -> String? {
    let mode = fcntl(fd, F_GETFL)
    guard mode >= 0 && mode & O_ACCMODE == O_RDONLY else { return nil }
    return "\(fd == STDOUT_FILENO ? "standard output" : "descriptor \(fd)") is open for reading only: nothing can be "
        + "written there (redirect it to a file or a pipe)"
}

/// Messages held until the run has checked standard error against its inputs (`refuseInputsAsStandardStreams`)
/// and the files it writes (`refuseAboutStandardError`): an unknown option, a bad value, a missing list, a folder's
/// skipped entries are found before the run knows them, and standard error may be one of them (`2>>in.png`,
/// `2<>in.jpg`, `2>>out/.yuvconv-manifest`). Then printed — or dropped, when standard error is one; a
/// run that ends before the check (a usage error) drops them only when standard error may be one
/// (`standardErrorMustStayUntouched`). Nil once released.
let heldMessages = Mutex<[String]?>([])

/// Holds `text` when messages are still held; false when it is to be written now.
func holdMessage(_ text: String) -> Bool {
    heldMessages.withLock { held in
        guard held != nil else { return false }
        held!.append(text)
        return true
    }
}

/// Prints the held messages (or drops them), and lets every later one through.
/// `drop` is asked only when there are messages held: at the end of every run (main.swift) it stats each argument.
func releaseMessages(drop: @autoclosure () -> Bool) {
    let held = heldMessages.withLock { held -> [String] in
        defer { held = nil }
        return held ?? []
    }
    if !held.isEmpty && !drop() { for text in held { writeStandardError(text) } }
}

/// For a run that ends before its inputs are known: whether standard error, a regular file or FIFO, may be one —
/// a file a command-line argument names (any spelling or link), the file standard input is on, or one that starts
/// like a picture (a JPEG, PNG or Y4M signature: a file from a `--files-from` list or a folder) — or a file the run
/// would write whose bytes the message would change: one open where it has data (`2<>out.nv12`: the message would
/// go over its first bytes), an output or report file named by `-o`/`--report-file` that holds data, or a file with
/// data inside the output folder `-o` names (a batch's outputs and `--update`'s manifest, which a usage error or a
/// plan's refusal, found before the outputs are compared with standard error, would otherwise reach). A log file
/// elsewhere is none of these, and gets the message.
let standardErrorMustStayUntouched: Bool = {
    guard let err = FileStatus(descriptor: STDERR_FILENO), err.kind == .regular || err.kind == .fifo else { return false }
    // Standard error's file system, looked at once for every comparison below.
    let errView = fileSystemView(descriptor: STDERR_FILENO)
    if let input = FileStatus(descriptor: STDIN_FILENO) {
        let inView = fileSystemView(descriptor: STDIN_FILENO)
        if err.isOne(of: Set(input.identities(onOverlay: inView.overlay, onFUSE: inView.fuse)).contains,
                     onOverlay: errView.overlay, onFUSE: errView.fuse) { return true }
    }
    if case .descriptorHasData? = AtomicOutput.overwrites(descriptor: STDERR_FILENO) { return true }
    var named = Set<FileIdentity>(), written = Set<FileIdentity>(), folders: [String] = []
    /// `--name=value`'s value: what follows its first "=", by scalar.
    func afterEquals(_ arg: String) -> String { String(scalars: arg.unicodeScalars.drop { $0 != "=" }.dropFirst()) }
    // Read as the parser reads them (`CommandWords`): an output's value, and every other word (an operand, an
    // option's value, an option or unknown word itself, `--name=value`'s value too) a name to keep the message from.
    var words = CommandWords(processArguments() ?? [])
    while let word = words.next() {
        var candidates: [String] = []
        switch word {
        case .operand(let operand, _):
            candidates = [operand]
        case .endOfOptions:
            continue
        case .unknown(let arg, _):
            candidates = [arg]
            if arg.hasScalarPrefix("--"), arg.unicodeScalars.contains("=") { candidates.append(afterEquals(arg)) }
        case .option(let option, _, let inline, let next, let arg):
            let value = inline ?? next
            if ["--output", "--report-file"].contains(option.longName ?? "") {
                guard let o = value, let st = FileStatus(path: o) else { continue }
                if st.kind == .directory, let real = realFolderPath(o) { folders.append(real) }
                if st.size > 0 {
                    written.insert(st.identity)
                    if let fuse = st.fuseIdentity(onFUSE: onFUSE(path: o)) { written.insert(fuse) }
                }
                continue
            }
            candidates = [arg] + (value.map { [$0] } ?? [])
        }
        for c in candidates {
            if let st = FileStatus(path: c) {
                let view = fileSystemView(path: c)
                named.formUnion(st.identities(onOverlay: view.overlay, onFUSE: view.fuse))
            }
        }
    }
    // An argument's file under any identity (an overlay's other view of it too).
    if err.isOne(of: named.contains, onOverlay: errView.overlay, onFUSE: errView.fuse)
        || written.contains(err.identity)
        || err.fuseIdentity(onFUSE: errView.fuse).map(written.contains) == true {
        return true
    }
    if err.kind == .regular, err.size > 0, let path = descriptorFilePath(STDERR_FILENO),
       folders.contains(where: { path != $0 && isBelow(path, $0) }) {
        return true
    }
    guard err.kind == .regular else { return false }
    var head = [UInt8](repeating: 0, count: 12)
    if fcntl(STDERR_FILENO, F_GETFL) & O_ACCMODE == O_WRONLY {
        // Open for writing only (`2>>`): the file is read by its path, while that path is still this file.
        guard let path = descriptorFilePath(STDERR_FILENO), FileStatus(path: path)?.identity == err.identity else { return false }
        head = RawInput.head(path, head.count)
    } else {
        let n = head.withUnsafeMutableBytes { pread(STDERR_FILENO, $0.baseAddress, $0.count, 0) }
        head = n > 0 ? Array(head[..<n]) : []
    }
    return RawInput.isImage(head: head) || RawInput.isY4M(head: head)
}()

/// `path`, a folder, as an absolute path with every link resolved (`realpath`), or nil.
func realFolderPath(_ path: String) -> String? {
    guard let resolved = withFileSystemPath(path, { realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return PathBytes.decode(Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self),
                                                      count: strlen(resolved))))
}

/// The path of the file open on `fd` as the system gives it (Linux's /proc/self/fd link, macOS's F_GETPATH),
/// or nil.
func descriptorFilePath(_ fd: Int32) -> String? {
#if canImport(Darwin)
    var buf = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)
    guard fcntl(fd, F_GETPATH, &buf) != -1 else { return nil }
    return PathBytes.decode(buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
#else
    guard let path = linkText("/proc/self/fd/\(fd)"), path.isAbsolutePath else { return nil }
    return path
#endif
}

/// An input, or the `--files-from` list, that is the pipe or FIFO this process writes its standard output or error
/// to (`yuvconv /dev/stdout -o x | cat`, `yuvconv p -o x 1<>p`, `--files-from /dev/stdout`): its end never comes,
/// since the writer it waits for is itself. And standard input read as `-` that is open for writing only (`- <&3`
/// with 3 a pipe's write end) or is a listening socket, from which no read can take anything. Refused before
/// anything reads, for every command (the single conversion's route is chosen by the input's first bytes, which
/// waited for ever).
func refuseReadingOwnStreams(_ options: Options) -> Int32? {
    let read = options.inputs.map { ($0, false) } + (options.filesFrom.map { [($0, true)] } ?? [])
    func name(_ path: String, _ isList: Bool) -> String {
        isList ? "--files-from \(path == "-" ? "-" : displayPath(path))" : path == "-" ? "standard input" : displayPath(path)
    }
    let standardInput = read.first(where: { $0.0 == "-" })
    if let (_, isList) = standardInput, fcntl(STDIN_FILENO, F_GETFL) & O_ACCMODE == O_WRONLY {
        releaseMessages(drop: false)
        printErr("yuvconv: error: \(isList ? "--files-from -: " : "")standard input is open for writing only, so nothing can be read "
                 + "from it; redirect the input into it (< file, or a pipe's read end)")
        return 1
    }
    // A listening socket (`stdin=server.fileno()`): it never holds data, only connections to accept; polled for ever.
    if let (_, isList) = standardInput, FileStatus(descriptor: STDIN_FILENO)?.kind == .socket {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(STDIN_FILENO, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening != 0 {
            releaseMessages(drop: false)
            printErr("yuvconv: error: \(isList ? "--files-from -: " : "")standard input is a listening socket, which "
                     + "holds connections, not data; send the input through a pipe or a connected socket")
            return 1
        }
    }
    // A pipe's write end this run holds, named as the input by its descriptor (`/dev/fd/3 3> >(cmd)`, `/dev/stdin
    // <&3`): reading it would reopen the pipe for reading, with this run its writer — nothing ever comes. (A write end
    // merely left open in the run, beside a read end it is given, is no sign: a parent's `pass_fds`.)
    for (path, isList) in read where path != "-" {
        // (Standard output and error are said below, by what the run writes there.)
        guard let fd = namedDescriptor(path), fd != STDOUT_FILENO, fd != STDERR_FILENO, fcntl(fd, F_GETFL) & O_ACCMODE == O_WRONLY,
              FileStatus(descriptor: fd)?.kind == .fifo else { continue }
        releaseMessages(drop: false)
        printErr("yuvconv: error: \(isList ? "--files-from " : "")\(path): descriptor \(fd) is the write end of a pipe this run "
                 + "holds, so reading it would wait for ever; give the read end, or the input itself")
        return 1
    }
    let own = ownPipeWriters()
    guard !own.isEmpty else { return nil }
    for (path, isList) in read {
        let st = path == "-" ? FileStatus(descriptor: STDIN_FILENO) : FileStatus(path: path)
        guard let st, st.kind == .fifo, let (fd, _) = own.first(where: { $0.1 == st.identity }) else { continue }
        return refuseReadingOwnStream(name(path, isList) + ":", fd)
    }
    return nil
}

/// The descriptor `path` names (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`), or nil.
private func namedDescriptor(_ path: String) -> Int32? {
    path == "/dev/stdin" ? STDIN_FILENO : descriptorNumbered(path)
}

/// This process's standard output and error when they write to a pipe or FIFO (open for writing, or reading and
/// writing), with its identity. (Another descriptor holding a pipe's write end is not a sign: a parent may leave
/// its copy of the end it writes the picture into open in this process — Python's `pass_fds`, a shell's leaked
/// descriptor — and a JPEG or PNG read from there ends at its end marker, not at the pipe's end.)
private func ownPipeWriters() -> [(Int32, FileIdentity)] {
    [STDOUT_FILENO, STDERR_FILENO].compactMap { fd -> (Int32, FileIdentity)? in
        guard let st = FileStatus(descriptor: fd), st.kind == .fifo, fcntl(fd, F_GETFL) & O_ACCMODE != O_RDONLY else { return nil }
        return (fd, st.identity)
    }
}

/// The refusal of an input (`what`, "X:" or "an input") that is the pipe or FIFO this run writes `fd` to, said on
/// standard error (a pipe there takes it; no file's bytes are damaged).
private func refuseReadingOwnStream(_ what: String, _ fd: Int32) -> Int32 {
    releaseMessages(drop: false)
    let writer = fd == STDOUT_FILENO ? "writes its standard output to" : "writes its standard error to"
    printErr("yuvconv: error: \(what) is the pipe or FIFO this run \(writer), so reading it would wait for ever for "
             + "its end; read the input from elsewhere")
    return 1
}

/// Standard output or standard error that is one of the inputs (`1<>in.png`, `2>>in.png`): what yuvconv writes
/// there — converted data, a report, its lines and messages — would overwrite or extend that input. The one
/// place that refuses it, before any work, for every command. A message about standard error cannot go to
/// standard error either, so it is pointed at /dev/null and the exit status (1) alone says it. Messages stay
/// held after it: the caller releases them (`releaseMessages(drop: false)`) once standard error is known to be
/// none of the files it writes either (`refuseAboutStandardError`).
func refuseInputsAsStandardStreams(_ protected: any FileIdentitySet, named: ((FileIdentity) -> String?)? = nil) -> Int32? {
    for fd in [STDERR_FILENO, STDOUT_FILENO] {
        guard AtomicOutput.isOpen(onInput: fd, { protected.contains($0) }) else { continue }
        // A pipe or FIFO (an input listed as /dev/stderr or /proc/self/fd/1): nothing is overwritten, the read
        // would wait for ever for an end that this run itself holds off — said, on standard error too.
        if let st = FileStatus(descriptor: fd), st.kind == .fifo {
            return refuseReadingOwnStream(named?(st.identity).map { displayPath($0) + ":" } ?? "an input", fd)
        }
        if fd == STDERR_FILENO {
            releaseMessages(drop: true)
            silenceStandardError()
            return 1
        }
        releaseMessages(drop: false)
        // Empty and opened for writing only: most likely `> in.png` itself, which the shell carried out (emptying
        // the file) before yuvconv started — said, since refusing to overwrite a file already emptied misleads.
        let emptied = FileStatus(descriptor: fd)?.size == 0 && fcntl(fd, F_GETFL) & O_ACCMODE == O_WRONLY
        printErr("yuvconv: error: standard output is an input file; refusing to overwrite an input"
                 + (emptied ? " (it is empty now: a `>` redirection to it empties it before any program starts)" : ""))
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

/// Binary data is not for a terminal: standard output or a descriptor on one, or a terminal named as the output
/// (`-o /dev/tty`, the `/dev/pts/N` a standard stream is on, or another's: `-o /dev/pts/3` wrote into someone's
/// session). Devices are not opened to ask (opening a serial port resets the board on it): a terminal is known by
/// its device number — the one the standard streams show, /dev/tty's, or on Linux a pseudo-terminal's or a
/// console's (`isTerminalDevice`); serial ports stay writable, raw frames may be meant for what is on them.
func refuseTerminal(_ output: String) throws(UsageError) {
    let onTerminal: Bool
    if let fd = AtomicOutput.standardDescriptor(output) {
        onTerminal = isatty(fd) != 0
    } else {
        onTerminal = namesTerminal(output)
    }
    if onTerminal {
        throw UsageError(message: "refusing to write binary data to a terminal; redirect it or name a file")
    }
}

/// Whether `path` is a terminal by the rule of `refuseTerminal` (by device number, never opened to ask): one the
/// standard streams are on, /dev/tty under any name (`//dev/tty`, a link to it, a node made for it), or one
/// `isTerminalDevice` knows.
func namesTerminal(_ path: String) -> Bool {
    func device(_ p: String) -> dev_t? {
        var st = stat()
        return withFileSystemPath(p, { stat($0, &st) }) == 0 && (st.st_mode & S_IFMT) == S_IFCHR ? st.st_rdev : nil
    }
    guard let named = device(path) else { return false }
    let terminals = [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].compactMap { fd -> dev_t? in
        var st = stat()
        return isatty(fd) != 0 && fstat(fd, &st) == 0 ? st.st_rdev : nil
    }
    return named == device("/dev/tty") || terminals.contains(named) || isTerminalDevice(named)
}

/// Whether a character device's number is a terminal's that no one writes binary data to: on Linux a
/// pseudo-terminal (/dev/pts/N: majors 136-143; their masters, 128-135, and /dev/ptmx), a virtual console
/// (/dev/tty0-63: major 4 below minor 64; the serial ports above it are not) or /dev/tty and /dev/console.
func isTerminalDevice(_ device: dev_t) -> Bool {
    #if os(Linux)
    let d = UInt64(device)
    let major = (d >> 8) & 0xFFF | (d >> 32) & ~UInt64(0xFFF), minor = d & 0xFF | (d >> 12) & ~UInt64(0xFF)
    return (128...143).contains(major) || (major == 4 && minor < 64) || (major == 5 && minor <= 2)
    #else
    return false
    #endif
}

/// The file descriptor `fd` is open on, by name where the system says it (`/proc/self/fd`), for a message.
func descriptorFileName(_ fd: Int32) -> String {
    #if os(Linux)
    var buf = [CChar](repeating: 0, count: 4097)
    let n = readlink("/proc/self/fd/\(fd)", &buf, 4096)
    if n > 0 { return displayPath(String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
    #endif
    return "descriptor \(fd)'s file"
}

/// Standard output's file, by name (`descriptorFileName`).
var standardOutputFileName: String { descriptorFileName(STDOUT_FILENO) }
