#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

/// The folder of a batch's report file when the batch makes it: missing, and inside the output folder (which the
/// batch makes too). Nil otherwise: a report file elsewhere needs its folder there.
func reportFolderToMake(_ file: String, outputFolder folder: String) -> String? {
    guard let dir = outputFolder(of: file), FileStatus(path: dir) == nil,
          isBelow(BatchPlan.resolved(dir), BatchPlan.resolved(folder)) else { return nil }
    return dir
}

/// Whether the resolved path `path` is the folder `folder` or below it: by whole names (`out2` is not below
/// `out`).
func isBelow(_ path: String, _ folder: String) -> Bool {
    path.sameScalars(folder) || path.hasScalarPrefix(joinedPath(folder, ""))
}

/// Why the folders `dir` that `reportFolderToMake` gave for `file` may not be made: one below the output folder
/// is named as --update's manifest or its lock file (it would stand where --update writes its file). For the
/// run and its dry run alike, before anything is made.
func reportFolderProblem(_ file: String, making dir: String, outputFolder folder: String) -> String? {
    let below = BatchPlan.resolved(dir).dropFirst(BatchPlan.resolved(folder).count).drop { $0 == "/" }
    return AtomicOutput.reservedNameProblem(String(below) + "/" + (file.pathParts.last ?? ""))
}

/// The inputs a batch (or `report`) names, gathered, with a warning for the folder entries left out.
func gatherInputs(_ options: Options, standardInput: Bool = false, outputFolder: String? = nil) throws(BatchPlanError) -> BatchInputs {
    let inputs = try BatchInputs(operands: options.inputs, recursive: options.recursive, filesFrom: options.filesFrom,
                                 nul: options.nulSeparated, standardInput: standardInput, outputFolder: outputFolder)
    let skipped = inputs.skipped, n = inputs.skippedCount
    // A warning: printed with -q too (-q silences the per-image lines, not what went unconverted).
    if n > 0 {
        printErr("yuvconv: warning: skipped \(n) folder entr\(n == 1 ? "y" : "ies") that "
                 + "\(n == 1 ? "is" : "are") not a regular file or a folder to walk: "
                 + skipped.map(\.description).joined(separator: ", ") + (n > skipped.count ? ", … (\(n - skipped.count) more)" : ""))
    }
    // Sharded, every shard must see the same files (one that could not read a folder took another share of the
    // rest: files converted twice, others by none); with --fail-fast, no file starts after a failure, and this one
    // is seen before the first. Either way the run stops here, as the whole walk once did.
    if let first = inputs.unreadFolders.first, options.shard != nil || options.failFast {
        let why = options.shard != nil ? "--shard needs every shard to find the same files" : "--fail-fast"
        throw .file(FileError(path: first.path, reason: "\(first.reason); the run stops before any file (\(why))"))
    }
    // An error (the run fails once the rest is done), and at once: a folder that could not be read left its
    // images out.
    for error in inputs.unreadFolders {
        // (An image whose own path is too long is one left out, not a folder's images.)
        let image = error.reason.hasPrefix(BatchInputs.unreachableImage)
        printErr("yuvconv: error: \(error.cli)" + (image ? "; it is left out" : "; the images in it are left out"))
    }
    if inputs.unreadFolderCount > inputs.unreadFolders.count {
        printErr("yuvconv: error: … and \(inputs.unreadFolderCount - inputs.unreadFolders.count) more folders that could not be read")
    }
    return inputs
}

/// The status of a run whose walk could not read `unread` folders: a failure, said again last (the lines at the
/// start are far above a long batch's end).
func statusAfterUnreadFolders(_ status: Int32, _ unread: Int) -> Int32 {
    guard unread > 0 else { return status }
    printErr("yuvconv: error: \(unread) folder\(unread == 1 ? "" : "s") (or image\(unread == 1 ? "" : "s") too deep for a path) "
             + "could not be read or reached: the images in \(unread == 1 ? "it" : "them") were left out")
    return max(status, 1)
}

/// A plan that could not be made: a file error (exit 1) or a usage error (exit 2).
func planFailure(_ error: BatchPlanError) -> Int32 {
    error.fileError.map(fileFailure) ?? usageFailure(error.cliMessage)
}

/// Prints a file error; exit status 1.
func fileFailure(_ error: FileError) -> Int32 {
    printErr("yuvconv: error: \(error.cli)")
    return 1
}

/// A batch's or `report`'s report onto standard error (`--report-file /dev/stderr`, `/dev/fd/2`): the run's
/// failures, progress and summary go there too and would be mixed into it (a single conversion leaves its
/// per-image line out instead, and has no summary). Refused before any work, for both commands.
func refuseReportOnStandardError(_ options: Options) -> Int32? {
    guard let file = options.reportFile, isStandardErrorsFile(file) else { return nil }
    return refuseAboutStandardError("\(file == "-" ? "<stdout>" : displayPath(file)) is standard error, which carries the run's messages and summary: they "
                        + "would be mixed into the report (name a file, or leave out --report-file for standard output)")
}

/// Standard input with --shard, for `convert` and `report` alike: a stream is not split among shards (the
/// first shard would take it and the others say nothing of it), and neither "one of many" nor "give -o FILE"
/// (which --shard then refuses) says why. Asked before the inputs are gathered, of the operands (`-`,
/// /dev/stdin, /dev/fd/0, alone or among files, or another name of the pipe: `//dev/stdin`, a link), and after,
/// with `inputs`, of a --files-from list (`BatchInputs.listsStandardInput`).
func refuseShardedStandardInput(_ options: Options, inputs: BatchInputs? = nil, doing remedy: String) -> Int32? {
    guard options.shard != nil else { return nil }
    let stream = standardInputStreamIdentity()
    let named = inputs.map(\.listsStandardInput) ?? options.inputs.contains {
        readsStandardInput($0) || (stream != nil && FileStatus(path: $0)?.identity == stream)
    }
    guard named else { return nil }
    return usageFailure("--shard splits a batch of files among runs; standard input is one stream: \(remedy)")
}

/// `yuvconv convert a.jpg b.png dir/ -o outdir/`: many files, several at once, none lost.
func runBatch(_ options: Options) -> Int32 {
    // `yuvconv convert -o out/` with nothing to convert is a mistake (an empty `$FILES` in a script), as for
    // `report`: refused, not a green run. A list (--files-from) or a folder may hold no file.
    guard !options.inputs.isEmpty || options.filesFrom != nil else {
        return usageFailure("convert needs at least one file, folder or --files-from list")
    }
    if let conflict = options.sharpChromaConflict() { return usageFailure(conflict) }
    let shardRemedy = "convert it without --shard, to a file (-o FILE)"
    if let refused = refuseShardedStandardInput(options, doing: shardRemedy) { return refused }
    if let refused = refuseReportOnStandardError(options) { return refused }
    let plan: BatchPlan, folder: BatchOutputFolder
    var unread = 0
    do throws(BatchPlanError) {
        folder = try BatchOutputFolder(options.output)
        let inputs = try gatherInputs(options, outputFolder: folder.path)
        unread = inputs.unreadFolderCount
        if let refused = refuseShardedStandardInput(options, inputs: inputs, doing: shardRemedy) { return refused }
        // One file given twice under one path (`in in/` with a {dir} name, a list and its folder): two outputs
        // of one input, and two lines of the report — refused as `report` refuses it, whatever names it gets.
        if let (first, second) = try repeatedInput(inputs) {
            return planFailure(.sameOutput(first: first, second: second, output: first))
        }
        plan = try BatchPlan(inputs, outputFolder: folder, template: options.nameTemplate,
                             format: options.format, needs: options.rawOnlyNeeds(), shard: options.shard,
                             // Without a report file the report goes to standard output: that may be an output too.
                             reportFile: options.reportFile ?? (options.reportFormat != nil ? "-" : nil),
                             alsoWritten: (options.reportFile.map { [$0] } ?? [])
                                 + (options.update ? [folder.path(of: Manifest.fileName)] : []))
    } catch {
        return planFailure(error)
    }
    let protected = plan.protected
    // (A listed input on the run's own output pipe is named: the plan is read back to find it.)
    if let refused = refuseInputsAsStandardStreams(protected, named: { id in
        var items = plan.reader()
        while let item = items.next() { if inputIdentity(item.input) == id { return item.input } }
        return nil
    }) { return refused }
    // The files this run replaces: the report file, and --update's manifest.
    let manifest = options.update ? [folder.path(of: Manifest.fileName)] : []
    if let refused = refuseStandardStreamHazards(written: options.reportFormat != nil && options.reportFile == nil ? [STDOUT_FILENO] : [],
                                                 force: options.force,
                                                 replaced: (options.reportFile.map { [$0] } ?? []) + manifest) {
        return refused
    }
    // Standard error open on an output the batch replaces: its lines and summary would be lost with it. So is
    // standard output for a dry run, whose listing goes there (a single file's dry run is refused the same way).
    let errKey = outputKey("/dev/stderr"), outKey = options.dryRun ? outputKey("-") : ""
    if errKey.hasPrefix("id:") || outKey.hasPrefix("id:") {
        var items = plan.reader()
        while let item = items.next() {
            let key = outputKey(item.output)
            if key == errKey {
                return refuseAboutStandardError("\(displayPath(item.output)) is the file standard error is open on: what is written there would be lost")
            }
            if key == outKey {
                return usageFailure("\(displayPath(item.output)) is the file standard output is open on: the dry run's listing would be written into it")
            }
        }
    }
    // Standard error is none of the files this run reads or writes: the messages held until now go out.
    releaseMessages(drop: false)
    var update: UpdateManifest?
    if options.update {
        var failure: Int32 = 0
        guard let manifest = UpdateManifest(folder: folder, plan: plan, options: options, failure: &failure) else {
            return failure
        }
        update = manifest
    }
    // Said by the dry run too, as the run would say them.
    var first = plan.reader()
    let firstItem = first.next()
    // Outputs whose names say another format than --format writes: the first named, the others counted (each name
    // is its own: `--name '{name}'` keeps every input's extension).
    var contradicted: (output: String, others: Int)?
    if let asked = options.format {
        var items = plan.reader()
        while let item = items.next() {
            guard OutputFormat.contradiction(asked: asked, path: item.output) != nil else { continue }
            contradicted = contradicted.map { ($0.output, $0.others + 1) } ?? (item.output, 0)
        }
    }
    warnIgnoredOptions(options, format: options.format ?? firstItem?.format ?? .raw(.nv12), rawInput: false,
                       output: contradicted?.output, others: contradicted?.others ?? 0)
    // The output folder that cannot take what the run writes: one error before any work (the dry run's too).
    if let why = outputFolderProblem(plan, folder: folder, force: options.force) {
        printErr("yuvconv: error: \(why) (-o \(displayPath(folder.path)))")
        return 1
    }
    if options.dryRun {
        return statusAfterUnreadFolders(dryRunBatch(plan, options: options, update: update, outputFolder: folder.path), unread)
    }
    // A report file inside the output folder, which the batch makes when it is missing: made first (a name
    // the system cannot hold refused before that).
    if let file = options.reportFile, let why = PathBytes.lengthProblem(file) {
        return fileFailure(FileError(output: file, reason: "the name cannot be made: \(why)"))
    }
    if let file = options.reportFile, let dir = reportFolderToMake(file, outputFolder: folder.path),
       let why = reportFolderProblem(file, making: dir, outputFolder: folder.path) ?? makeFolders(dir) {
        return fileFailure(FileError(output: file, reason: why))
    }
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    // Outputs that are one FIFO or device are written in input order: one job.
    var runOptions = options
    if plan.sharesAStream {
        if options.jobs != 1 && !options.quiet {
            printErr("yuvconv: warning: outputs of this batch are one FIFO or device: they are written one at a time, in "
                     + "input order (-j 1)")
        }
        runOptions.jobs = 1
    }
    let run = BatchRun(runOptions, count: plan.count, report: options.reportFormat, to: reportSink)
    let shared = UncheckedSendable((run.options, protected, update))
    let watch = OutputFolderWatch(folder.path)
    var noted = plan.reader()
    watch.noteFolders { noted.next()?.output }
    var items = plan.reader()
    run.start(next: { items.next() }) { item in
        let (opts, protected, update) = shared.value
        let (action, kept) = update?.check(item, options: opts) ?? (BatchAction(item, force: opts.force), nil)
        // A signal while that check hashed the input or output (seconds, for a file of gigabytes): not started,
        // rather than converted into an interruption that would drop a manifest entry still true.
        if update != nil, interruptSignal() != nil { return .notStarted(item.input) }
        // With --update, an output there that it may not replace (`Update.check`) is a failure the report
        // lists, not a silent skip: the run did not bring it up to date (--force would, where it can: `refusal`).
        if case .skip(upToDate: false) = action, let update {
            return Outcome.failed(item.input, update.refusal(item, protected: protected),
                                  alignment: opts.reportAlignment)
        }
        if case .skip = action {
            if let kept, let update { return update.kept(item, kept, options: opts) }
            // Already there, no --force: a line of its own in the report, so every input has one.
            var record = ImageRecord(file: displayPath(item.input), error: nil, report: nil, quality: nil,
                                     alignment: opts.reportAlignment, peakRSS: 0)
            record.skipped = BatchAction.alreadyThere
            record.outputPath = displayPath(item.output)
            return Outcome(record: record, failure: nil, skipped: true)
        }
        var o = opts
        o.force = opts.force || action.replaces
        // An input whose name looks longer than the system holds is looked up first: when the system refuses it, it
        // fails for the system's reason (File name too long), as its dry run says, before its output's name (made
        // of it, so too long as well) is tried; a file system that holds longer names goes on.
        if PathBytes.lengthProblem(item.input) != nil {
            var st = stat()
            let code = withFileSystemPath(item.input) { lstat($0, &st) == 0 ? 0 : errno }
            if code != 0 {
                return Outcome.failed(item.input, FileError(path: item.input, reason: "cannot open: " + String(cString: strerror(code))),
                                      alignment: opts.reportAlignment)
            }
        }
        // Its names first: a name the system cannot make, or a folder named as --update's manifest, is refused
        // before any folder is made.
        if let why = BatchPlan.nameProblem(item) ?? AtomicOutput.reservedNameProblem(item.name)
                     ?? watch.prepare(outputFolder(of: item.output), for: item.output) {
            // Its manifest line, if any, stays: nothing was written. Listed under its input, as every failure to
            // write is (it was under the output alone: `failed: out/sub/x.nv12: out/sub is not a folder`).
            return Outcome.failed(item.input, FileError(input: item.input, writing: item.output, .system(why)),
                                  alignment: opts.reportAlignment)
        }
        let convert = { (beforeNaming: ((ConversionReport, OutputDigest) -> String?)?) in
            convertOne(input: item.input, output: item.output, format: item.format, options: o, protected: protected,
                       keepForReport: opts.reportFormat != nil, before: item.foundAtPlan, beforeNaming: beforeNaming)
        }
        guard let update else { return convert(nil) }
        var outcome = update.convert(item, options: opts, convert)
        if update.journal.failed { outcome.stopsRun = "--update's journal could not be kept" }
        return outcome
    }
    var status: Int32 = 0, manifestLost: String?
    if let error = plan.readFailure {
        printErr("yuvconv: error: \(error.cli)")
        status = 1
    }
    if let update, let error = update.write(run.outputs.manifestChanges, protected: protected),
       !keptTimesOnly(error, converted: run.state.withLock { $0.converted }) {
        // A temporary file of the merge that could not be written is $TMPDIR's problem, said as such.
        // (Out of descriptors is the process's limit, not the folder's: no room or other TMPDIR helps there.)
        let descriptors = error.reason.contains(String(cString: strerror(EMFILE)))
        printErr("yuvconv: error: \(error.cli)" + (error.path == Spool.folder
            ? "; --update merges its manifest there, and it is not written (\(ManifestFile.notRecorded)): "
              + (descriptors ? "raise the limit on open files (ulimit -n)" : "make room, or set TMPDIR to a writable folder with room") : ""))
        // A signal that stopped the manifest's write cut the run short: its status says so.
        status = interruptSignal().map { 128 + $0 } ?? 1
        manifestLost = "the manifest failed (above)"
    }
    // --update's files left as they are are "kept": its report counts them among the images (`up_to_date`), not
    // among the skipped, which are a plain run's outputs already there.
    let ran = run.finish(summary: "converted", skipped: options.update ? "kept (up to date)" : "skipped (already there)",
                         always: true, lost: manifestLost)
    // A signal that stopped the manifest's write says so over a failed file's 1.
    return statusAfterUnreadFolders(ran == 0 || status > 1 ? status : ran, unread)
}

/// A manifest left unwritten by a run that converted nothing: what it would have recorded is only kept outputs'
/// new times (a touched input of the same content, a tree moved), which saves the next run reading those inputs
/// again — a warning, not a failure (a read-only output folder failed every later run, exit 1, whose report said
/// nothing failed; the dry run, `manifestWarning`, says the same). True when said so.
func keptTimesOnly(_ error: FileError, converted: Int) -> Bool {
    guard converted == 0, interruptSignal() == nil else { return false }
    printErr("yuvconv: warning: \(error.cli); \(manifestTimesNotRecorded)")
    return true
}

/// What a manifest left unwritten costs when nothing was converted.
let manifestTimesNotRecorded = "nothing was converted: only the new times of inputs kept as up to date go unrecorded, "
    + "so the next run reads those inputs again"

/// Why the output folder cannot take this run's outputs, as a problem of the whole run: missing and impossible
/// to make (every output is below it), or there and taking no files (read-only, no permission) while every
/// output goes straight into it or into a subfolder still to be made in it, and some output is not there yet
/// (or `--force` replaces them). Nil when it can; when some output goes into a subfolder already there (that one
/// may work: each file then says its own problem); and when every output is there already (skipped, or kept:
/// a re-run into a read-only folder writes nothing, and one that must replace an output says so for that file).
func outputFolderProblem(_ plan: BatchPlan, folder: BatchOutputFolder, force: Bool) -> String? {
    guard let why = folderProblem(folder.path) else { return nil }
    guard FileStatus(path: folder.path)?.kind == .directory else { return why }
    var items = plan.reader(), writes = false
    while let item = items.next() {
        let parts = item.name.pathParts
        if parts.count > 1, FileStatus(path: folder.path(of: parts[0]))?.kind == .directory { return nil }
        if force || FileStatus(path: item.output, follow: false) == nil { writes = true }
    }
    return writes ? why : nil
}
