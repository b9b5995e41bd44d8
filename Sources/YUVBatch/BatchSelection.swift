#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO

// The inputs chosen for a run (`BatchSelection`: a shard's, in run order, spooled on disk) and the spool's record
// format that BatchInputs writes and both read back (`InputRecord`).

/// Inputs chosen for a run, in the order they run, on disk: read back one at a time (`reader`).
public final class BatchSelection: @unchecked Sendable {
    /// `InputRecord.plain` records, in order.
    let spool: Spool
    public let count: Int

    /// `InputRecord` records of either key already in order.
    init(_ records: Spool, given: Bool) throws(FileError) {
        let plain = Spool()
        var n = 0, reader = records.reader()
        while let r = reader.nextRecord() {
            let item = InputRecord.decode(r, given: given).item
            InputRecord.plain(input: item.input, dir: item.dir, into: plain)
            n += 1
        }
        try records.seal()
        try plain.seal()
        spool = plain
        count = n
    }

    /// `InputRecord.given` records sorted into the order given.
    convenience init(sorting given: Spool) throws(FileError) {
        try self.init(try given.sortedRecords(), given: true)
    }

    /// Reads the items in order.
    public struct Reader {
        var records: SpoolReader

        public mutating func next() -> BatchItem? {
            records.nextRecord().map(InputRecord.decodePlain)
        }
    }

    public func reader() -> Reader { Reader(records: spool.reader()) }

    /// The first error met reading the selection back (a failing temporary file), if any.
    public var readFailure: FileError? { spool.failure }

    /// Every item, in order (all in memory: for tests and small batches).
    public var items: [BatchItem] {
        var out: [BatchItem] = [], r = reader()
        while let item = r.next() { out.append(item) }
        return out
    }

    /// The identities of the inputs and of the list they came from, on disk: files that no output of the run
    /// may overwrite.
    public func protected(listFile: String?) throws(BatchPlanError) -> SortedIdentities {
        let ids = Spool()
        var r = reader()
        while let item = r.next() {
            for id in inputIdentities(item.input) { SortedIdentities.append(id, to: ids) }
        }
        if let list = listFile { for id in inputIdentities(list) { SortedIdentities.append(id, to: ids) } }
        return try fileStep { () throws(FileError) in
            try spool.seal()
            return try SortedIdentities(ids)
        }
    }
}

/// How an input is written to a spool. Each record ends with its path's length (4 bytes), so a path that
/// holds any byte reads back whole; the bytes before are ordered for the sort that needs them:
/// - `given`: the sequence number (8 bytes, big-endian), the path, 0, the folder: the order given, a folder's
///   files by path;
/// - `byPath`: the path, 0, the sequence number, the folder: by path, the same path twice in the order given;
/// - `plain`: the path, the folder: in the order written.
enum InputRecord {
    static func given(sequence: UInt64, input: String, dir: String, into spool: Spool) {
        let path = PathBytes.encode(input)
        spool.appendRecord(parts: [bigEndian(sequence)[...], path[...], [0], PathBytes.encode(dir)[...], length(path.count)[...]])
    }

    static func byPath(sequence: UInt64, input: String, dir: String, into spool: Spool) {
        let path = PathBytes.encode(input)
        spool.appendRecord(parts: [path[...], [0], bigEndian(sequence)[...], PathBytes.encode(dir)[...], length(path.count)[...]])
    }

    static func plain(input: String, dir: String, into spool: Spool) {
        let path = PathBytes.encode(input)
        spool.appendRecord(parts: [path[...], PathBytes.encode(dir)[...], length(path.count)[...]])
    }

    /// A `given` or `byPath` record: the item and its sequence number.
    static func decode(_ r: ArraySlice<UInt8>, given: Bool) -> (item: BatchItem, sequence: UInt64) {
        let n = pathLength(r), s = r.startIndex, e = r.endIndex - 4
        let sequenceAt = given ? s : s + n + 1
        let pathAt = given ? s + 8 : s
        let dirAt = given ? s + 8 + n + 1 : s + n + 1 + 8
        let sequence = bigEndian(r, at: sequenceAt)
        return (BatchItem(input: PathBytes.decode(r[pathAt..<(pathAt + n)]), dir: PathBytes.decode(r[dirAt..<e])), sequence)
    }

    static func decodePlain(_ r: ArraySlice<UInt8>) -> BatchItem {
        let n = pathLength(r), s = r.startIndex
        return BatchItem(input: PathBytes.decode(r[s..<(s + n)]), dir: PathBytes.decode(r[(s + n)..<(r.endIndex - 4)]))
    }

    static func pathLength(_ r: ArraySlice<UInt8>) -> Int {
        let e = r.endIndex
        return Int(r[e - 4]) | Int(r[e - 3]) << 8 | Int(r[e - 2]) << 16 | Int(r[e - 1]) << 24
    }

    static func bigEndian(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) } }

    /// The `bigEndian` word at `at` of a record (an index of `r`).
    static func bigEndian(_ r: ArraySlice<UInt8>, at: Int) -> UInt64 { r[at..<(at + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }

    static func length(_ n: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
}
