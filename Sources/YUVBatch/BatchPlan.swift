import YUVCore
import YUVIO

/// The folder a batch writes into, checked: given, not standard output, and a folder — or a name ending in
/// "/", which asks for one to be made.
public struct BatchOutputFolder: Sendable, Equatable {
    /// The folder as given ("out/" or "out").
    public let path: String

    public init(_ output: String?) throws(BatchPlanError) {
        guard let output, output != "-" else { throw .noOutputFolder }
        if !output.hasSuffix("/") && FileStatus(path: output)?.kind != .directory { throw .outputNotFolder(output) }
        path = output
    }

    /// Where `name` goes in this folder.
    public func path(of name: String) -> String {
        let dir = path.hasSuffix("/") ? String(path.dropLast()) : path
        return (dir.isEmpty ? "" : dir + "/") + name
    }
}

/// What a batch will do before it does anything: its inputs sorted and sharded, each with its output path and
/// format, checked so that no two inputs write one output, no output leaves the folder, and no output (nor
/// the report) is an input.
public struct BatchPlan: Sendable {
    public let items: [BatchItem]
    /// Folder entries left out because they are not regular files.
    public let skipped: [SkippedEntry]
    /// Every input's identity, and the list's: what no output of the batch may overwrite.
    public let protected: Set<FileIdentity>

    /// The plan from plain parameters, all at once: `BatchOutputFolder(outputFolder)`, `BatchInputs`, then
    /// the plan of those inputs.
    public init(operands: [String], outputFolder: String?, template: String = "{stem}.{ext}", format: OutputFormat? = nil,
                needs: [OutputFormat.RawOnly] = [], recursive: Bool = false, filesFrom: String? = nil, nul: Bool = false,
                shard: (index: Int, count: Int)? = nil, reportFile: String? = nil) throws(BatchPlanError) {
        let folder = try BatchOutputFolder(outputFolder)
        let inputs = try BatchInputs(operands: operands, recursive: recursive, filesFrom: filesFrom, nul: nul)
        try self.init(inputs, outputFolder: folder, template: template, format: format, needs: needs, shard: shard,
                      reportFile: reportFile)
    }

    /// The plan for gathered inputs: sorted by path, the `shard` (K-th of N, from 1) of them taken, each named by
    /// `template` in `outputFolder` and given the format `OutputFormat.resolve` decides from `format` (what
    /// was asked, if anything) and the name, refused where it cannot carry `needs`.
    public init(_ inputs: BatchInputs, outputFolder: BatchOutputFolder, template: String = "{stem}.{ext}",
                format: OutputFormat? = nil, needs: [OutputFormat.RawOnly] = [], shard: (index: Int, count: Int)? = nil,
                reportFile: String? = nil) throws(BatchPlanError) {
        var items = inputs.selection(shard: shard)
        // Names and formats (one rule with single files), and no two inputs onto one output.
        if template.isEmpty { throw .emptyTemplate }
        let named = format ?? .raw(.nv12)
        var seen: [String: String] = [:]
        for i in items.indices {
            let name = Self.outputName(template, item: items[i], format: named)
            if name.isEmpty || name.hasSuffix("/") || name.split(separator: "/").contains("..") {
                throw .nameOutsideFolder(template: template, name: name, input: items[i].input)
            }
            items[i].output = outputFolder.path(of: name)
            items[i].name = name
            do { items[i].format = try OutputFormat.resolve(asked: format, path: items[i].output, needs: needs) } catch {
                throw .format(error)
            }
            if let other = seen[items[i].output] {
                throw .sameOutput(first: other, second: items[i].input, output: items[i].output)
            }
            seen[items[i].output] = items[i].input
        }
        // Before anything is written: no output (nor the report) may be any input of the batch, and the report
        // may not be one of the outputs.
        let protected = inputs.protected(items)
        for item in items {
            if let st = FileStatus(path: item.output), protected.contains(st.identity) { throw .outputIsInput(item.output) }
        }
        if let file = reportFile {
            let keys = Set(items.map { outputKey($0.output) })
            if keys.contains(outputKey(file)) { throw .reportIsOutput(file) }
        }
        self.items = items
        self.skipped = inputs.skipped
        self.protected = protected
    }

    /// Expands the name template for one input: `{stem}`, `{name}` (the input's file name without and with its
    /// extension), `{dir}` (its folder below the folder argument), and `{ext}` and `{format}`, those of
    /// `format` (what was asked for, NV12 by default); the expanded name's own extension then decides what is
    /// written. Doubled and leading slashes and leading "./" are dropped.
    public static func outputName(_ template: String, item: BatchItem, format: OutputFormat) -> String {
        let base = item.input.split(separator: "/").last.map(String.init) ?? item.input
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
        var name = template.replacingAll("{stem}", stem).replacingAll("{name}", base)
            .replacingAll("{ext}", format.fileExtension).replacingAll("{format}", format.name)
            .replacingAll("{dir}", item.dir)
        while name.contains("//") { name = name.replacingAll("//", "/") }
        while name.hasPrefix("./") { name.removeFirst(2) }
        while name.hasPrefix("/") { name.removeFirst() }
        return name
    }
}
