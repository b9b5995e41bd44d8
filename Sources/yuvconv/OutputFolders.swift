#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVIO
import YUVCore

/// The batch's output folder, as the run found or made it. Until it exists, an output's folders are made by
/// path (`makeFolders`); once it does, the run is confined to it (`AtomicOutput.confine`): every output, report
/// file or manifest below it, and the folders made for them, are reached from it, each folder on the way held
/// to what it was when the run first used it. Moved away or replaced (by another folder, or a link to one)
/// during the run, the files after that fail instead of going wherever the path now leads; the files in
/// flight finish in the folder they were opened in (`AtomicOutput` works through the folder's descriptor).
final class OutputFolderWatch: Sendable {
    let path: String
    /// Whether the run is confined to the folder yet (it is once the folder exists).
    private let confined: Mutex<Bool>

    init(_ path: String) {
        self.path = path
        confined = Mutex(false)
        confineIfThere()
    }

    /// `made`: the run made the folder (it was missing when the run began), so nothing below it was there before.
    private func confineIfThere(made: Bool = false) {
        guard let st = FileStatus(path: path), st.kind == .directory else { return }
        AtomicOutput.confine(to: path, identity: st.identity, madeByRun: made)
        confined.withLock { $0 = true }
    }

    /// Before the run writes anything: the folders now on the way to each output, as the plan's checks saw
    /// them (`AtomicOutput.noteFolders`).
    func noteFolders(_ outputs: () -> String?) {
        guard confined.withLock({ $0 }) else { return }
        AtomicOutput.noteFolders(outputs)
    }

    /// Makes `folder`, the folder of the output `outputPath` (nil: the current folder), while the output folder
    /// is still the one the run began with: nil, or why not.
    func prepare(_ folder: String?, for outputPath: String) -> String? {
        if confined.withLock({ $0 }) {
            do throws(WriteError) {
                if try AtomicOutput.makeConfinedFolders(for: outputPath) { return nil }
            } catch { return error.reason }
        }
        if let folder, let why = makeFolders(folder) { return why }
        if !confined.withLock({ $0 }) { confineIfThere(made: true) }
        return nil
    }
}

/// mkdir -p: nil when the folder is there, else why it could not be made (a read-only parent says
/// "Permission denied", not the "No such file" the first file in it would otherwise meet).
func makeFolders(_ path: String) -> String? {
    var current = path.isAbsolutePath ? "" : "."
    for part in path.pathParts {
        current += "/" + part
        let rc = withFileSystemPath(current) { mkdir($0, 0o777) }
        if rc != 0 && errno != EEXIST {
            return "cannot make the folder \(displayPath(current.hasScalarPrefix("./") ? current.droppingScalars(2) : current)): "
                + String(cString: strerror(errno))
        }
    }
    return FileStatus(path: path)?.kind == .directory ? nil : "\(displayPath(path)) is not a folder"
}
