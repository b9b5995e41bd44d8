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

    /// `PATH (a FIFO)`, as warnings list it.
    public var description: String { "\(displayPath(path)) (\(Self.describe(kind)))" }

    /// What a file that is not a regular one is, for messages.
    public static func describe(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .fifo: return "a FIFO"
        case .characterDevice, .blockDevice: return "a device"
        case .socket: return "a socket"
        default: return "not a regular file"
        }
    }
}

/// The inputs of a batch as gathered from its operands and list, in the order found (not yet sorted).
public struct BatchInputs: Sendable {
    public var items: [BatchItem]
    public var skipped: [SkippedEntry]
    /// The `filesFrom` list that was read: an input too, never to be overwritten.
    public let listFile: String?

    /// Gathers the files named by `operands` — files, and folders' image files (their subfolders' too when
    /// `recursive`) — then those listed in `filesFrom` (lines, or NUL-separated records when `nul`; "-" is
    /// standard input). A folder named "dir/" means its contents, "dir" the folder itself, as rsync reads it:
    /// each file's `dir` then starts with the folder's own name. Standard input ("-") is refused as an operand
    /// unless `standardInput` allows it, and then once, and not when it is also the list.
    public init(operands: [String], recursive: Bool = false, filesFrom: String? = nil, nul: Bool = false,
                standardInput: Bool = false) throws(BatchPlanError) {
        items = []
        skipped = []
        listFile = filesFrom
        var readsStandardInput = filesFrom == "-"
        for arg in operands {
            if arg != "-", FileStatus(path: arg)?.kind == .directory {
                let root = arg.hasSuffix("/") && arg.count > 1 ? String(arg.dropLast()) : arg
                let prefix = arg.hasSuffix("/") ? "" : (root.split(separator: "/").last.map(String.init) ?? "")
                let listed = try fileStep { () throws(FileError) in try Self.listFolder(root, recursive: recursive) }
                skipped += listed.skipped
                items += listed.items.map {
                    BatchItem(input: $0.input, dir: prefix.isEmpty ? $0.dir : ($0.dir.isEmpty ? prefix : prefix + "/" + $0.dir))
                }
            } else {
                if arg == "-" {
                    if !standardInput { throw .standardInput }
                    if readsStandardInput { throw .standardInputTwice }
                    readsStandardInput = true
                }
                items.append(BatchItem(input: arg, dir: ""))
            }
        }
        if let list = filesFrom {
            items += try fileStep { () throws(FileError) in try Self.readList(list, nul: nul) }.map { BatchItem(input: $0, dir: "") }
        }
    }

    /// The items sorted by path, and of those the `shard` (K-th of N shares, from 1: every N-th, starting with
    /// the K-th), so that N runs given the same inputs take each file once. With `keepOrder` the share is
    /// returned in the order gathered rather than sorted.
    public func selection(shard: (index: Int, count: Int)?, keepOrder: Bool = false) -> [BatchItem] {
        let sorted = items.indices.sorted { (items[$0].input, $0) < (items[$1].input, $1) }
        var taken = sorted
        if let (k, n) = shard {
            taken = sorted.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
        }
        return (keepOrder ? taken.sorted() : taken).map { items[$0] }
    }

    /// The identities of `items` and of the list they came from: files that no output of the run may overwrite.
    public func protected(_ items: [BatchItem]) -> Set<FileIdentity> {
        var ids = Set(items.compactMap { inputIdentity($0.input) })
        if let list = listFile, let id = inputIdentity(list) { ids.insert(id) }
        return ids
    }

    /// True for the names a folder's images go by: .jpg, .jpeg, .jpe, .png in any case.
    public static func isImageName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return ["jpg", "jpeg", "jpe", "png"].contains(name[name.index(after: dot)...].lowercased())
    }

    /// The image files of a folder (sorted), with subfolders when `recursive`. Hidden entries are skipped, and
    /// so is anything that is not a regular file: those are returned in `skipped`.
    static func listFolder(_ root: String, recursive: Bool) throws(FileError) -> (items: [BatchItem], skipped: [SkippedEntry]) {
        var out: [BatchItem] = [], skipped: [SkippedEntry] = []
        var pending: [String] = [""]
        while let rel = pending.popLast() {
            let path = rel.isEmpty ? root : root + "/" + rel
            guard let d = withFileSystemPath(path, { opendir($0) }) else {
                throw FileError(path: path, reason: "cannot read the folder: \(systemMessage())")
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
                    if isImageName(name) { skipped.append(SkippedEntry(path: full, kind: st.kind)) }
                }
            }
        }
        return (out, skipped)
    }

    /// Reads a list of paths: lines (a CR before the LF dropped), or NUL-separated records; empty records are
    /// left out; at most 256 MiB.
    static func readList(_ path: String, nul: Bool) throws(FileError) -> [String] {
        let limit = 256 << 20
        // A named pipe waits for its writer here (`producer > list & yuvconv --files-from list`), as `cat` would:
        // the list is what the user asked to read.
        let fd = path == "-" ? dup(STDIN_FILENO) : withFileSystemPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileError(path: path, reason: "cannot open: \(systemMessage())") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
            if n == 0 { break }
            bytes += buf[0..<n]
            if bytes.count > limit { throw FileError(path: path, reason: "the list is longer than 256 MiB") }
        }
        let sep: UInt8 = nul ? 0 : 10
        return bytes.split(separator: sep).map { record in
            PathBytes.decode(!nul && record.last == 13 ? record.dropLast() : record)
        }.filter { !$0.isEmpty }
    }
}

/// `body`'s file error as a plan error.
func fileStep<T>(_ body: () throws(FileError) -> T) throws(BatchPlanError) -> T {
    do { return try body() } catch { throw .file(error) }
}
