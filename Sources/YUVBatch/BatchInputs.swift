#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO
import YUVCore

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
    /// What was at the output when the plan looked, before any work (`AtomicOutput.Before`).
    public internal(set) var foundAtPlan = AtomicOutput.Before.unknown

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
        /// A skipped entry counted, and kept while fewer than `skippedKept` are.
        func noteSkipped(_ entry: SkippedEntry) {
            skippedCount += 1
            if skipped.count < Self.skippedKept { skipped.append(entry) }
        }
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
                let root = arg.hasScalarSuffix("/") && arg.unicodeScalars.count > 1 ? String(scalars: arg.unicodeScalars.dropLast()) : arg
                let prefix = arg.hasScalarSuffix("/") ? "" : (root.pathParts.last ?? "")
                let sameWay: Bool
                if let st = status, let first = walked[st.identity] {
                    sameWay = Self.lexical(first) == Self.lexical(root)
                    if !sameWay {
                        noteSkipped(SkippedEntry(path: root, kind: .directory,
                                                 unreachable: "a folder walked already, as \(displayPath(first))"))
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
                        noteSkipped(entry)
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
}

/// `body`'s file error as a plan error.
func fileStep<T>(_ body: () throws(FileError) -> T) throws(BatchPlanError) -> T {
    do { return try body() } catch { throw .file(error) }
}
