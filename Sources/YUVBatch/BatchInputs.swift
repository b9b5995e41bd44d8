#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

/// One file of a batch: where it came from and where it goes.
public struct BatchItem: Sendable, Equatable {
    public let input: String
    /// The input's folder below the folder argument it was found in ("" for files named directly).
    public let dir: String
    /// Set by `BatchPlan`: the output path, its name in the output folder (the template's expansion), and what
    /// its name says to write (`OutputFormat.resolve`).
    public internal(set) var output = ""
    public internal(set) var name = ""
    public internal(set) var format = OutputFormat.raw(.nv12)

    public init(input: String, dir: String) {
        self.input = input
        self.dir = dir
    }
}

/// A folder entry with an image's name that is not a regular file: left out of the batch (a FIFO would block
/// the run, a device be read forever).
public struct SkippedEntry: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let kind: FileStatus.Kind
    /// Why it could not be looked at, when it could not (a link to nothing, a path too long): else its kind says.
    public var unreachable: String?

    public init(path: String, kind: FileStatus.Kind, unreachable: String? = nil) {
        self.path = path
        self.kind = kind
        self.unreachable = unreachable
    }

    /// `PATH (a FIFO)`, as warnings list it.
    public var description: String { "\(displayPath(path)) (\(unreachable ?? Self.describe(kind)))" }

    /// What a file that is not a regular one is, for messages.
    public static func describe(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .fifo: return "a FIFO"
        case .characterDevice, .blockDevice: return "a device"
        case .socket: return "a socket"
        case .directory: return "a folder walked already, reached again through a link or a mount"
        default: return "not a regular file"
        }
    }
}

/// The inputs of a batch as gathered from its operands and list, kept on disk (a `Spool`: a batch's memory
/// does not grow with its number of files), in the order found: operands in the order given, each with a
/// sequence number (a folder's files share their folder's), then the list's paths, one number each.
public final class BatchInputs: @unchecked Sendable {
    /// `InputRecord.given` records, in the order found.
    let gathered: Spool
    /// How many inputs were gathered.
    public let count: Int
    /// Folder entries with an image's name that are not regular files, left out: the first
    /// `skippedKept` of them (sorted), and how many there were.
    public let skipped: [SkippedEntry]
    public let skippedCount: Int
    /// Subfolders of a walk that could not be read — their images are left out, and the run fails (exit 1) once
    /// the rest is done: the first `skippedKept` of them, and how many there were.
    public let unreadFolders: [FileError]
    public let unreadFolderCount: Int
    /// The `filesFrom` list that was read: an input too, never to be overwritten.
    public let listFile: String?
    /// The list names the stream standard input is (`/dev/stdin` in it, its pipe by another name): a stream
    /// that `--shard` cannot split (the front end refuses it, as it refuses one given as an operand).
    public private(set) var listsStandardInput = false
    static let skippedKept = 100

    /// Gathers the files named by `operands` — files, and folders' image files (their subfolders' too when
    /// `recursive`) — then those listed in `filesFrom` (lines, or NUL-separated records when `nul`; "-" is
    /// standard input). A folder named "dir/" means its contents, "dir" the folder itself, as rsync reads it:
    /// each file's `dir` then starts with the folder's own name. Standard input ("-") is refused as an operand
    /// unless `standardInput` allows it, and then once, and not when it is also the list. Folders are walked
    /// entry by entry and the list read in blocks: only the folders still to walk are held in memory.
    /// `outputFolder`, the batch's `-o` folder, is not walked when a folder walked holds it: what is in it is
    /// this batch's outputs (a second run found the first one's there, took them as inputs and failed), named
    /// among the skipped entries.
    public init(operands: [String], recursive: Bool = false, filesFrom: String? = nil, nul: Bool = false,
                standardInput: Bool = false, outputFolder: String? = nil) throws(BatchPlanError) {
        let leaveOut = outputFolder.flatMap { FileStatus(path: $0) }.flatMap { $0.kind == .directory ? $0.identity : nil }
        let spool = Spool()
        var sequence: UInt64 = 0, count = 0
        var skipped: [SkippedEntry] = [], skippedCount = 0
        var unread: [FileError] = [], unreadCount = 0
        func add(_ input: String, dir: String) {
            InputRecord.given(sequence: sequence, input: input, dir: dir, into: spool)
            count += 1
        }
        listFile = filesFrom
        var readsStandardInput = filesFrom == "-"
        // Streams by identity: one read twice under two names would hand each job part of its bytes.
        var streams: [FileIdentity: String] = [:]
        // Every folder walked, by identity, with the path it was walked under: across the operands too, so that a
        // folder given again by another way in (a link to it, a bind mount) is walked once and named, as one reached
        // again inside a walk is — under the way of the operand given first. One given again by the same way (`in
        // in`, `./in` after `in`, `in/sub` and `in` with -r in either order: `walkFolder`'s `sameWay`) is walked
        // again, and its files are refused as given twice, as a file given twice is.
        var walked: [FileIdentity: String] = [:]
        // The list itself when it is a stream (`-`, /dev/stdin, a FIFO).
        if let list = filesFrom, let st = list == "-" ? FileStatus(descriptor: 0) : FileStatus(path: list), st.kind.isStream {
            streams[st.identity] = "--files-from \(list)"
        }
        for arg in operands {
            let status = arg == "-" ? FileStatus(descriptor: 0) : FileStatus(path: arg)
            if let st = status, st.kind.isStream {
                if let first = streams[st.identity] {
                    if arg == "-" && (first == "-" || first == "--files-from -") { throw .standardInputTwice }
                    throw .sameStream(first: first, second: arg)
                }
                streams[st.identity] = arg
            }
            if arg != "-", status?.kind == .directory {
                let root = arg.hasSuffix("/") && arg.count > 1 ? String(arg.dropLast()) : arg
                let prefix = arg.hasSuffix("/") ? "" : (root.pathParts.last ?? "")
                let sameWay: Bool
                if let st = status, let first = walked[st.identity] {
                    sameWay = Self.lexical(first) == Self.lexical(root)
                    if !sameWay {
                        skippedCount += 1
                        if skipped.count < Self.skippedKept {
                            skipped.append(SkippedEntry(path: root, kind: .directory,
                                                        unreachable: "a folder walked already, as \(displayPath(first))"))
                        }
                        sequence += 1
                        continue
                    }
                } else {
                    sameWay = false
                }
                // The same way again: walked afresh, so that each of its files comes twice (refused as given twice).
                var these: [FileIdentity: String] = [:]
                if !sameWay { swap(&these, &walked) }
                defer { if !sameWay { swap(&these, &walked) } }
                try fileStep { () throws(FileError) in
                    try Self.walkFolder(root, recursive: recursive, leaveOut: leaveOut, walked: &these) { input, rel in
                        add(input, dir: prefix.isEmpty ? rel : (rel.isEmpty ? prefix : prefix + "/" + rel))
                    } skip: { entry in
                        skippedCount += 1
                        if skipped.count < Self.skippedKept { skipped.append(entry) }
                    } unread: { error in
                        unreadCount += 1
                        if unread.count < Self.skippedKept { unread.append(error) }
                    }
                }
            } else {
                if arg == "-" {
                    if !standardInput { throw operands.count == 1 && filesFrom == nil ? .standardInputToFolder : .standardInput }
                    if readsStandardInput { throw .standardInputTwice }
                    readsStandardInput = true
                }
                add(arg, dir: "")
            }
            sequence += 1
        }
        if let list = filesFrom {
            // A listed stream is one too: a FIFO listed twice (or under a link), /dev/stdin when the list is
            // standard input, a FIFO also given as an operand. Each job got part of its bytes and failed it as
            // damaged; refused like the operands, after the list (only streams are kept, not every entry).
            var clash: (first: String, second: String)?
            let standardInputStream = standardInputStreamIdentity()
            var listed = false
            try fileStep { () throws(FileError) in
                try Self.readList(list, nul: nul) { path in
                    // A listed "-" is a file of that name, never standard input (which cannot be one of many).
                    let input = path == "-" ? "./-" : path
                    if let st = FileStatus(path: input), st.kind.isStream {
                        if st.identity == standardInputStream { listed = true }
                        if clash == nil {
                            if let first = streams[st.identity] { clash = (first, input) } else { streams[st.identity] = input }
                        }
                    }
                    add(input, dir: "")
                    sequence += 1
                }
            }
            if let clash { throw .sameStream(first: clash.first, second: clash.second) }
            listsStandardInput = listed
        }
        try fileStep { () throws(FileError) in try spool.seal() }
        gathered = spool
        self.count = count
        self.skipped = skipped.sorted { $0.path < $1.path }
        self.skippedCount = skippedCount
        self.unreadFolders = unread
        self.unreadFolderCount = unreadCount
    }

    /// Every input, in the order found (reads them all into memory: for tests and small lists).
    public var items: [BatchItem] {
        var out: [BatchItem] = [], reader = gathered.reader()
        while let r = reader.nextRecord() { out.append(InputRecord.decode(r, given: true).item) }
        return out
    }

    /// The inputs sorted by path (the bytes of each path; the same path twice in the order found), and of
    /// those the `shard` (K-th of N shares, from 1: every N-th, starting with the K-th), so that N runs given
    /// the same inputs take each file once. With `keepOrder` the share is in the order given instead:
    /// operands in their order, a folder's files sorted by path. Sorted on disk, in bounded memory.
    public func selection(shard: (index: Int, count: Int)?, keepOrder: Bool = false) throws(BatchPlanError) -> BatchSelection {
        try fileStep { () throws(FileError) in
            if keepOrder && shard == nil { return try BatchSelection(sorting: gathered) }
            // Sorted by path: each record rewritten with the path first.
            let byPath = Spool()
            var reader = gathered.reader()
            while let r = reader.nextRecord() {
                let (item, sequence) = InputRecord.decode(r, given: true)
                InputRecord.byPath(sequence: sequence, input: item.input, dir: item.dir, into: byPath)
            }
            try gathered.seal()
            let sorted = try byPath.sortedRecords()
            guard let (k, n) = shard else { return try BatchSelection(sorted, given: false) }
            let share = Spool()
            var position = 0, all = sorted.reader()
            while let r = all.nextRecord() {
                defer { position += 1 }
                guard position % n == k - 1 else { continue }
                if keepOrder {
                    let (item, sequence) = InputRecord.decode(r, given: false)
                    InputRecord.given(sequence: sequence, input: item.input, dir: item.dir, into: share)
                } else {
                    share.appendRecord(r)
                }
            }
            try sorted.seal()
            return keepOrder ? try BatchSelection(sorting: share) : try BatchSelection(share, given: false)
        }
    }

    /// `path` made absolute from the current folder, without `.`, `..` or doubled slashes; links not followed.
    static func lexical(_ path: String) -> String {
        var parts: [String] = path.isAbsolutePath ? [] : currentFolder().pathParts
        for part in path.pathParts where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// True for the names a folder's images go by: .jpg .jpeg .jpe .jfif .pjpeg .pjp .png .apng, in any case.
    public static func isImageName(_ name: String) -> Bool {
        guard let ext = name.around(last: ".")?.1 else { return false }
        // The JPEG names browsers save under too (`.jfif`: Windows' Chrome and Edge), and an animated PNG's (its
        // first picture is the PNG's): a folder of them converted nothing, without a word.
        return ["jpg", "jpeg", "jpe", "jfif", "pjpeg", "pjp", "png", "apng"].contains(ext.lowercased())
    }

    /// Walks a folder (its subfolders too when `recursive`), handing each image file to `found` with its folder
    /// below the root, entry by entry as the folder is read. Hidden entries are skipped, and so is anything that
    /// is not a regular file: those go to `skip`.
    /// A subfolder that cannot be read (its permissions, gone during the walk) goes to `unread` and the walk
    /// goes on; the folder named itself is an error.
    static func walkFolder(_ root: String, recursive: Bool, leaveOut: FileIdentity? = nil,
                           walked: inout [FileIdentity: String], found: (String, String) -> Void,
                           skip: (SkippedEntry) -> Void, unread: (FileError) -> Void = { _ in }) throws(FileError) {
        var pending: [String] = [""]
        // Every folder walked, by identity (`walked`, with its path; the caller's, across its operands): one reached
        // again (a link to a folder above it — a loop, which `ln -s . a; ln -s . b` makes 2^40 paths of — or a
        // second way into one) is walked once, and named.
        func claim(_ identity: FileIdentity, _ path: String) -> Bool {
            guard walked[identity] == nil else { return false }
            walked[identity] = path
            return true
        }
        // A folder another input walked already under this very path (`in/sub` before `in -r`): walked again, so that
        // its files come twice and are refused as given twice, whichever input came first (`in in/sub` does so).
        func sameWay(_ identity: FileIdentity, _ path: String) -> Bool {
            walked[identity].map { lexical($0) == lexical(path) } ?? false
        }
        if let st = FileStatus(path: root) { _ = claim(st.identity, root) }
        // The output folder below the root, however reached: named once, as left out (the root itself, named as an
        // input, is walked: its files are what was asked for).
        var leftOut = false
        func isLeftOut(_ identity: FileIdentity, _ path: String) -> Bool {
            guard identity == leaveOut else { return false }
            if !leftOut {
                skip(SkippedEntry(path: path, kind: .directory, unreachable: "the batch's output folder: its files are not taken as inputs"))
            }
            leftOut = true
            return true
        }
        // The same tree gives the same paths whatever order the file system lists its entries in (shards on other
        // machines must count each file once): each folder's subfolders are walked in byte order of their names,
        // and links to folders wait until every folder reached without one is walked, then go in byte order of
        // their paths, so that a folder reached both ways is listed under its own path. A link to a folder
        // walked already is named at once, not kept.
        func before(_ a: String, _ b: String) -> Bool { PathBytes.encode(a).lexicographicallyPrecedes(PathBytes.encode(b)) }
        var links: [String] = [], linksSorted = true
        func next() -> String? {
            if let rel = pending.popLast() { return rel }
            if !linksSorted { links.sort { before($1, $0) }; linksSorted = true }
            while let rel = links.popLast() {
                let full = joined(root, rel)
                guard let st = FileStatus(path: full) else {
                    skip(SkippedEntry(path: full, kind: .other, unreachable: "gone during the walk"))
                    continue
                }
                if isLeftOut(st.identity, full) { continue }
                if claim(st.identity, full) { return rel }
                skip(SkippedEntry(path: full, kind: .directory))
            }
            return nil
        }
        while let rel = next() {
            let path = rel.isEmpty ? root : joined(root, rel)
            guard let d = withFileSystemPath(path, { opendir($0) }) else {
                let error = FileError(path: path, reason: "cannot read the folder: \(systemMessage())")
                // One unreadable subfolder stopped the whole walk: every other folder's files went unconverted.
                if rel.isEmpty { throw error }
                unread(error)
                continue
            }
            defer { closedir(d) }
            var subfolders: [(name: String, identity: FileIdentity)] = []
            // A folder that can be listed but not entered (r without x): its entries' names come, but none can be
            // looked at — its images are left out as an unreadable folder's are, not skipped as odd entries.
            var entered = true
            while entered, let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                    PathBytes.decode(raw.prefix { $0 != 0 })
                }
                if name.hasPrefix(".") { continue }
                let full = joined(path, name)
                guard let st = FileStatus(path: full) else {
                    // Not silently: an image's name that leads nowhere, or anything the system cannot reach by
                    // its path (a folder's too, with what is below it).
                    let code = errno
                    if code == EACCES && FileStatus(path: full, follow: false) == nil {
                        let error = FileError(path: path, reason: "cannot look at the files in the folder: \(systemMessage(code))")
                        if rel.isEmpty { throw error }
                        unread(error)
                        entered = false
                        continue
                    }
                    if code == ENAMETOOLONG || isImageName(name) {
                        skip(SkippedEntry(path: full, kind: .other, unreachable: code == ENAMETOOLONG
                            ? "its path is longer than the system allows" : code == ELOOP ? "a link loop"
                            : code == ENOENT ? (FileStatus(path: full, follow: false) == nil ? "gone during the walk" : "a link to nothing")
                            : systemMessage(code)))
                    }
                    continue
                }
                switch st.kind {
                case .directory:
                    guard recursive else { break }
                    if isLeftOut(st.identity, full) { break }
                    if walked[st.identity] != nil && !sameWay(st.identity, full) {
                        skip(SkippedEntry(path: full, kind: .directory))
                    } else if FileStatus(path: full, follow: false)?.kind == .symlink {
                        links.append(rel.isEmpty ? name : rel + "/" + name)
                        linksSorted = false
                    } else {
                        subfolders.append((name, st.identity))
                    }
                case .regular:
                    if isImageName(name) { found(full, rel) }
                default:
                    if isImageName(name) { skip(SkippedEntry(path: full, kind: st.kind)) }
                }
            }
            // Claimed in byte order (one folder at two real paths, a bind mount, is walked under the first), then
            // stacked so that the first is walked first.
            var claimed: [String] = []
            for sub in subfolders.sorted(by: { before($0.name, $1.name) }) {
                if claim(sub.identity, joined(path, sub.name)) || sameWay(sub.identity, joined(path, sub.name)) {
                    claimed.append(rel.isEmpty ? sub.name : rel + "/" + sub.name)
                } else {
                    skip(SkippedEntry(path: joined(path, sub.name), kind: .directory))
                }
            }
            pending += claimed.reversed()
        }
    }

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

/// `body`'s file error as a plan error.
func fileStep<T>(_ body: () throws(FileError) -> T) throws(BatchPlanError) -> T {
    do { return try body() } catch { throw .file(error) }
}

/// `name` in `folder`: one "/" between (the root, "/", is not doubled: `convert / -r` named "//etc/…").
func joined(_ folder: String, _ name: String) -> String { folder.hasSuffix("/") ? folder + name : folder + "/" + name }
