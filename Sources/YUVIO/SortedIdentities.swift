#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of file identities a check can ask about: the batch's inputs, which no output may overwrite.
public protocol FileIdentitySet: Sendable {
    func contains(_ identity: FileIdentity) -> Bool
}

extension FileIdentitySet {
    /// Whether the file `status` describes is one of the set's, under any identity it goes by (`identities`): an
    /// overlay's view of a layer's file too — by size and times, where the input or this file (`onOverlay`) is
    /// seen through an overlay. The one question every check of an output against the inputs asks.
    /// `onFUSE`: the file is on a FUSE file system, where the inputs' `fuseIdentity` may match it.
    public func holds(_ status: FileStatus, onOverlay: Bool, onFUSE: Bool = false) -> Bool {
        status.isOne(of: contains, onOverlay: onOverlay, onFUSE: onFUSE)
    }

    /// Whether the set holds the file by its device and inode (or as the stream it is), not by its size and times
    /// alone — which `holds` also matches where a file system can show one file under other numbers, and where two
    /// files alike in size and times are then taken for one (`WriteError.likeAnInput`).
    public func holdsByNumber(_ status: FileStatus) -> Bool {
        contains(status.identity) || status.streamIdentity.map(contains) == true
    }

    /// `holds` for the file at `path` (`status`, looked up there), asking its file system (`onOverlay`, `onFUSE`).
    public func holds(_ status: FileStatus, at path: String) -> Bool {
        let view = fileSystemView(path: path)
        return holds(status, onOverlay: view.overlay, onFUSE: view.fuse)
    }
}

extension FileStatus {
    /// Whether this file (`onOverlay`: seen through an overlay) is one of the inputs `isInput` knows by their
    /// `identities` (`FileIdentitySet.holds`).
    public func isOne(of isInput: (FileIdentity) -> Bool, onOverlay: Bool, onFUSE: Bool = false) -> Bool {
        if isInput(identity) || streamIdentity.map(isInput) == true { return true }
        // On FUSE, another name of an input may have another inode number (`fuseIdentity`), and another FUSE mount
        // may show the same file (`identities`): its size and times on either side.
        if let fuse = fuseIdentity(onFUSE: onFUSE), isInput(fuse) || isInput(viewIdentity(onOverlay: onOverlay)) { return true }
        // A whole-second FUSE view (sshfs) and a plain folder: by size and second, across the two (`secondIdentity`).
        if kind == .regular {
            if onFUSE && modifiedNanosecond == 0 && isInput(Self.secondKey(size: size, second: modifiedSecond, fuse: false)) { return true }
            if !onOverlay && isInput(Self.secondKey(size: size, second: modifiedSecond, fuse: true)) { return true }
        }
        // By size and times only across an overlay and a layer's folder: seen through an overlay, this may be the
        // layer's file of an input seen plainly, and seen plainly, the layer's file of an input seen through one.
        // Two files on one side share a device, where the device and inode decide (on a layer with whole-second
        // times, files written together alike in size would otherwise pass for one).
        return isInput(viewIdentity(onOverlay: !onOverlay))
    }
}

extension Set: FileIdentitySet where Element == FileIdentity {}

/// File identities (device, inode) held on disk, sorted, looked up without reading them into memory: a sample
/// of at most 4096 of them (64 KiB) narrows a lookup to a block that one pread reads (about 400 bytes for
/// 100,000 files). For the inputs of a batch of any size.
public final class SortedIdentities: FileIdentitySet, @unchecked Sendable {
    /// 16-byte records, device then inode, big-endian, sorted, without repeats.
    private let file: Spool
    public let count: Int
    /// Every `step`-th record.
    private let fences: [FileIdentity]
    private let step: Int

    /// The identities in `spool`, each as 16 bytes (device then inode, big-endian: `append(_:)`), any order.
    public init(_ spool: Spool) throws(FileError) {
        let sorted = try spool.sortedRecords()
        let file = Spool()
        var n = 0, last: [UInt8] = []
        var reader = sorted.reader()
        while let r = reader.nextRecord() {
            if r.elementsEqual(last) { continue }
            file.append(r)
            last = Array(r)
            n += 1
        }
        try sorted.seal()
        try file.seal()
        self.file = file
        count = n
        step = max(1, (n + 4095) / 4096)
        var fences: [FileIdentity] = []
        var at = 0
        while at < n {
            var r = file.reader(at * 16..<(at * 16 + 16), bufferSize: 16)
            if let id = r.read(16).map(Self.identity) { fences.append(id) }
            at += step
        }
        try file.seal()
        self.fences = fences
    }

    /// Writes `identity` to `spool` as the 16 bytes `init` reads.
    public static func append(_ identity: FileIdentity, to spool: Spool) {
        spool.appendLength16()
        spool.append(bigEndian: identity.device)
        spool.append(bigEndian: identity.inode)
    }

    static func identity(_ b: ArraySlice<UInt8>) -> FileIdentity {
        let i = b.startIndex
        let device = b[i..<(i + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let inode = b[(i + 8)..<(i + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return FileIdentity(device: device, inode: inode)
    }

    static func less(_ a: FileIdentity, _ b: FileIdentity) -> Bool { (a.device, a.inode) < (b.device, b.inode) }

    public func contains(_ identity: FileIdentity) -> Bool {
        // The last fence at or before the identity, then its block.
        var lo = 0, hi = fences.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Self.less(identity, fences[mid]) { hi = mid } else { lo = mid + 1 }
        }
        guard lo > 0 else { return false }
        let first = (lo - 1) * step, last = min(first + step, count)
        var reader = file.reader(first * 16..<(last * 16), bufferSize: (last - first) * 16)
        while let b = reader.read(16) {
            let id = Self.identity(b)
            if id == identity { return true }
            if Self.less(identity, id) { return false }
        }
        // A read that failed: the safe side is to treat it as an input.
        return file.failure != nil
    }
}

extension Spool {
    /// The length prefix of a 16-byte record.
    fileprivate func appendLength16() { append([16, 0, 0, 0]) }
}

