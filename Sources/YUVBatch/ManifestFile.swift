#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

/// `--update`'s manifest as a batch uses it, in memory that does not grow with its lines (`Manifest` holds
/// them all, for small folders and the tests):
///
/// - read: the file as it was when the batch began — its descriptor kept open, so a run that replaces the
///   file meanwhile replaces another one — checked line by line once (what cannot be read is counted and
///   described, as `Manifest` does), then searched for each output by name with pread: the lines are sorted
///   by their escaped name (as this version writes them); a file whose lines are not (written by hand, or by
///   an earlier version with names outside ASCII), or that holds lines no search can use (comments or empty
///   lines past 64 KiB of them, an over-long line), is searched in a sorted copy on disk instead, which has none;
/// - written: the file as it is at the end (another run into the folder may have written it), with this
///   run's changes put in, merged in name order through an external sort — and only when that changes it
///   (ManifestWrite.swift).
public final class ManifestFile: @unchecked Sendable {
    let source: ManifestBytes?
    /// Where the lines after the first start.
    let dataStart: Int
    /// The first lines that could not be read, described (at most `problemsKept`), and how many there were.
    public let problems: [String]
    public let problemCount: Int
    /// A file is there that is not a manifest (its first line is not the magic one): not ours to replace.
    public let foreign: Bool
    static let problemsKept = 10
    /// A line longer than this is not an entry (and is not held).
    static let longestLine = 1 << 20
    /// The most bytes of comments and empty lines a manifest searched in place may hold.
    static let unusedInPlace = 64 << 10
    /// Whether the lines are searched in a sorted copy (see above), not in the file.
    let searchesSortedCopy: Bool

    /// The lock file of the manifest at `path` where its folder cannot be locked (`FolderLock`).
    /// (For the manifest, `AtomicOutput.manifestLockName`, which no output may take.)
    public static func lockPath(of path: String) -> String { path + AtomicOutput.manifestLockSuffix }

    /// An empty manifest.
    public init() {
        (source, dataStart, problems, problemCount, foreign, searchesSortedCopy) = (nil, 0, [], 0, false, false)
    }

    /// The manifest at `path`: none yet is an empty one; one that is not a regular file or cannot be opened or
    /// read, an error.
    public init(path: String) throws(FileError) {
        let fd = openWithoutWaiting(path, O_RDONLY)
        if fd < 0 {
            if errno != ENOENT { throw FileError(path: path, reason: "cannot open: \(systemMessage())") }
            (source, dataStart, problems, problemCount, foreign, searchesSortedCopy) = (nil, 0, [], 0, false, false)
            return
        }
        guard let st = FileStatus(descriptor: fd), st.kind == .regular else {
            close(fd)
            throw FileError(path: path, reason: "not a regular file")
        }
        let file = ManifestBytes(descriptor: fd, size: st.size)
        var reader = LineReader(file, at: 0)
        let first = reader.next()
        guard let first, first.line.map({ $0.elementsEqual(Manifest.magic) }) == true else {
            if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
            (source, dataStart, problems, problemCount, foreign, searchesSortedCopy) =
                (nil, 0, [Self.notThisVersion(first?.line ?? nil)], 1, true, false)
            return
        }
        let start = reader.position
        var problems: [String] = [], count = 0, sorted = true, previous: [UInt8]?, number = 1, adjacent = 0, unused = 0, tooLong = false
        func problem(_ why: String) {
            count += 1
            if problems.count < Self.problemsKept { problems.append("line \(number): \(why)") }
        }
        // Lines of one name next to each other: every one is unread (neither is trusted), each counted once — a
        // damaged line already is, so a group adds its readable lines (two identical damaged lines were "3 lines
        // unread"). Counted here while the lines are in order; once they are not, the sorted copy counts them all.
        var group = (lines: 0, readable: 0)
        func endGroup() {
            guard group.lines > 1 else { return }
            count += group.readable
            adjacent += group.readable
        }
        while let (line, _) = reader.next() {
            number += 1
            guard let line else {
                problem("longer than 1 MiB")
                tooLong = true
                continue
            }
            if line.isEmpty || line.first == UInt8(ascii: "#") {
                unused += line.count + 1
                continue
            }
            var readable = true
            do throws(Malformed) { _ = try ManifestEntry(fields: try Manifest.fields(line[...])) } catch {
                problem(error.why)
                readable = false
            }
            let name = Self.name(line)
            if let p = previous, name.lexicographicallyPrecedes(p) { sorted = false }
            if sorted, let p = previous, name.elementsEqual(p) {
                group.lines += 1
                group.readable += readable ? 1 : 0
                // Said at its second line, in line order with the others.
                if group.lines == 2 && problems.count < Self.problemsKept { problems.append("line \(number): \(Self.secondEntry)") }
            } else {
                endGroup()
                group = (1, readable ? 1 : 0)
            }
            previous = Array(name)
        }
        endGroup()
        if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
        // The lines a search steps over one by one: past 64 KiB of them (the heading this version writes is under
        // 1), or a line over 1 MiB, a copy without them is searched — megabytes of comments (a manifest in a
        // shared folder padded by hand) made every lookup read them all, a batch's time the files times the
        // manifest's size; a stray blank line is not worth a copy of the whole.
        if sorted && !tooLong && unused <= Self.unusedInPlace {
            (self.problems, problemCount, foreign, searchesSortedCopy) = (problems, count, false, false)
            (source, dataStart) = (file, start)
            return
        }
        // Out of order: a sorted copy to search, where the lines of one name come together (and are counted:
        // above, only lines next to each other were).
        let (copy, seconds) = try Self.sortedLines(file, from: start, path: path)
        count -= adjacent
        problems.removeAll { $0.hasSuffix(Self.secondEntry) }
        if seconds > 0 {
            count += seconds
            if problems.count < Self.problemsKept {
                problems.append("the lines of outputs named on more than one line, none of which is trusted (\(seconds) "
                                + "readable)")
            }
        }
        (self.problems, problemCount, foreign, searchesSortedCopy) = (problems, count, false, true)
        (source, dataStart) = (ManifestBytes(spool: copy), 0)
    }

    /// Why a file whose first line is `line` (nil: none, or too long) is not a manifest this version reads: a
    /// manifest of another version, one whose lines were given CR LF ends, or anything else.
    static func notThisVersion(_ line: [UInt8]?) -> String {
        let prefix = Array("yuvconv-manifest\t".utf8)
        if let line, line.elementsEqual(Manifest.magic + [13]) {
            return "a yuvconv manifest whose lines end in CR LF (converted to another system's line ends), which no "
                + "version reads: convert them back (dos2unix)"
        }
        // A version number: digits only, not 1 (a first line that merely starts so is not a manifest).
        if let line, line.starts(with: prefix), case let version = line.dropFirst(prefix.count),
           (1...9).contains(version.count), version.allSatisfy({ (48...57).contains($0) }), !version.elementsEqual([49]) {
            return "a yuvconv manifest of version \(String(decoding: version, as: UTF8.self)), which this version (1) does "
                + "not read: use the yuvconv that wrote it"
        }
        return "not a yuvconv manifest of version 1 (its first line differs)"
    }

    /// Two lines for one output: which was written last cannot be told (a hand edit, a merge of two
    /// manifests), so neither is trusted.
    static let secondEntry = "a second entry for the same output"

    /// The escaped name a line starts with (its first field).
    static func name(_ line: [UInt8]) -> ArraySlice<UInt8> { line.prefix { $0 != 9 } }

    /// The lines of `file` after `start` (but comments; one too long as its name alone), sorted by name (stable),
    /// and how many readable lines name an output named on another line too.
    private static func sortedLines(_ file: ManifestBytes, from start: Int, path: String) throws(FileError) -> (Spool, Int) {
        let keyed = Spool()
        var reader = LineReader(file, at: start), order: UInt64 = 0
        while let (line, _) = reader.next() {
            order += 1
            // A line too long to keep stands as its name alone, a line that cannot be used: the output it names
            // is converted again (`check`), as the warning says, not refused as one yuvconv never made.
            if line == nil, let cut = reader.cutName {
                MergeRecord.write(name: cut[...], order: order, change: false, line: cut[...], to: keyed)
                continue
            }
            guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
            MergeRecord.write(name: name(line), order: order, change: false, line: line[...], to: keyed)
        }
        if file.failed { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
        let sorted = try keyed.sortedRecords()
        let copy = Spool()
        // The readable lines of names on more than one line (the damaged ones are counted already).
        // Only those lines are read again (as `init` read every one).
        func readable<C: Collection>(_ line: C) -> Int where C.Element == UInt8 {
            (try? ManifestEntry(fields: try Manifest.fields(ArraySlice(line)))) != nil ? 1 : 0
        }
        var records = sorted.reader(), previous: [UInt8]?, previousLine: [UInt8] = [], seconds = 0
        var group = (lines: 0, readable: 0)
        while let r = records.nextRecord() {
            let record = MergeRecord(r)
            if previous.map({ $0.elementsEqual(record.name) }) == true {
                if group.lines == 1 { group.readable = readable(previousLine) }
                group = (group.lines + 1, group.readable + readable(record.line))
            } else {
                if group.lines > 1 { seconds += group.readable }
                group = (1, 0)
            }
            previous = Array(record.name)
            previousLine = Array(record.line)
            copy.append(record.line)
            copy.append(10)
        }
        if group.lines > 1 { seconds += group.readable }
        try sorted.seal()
        try copy.seal()
        return (copy, seconds)
    }

    /// The entry for the output `name`, or nil (none, or its line cannot be read: the output is converted
    /// again, the safe side). A binary search over the lines: a few preads.
    public func entry(named name: String) -> ManifestEntry? { lookup(name).entry }

    /// `entry(named:)`, and how many lines name the output (readable or not): one that cannot be used still
    /// says yuvconv made the file.
    private func lookup(_ name: String) -> (entry: ManifestEntry?, lines: Int) {
        guard let source else { return (nil, 0) }
        let target = Manifest.escaped(PathBytes.encode(name))
        // Every line that starts before `lo` has a smaller name; the line at `hi` (or the end) has no smaller one.
        var lo = dataStart, hi = source.size
        search: while hi - lo > 1 << 14 {
            let mid = lo + (hi - lo) / 2
            var reader = LineReader(source, at: mid - 1)
            _ = reader.next()   // the rest of the line that holds mid - 1
            while reader.position < hi, let (line, start) = reader.next() {
                guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
                if Self.name(line).lexicographicallyPrecedes(target) { lo = reader.position } else { hi = start }
                continue search
            }
            break
        }
        var reader = LineReader(source, at: lo), found: ManifestEntry?, lines = 0
        while let (line, _) = reader.next() {
            guard let line, !line.isEmpty, line.first != UInt8(ascii: "#") else { continue }
            let n = Self.name(line)
            if n.lexicographicallyPrecedes(target) { continue }
            if !n.elementsEqual(target) { break }
            // Two lines for one output: neither is trusted (`secondEntry`).
            lines += 1
            if lines > 1 { return (nil, lines) }
            found = try? ManifestEntry(fields: try Manifest.fields(line[...]))
        }
        return (found, lines)
    }

    /// What `--update` does with `item` (`Manifest.check`'s decision, from this manifest's entry). An output
    /// whose lines cannot be used (damaged, or two) is not unrecorded: the manifest names it, so yuvconv made it.
    public func check(_ item: BatchItem, optionsKey: String) -> (action: BatchAction, entry: ManifestEntry?) {
        let found = lookup(item.name)
        let decided = Manifest.decide(item, entry: found.entry, optionsKey: optionsKey)
        if found.lines > 0, case .replace(.unrecorded) = decided.action { return (.replace(.unusableEntry), nil) }
        return decided
    }
}

/// A manifest's bytes: a file's descriptor (closed with it), or a spool.
final class ManifestBytes: @unchecked Sendable {
    let size: Int
    private let fd: Int32
    private let spool: Spool?
    /// A read failed.
    private(set) var failed = false

    init(descriptor: Int32, size: Int) {
        (fd, self.size, spool) = (descriptor, size, nil)
    }

    init(spool: Spool) {
        (fd, size, self.spool) = (-1, spool.count, spool)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Up to `count` bytes at `offset`; 0 at the end or on an error.
    func read(at offset: Int, count: Int, into buffer: UnsafeMutableRawPointer) -> Int {
        guard offset < size else { return 0 }
        if let spool { return spool.read(at: offset, count: min(count, size - offset), into: buffer) }
        while true {
            let n = pread(fd, buffer, min(count, size - offset), off_t(offset))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failed = true }
            return max(n, 0)
        }
    }
}

/// Reads lines from an offset through a 16 KiB buffer.
struct LineReader {
    let source: ManifestBytes
    /// Where the next line starts.
    private(set) var position: Int
    private var fetch: Int
    private var buffer = [UInt8](repeating: 0, count: 1 << 14)
    private var start = 0, filled = 0
    /// The first field (the output's escaped name) of the last line `next` found too long, when a tab ends it
    /// within `ManifestFile.longestLine`: the line cannot be used, but it still names an output yuvconv made.
    private(set) var cutName: [UInt8]?

    init(_ source: ManifestBytes, at offset: Int) {
        self.source = source
        position = offset
        fetch = offset
    }

    /// The next line without its newline (nil when it is longer than `ManifestFile.longestLine`, whose bytes
    /// are not kept) and where it starts; nil at the end.
    mutating func next() -> (line: [UInt8]?, start: Int)? {
        let lineStart = position
        var line: [UInt8] = [], tooLong = false
        cutName = nil
        while true {
            if start == filled {
                let n = buffer.withUnsafeMutableBytes { source.read(at: fetch, count: $0.count, into: $0.baseAddress!) }
                if n == 0 { break }
                (start, filled) = (0, n)
                fetch += n
            }
            let newline = buffer[start..<filled].firstIndex(of: 10)
            let end = newline ?? filled
            if !tooLong {
                line += buffer[start..<end]
                if line.count > ManifestFile.longestLine {
                    let tab = line.prefix(ManifestFile.longestLine).firstIndex(of: 9)
                    cutName = tab.map { Array(line[..<$0]) }
                    (tooLong, line) = (true, [])
                }
            }
            position += end - start + (newline == nil ? 0 : 1)
            start = newline.map { $0 + 1 } ?? filled
            if newline != nil { return (tooLong ? nil : line, lineStart) }
        }
        return position == lineStart ? nil : (tooLong ? nil : line, lineStart)
    }
}
