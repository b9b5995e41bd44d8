#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVIO
import YUVCore

// Walking a folder given as a batch input (BatchInputs.swift gathers the inputs): which names are images, each
// folder walked once by identity, and the same way in told from another.

extension BatchInputs {
    /// `path` made absolute from the current folder, without `.`, `..` or doubled slashes; links not followed.
    static func lexical(_ path: String) -> String {
        var parts: [String] = path.isAbsolutePath ? [] : currentFolder().pathParts
        for part in path.pathParts where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The reason an image too deep for a path is left out begins with (`gatherInputs` says it of the image alone).
    public static let unreachableImage = "cannot read the image"

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
    /// A subfolder that cannot be read (its permissions, gone during the walk, a path too long to reach — an
    /// image's too) goes to `unread` and the walk
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
                let full = joinedPath(root, rel)
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
            let path = rel.isEmpty ? root : joinedPath(root, rel)
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
                if name.hasScalarPrefix(".") { continue }
                let full = joinedPath(path, name)
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
                    if code == ENAMETOOLONG {
                        // A folder (or image) too deep for a path: what is below it cannot be reached, which is a
                        // folder left out, as an unreadable one is — not an odd entry skipped with exit 0 (a tree
                        // deeper than 4096 bytes lost its lower folders without an error). Its kind, from the
                        // folder's own descriptor.
                        var st = stat()
                        let folder = fstatat(dirfd(d), name, &st, 0) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
                        if folder ? recursive : isImageName(name) {
                            let error = FileError(path: full, reason: (folder ? "cannot walk the folder" : unreachableImage)
                                                  + ": its path is longer than the system allows (\(PATH_MAX) bytes)")
                            unread(error)
                        }
                        continue
                    }
                    if isImageName(name) {
                        skip(SkippedEntry(path: full, kind: .other, unreachable: code == ELOOP ? "a link loop"
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
                if claim(sub.identity, joinedPath(path, sub.name)) || sameWay(sub.identity, joinedPath(path, sub.name)) {
                    claimed.append(rel.isEmpty ? sub.name : rel + "/" + sub.name)
                } else {
                    skip(SkippedEntry(path: joinedPath(path, sub.name), kind: .directory))
                }
            }
            pending += claimed.reversed()
        }
    }
}
