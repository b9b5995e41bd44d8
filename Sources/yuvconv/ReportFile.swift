#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO
import YUVReport

// The report file of `convert` (a batch's or a single file's) and `report`: opened and checked before any work,
// written as the run goes, put in place at the end (or not, when it would cover part of the inputs).

/// The report file, checked and opened before any work (nil without --report-file); without one, a report
/// for a closed standard output is refused before any work too.
func openReportFile(_ options: Options, protected: any FileIdentitySet) throws(FileError) -> AtomicOutput? {
    guard let file = options.reportFile else {
        if (options.reportFormat != nil || options.reportOnly) && standardDescriptorWasClosed(STDOUT_FILENO) {
            throw FileError(path: "<stdout>", reason: "cannot write the report: standard output is closed")
        }
        return nil
    }
    // Without --force, --update replaces the report that is there at the start, and nothing put there since: the
    // file looked at once, for the decision and for what the commit may replace.
    let found = reportStatus(file)
    do {
        // Nor, with --force, anything but what was there: an image output named there during the run (a name that
        // differs only in case, where the file system folds it) is kept, not replaced by the report.
        // A link there is judged as an image output's is: by its own change time and its target's (one put there
        // since the run began was followed, and --force wrote the report over the file it leads to, exit 0).
        let before: AtomicOutput.Before = found.map { st in
            switch st.kind {
            case .regular: return .found(st, born: birthTime(file, follow: false), lookedAt: wallClockSeconds())
            case .symlink:
                let target = FileStatus(path: file), chain = AtomicOutput.Before.links(file), now = wallClockSeconds()
                if let target, target.kind == .regular { return .found(target, links: chain, born: birthTime(file), lookedAt: now) }
                if case .changed = AtomicOutput.Before.found(st, links: chain, born: nil, lookedAt: now) { return .changed }
                return .unknown
            default: return .unknown
            }
        } ?? .nothing   // (`Before.lookingAt`, from the one look `found` took)
        return try AtomicOutput(path: file, force: reportReplaces(file, options, found: found), protected: protected,
                                replacingOnly: options.force ? nil : found, before: before)
    } catch {
        throw reportFileError(file, options, found: found, error)
    }
}

/// Why the report file cannot be written, as the run and its dry run say it: `--update` replaces its own report
/// only, and a file there that is not one whole report (`reportReplaces`) says so, not just that it exists.
func reportFileError(_ file: String, _ options: Options, found: FileStatus?, _ error: WriteError) -> FileError {
    // A folder's name (one there, or any ending in '/'): said as what to give instead. It was "cannot create a file in
    // newdir: the folder does not exist" for `newdir/`, and, the folder made, "is a directory".
    if file.hasScalarSuffix("/") || FileStatus(path: file)?.kind == .directory {
        let ext = options.reportFormat.map { $0 == .text ? "txt" : $0.rawValue } ?? "txt"
        return FileError(output: file, reason: "--report-file takes a file's name, not a folder's: give one such as "
                         + joinedPath(file, "report.\(ext)"))
    }
    if case .exists = error, options.update, !options.force, let st = found, st.kind == .regular, st.size > 0 {
        return FileError(output: file, reason: "already exists and is not one whole yuvconv report (another file, several runs' reports, or "
                         + "one with other lines in it): --update replaces only its own report; use --force to replace it")
    }
    return FileError(output: file, error)
}

/// Whether the report file `file` may be replaced, for the run and its dry run alike: with --force, and with
/// --update, which makes the report anew each run like an out-of-date output — without --force only a plain
/// file there (not a link, not a device) that is a report (`ReportFormat.isReport`): a photo at that name
/// was replaced by the report. `found`: what is there, as `reportStatus` gives it.
func reportReplaces(_ file: String, _ options: Options, found: FileStatus?) -> Bool {
    guard !options.force else { return true }
    guard options.update, let st = found, st.kind == .regular else { return false }
    return st.size == 0 || ReportFormat.isReport(head: RawInput.head(file, 512), tail: RawInput.tail(file, 4096))
        && isWholeReport(file)
}

/// Whether the file at `file` is one whole report, read through (`WholeReportCheck`): its ends alone let a file of
/// several runs' reports, or of lines of someone's own between a report's first line and its totals, be replaced.
func isWholeReport(_ file: String) -> Bool {
    let fd = withFileSystemPath(file) { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
    guard fd >= 0 else { return false }
    defer { close(fd) }
    // The plain file looked at, not a device or FIFO put at its name since (one endless, the other empty).
    guard FileStatus(descriptor: fd)?.kind == .regular else { return false }
    var check = WholeReportCheck()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return false }
        if n == 0 { break }
        buffer.withUnsafeBytes { check.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        if check.isRefused { return false }
    }
    return check.isWholeReport()
}

/// The report file's own status (a link is not followed), for `reportReplaces`.
func reportStatus(_ file: String) -> FileStatus? { FileStatus(path: file, follow: false) }

/// A report written as the batch goes: to the report file (its temporary file, moved into place at the end)
/// or standard output, through a 64 KiB buffer. The first error is kept (and nothing more written), and
/// reported at the end: a report that cannot be written is an error, never silently lost.
final class ReportWriter {
    let sink: AtomicOutput?
    private var buffer: [UInt8] = []
    private(set) var failure: FileError?
    /// The report's start on standard output, cut back to when it cannot be written whole.
    private var cut = StandardOutputCut()

    init(_ sink: AtomicOutput?) {
        self.sink = sink
        buffer.reserveCapacity(1 << 16)
    }

    /// True when the report goes to a file of its own (put in place at the end), not a stream or device.
    var isFile: Bool { sink?.isSeekable ?? false }

    func write(_ text: String) {
        guard failure == nil else { return }
        if buffer.count + text.utf8.count > 1 << 16 { flush() }
        buffer.append(contentsOf: text.utf8)
        // On standard output (or a stream named as the report file) each piece as it comes: a reader (`jq`,
        // `head`) sees each image's line when that image is done, and one gone stops the run then.
        if sink.map({ !$0.isSeekable }) ?? true { flush() }
    }

    private func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        if let sink {
            do throws(WriteError) {
                let written: Result<Void, WriteError> = clearingProgress(when: sink.isStandardErrorsTerminal) {
                    do throws(WriteError) { try sink.write(buffer) } catch { return .failure(error) }
                    return .success(())
                }
                try written.get()
            } catch {
                // Named standard output (`--report-file /dev/stdout`, `-`): a reader gone is said as without it.
                let code = errno
                if sink.isStandardOutput { noteIfReaderGone(errno: code) }
                failure = FileError(output: sink.path, error)
            }
            return
        }
        if standardDescriptorWasClosed(STDOUT_FILENO) {
            failure = FileError(path: "<stdout>", reason: "cannot write the report: standard output is closed")
            return
        }
        clearerr(stdout)
        // At once, so a reader sees each image's line as it finishes (and one gone is known then); and in one
        // write(2), not stdio's 4 KiB pieces: a message another job prints meanwhile (`> log 2>&1`) then lands
        // between lines, never inside a long one.
        if fflush(stdout) != 0 {
            failure = stdoutFailure("cannot write the report", errno: errno)
            clearerr(stdout)
            return
        }
        cut.willWrite()
        let code = clearingProgress(when: bothTerminals(STDOUT_FILENO, STDERR_FILENO)) {
            buffer.withUnsafeBytes { writeWhole(STDOUT_FILENO, $0, written: &cut.written) }
        }
        if code != 0 {
            failure = stdoutFailure("cannot write the report", errno: code)
            cut.cut()
        }
    }

    /// The file moved into place (standard output flushed) — or, to `abort`, removed; the first error.
    func finish(abort: Bool = false) -> FileError? {
        flush()
        if let sink {
            if failure == nil && !abort {
                do throws(WriteError) { try sink.commit() } catch { failure = FileError(output: sink.path, error) }
            }
            if failure != nil || abort { sink.abort() }
        } else if failure == nil && fflush(stdout) != 0 {
            failure = stdoutFailure("cannot write the report", errno: errno)
            clearerr(stdout)
        }
        return failure
    }
}

/// Writes a report to its file (atomically), or to standard output — standard error when the converted
/// data is on standard output. A report that cannot be written (standard output closed, a full disk,
/// `/dev/full`) is an error, never silently lost.
func emitReport(_ text: String, to sink: AtomicOutput?, dataOnStdout: Bool) throws(FileError) {
    if let sink {
        do {
            try sink.write(Array(text.utf8))
            try sink.commit()
        } catch {
            let code = errno
            sink.abort()
            if sink.isStandardOutput { noteIfReaderGone(errno: code) }
            throw FileError(output: sink.path, error)
        }
    } else if dataOnStdout {
        // Checked as standard output is: `2> /dev/full` (or a full disk) lost the report with exit 0, and so did
        // a closed standard error (`2>&-`, which the run points at /dev/null).
        if standardDescriptorWasClosed(STDERR_FILENO) {
            throw FileError(path: "<stderr>", reason: "cannot write the report: standard error is closed")
        }
        let code = writeStandardError(text)
        if code != 0 {
            throw FileError(path: "<stderr>", reason: "cannot write the report: \(String(cString: strerror(code)))")
        }
    } else {
        if standardDescriptorWasClosed(STDOUT_FILENO) {
            throw FileError(path: "<stdout>", reason: "cannot write the report: standard output is closed")
        }
        clearerr(stdout)
        if fflush(stdout) != 0 {
            let failure = stdoutFailure("cannot write the report", errno: errno)
            clearerr(stdout)
            throw failure
        }
        var cut = StandardOutputCut()
        cut.willWrite()
        let code = Array(text.utf8).withUnsafeBytes { writeWhole(STDOUT_FILENO, $0, written: &cut.written) }
        if code != 0 {
            cut.cut()
            throw stdoutFailure("cannot write the report", errno: code)
        }
    }
}

/// Where a report began on standard output, when that is a regular file: a report that cannot be written whole
/// (a full disk) is cut back to there — only its own bytes (`cutBack`) — as a failed image output is, and as a
/// report file is (`AtomicOutput`): no half report, no half JSON line or CSV row.
struct StandardOutputCut {
    private var start: AtomicOutput.WritingStart?
    /// The bytes the writes put in the file, counted as they returned (`writeWhole(_:_:written:)`): counted when
    /// asked instead, a write that failed partway took bytes another program appended (`>>`) for the report's.
    var written = 0

    /// Before bytes are written (standard output's stdio buffer already flushed).
    mutating func willWrite() {
        if start == nil && written == 0 { start = AtomicOutput.writingStart(descriptor: STDOUT_FILENO) }
    }

    func cut() {
        if let start { cutBack(STDOUT_FILENO, to: start, written: written) }
    }
}

/// A write of text to standard output failed: the error, `what` and why (`code`: the errno of the call that
/// failed just now, 0 when only an earlier failure is known). When its reader went away — EPIPE, ECONNRESET from
/// a socket, or a pipe or socket poll says is closed — that is noted (`noteReaderGone`): a batch starts no more
/// files, and the run ends with status 1 and no error line, as a pipeline expects; a full disk or /dev/full is
/// said as an error.
func stdoutFailure(_ what: String, errno code: Int32) -> FileError {
    noteIfReaderGone(errno: code)
    if code != 0 && firstStdoutErrno == 0 { firstStdoutErrno = code }
    return FileError(path: "<stdout>", reason: "\(what): " + (code != 0 ? String(cString: strerror(code)) : "an earlier write failed"))
}

/// Notes a gone reader of standard output (`noteReaderGone`) after a write to it failed with `code`: the errno
/// decides when there is one (a TCP error that leaves the socket hung up is an error, not a reader gone); poll
/// only when an earlier write's reason is lost (0).
func noteIfReaderGone(errno code: Int32) {
    if code != 0 ? code == EPIPE || code == ECONNRESET : streamWithoutReader(STDOUT_FILENO) { noteReaderGone() }
}

/// The errno of the first failed write of text to standard output (a dry run's listing leaves its error on the
/// stream for main's final check, which has no errno of its own left): main's message gives it.
nonisolated(unsafe) var firstStdoutErrno: Int32 = 0

/// Whether `fd` is a pipe or socket whose other end is closed (poll says POLLERR or POLLHUP).
func streamWithoutReader(_ fd: Int32) -> Bool {
    guard let st = FileStatus(descriptor: fd), st.kind == .fifo || st.kind == .socket else { return false }
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return poll(&p, 1, 0) == 1 && p.revents & Int16(POLLERR | POLLHUP) != 0
}
