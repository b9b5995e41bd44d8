#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

// What may be written, decided before any work (`AtomicOutput.check`) and from nothing but paths and descriptors:
// where an output goes (a descriptor, a device in place, a file), and what must never be overwritten (the inputs,
// a disk, a file with data after a descriptor's position). AtomicOutput.swift makes and places the file.

extension AtomicOutput {
    /// Where a checked output is written.
    public enum Destination: Sendable, Equatable {
        /// Standard output or error, or `/dev/fd/N`: that descriptor, in order.
        case descriptor(Int32)
        /// A device, FIFO or socket (links followed): written in place, in order.
        case inPlace(String)
        /// A regular file, new or replaced (links followed): through a temporary file in its folder.
        case file(String)

        /// Written in order, with no going back (`AtomicOutput.isSeekable` false): all but a file.
        public var isStream: Bool { if case .file = self { false } else { true } }
    }

    /// The file name `--update` keeps its manifest under, in an output folder (YUVBatch's `Manifest`).
    public static let manifestName = ".yuvconv-manifest"
    /// The manifest's lock file where its folder cannot be locked (YUVBatch's `ManifestFile.lockPath`): its
    /// name and the ending that makes it.
    public static let manifestLockSuffix = ".lock"
    public static let manifestLockName = manifestName + manifestLockSuffix
    /// The start of the names of --update's journals (one a run, `.yuvconv-manifest.journal.XXXXXX`: the outputs it
    /// made, recorded as they are made, for a run that ends before writing its manifest).
    public static let manifestJournalPrefix = manifestName + ".journal."

    /// Why `path` may not be an output or report because of its names: its file name is `--update`'s manifest's
    /// or its lock file's, or (`folders`) a folder on the way to it is so named — for a batch's output name below
    /// its output folder (a {dir} template making `out/.yuvconv-manifest/`, which would stand where --update
    /// writes its file), not for a path whose folders are the user's. Nil when neither. Names only: a batch asks
    /// it of each output's name before making its folders, `check` of every output's file name.
    public static func reservedNameProblem(_ path: String, folders: Bool = true) -> String? {
        // In any letter case: where the file system folds case (macOS's APFS, FAT, ext4 with casefold),
        // `.YUVCONV-MANIFEST` is the manifest — refused everywhere, as no one names an image so.
        let parts = path.pathParts, names = [manifestName, manifestLockName]
        // As the file systems fold case (`caseFolded`): the Kelvin sign (U+212A) is a K there.
        func folded(_ name: String) -> String { caseFolded(name) }
        func reserved(_ name: String) -> Bool { names.contains(folded(name)) || folded(name).hasPrefix(manifestJournalPrefix) }
        func what(_ name: String) -> String {
            folded(name) == manifestName ? "manifest" : folded(name) == manifestLockName ? "manifest's lock file" : "manifest's journal"
        }
        if let name = parts.last, reserved(name) {
            return "is the name of --update's \(what(name)) (\(name)), which no output or report may take; name it otherwise"
        }
        if folders, let name = parts.dropLast().first(where: reserved) {
            return "is in a folder named as --update's \(what(name)) (\(name)), which no output may make or use; name it otherwise"
        }
        return nil
    }

    /// Checks up front, creating nothing, that `path` may be written: neither `inputs` (paths) nor any file in
    /// `protected` is ever overwritten, even with `force`; an existing file only with `force`; never a folder.
    ///
    /// - `-`, `/dev/stdout`, `/dev/fd/1` and `/proc/self/fd/1` are standard output; `/dev/stderr` (and fd 2)
    ///   standard error; `/dev/fd/N` descriptor N: written in order, never replaced by a file.
    /// - A symbolic link is followed: its target is written (atomically when it is a regular file, with
    ///   `force` when it exists) and the link itself stays as it was.
    /// - A device or FIFO is written in place, in order; a block device only with `force`; a socket is refused.
    /// - `plainFileOnly`: `path` itself must be a regular file or nothing — no link followed, no device, no
    ///   descriptor (a file of yuvconv's own, such as `--update`'s manifest, that a link put there meanwhile
    ///   must not redirect).
    /// - `before`: what a batch's plan saw at the name; anything there that is not it is refused (`Before`).
    public static func check(path: String, force: Bool, inputs: [String] = [],
                             protected: any FileIdentitySet = Set<FileIdentity>(),
                             plainFileOnly: Bool = false, before: Before = .unknown) throws(WriteError) -> Destination {
        if plainFileOnly {
            if standardDescriptor(path) != nil { throw .system("is a descriptor, not a file") }
            if let st = FileStatus(path: path, follow: false), st.kind != .regular {
                throw .system(st.kind == .symlink ? "is a symbolic link" : "is not a regular file")
            }
        }
        let named = Set(inputs.flatMap(inputIdentities))
        let protected = ProtectedUnion(named: named, others: protected)
        if let descriptor = standardDescriptor(path) {
            if yc_standard_descriptor_was_closed(descriptor) != 0 {
                throw .system(descriptor == 1 ? "standard output is closed" : "descriptor \(descriptor) is closed")
            }
            if isOpen(onInput: descriptor, protected.contains) { throw .sameAsInput }
            // Open for reading only (`-o /dev/stdin`, `/dev/fd/0`): refused before the work, not after it.
            let mode = fcntl(descriptor, F_GETFL)
            if mode >= 0 && mode & O_ACCMODE == O_RDONLY {
                throw .system("descriptor \(descriptor) is open for reading only")
            }
            if !force, let over = overwrites(descriptor: descriptor) { throw over }
            return .descriptor(descriptor)
        }
        if let why = PathBytes.lengthProblem(path) { throw .system("the name cannot be made: \(why)") }
        // plainFileOnly: the name itself (checked above), never a link's target, even one put there since.
        let real = plainFileOnly ? path : try resolveLinks(path)
        // The name of `--update`'s manifest is its own (the manifest itself is written plainFileOnly): an output or a
        // report there, even with --force, would leave a folder every later --update refuses — by its name, or by a
        // link's there (written through, the link would stay at the manifest's name).
        if !plainFileOnly, let why = reservedNameProblem(path, folders: false) ?? reservedNameProblem(real, folders: false) {
            throw .system(why)
        }
        if let st = FileStatus(path: real) {
            if protected.holds(st, at: real) { throw protected.holdsByNumber(st) ? .sameAsInput : .likeAnInput }
            // Whatever it is (a disk at a link put there meanwhile too).
            if !before.allows(st, born: birthTime(real)) { throw before.refusal(path, force: force) }
            if st.kind == .directory { throw .system("is a directory") }
            // open() cannot reach a Unix socket (ENXIO, which a FIFO without a reader gives too).
            if st.kind == .socket { throw .system(socketReason(remedy: "write to standard output and pipe it on")) }
            // A disk holds data as a file does: `-o /dev/sda` by mistake must not wipe it.
            if st.kind == .blockDevice && !force { throw .blockDevice }
            if st.kind != .regular { return .inPlace(real) }
            if !force { throw .exists }
        }
        return .file(real)
    }

    /// What writing to descriptor `fd` would overwrite, as the error that needs `force`: a disk (`.blockDevice`),
    /// or a file holding bytes from the descriptor's position on (`3<>old`, not `>` nor `>>`), which would be
    /// overwritten with the rest left behind (`.descriptorHasData`). Nil otherwise.
    public static func overwrites(descriptor fd: Int32) -> WriteError? {
        guard let st = FileStatus(descriptor: fd) else { return nil }
        if st.kind == .blockDevice { return .blockDevice }
        guard st.kind == .regular, fcntl(fd, F_GETFL) & O_APPEND == 0 else { return nil }
        let at = lseek(fd, 0, SEEK_CUR)
        return at >= 0 && Int(at) < st.size ? .descriptorHasData(fd) : nil
    }

    /// Where an output written in order to descriptor `fd` begins, when `fd` is open on a regular file: its position,
    /// or, appending (`>>`), the file's end — what a failed output is cut back to (`cutBack`), with the file's size
    /// then (a position past the end is cut back to the end). Nil otherwise.
    public static func writingStart(descriptor fd: Int32) -> WritingStart? {
        guard let st = FileStatus(descriptor: fd), st.kind == .regular else { return nil }
        let appends = fcntl(fd, F_GETFL) & O_APPEND != 0
        let offset = appends ? off_t(st.size) : lseek(fd, 0, SEEK_CUR)
        return offset >= 0 ? WritingStart(offset: offset, size: off_t(st.size), appends: appends) : nil
    }

    /// Where an output on a descriptor began: `writingStart`.
    public struct WritingStart: Sendable {
        public let offset: off_t
        /// The file's size when it began.
        public let size: off_t
        public let appends: Bool
    }

    /// Whether descriptor `fd` is open on a regular file or FIFO that `isInput` names: what is written there would change
    /// an input (`-o - 1<>in.png`, or a report or messages on a standard stream opened on one).
    public static func isOpen(onInput fd: Int32, _ isInput: (FileIdentity) -> Bool) -> Bool {
        // A named FIFO too: written into, the picture would go into the stream it is read from (`5<>in.fifo`).
        guard let st = FileStatus(descriptor: fd), st.kind == .regular || st.kind == .fifo else { return false }
        let view = fileSystemView(descriptor: fd)
        return st.isOne(of: isInput, onOverlay: view.overlay, onFUSE: view.fuse)
    }

    /// The descriptor a path names without a file of its own: standard output and error, `/dev/fd/N`.
    public static func standardDescriptor(_ path: String) -> Int32? {
        if let n = descriptorName(path) { return n }
        // Another name that leads to one through links (`/dev/./stdout`, a link to /dev/stdout): the descriptor
        // too — /proc/self/fd/N's own link names no file (`pipe:[…]`), so it is never followed past.
        guard path != "-" else { return nil }
        var current = path
        for _ in 0..<40 {
            guard let st = FileStatus(path: current, follow: false), st.kind == .symlink,
                  let next = symlinkTarget(current) else { return nil }
            // A link's target by its absolute spellings only: a target "-" is a file of that name.
            if next != "-", let n = descriptorName(next) { return n }
            current = next
        }
        return nil
    }

    /// The descriptor a path names by its spelling alone.
    private static func descriptorName(_ path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default: return descriptorNumbered(path)
        }
    }

    /// The file a path finally names, through any chain of symbolic links (the path itself when it is none).
    public static func resolveLinks(_ path: String) throws(WriteError) -> String {
        var current = path
        for _ in 0..<40 {
            guard let st = FileStatus(path: current, follow: false), st.kind == .symlink,
                  let next = symlinkTarget(current) else { return current }
            current = next
        }
        throw .system("too many levels of symbolic links")
    }
}

/// The inputs a check names, and the set it was given.
private struct ProtectedUnion: FileIdentitySet {
    let named: Set<FileIdentity>
    let others: any FileIdentitySet

    func contains(_ id: FileIdentity) -> Bool { named.contains(id) || others.contains(id) }
}

/// The identity of an input that must never be overwritten: the file a path names, or standard input's
/// file when it is one (`- < photo.jpg`). Nil when there is nothing to protect.
public func inputIdentity(_ input: String) -> FileIdentity? { inputStatus(input)?.identity }

/// Every identity of that input (`FileStatus.identities`), for the sets outputs are checked against.
public func inputIdentities(_ input: String) -> [FileIdentity] {
    guard let st = inputStatus(input) else { return [] }
    let view = input == "-" ? fileSystemView(descriptor: STDIN_FILENO) : fileSystemView(path: input)
    return st.identities(onOverlay: view.overlay, onFUSE: view.fuse)
}

/// The file an input path names, or standard input's when it is a file (`- < photo.jpg`); nil when none.
func inputStatus(_ input: String) -> FileStatus? {
    if input == "-" {
        guard let st = FileStatus(descriptor: STDIN_FILENO), st.kind == .regular else { return nil }
        return st
    }
    return FileStatus(path: input)
}
