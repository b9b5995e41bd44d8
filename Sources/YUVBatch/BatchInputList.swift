#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

// Reading `--files-from`'s list of paths (BatchInputs.swift gathers the inputs).

extension BatchInputs {
    /// Reads a list of paths block by block, handing each to `found`: lines (a CR before the LF dropped), or
    /// NUL-separated records; empty records are left out; at most 256 MiB (an endless device is an error, not
    /// a hang). A NUL in a list of lines is an error (no path holds one: the list is NUL-separated and `-0`
    /// was forgotten), not a path cut short.
    static func readList(_ path: String, nul: Bool, found: (String) -> Void) throws(FileError) {
        let limit = 256 << 20
        // A named pipe is read as a picture's is: a writer that comes within a few seconds (`producer > list &
        // yuvconv --files-from list`, in either order) is waited for, and an idle one as long as it stays; a FIFO
        // no writer opens ends the run then instead of holding it without a word.
        // Standard input closed at the start (`<&-`) is on /dev/null now: an empty list would be a green run that
        // converted nothing because the list's producer was missing.
        if readsStandardInput(path) && standardDescriptorWasClosed(STDIN_FILENO) {
            throw FileError(path: path, reason: "cannot read the list: standard input is closed")
        }
        let fd = path == "-" ? dup(STDIN_FILENO) : openToReadThrough(path)
        guard fd >= 0 else {
            let why = socketRefusal(path, remedy: "pipe the list to standard input") ?? systemMessage()
            throw FileError(path: path, reason: "cannot open the list: \(why)")
        }
        defer { close(fd) }
        if FileStatus(descriptor: fd)?.kind == .directory {
            throw FileError(path: path, reason: "cannot read the list: it is a folder, and --files-from takes a file of "
                            + "paths; give a folder as an input itself (with -r for its subfolders)")
        }
        let sep: UInt8 = nul ? 0 : 10
        var record: [UInt8] = [], total = 0, line = 1
        var buf = [UInt8](repeating: 0, count: 65536)
        func finish() {
            let r = !nul && record.last == 13 ? record.dropLast() : record[...]
            if !r.isEmpty { found(PathBytes.decode(r)) }
            record.removeAll(keepingCapacity: true)
        }
        while true {
            // The first read says when a FIFO no writer opens in a few seconds (an empty list from one that came
            // and went is just empty: `<(find …)` that finds nothing; an idle one, a slow `find`, is waited for).
            let first = total == 0 && path != "-"
            guard let n = buf.withUnsafeMutableBytes({ first ? readFirstWaiting(fd, $0) : readWaiting(fd, $0) }) else {
                throw FileError(path: path, reason: "cannot read the list: no writer opened the FIFO within "
                                + "\(fifoWriterWaitSeconds) s")
            }
            if n < 0 { throw FileError(path: path, reason: "cannot read the list: \(systemMessage())") }
            if n == 0 { break }
            total += n
            if total > limit { throw FileError(path: path, reason: "the list is longer than 256 MiB") }
            for b in buf[0..<n] {
                if b == sep {
                    finish()
                    line += 1
                } else if b == 0 {
                    throw FileError(path: path, reason: "line \(line) holds a NUL byte: a NUL-separated list needs -0")
                } else if record.count >= 4096 {
                    // No path the system opens is that long (PATH_MAX): refused at once, not gathered — a
                    // 60 MB line took 44 s and 525 MiB on its way to "File name too long".
                    throw FileError(path: path, reason: "\(nul ? "record" : "line") \(line) is longer than 4096 bytes, "
                                    + "longer than any path")
                } else {
                    record.append(b)
                }
            }
        }
        finish()
    }
}
