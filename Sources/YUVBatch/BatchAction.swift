import YUVIO

/// What a run does with one planned item, from what is already at its output. With `--update` the output
/// folder's manifest decides (`Manifest.check`), first: an up-to-date output is kept even with `force`, which
/// then only lets out-of-date outputs (and the report file) be replaced. Without it, `force` replaces every
/// existing output.
public enum BatchAction: Sendable, Equatable {
    /// Nothing at the output yet.
    case convert
    /// An output is there and is replaced: out of date, and why (`--update`), or by `force` (nil).
    case replace(Staleness?)
    /// An output is there and stays: `upToDate` with `--update`, else because there is no `force`.
    case skip(upToDate: Bool)

    /// Without `--update`: convert when nothing is at the output, else replace it with `force`, else skip it.
    /// A folder at the output's name (or a link to one) is no output already there: converting refuses it
    /// ("is a folder"), where a skip would have called the file done and the run green.
    public init(_ item: BatchItem, force: Bool) {
        // Nor is a file that was not there when the plan looked (`item.foundAtPlan`): another output of this run
        // (`A.nv12` for `a.nv12`, in a folder that does not tell case apart), or another program's. Converting
        // refuses it (`AtomicOutput.check`), where a skip reported the other input's file as this one's.
        guard let there = FileStatus(path: item.output), there.kind != .directory,
              item.foundAtPlan.allows(there, born: birthTime(item.output)) else {
            self = .convert
            return
        }
        self = force ? .replace(nil) : .skip(upToDate: false)
    }

    /// Why an output already there is skipped without `--update`, in a report line and a dry run alike.
    public static let alreadyThere = "already there (--force replaces it)"

    /// Whether the conversion may replace a file at its output (`AtomicOutput`'s `force`).
    public var replaces: Bool {
        if case .replace = self { return true }
        return false
    }

    /// Whether the output is written (converted or replaced), not skipped.
    public var writes: Bool {
        if case .skip = self { return false }
        return true
    }
}

/// Why `--update` converts an output again.
public enum Staleness: Sendable, Equatable, CustomStringConvertible {
    /// The manifest has no line for it: nothing tells it is up to date, or that yuvconv made it (without
    /// `--force`, `--update` leaves such a file alone).
    case unrecorded
    /// The manifest names it, but its line cannot be read, or there are two: yuvconv made it, how is unknown.
    case unusableEntry
    /// It was made with other options (`optionsKey`).
    case optionsChanged
    /// The input's content is not what it was made from.
    case inputChanged
    /// The output is not what was written: another size, or another SHA-256.
    case outputAltered
    /// The input or output cannot be hashed (not a regular file, unreadable): why.
    case unchecked(String)

    public var description: String {
        switch self {
        case .unrecorded: return "not in the manifest (\(Manifest.fileName))"
        case .unusableEntry: return "its line in the manifest (\(Manifest.fileName)) cannot be used"
        case .optionsChanged: return "made with other options"
        case .inputChanged: return "the input changed"
        case .outputAltered: return "the output was altered since it was made"
        case .unchecked(let why): return "cannot be checked: \(why)"
        }
    }
}

extension Manifest {
    /// What `--update` does with `item` (found by its output's `name` in the folder), when its bytes are shaped by
    /// `optionsKey` — and, for an output kept, its entry, refreshed with what was found (a touched but identical
    /// input's new time), for the report and the next manifest.
    ///
    /// Converted when the output is missing; again when no entry records it, its options differ, the output's
    /// size differs or (its time or inode differing) its SHA-256 does, or the input's size differs or (its path, time,
    /// inode or change time differing) its SHA-256 does. A file whose size, times and inode are as recorded is not
    /// read: a re-run over unchanged files hashes nothing.
    public func check(_ item: BatchItem, optionsKey: String) -> (action: BatchAction, entry: ManifestEntry?) {
        Self.decide(item, entry: entries[item.name], optionsKey: optionsKey)
    }

    /// `check`'s decision from the entry the manifest has for `item` (nil: none).
    public static func decide(_ item: BatchItem, entry recorded: ManifestEntry?,
                              optionsKey: String) -> (action: BatchAction, entry: ManifestEntry?) {
        guard let output = FileStatus(path: item.output), output.kind != .directory else { return (.convert, nil) }
        guard var entry = recorded else { return (.replace(.unrecorded), nil) }
        if entry.optionsKey != optionsKey { return (.replace(.optionsChanged), nil) }
        guard output.kind == .regular else { return (.replace(.unchecked("the output is not a regular file")), nil) }
        if output.size != entry.outputBytes { return (.replace(.outputAltered), nil) }
        // Another file at the name (another inode: one another run put there, even in the same clock tick) is
        // read too, as one with another time is.
        // An output edited in place with its time set back has another change time; one without a recorded change
        // time (an older manifest's line, or one recorded too recently to vouch) is read once, as an input is.
        if output.modified != entry.outputModified || entry.outputInode.map({ $0 != output.inode }) ?? false
            || entry.outputChanged != output.changed {
            do throws(FileError) {
                let (status, sha, changed) = try ManifestEntry.read(item.output)
                if sha != entry.outputSHA256 || status.size != entry.outputBytes { return (.replace(.outputAltered), nil) }
                (entry.outputModified, entry.outputInode, entry.outputChanged) = (status.modified, status.inode, changed)
            } catch {
                return (.replace(.unchecked(error.reason)), nil)
            }
        }
        guard let input = FileStatus(path: item.input), input.kind == .regular else {
            return (.replace(.unchecked("the input is not a regular file")), nil)
        }
        if input.size != entry.inputBytes { return (.replace(.inputChanged), nil) }
        // The input's name by its bytes: Swift's != takes one name in NFC and NFD as equal.
        // Another file moved to the name, or one written and its time set back (`cp -p`, `rsync -a`, `tar x`, `touch
        // -d`): the size and modification time say nothing, the inode or the change time does. A line without them
        // (an older manifest's) has its input read once.
        let sameFile = entry.inputInode == input.inode && entry.inputChanged == input.changed
        if input.modified != entry.inputModified || !item.input.utf8.elementsEqual(entry.input.utf8) || !sameFile {
            do throws(FileError) {
                let (status, sha, changed) = try ManifestEntry.read(item.input)
                if sha != entry.inputSHA256 || status.size != entry.inputBytes { return (.replace(.inputChanged), nil) }
                (entry.inputModified, entry.input) = (status.modified, item.input)
                (entry.inputInode, entry.inputChanged) = (status.inode, changed)
            } catch {
                return (.replace(.unchecked(error.reason)), nil)
            }
        }
        return (.skip(upToDate: true), entry)
    }
}
