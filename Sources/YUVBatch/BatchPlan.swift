#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

/// The folder a batch writes into, checked: given, not standard output, and a folder — or a name ending in
/// "/", which asks for one to be made.
public struct BatchOutputFolder: Sendable, Equatable {
    /// The folder as given ("out/" or "out").
    public let path: String

    /// Refused here, before any work, once for the batch: a name that leads to something that is not a folder
    /// (each file failed with it, two lines a file).
    public init(_ output: String?) throws(BatchPlanError) {
        guard let output, output != "-" else { throw .noOutputFolder(given: output != nil) }
        if !output.hasScalarSuffix("/") && FileStatus(path: output)?.kind != .directory { throw .outputNotFolder(output) }
        // `out.png/`, `out.png/sub/`: what the name, or the nearest part of it that is there, leads to, slashes
        // aside (`stat` of "file/" fails, which said nothing).
        let named = output.withoutTrailingSlashes
        var place = named
        while place != "/" && place != "." && FileStatus(path: place) == nil {
            // A link to nothing (or a loop of links) on the way: no folder can be made through it (each file
            // failed with "dl is not a folder").
            if FileStatus(path: place, follow: false)?.kind == .symlink {
                let shown = place == named ? "" : "\(displayPath(place)) "
                let what = linkText(place).map { "a symbolic link to \(displayPath($0)), which is not there, or a loop of links" }
                    ?? "a symbolic link that cannot be read"
                throw .file(FileError(path: output, reason: "is not a folder (\(shown)\(shown.isEmpty ? "" : "is ")\(what)): no output can be made in it"))
            }
            place = splitPath(place).folder
        }
        if let there = FileStatus(path: place), there.kind != .directory {
            let which = place == named ? "a file or device is there" : "\(displayPath(place)) is a file or device"
            throw .file(FileError(path: output, reason: "is not a folder (\(which)): no output can be made in it"))
        }
        path = output
    }

    /// Where `name` goes in this folder: the folder as given, one "/" between (so `/` is the root, not the
    /// current folder).
    public func path(of name: String) -> String {
        joinedPath(path, name)
    }
}

/// What a batch will do before it does anything: its inputs sorted and sharded, each with its output path and
/// format, checked so that no two inputs write one output, no output leaves the folder, and no output (nor
/// the report) is an input. The plan is kept on disk, not in memory: the items in order with their names (a
/// `Spool`), the inputs' identities (`SortedIdentities`); each item's path and format are derived again from
/// its name as it is read (`reader`), by the rule that checked them.
public final class BatchPlan: @unchecked Sendable {
    /// Records: input length (4 bytes), input, folder length (4 bytes), folder, output name.
    let planned: Spool
    /// In the same order, what was at each output when the plan looked (before any work): 0, or 1 and the file's
    /// device, inode, size and modification time (8 bytes each). `--force` replaces only that file, and only a file that was there is
    /// "already there": one that appears during the run (another output of it, where the file system does not tell
    /// upper from lower case; another program's) is refused, not replaced nor skipped for it.
    private(set) var found: Spool?
    let folder: BatchOutputFolder
    let format: OutputFormat?
    let needs: [OutputFormat.RawOnly]
    /// Folder entries left out because they are not regular files: the first ones, and how many.
    public let skipped: [SkippedEntry]
    public let skippedCount: Int
    /// Every input's identity, and the list's: what no output of the batch may overwrite.
    public let protected: SortedIdentities

    /// How many items the plan has.
    public let count: Int
    /// Whether two outputs are one FIFO, socket or device, written in place in input order: the run writes one
    /// file at a time then (two jobs' bands would interleave in it).
    public private(set) var sharesAStream = false

    /// The plan from plain parameters, all at once: `BatchOutputFolder(outputFolder)`, `BatchInputs`, then
    /// the plan of those inputs.
    public convenience init(operands: [String], outputFolder: String?, template: String = "{stem}.{ext}",
                            format: OutputFormat? = nil, needs: [OutputFormat.RawOnly] = [], recursive: Bool = false,
                            filesFrom: String? = nil, nul: Bool = false, shard: (index: Int, count: Int)? = nil,
                            reportFile: String? = nil, alsoWritten: [String] = []) throws(BatchPlanError) {
        let folder = try BatchOutputFolder(outputFolder)
        let inputs = try BatchInputs(operands: operands, recursive: recursive, filesFrom: filesFrom, nul: nul)
        try self.init(inputs, outputFolder: folder, template: template, format: format, needs: needs, shard: shard,
                      reportFile: reportFile, alsoWritten: alsoWritten)
    }

    /// Which input an output is (by its device and inode, `st`), for the refusal to say what it meets: the list
    /// of inputs, an input under another name (a link to it, or a path through `..`), or an input by its own name,
    /// where an output folder that is also an input folder is the likely cause. Looked for only once a refusal is
    /// certain (every input looked at again); one message said the last for all three.
    /// "Its own name" is the same folder entry: the same last name in the same folder (by identity), however the
    /// paths are spelled (`./in/z.png` and `in//z.png`, an absolute path): a spelling was taken for another name. An
    /// input by its own name is preferred to a link among several (a hard link sorted first was named instead).
    static func inputRefusal(_ output: String, _ st: FileStatus, _ inputs: BatchInputs) -> BatchPlanError {
        func isIt(_ path: String) -> Bool {
            let ids = inputIdentities(path)
            return ids.contains(st.identity) || st.streamIdentity.map(ids.contains) == true
        }
        if let list = inputs.listFile, isIt(list) { return .outputIsList(output) }
        let (folder, name) = splitPath(output)
        let folderID = FileStatus(path: folder)?.identity
        func sameEntry(_ path: String) -> Bool {
            let (f, n) = splitPath(path)
            return n.unicodeScalars.elementsEqual(name.unicodeScalars) && folderID != nil && FileStatus(path: f)?.identity == folderID
        }
        var other: String?
        if let all = try? inputs.selection(shard: nil) {
            var r = all.reader()
            while let item = r.next() {
                guard isIt(item.input) else { continue }
                if sameEntry(item.input) { return .outputIsInput(output) }
                if other == nil { other = item.input }
            }
        }
        return other.map { .outputIsInputByAnotherName(output, input: $0) } ?? .outputIsInput(output)
    }

    /// The plan for gathered inputs: sorted by path, the `shard` (K-th of N, from 1) of them taken, each named by
    /// `template` in `outputFolder` and given the format `OutputFormat.resolve` decides from `format` (what
    /// was asked, if anything) and the name, refused where it cannot carry `needs`.
    ///
    /// Checked before anything is written, in bounded memory: each name and format in order (the first bad
    /// one refused); no two inputs onto one output (the output names sorted on disk, so the clash refused is
    /// the first one met in order, between the first two inputs that make it); then no output that is an
    /// input (its identity looked up among the inputs'), and no report file that is an output.
    public init(_ inputs: BatchInputs, outputFolder: BatchOutputFolder, template: String = "{stem}.{ext}",
                format: OutputFormat? = nil, needs: [OutputFormat.RawOnly] = [], shard: (index: Int, count: Int)? = nil,
                reportFile: String? = nil, alsoWritten: [String] = []) throws(BatchPlanError) {
        if template.isEmpty { throw .emptyTemplate }
        if let unknown = Self.unknownPlaceholder(in: template) { throw .unknownPlaceholder(template: template, placeholder: unknown) }
        if template.isAbsolutePath { throw .absoluteTemplate(template) }
        // A shard is checked as the whole batch first: a clash, a bad name or an output that is an input
        // between items of different shards would otherwise pass every shard alone (and one shard's output
        // overwrite another's, or its input). Every shard refuses what the whole run refuses, and protects
        // every input of it.
        let whole = shard == nil ? nil : try BatchPlan(inputs, outputFolder: outputFolder, template: template,
                                                       format: format, needs: needs, reportFile: reportFile,
                                                       alsoWritten: alsoWritten)
        let selection = try inputs.selection(shard: shard)
        (folder, self.format, self.needs) = (outputFolder, format, needs)
        (skipped, skippedCount) = (inputs.skipped, inputs.skippedCount)
        // Names and formats (one rule with single files), in order; every output name and every input's
        // identity set aside for the checks that need them all.
        let outputs = Spool(), ids = Spool(), planned = Spool()
        var position: UInt64 = 0, refusal: BatchPlanError?
        var reader = selection.reader()
        while let input = reader.next() {
            do throws(BatchPlanError) {
                let item = try Self.planned(input, folder: outputFolder, template: template, format: format, needs: needs)
                let out = PathBytes.encode(item.output), source = PathBytes.encode(item.input)
                outputs.appendRecord(parts: [out[...], [0], InputRecord.bigEndian(position)[...], source[...],
                                             InputRecord.length(out.count)[...]])
                let dir = PathBytes.encode(item.dir)
                planned.appendRecord(parts: [InputRecord.length(source.count)[...], source[...],
                                             InputRecord.length(dir.count)[...], dir[...], PathBytes.encode(item.name)[...]])
                // (A shard protects the whole batch's inputs, gathered by `whole`: its own are not needed.)
                if whole == nil { for id in inputIdentities(item.input) { SortedIdentities.append(id, to: ids) } }
            } catch {
                refusal = error
                break
            }
            position += 1
        }
        if whole == nil, let list = inputs.listFile { for id in inputIdentities(list) { SortedIdentities.append(id, to: ids) } }
        try fileStep { () throws(FileError) in
            try selection.spool.seal()
            try planned.seal()
        }
        self.planned = planned
        count = Int(position)
        // A clash among the items before a refused name was met first.
        if let (first, second, output) = try Self.firstClash(outputs) {
            let (a, b) = (PathBytes.decode(first), PathBytes.decode(second))
            let hint = Self.separatingTemplate(template, a, b, among: planned, format: format ?? .raw(.nv12), asked: format != nil,
                                               outputFolder: outputFolder)
            throw .sameOutput(first: a, second: b, output: PathBytes.decode(output), hint: hint?.template,
                              partial: hint.map { !$0.separatesAll } ?? false)
        }
        if let refusal { throw refusal }
        let protected: SortedIdentities
        if let whole { protected = whole.protected } else {
            protected = try fileStep { () throws(FileError) in try SortedIdentities(ids) }
        }
        self.protected = protected
        // Before anything is written: no output (nor the report) may be any input of the batch, and the report
        // may not be one of the outputs.
        // Nor may two outputs of different names be one file: where each lands (its links followed, its folder
        // by identity) set aside and sorted, as the names were.
        let reportKey = reportFile.map(outputKey)
        var reportIsOutput = false
        var walk = self.reader()
        let places = Spool(), tree = Spool(), found = Spool()
        var at: UInt64 = 0, lastFolder: PlaceCache?
        // /dev/null takes any interleaving: outputs linked to it (a batch timed without its files) keep their jobs.
        var streams = Set<FileIdentity>(), null = FileStatus(path: "/dev/null")?.identity
        // A file, a folder or nothing yet at a place can nest with another: a device or FIFO is written in place.
        func nests(_ kind: FileStatus.Kind?) -> Bool { kind == nil || kind == .regular || kind == .directory }
        func addToTree(_ place: [UInt8], _ name: String) {
            tree.appendRecord(parts: [Self.folderOrder(place)[...], [0], PathBytes.encode(name)[...]])
        }
        while let item = walk.next() {
            // By the path resolved too: `in/w/../a.jpg` before `in/w` is made is `in/a.jpg`, which stat cannot reach yet.
            if let (st, at) = statusResolving(item.output), protected.holds(st, at: at) {
                throw protected.holdsByNumber(st) ? Self.inputRefusal(item.output, st, inputs) : .outputLikeAnInput(item.output)
            }
            if let key = reportKey, !reportIsOutput, outputKey(item.output) == key { reportIsOutput = true }
            // A device or FIFO is written in place, in order, by every output that names it: no clash.
            let (placePath, place) = Self.outputPlace(item.output, cache: &lastFolder)
            let status = FileStatus(path: placePath), kind = status?.kind
            // What --force may replace: not a regular file made, moved or changed there since the run began, nor
            // one a link put there since leads to (`Before.found`: 2).
            let born = status == nil ? nil : birthTime(placePath)
            let changed = status.map {
                $0.kind == .regular && AtomicOutput.Before.found($0, links: AtomicOutput.Before.links(item.output), born: born,
                                                                 lookedAt: wallClockSeconds()) == .changed
            } ?? false
            found.appendRecord(changed ? [2] : status.map {
                [$0.kind == .regular ? 1 : 3] + InputRecord.bigEndian($0.device) + InputRecord.bigEndian($0.inode) + InputRecord.bigEndian(UInt64($0.size))
                    + InputRecord.bigEndian($0.modified.bitPattern) + InputRecord.bigEndian((born ?? -1).bitPattern)
            } ?? [0])
            if let status, kind != .regular, kind != .directory, status.identity != null,
               !streams.insert(status.identity).inserted { sharesAStream = true }
            let out = PathBytes.encode(item.output)
            if kind == nil || kind == .regular {
                places.appendRecord(parts: [place[...], [0], InputRecord.bigEndian(at)[...], out[...],
                                            InputRecord.length(place.count)[...]])
            }
            // A folder there already is no device: another output inside it nests as surely as one made. (A link
            // to a folder in an output's place fails that output alone, as any folder there does.)
            if nests(kind) && (kind != .directory || FileStatus(path: item.output, follow: false)?.kind != .symlink) {
                addToTree(place, item.output)
            }
            at += 1
        }
        // The other files the run writes (the report file, --update's manifest) may not nest with the outputs
        // either.
        for file in alsoWritten where file != "-" {
            let (placePath, place) = Self.outputPlace(file, cache: &lastFolder)
            if nests(FileStatus(path: placePath)?.kind) { addToTree(place, file) }
        }
        try fileStep { () throws(FileError) in
            try planned.seal()
            try found.seal()
        }
        self.found = found
        if reportIsOutput, let file = reportFile { throw .reportIsOutput(file) }
        if let (first, second, key) = try Self.firstClash(places) {
            let (a, b) = (PathBytes.decode(first), PathBytes.decode(second))
            // Names that differ only in case, in a folder that takes them for one file.
            if key.first == Self.foldedMark && a != b && caseFolded(a) == caseFolded(b) {
                throw .sameFileByCase(first: a, second: b)
            }
            throw .sameFile(first: a, second: b)
        }
        if let (file, inside) = try Self.firstNesting(tree) {
            throw .outputIsFolder(file: PathBytes.decode(file), of: PathBytes.decode(inside))
        }
    }

    /// A planned record's fields (as `init` writes them: length-prefixed input and dir, then the name).
    static func plannedFields(_ r: ArraySlice<UInt8>) -> (input: ArraySlice<UInt8>, dir: ArraySlice<UInt8>, name: ArraySlice<UInt8>) {
        var at = r.startIndex
        func field() -> ArraySlice<UInt8> {
            let n = Int(r[at]) | Int(r[at + 1]) << 8 | Int(r[at + 2]) << 16 | Int(r[at + 3]) << 24
            defer { at += 4 + n }
            return r[(at + 4)..<(at + 4 + n)]
        }
        let input = field(), dir = field()
        return (input, dir, r[at...])
    }

    /// Why the system cannot make `item`'s output name (a part over 255 bytes, a path over 4095), or nil: that
    /// file fails for it before any of its work or folders, the others go on (the dry run says so too). Not when the
    /// input's own name is one the system cannot hold (a name given, never one a walk found): that input fails on
    /// its own when it is opened, for that reason (the output's name, made of it, would blame --name and -o).
    public static func nameProblem(_ item: BatchItem) -> String? {
        guard PathBytes.lengthProblem(item.input) == nil, let why = PathBytes.lengthProblem(item.output) else { return nil }
        return "the output's name cannot be made: \(why) (--name, -o)"
    }

    /// One input, named and given its format.
    static func planned(_ input: BatchItem, folder: BatchOutputFolder, template: String, format: OutputFormat?,
                        needs: [OutputFormat.RawOnly]) throws(BatchPlanError) -> BatchItem {
        var item = input
        let name = outputName(template, item: item, format: format ?? .raw(.nv12))
        if name.isEmpty || name.unicodeScalars.last == "/" || name.pathParts.contains(where: { $0 == ".." || $0 == "." }) {
            throw .nameOutsideFolder(template: template, name: name, input: item.input)
        }
        item.output = folder.path(of: name)
        item.name = name
        // A name the system cannot make (a part over 255 bytes, a path over 4095) is that file's failure, not the
        // batch's (`nameProblem`): one input named near the limit refused every file of the batch before any work.
        do { item.format = try OutputFormat.resolve(asked: format, path: item.output, needs: needs) } catch {
            throw .format(error)
        }
        return item
    }

    /// Reads the plan's items in order, each with its name, output path and format.
    public struct Reader {
        var records: SpoolReader
        var found: SpoolReader?
        let plan: BatchPlan

        public mutating func next() -> BatchItem? {
            guard let r = records.nextRecord() else { return nil }
            let (input, dir, name) = BatchPlan.plannedFields(r)
            var item = BatchItem(input: PathBytes.decode(input), dir: PathBytes.decode(dir))
            item.name = PathBytes.decode(name)
            if let f = found?.nextRecord() {
                func word(_ at: Int) -> UInt64 { InputRecord.bigEndian(f, at: f.startIndex + at) }
                // 1: a regular file, 3: another kind (a device, a FIFO, a folder), 2: changed since the run began.
                item.foundAtPlan = f.first == 1 || f.first == 3
                    ? .file(FileVersion(identity: FileIdentity(device: word(1), inode: word(9)), size: Int(word(17)),
                                        modified: Double(bitPattern: word(25)),
                                        born: { $0 >= 0 ? $0 : nil }(Double(bitPattern: word(33))), regular: f.first == 1))
                    : f.first == 2 ? .changed : .nothing
            }
            item.output = plan.folder.path(of: item.name)
            // Checked when the plan was made: the same rule cannot refuse it now.
            guard let format = try? OutputFormat.resolve(asked: plan.format, path: item.output, needs: plan.needs) else {
                preconditionFailure("a planned output no longer has a format")
            }
            item.format = format
            return item
        }
    }

    public func reader() -> Reader { Reader(records: planned.reader(), found: found?.reader(), plan: self) }

    /// The first error met reading the plan back (a failing temporary file), if any.
    public var readFailure: FileError? { planned.failure }

    /// Every item, in order (all in memory: for tests, and a dry run's small batches).
    public var items: [BatchItem] {
        var out: [BatchItem] = [], r = reader()
        while let item = r.next() { out.append(item) }
        return out
    }
}
