import YUVIO

/// What a run does with one planned item, from what is already at its output. `update` decides first: an
/// output at least as new as its input is kept even with `force`, which then only lets out-of-date outputs
/// (and the report file) be replaced; without `update`, `force` replaces every existing output.
public enum BatchAction: Sendable, Equatable {
    /// Nothing at the output yet.
    case convert
    /// An output is there and is replaced: `outOfDate` with `update` (the input is newer), else by `force`.
    case replace(outOfDate: Bool)
    /// An output is there and stays: `upToDate` with `update`, else because there is no `force`.
    case skip(upToDate: Bool)

    public init(_ item: BatchItem, force: Bool, update: Bool) {
        guard let output = FileStatus(path: item.output) else {
            self = .convert
            return
        }
        if update {
            let newer = (FileStatus(path: item.input)?.modified ?? 0) > output.modified
            self = newer ? .replace(outOfDate: true) : .skip(upToDate: true)
        } else {
            self = force ? .replace(outOfDate: false) : .skip(upToDate: false)
        }
    }

    /// Whether the conversion may replace a file at its output (`AtomicOutput`'s `force`).
    public var replaces: Bool {
        if case .replace = self { return true }
        return false
    }
}
