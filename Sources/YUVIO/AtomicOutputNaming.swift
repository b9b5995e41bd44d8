#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

// The temporary names of outputs (a `--force` replacement's, or the named fallback where unnamed files cannot
// be had), made and registered with the signal handlers in one place; AtomicOutput.swift uses them.

extension AtomicOutput {
    static let nameCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// Makes a temporary name in `folder` with `make` (a create, or a link to the unnamed file), trying random
    /// names until one is free: `.NAME.yuvconv-XXXXXX` beside the target, or `.yuvconv-XXXXXX` when that would
    /// pass the 255-byte limit of a file name (an output name of 240–255 bytes is legal, its temporary twin must
    /// be too). Each name is registered with the signal handlers before it is made (they are in place already):
    /// a signal between the making and the registry, on any thread, would leave the file behind. A name whose
    /// making fails is forgotten; were a signal to come in between, the name (random, of this tool's pattern)
    /// would be removed if it existed — at worst another yuvconv's temporary file, whose run then fails.
    /// Returns `make`'s result (negative, errno set, when no name could be made), the registry slot, the name.
    static func nameTemporary(in folder: Int32, long: Bool, base: String,
                                      _ make: (Int32, UnsafePointer<CChar>) -> Int32) -> (Int32, Int32, String) {
        nameTemporary(in: folder, tries: 64, named: { long ? ".\(base).yuvconv-\($0)" : ".yuvconv-\($0)" }, make)
    }

    /// Six random letters and digits: a temporary name's own part.
    static func randomSuffix() -> String { String((0..<6).map { _ in nameCharacters.randomElement()! }) }

    /// `nameTemporary` with the names `named` makes of a random suffix, `tries` of them at most.
    static func nameTemporary(in folder: Int32, tries: Int, named: (String) -> String,
                              _ make: (Int32, UnsafePointer<CChar>) -> Int32) -> (Int32, Int32, String) {
        var result: Int32 = -1
        for _ in 0..<tries {
            let name = named(randomSuffix())
            var slot: Int32 = -1
            result = withFileSystemPath(name) {
                slot = yc_register_temp(folder, $0)
                if slot == -2 {   // a signal is ending the process: nothing more is made
                    errno = EINTR
                    return -1
                }
                // Not registered (no descriptor or slot to be had: errno says which): a file no signal could
                // remove is not made.
                if slot < 0 { return -1 }
                let r = make(folder, $0)
                if r < 0 {
                    let code = errno
                    yc_unregister_temp(slot)
                    slot = -1
                    errno = code
                }
                return r
            }
            if result >= 0 { return (result, slot, name) }
            if errno != EEXIST { break }
        }
        return (result, -1, "")
    }

    /// A private file of the run's in `folder` (`.yuvconv-XXXXXX`, mode 0600), registered with the signal handlers
    /// before it is made, so that no ending leaves it (the registry keeps its own descriptor of the folder: this
    /// one is closed at once): its descriptor, path and registry slot (`removePrivate` removes it), or nil.
    public static func makePrivate(in folder: String) -> (fd: Int32, path: String, slot: Int32)? {
        let dir = withFileSystemPath(folder) { yc_open_folder($0) }
        guard dir >= 0 else { return nil }
        defer { close(dir) }
        let (fd, slot, name) = nameTemporary(in: dir, long: false, base: "") {
            openat($0, $1, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { return nil }
        return (fd, joinedPath(folder, name), slot)
    }

    /// Removes a file `makePrivate` made, and its registry slot.
    public static func removePrivate(path: String, slot: Int32) {
        _ = withFileSystemPath(path) { unlink($0) }
        if slot >= 0 { yc_unregister_temp(slot) }
    }

    /// `nameTemporary` for this output: the registry slot and the name kept when one was made; `make`'s result.
    /// Fails with errno EINTR when a signal ending the run refused the name: its callers say `.interrupted`.
    func takeTemporaryName(in folder: Int32, base: String,
                           _ make: (Int32, UnsafePointer<CChar>) -> Int32) -> Int32 {
        let (result, slot, name) = Self.nameTemporary(in: folder, long: fitsLongTemporaryName, base: base, make)
        if result >= 0 {
            signalSlot = slot
            tempName = name
        }
        return result
    }
}
