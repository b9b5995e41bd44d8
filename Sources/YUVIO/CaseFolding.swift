#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims

/// Whether the file system under `folder` takes two names that differ only in letter case for one file — macOS's
/// default APFS, FAT and exFAT, ext4 folders made with casefold (`chattr +F`), case-insensitive FUSE and SMB
/// mounts. There `A.nv12` and `a.nv12`, two outputs by their names, are one file, and the second would replace
/// the first. Nothing is written to find out: the nearest folder of `folder` that exists is asked (a folder made
/// later inside takes its rule: ext4's casefold is inherited, the other systems fold everywhere) —
///
/// - what its file system says (`yc_folder_folds_case`: FAT and exFAT fold; ext4, f2fs and tmpfs by the folder's
///   casefold flag; macOS by `pathconf`); where it does not say (FUSE, SMB, NFS):
/// - an entry of it whose name has an ASCII letter, looked up again with every letter's case swapped: the same
///   file (device and inode) says the folder folds case, no file or another file says it does not — a file with
///   another inode number but no entry of that name says it does (FUSE may number each name apart: exfat-fuse);
/// - with no such entry (an empty folder), the folder's own name in its parent, then the parent's entries, and so
///   on up, on the same device.
///
/// False when none can tell (an empty mount of such a file system): the run then refuses the second output when it
/// would be named (`AtomicOutput.Before`).
public func foldsCase(_ folder: String) -> Bool {
    var at = folder.isEmpty ? "." : folder
    // The nearest folder that exists (a batch makes the output folder and its subfolders later).
    while FileStatus(path: at)?.kind != .directory {
        guard let parent = parentFolder(at) else { return false }
        at = parent
    }
    switch withFileSystemPath(at, { yc_folder_folds_case($0) }) {
    case 1: return true
    case 0: return false
    default: break
    }
    // Its entries, then its own name in its parent, then the parent's entries, up to the file system's root (a
    // mount's root holds files where an empty output folder below it does not; such a file system folds case
    // everywhere or nowhere).
    guard let device = FileStatus(path: at)?.device else { return false }
    var folder = at
    for _ in 0..<64 {
        if let answer = entryFoldsCase(in: folder) { return answer }
        guard let parent = parentFolder(folder), FileStatus(path: parent)?.device == device else { return false }
        let name = splitPath(folder).name
        if name != ".", name != "..", let answer = sameFileWithCaseSwapped(parent, PathBytes.encode(name)) { return answer }
        folder = parent
    }
    return false
}

/// A name as a file system that does not tell case apart compares it: each character taken to its upper case and
/// back to lower case, where each is one character (simple case mapping). So `σ` and `ς` (both `Σ` in exFAT's
/// table: as Unicode's lower case alone, two names, and `--force` wrote one output over the other), `É` and `é`,
/// and the Kelvin sign and `k` are one name; `ß` stays `ß` (its upper case, `SS`, is two letters: exFAT and APFS
/// keep `ß.png` and `ss.png` apart). The one rule every check of names under case folding uses.
public func caseFolded(_ name: String) -> String {
    func single(_ mapping: String) -> Unicode.Scalar? {
        let scalars = mapping.unicodeScalars
        return scalars.count == 1 ? scalars.first : nil
    }
    var out = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
        // ASCII at once: most names are.
        if scalar.value < 0x80 {
            out.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 32)! : scalar)
            continue
        }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        out.append(single(upper.properties.lowercaseMapping) ?? upper)
    }
    return String(out)
}

/// Of the first entries of `folder` (at most 4,096 read), the first whose name has an ASCII letter: whether its
/// name with the case of its letters swapped is the same file. Nil when no entry has a letter.
private func entryFoldsCase(in folder: String) -> Bool? {
    guard let dir = withFileSystemPath(folder, { opendir($0) }) else { return nil }
    defer { closedir(dir) }
    for _ in 0..<4096 {
        guard let entry = readdir(dir) else { return nil }
        let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            Array(raw.prefix { $0 != 0 })
        }
        if name == [0x2E] || name == [0x2E, 0x2E] { continue }
        if let answer = sameFileWithCaseSwapped(folder, name) { return answer }
    }
    return nil
}

/// Whether `folder/name` and the same name with its ASCII letters' case swapped are one file (neither link
/// followed; by device and inode, or, under other numbers, by the folder having no entry of the swapped name); nil
/// when the name has no letter, `folder/name` cannot be looked up, or it is a file with other names (hard links: `Z`
/// and `z` may be two names of one file on a system that tells case apart).
private func sameFileWithCaseSwapped(_ folder: String, _ name: [UInt8]) -> Bool? {
    let swapped = name.map { b -> UInt8 in
        switch b {
        case 0x41...0x5A: return b + 32
        case 0x61...0x7A: return b - 32
        default: return b
        }
    }
    guard swapped != name else { return nil }
    let base = PathBytes.encode(folder) + [0x2F]
    guard let own = lstatOf(base + name), own.st_mode & S_IFMT == S_IFDIR || own.st_nlink == 1 else { return nil }
    guard let other = lstatOf(base + swapped) else { return false }
    if FileStatus(other).identity == FileStatus(own).identity { return true }
    // Another inode number: another file — or the same one under a FUSE file system that numbers each name it is
    // looked up by (exfat-fuse gives `IMG.PNG` and `img.png` two). The folder's entries tell: a file of its own
    // has an entry by that name; a name the file system only takes for another has none.
    return !folderLists(folder, swapped)
}

/// Whether `folder` has an entry named exactly `name` (bytes); true when it cannot be read to the end (no answer
/// is then taken for "another file", which folds nothing).
private func folderLists(_ folder: String, _ name: [UInt8]) -> Bool {
    guard let dir = withFileSystemPath(folder, { opendir($0) }) else { return true }
    defer { closedir(dir) }
    errno = 0
    while let entry = readdir(dir) {
        let listed = withUnsafeBytes(of: entry.pointee.d_name) { raw in raw.prefix { $0 != 0 }.elementsEqual(name) }
        if listed { return true }
    }
    return errno != 0
}

private func lstatOf(_ path: [UInt8]) -> stat? {
    var st = stat()
    let bytes = path.map { CChar(bitPattern: $0) } + [0]
    guard bytes.withUnsafeBufferPointer({ lstat($0.baseAddress!, &st) }) == 0 else { return nil }
    return st
}

/// The folder holding `path` ("." for a plain name, "/" for one at the root), nil for "/" itself and for
/// "." (whose parent's rule is not the question).
private func parentFolder(_ path: String) -> String? {
    path == "/" || path == "." ? nil : splitPath(path).folder
}
