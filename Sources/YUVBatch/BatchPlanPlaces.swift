#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

// Where a plan's outputs land, as its checks compare them: each output's place (its folder resolved, links
// followed) with a key that folds case where that folder does, and the orders and scans that find two outputs at
// one place (`firstClash`) or one inside another (`firstNesting`). Apart from BatchPlan.swift, which plans.
extension BatchPlan {
    /// A place's bytes in an order where a path's own files and folders come right after it: "/" (byte 1)
    /// below every other byte, bytes 1 and 2 escaped as 2 followed by themselves (no path holds a 0).
    static func folderOrder(_ place: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(place.count)
        for b in place {
            if b == UInt8(ascii: "/") { out.append(1) } else if b <= 2 { out += [2, b] } else { out.append(b) }
        }
        return out
    }

    /// A file of the run that another needs as its folder (`out/a` and `out/a/b`: a name template that makes
    /// one output's name the other's folder, or the report file or manifest among the outputs): of the files
    /// (`folderOrder` of its place, 0, its name) sorted, the first whose next different place lies inside it,
    /// as (that file, the one inside).
    static func firstNesting(_ tree: Spool) throws(BatchPlanError) -> ([UInt8], [UInt8])? {
        let sorted = try fileStep { () throws(FileError) in try tree.sortedRecords() }
        defer { _ = try? fileStep { () throws(FileError) in try sorted.seal() } }
        var reader = sorted.reader()
        var previous: (place: [UInt8], output: [UInt8])?
        while let r = reader.nextRecord() {
            let zero = r.firstIndex(of: 0)!
            let place = Array(r[r.startIndex..<zero]), output = Array(r[(zero + 1)...])
            if let p = previous, place.count > p.place.count, place[p.place.count] == 1, place.starts(with: p.place) {
                return (p.output, output)
            }
            if previous?.place != place { previous = (place, output) }
        }
        return nil
    }

    /// Two inputs onto one output: of the outputs (`output`, 0, position, input, output length records)
    /// sorted by name, the clash whose second input comes first in the plan — the one a walk in order meets
    /// first — with the first two inputs that make it and the output's bytes.
    static func firstClash(_ outputs: Spool) throws(BatchPlanError) -> ([UInt8], [UInt8], [UInt8])? {
        let sorted = try fileStep { () throws(FileError) in try outputs.sortedRecords() }
        var reader = sorted.reader()
        var previous: [UInt8] = [], previousInput: [UInt8] = [], runLength = 0
        var found: (second: UInt64, first: [UInt8], secondInput: [UInt8], output: [UInt8])?
        while let r = reader.nextRecord() {
            let s = r.startIndex, n = InputRecord.pathLength(r)
            let output = r[s..<(s + n)]
            let position = InputRecord.bigEndian(r, at: s + n + 1)
            let input = Array(r[(s + n + 9)..<(r.endIndex - 4)])
            if output.elementsEqual(previous) {
                runLength += 1
                // Sorted by position within one output: its second record is its first clash.
                if runLength == 2, found.map({ position < $0.second }) ?? true {
                    found = (position, previousInput, input, previous)
                }
            } else {
                (previous, runLength) = (Array(output), 1)
            }
            previousInput = input
        }
        try fileStep { () throws(FileError) in try sorted.seal() }
        return found.map { ($0.first, $0.secondInput, $0.output) }
    }

    /// Where an output lands, the same string for two paths that reach one file: the path made absolute with
    /// every symbolic link on it followed — of the folders (a link to a folder not made yet included) and of the
    /// name — and `.` and `..` applied as the system would. The last folder resolved is kept, as a plan's
    /// outputs come folder by folder.
    /// With its key (`FoldsCache.key`), as the checks compare places.
    static func outputPlace(_ path: String, cache: inout PlaceCache?) -> (place: String, key: [UInt8]) {
        let around = path.aroundLastSlash
        let folder = around?.0 ?? "."
        let name = around?.1 ?? path
        // By bytes: Swift's == takes "café" in NFC and NFD for one name, and so would give one folder's place
        // to the other.
        if cache == nil || !cache!.folder.utf8.elementsEqual(folder.utf8) {
            let place = resolved(folder.isEmpty ? "/" : folder)
            var folds = cache?.folds ?? FoldsCache()
            let key = folds.key(place)
            cache = PlaceCache(folder: folder, place: place, key: key, folds: folds)
        }
        let c = cache!
        let file = resolved(name, from: c.place)
        let (fileFolder, fileName) = splitPath(file)
        // A link in the name leads to another folder, whose rule is its own.
        if !fileFolder.utf8.elementsEqual(c.place.utf8) { return (file, cache!.folds.key(fileFolder, name: fileName)) }
        return (file, cache!.folds.key(c.place, name: fileName, folderKey: c.key))
    }

    /// A place as the checks compare it: a mark, then its bytes with every name in it case-folded (`caseFolded`)
    /// where the folder that holds it takes names that differ only in case for one file (`foldsCase`). Each folder's
    /// own rule:
    /// `out/A/x` and `out/a/x`, under an `out` that tells case apart, are two files even when `A` and `a` each fold
    /// (ext4's casefold is per folder; so are two mounts). The mark says whether the place's own folder folds: the
    /// clash message then says the names differ only in case.
    struct FoldsCache {
        /// `foldsCase` of the folders asked, bounded (a plan's folders come one after another, their parents shared);
        /// by their bytes, as Swift's String equality takes `café` in NFC and NFD, two folders, for one.
        private var known: [[UInt8]: Bool] = [:]

        mutating func folds(_ folder: String) -> Bool {
            if let hit = known[PathBytes.encode(folder)] { return hit }
            let answer = YUVIO.foldsCase(folder)
            remember(folder, answer)
            return answer
        }

        /// The bytes of the absolute folder `folder`, each name case-folded where its own folder folds.
        ///
        /// From the root down: below the first folder that does not exist yet none does, and each takes the rule
        /// of the nearest that does (`foldsCase`), known already — asking `foldsCase` of each, which walks up to that
        /// folder again, made a name template of many levels cost the cube of its depth (2,000 levels: minutes, and a
        /// path over the system's limit was refused only after them; a hostile round's).
        mutating func key(_ folder: String) -> [UInt8] {
            var key: [UInt8] = [], at = "/"
            var missing: Bool? = nil   // the rule below the first missing folder, once met
            for part in folder.pathParts + [""] {
                let foldsHere: Bool
                if let rule = missing {
                    foldsHere = rule
                    remember(at, rule)
                } else if let hit = known[PathBytes.encode(at)] {
                    foldsHere = hit
                } else {
                    foldsHere = folds(at)
                    if FileStatus(path: at)?.kind != .directory { missing = foldsHere }
                }
                if part.isEmpty { break }   // the folder itself: its rule known for `key(_:name:)`
                key += [UInt8(ascii: "/")] + PathBytes.encode(foldsHere ? caseFolded(part) : part)
                at = at == "/" ? "/" + part : at + "/" + part
            }
            return key
        }

        private mutating func remember(_ folder: String, _ answer: Bool) {
            if known.count >= 4096 { known.removeAll(keepingCapacity: true) }
            known[PathBytes.encode(folder)] = answer
        }

        /// The key of `name` in the absolute folder `folder` (whose own key is `folderKey`, when known).
        mutating func key(_ folder: String, name: String, folderKey: [UInt8]? = nil) -> [UInt8] {
            let inFolder = folds(folder)
            return [inFolder ? BatchPlan.foldedMark : 2] + (folderKey ?? key(folder)) + [UInt8(ascii: "/")]
                + PathBytes.encode(inFolder ? caseFolded(name) : name)
        }
    }
    static let foldedMark: UInt8 = 1

    /// The last folder `outputPlace` resolved (a plan's outputs come folder by folder), and what its folders'
    /// rules were.
    struct PlaceCache {
        let folder: String, place: String, key: [UInt8]
        var folds: FoldsCache
    }

    /// `path` (taken from `base` when relative) absolute, its links followed (at most 40), `.` and `..` applied
    /// (`resolvedPath`).
    public static func resolved(_ path: String, from base: String? = nil) -> String { resolvedPath(path, from: base) }
}
