#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVIO

// `--dry-run`: what a run would do with each file, one line each on standard output, after the checks a real
// run makes before any work (the same refusals, the same exit status); nothing is written, no folder made.

/// A dry run of one conversion: its line, and exit 1 when a real run would refuse it.
func dryRunOne(input: String, output: String, format: OutputFormat, options: Options, protected: any FileIdentitySet,
               inputRefusal: String? = nil, rawInput: Bool = false) -> Int32 {
    if let status = dryRunReportFile(options, protected: protected) { return status }
    // A single conversion refuses an existing output without --force (it skips nothing).
    let exists = AtomicOutput.standardDescriptor(output) == nil && FileStatus(path: output)?.kind == .regular
    let action: BatchAction = exists && options.force ? .replace(nil) : .convert
    // A single conversion makes no folder.
    // An image's first bytes are looked at as a batch's dry run looks (a GIF, a text file: refused by the run).
    let refused = dryRunItem(input: input, output: output, format: format, action: action, options: options,
                             protected: protected, makesFolders: false, sniffs: !rawInput, inputRefusal: inputRefusal)
    // What the run says after converting, where the first bytes already tell: a JPEG has no alpha.
    // (About the options, not the file: said without its name, as the run says it.)
    if !refused, !rawInput, RawInput.isJPEG(head: RawInput.head(input, 3)), let w = options.alphaWithoutAlpha(single: true) {
        printErr("yuvconv: warning: \(w)")
    }
    return refused ? 1 : 0
}

/// A line of a dry run's listing on standard output, flushed at once: a reader that went away (`| head`) stops
/// the listing then (`stdoutFailure`), not after every file is decided (and hashed, with --update). The error
/// stays on the stream for the final check in main, which gives the status.
func listLine(_ text: String) { printText(text + "\n") }

/// A dry run of a planned batch: a line per file, then the summary on standard error; exit 1 when a real run
/// would refuse any file. With `--update` the manifest decides as in a real run (an input or output whose size
/// or time changed is read to hash it), and nothing is written, the manifest included.
func dryRunBatch(_ plan: BatchPlan, options: Options, update: UpdateManifest?, outputFolder: String) -> Int32 {
    if let status = dryRunReportFile(options, protected: plan.protected, outputFolder: outputFolder) { return status }
    var convert = 0, replace = 0, skip = 0, refused = 0, jpegs = 0, rewritesManifest = false
    // SIGINT or SIGTERM stops the dry run between files (or in a hash, with --update) rather than ending the
    // process: the lines already decided and the summary still come out (a killed dry run's buffered lines were
    // lost, printing nothing at all).
    setGracefulInterrupt(true)
    var items = plan.reader()
    while interruptSignal() == nil, !readerGone, let item = items.next() {
        let decided = update?.check(item, options: options)
        let action = decided?.action ?? BatchAction(item, force: options.force)
        if case .skip(upToDate: true) = action, let update, let entry = decided?.entry, update.rewrites(item, kept: entry) {
            rewritesManifest = true
        }
        if interruptSignal() != nil { break }   // its decision was cut short
        var refusal: String?
        if case .skip(upToDate: false) = action, let update {
            // With --update, an output there that it may not replace fails the real run (`runBatch`).
            refusal = update.refusal(item, protected: plan.protected).cliReason
        } else if action.writes {
            // The output's name, as the run asks it before making the output's folders (of an output it would
            // write: one it skips is not asked).
            refusal = BatchPlan.nameProblem(item) ?? AtomicOutput.reservedNameProblem(item.name)
        }
        if dryRunItem(input: item.input, output: item.output, format: item.format, action: action, options: options,
                      protected: plan.protected, sniffs: true, refusal: refusal) {
            refused += 1
            continue
        }
        switch action {
        case .convert: convert += 1
        case .replace: replace += 1
        case .skip: skip += 1
        }
        // Sniffed as the real run's decoder would (its first bytes): a batch of PNGs names its JPEG options.
        if RawInput.isJPEG(head: RawInput.head(item.input, 3)) { jpegs += 1 }
    }
    if convert + replace == plan.count && convert + replace > 0 && jpegs == 0, let w = options.jpegOptionsWithoutJPEG(single: plan.count == 1 && options.namesOneFile) {
        printErr("yuvconv: warning: \(w)")
    }
    // And a batch of JPEGs alone has no alpha (whether a PNG has any is in its chunks, which a dry run does not read).
    if convert + replace == plan.count && jpegs == plan.count, let w = options.alphaWithoutAlpha(single: false) {
        printErr("yuvconv: warning: \(w)")
    }
    // With --update what is converted, and a kept output's new times (a touched input), are recorded in the
    // manifest, in the output folder: a folder there that takes no files (its {dir} subfolders may) fails the
    // real run at the end, after the work, exit 1.
    var manifestRefused = false
    if let update, convert + replace > 0 || rewritesManifest, let why = creationReason(update.path, makesFolders: true) {
        if convert + replace > 0 {
            printErr("yuvconv: error: \(displayPath(update.path)): the manifest could not be written: \(why); what is "
                     + "converted would not be recorded")
            manifestRefused = true
        } else {
            // As the run says it (`keptTimesOnly`): a warning when nothing would be converted.
            printErr("yuvconv: warning: \(displayPath(update.path)): the manifest could not be written: \(why); "
                     + manifestTimesNotRecorded)
        }
    }
    let decided = convert + replace + skip + refused, signal = interruptSignal()
    printErr("yuvconv: dry run, nothing written: \(convert) to convert, \(replace) to replace, \(skip) "
             + (options.update ? "to keep (up to date)" : "skipped (already there)") + ", \(refused) refused"
             + (decided < plan.count && (signal != nil || readerGone)
                 ? ", \(plan.count - decided) not decided (\(signal != nil ? "interrupted" : "standard output's reader stopped reading"))" : ""))
    if let signal, decided < plan.count { return 128 + signal }
    return refused > 0 || manifestRefused ? 1 : 0
}

/// The report file, checked as a real run checks it before any work, without creating it: nil when it may be
/// written, else the exit status. A batch's (`outputFolder`) makes the report's folder inside its own.
func dryRunReportFile(_ options: Options, protected: any FileIdentitySet, outputFolder: String? = nil) -> Int32? {
    guard let file = options.reportFile else { return nil }
    let found = reportStatus(file)
    do { _ = try AtomicOutput.check(path: file, force: reportReplaces(file, options, found: found), protected: protected) } catch {
        return fileFailure(reportFileError(file, options, found: found, error))
    }
    let made = outputFolder.flatMap { reportFolderToMake(file, outputFolder: $0) }
    if let folder = outputFolder, let dir = made, let why = reportFolderProblem(file, making: dir, outputFolder: folder) {
        return fileFailure(FileError(output: file, reason: why))
    }
    if let why = creationProblem(file, makesFolders: made != nil) {
        printErr("yuvconv: error: \(why)")
        return 1
    }
    return nil
}

/// Why a real run could not make the file `path` in its folder (after links): the folder must be there, unless
/// the run makes it (`makesFolders`: a batch makes its output folders, not a link target's), and take files —
/// the same folder checks as `folderProblem`, without making anything — and a file of another user's in a sticky
/// folder cannot be replaced. Nil for a file written in place (a standard stream, a device, a FIFO) and when it
/// can. `creationProblem` says it with the path in front.
func creationReason(_ path: String, makesFolders: Bool) -> String? {
    guard AtomicOutput.standardDescriptor(path) == nil else { return nil }
    if let kind = FileStatus(path: path)?.kind, kind != .regular { return nil }
    let real = (try? AtomicOutput.resolveLinks(path)) ?? path
    let dir = outputFolder(of: real) ?? "."
    if FileStatus(path: dir)?.kind != .directory && (real != path || !makesFolders) {
        // Why, as opening a file there would say: a file in the folder's place (ENOTDIR), a loop of links (ELOOP).
        let why = stat_errno(dir)
        return "cannot create a file in \(displayPath(dir)): "
            + (why == ENOTDIR || FileStatus(path: dir) != nil ? "Not a directory" : why == ELOOP ? "Too many levels of symbolic links"
               : "the folder does not exist")
    }
    if let why = folderProblem(dir) { return why }
    // A file replaced in a sticky folder (/tmp, mode 1777) is renamed over: only its owner, the folder's, or
    // root may (as the kernel decides it, with CAP_FOWNER for any file).
    var file = stat(), folder = stat()
    let euid = geteuid()
    if euid != 0, withFileSystemPath(real, { stat($0, &file) }) == 0, withFileSystemPath(dir, { stat($0, &folder) }) == 0,
       folder.st_mode & S_ISVTX != 0, file.st_uid != euid, folder.st_uid != euid {
        return "cannot replace it: its folder \(displayPath(dir)) is sticky and the file belongs to another user "
            + "(Operation not permitted)"
    }
    return nil
}

/// The errno of `stat` on `path` (0 when it succeeds).
private func stat_errno(_ path: String) -> Int32 {
    var st = stat()
    return withFileSystemPath(path) { stat($0, &st) } == 0 ? 0 : errno
}

func creationProblem(_ path: String, makesFolders: Bool) -> String? {
    creationReason(path, makesFolders: makesFolders).map { "\(displayPath(path)): \($0)" }
}

/// Prints what would happen to one file — `convert`, `replace`, `skip` or `refuse`, `INPUT -> OUTPUT (format)`,
/// and why — and returns true when it would be refused.
func dryRunItem(input: String, output: String, format: OutputFormat, action: BatchAction, options: Options,
                protected: any FileIdentitySet, makesFolders: Bool = true, sniffs: Bool = false,
                inputRefusal: String? = nil, refusal decided: String? = nil) -> Bool {
    let shown = AtomicOutput.standardDescriptor(output) == STDOUT_FILENO ? "<stdout>" : displayPath(output)
    func say(_ verb: String, _ why: String?) {
        listLine("\(verb) \(displayPath(input)) -> \(shown) (\(format.name))" + (why.map { ": " + $0 } ?? ""))
    }
    // A refusal decided already stands whatever the action (an --update skip of an output it may not replace, a
    // reserved name); else a skip reads nothing, and a conversion is checked as the run checks it.
    var refusal = decided
    switch action {
    case .skip(let upToDate) where refusal == nil:
        say("skip", upToDate ? "up to date" : BatchAction.alreadyThere)
        return false
    case .skip: break
    case .convert, .replace:
        if refusal == nil { refusal = inputRefusal ?? inputProblem(input, sniffs: sniffs) }
        if refusal == nil {
            do {
                _ = try AtomicOutput.check(path: output, force: options.force || action.replaces, inputs: [input],
                                           protected: protected)
            } catch {
                refusal = FileError(output: output, error).cliReason
            }
        }
        // A batch makes its output folder's own folders (`makesFolders`), a single conversion none.
        if refusal == nil { refusal = creationProblem(output, makesFolders: makesFolders) }
    }
    if let refusal {
        say("refuse", refusal)
        return true
    }
    switch action {
    case .replace(let why?): say("replace", why.description)
    case .replace(nil): say("replace", "--force")
    default: say("convert", options.update ? "no output yet" : nil)
    }
    return false
}

/// Why a real run could not open `input` (missing, a folder, unreadable), found without reading it; nil when
/// it can (standard input is not looked at).
func inputProblem(_ input: String, sniffs: Bool = false) -> String? {
    guard input != "-" else { return nil }
    guard let st = FileStatus(path: input) else {
        let code = withFileSystemPath(input) { p -> Int32 in
            var s = stat()
            return stat(p, &s) == 0 ? ENOENT : errno
        }
        return "\(displayPath(input)): cannot open: \(String(cString: strerror(code)))"
    }
    if st.kind == .directory { return FileError(path: input, DecodeError.isDirectory).cli }
    // A file or a socket: opened as the run opens it, which decides (a socket cannot be opened, ENXIO; a
    // permission) — and a batch's input must be a JPEG or a PNG, decided by its first bytes (`sniffs`), read as
    // the run reads them (an empty file, a Y4M, a text are refused by both).
    if st.kind == .regular || st.kind == .socket {
        return InputSource.openProblem(input, sniffs: sniffs).map { FileError(path: input, $0).cli }
    }
    let readable = withFileSystemPath(input) { access($0, R_OK) == 0 ? Int32(0) : errno }
    if readable != 0 { return "\(displayPath(input)): cannot open: \(String(cString: strerror(readable)))" }
    // A terminal (one a list names: one named on the command line is a usage error before this), as the run's
    // open refuses it.
    if namesTerminal(input) {
        return "\(displayPath(input)): cannot open: is a terminal, and a picture is not typed in: pipe or redirect one"
    }
    return nil
}

/// The folder an output goes into, when it names one.
func outputFolder(of output: String) -> String? {
    let dir = output.pathParts.dropLast().joined(separator: "/")
    return dir.isEmpty ? nil : (output.isAbsolutePath ? "/" + dir : dir)
}

/// Why `mkdir -p path` would fail, found without making anything: the nearest existing folder up the path must
/// be a folder, and writable when something is to be made in it. Nil when it would work.
func folderProblem(_ path: String) -> String? {
    var current = path, missing: String?
    while FileStatus(path: current) == nil {
        // A link there to nothing, or a loop of them: mkdir -p cannot make a folder at its place.
        if FileStatus(path: current, follow: false)?.kind == .symlink {
            var st = stat()
            let code = withFileSystemPath(current) { stat($0, &st) == 0 ? 0 : errno }
            return notAFolder(displayPath(current), errno: code)
        }
        missing = current
        guard let (folder, _) = current.aroundLastSlash else {
            current = "."
            break
        }
        current = folder.isEmpty ? "/" : folder
    }
    if FileStatus(path: current)?.kind != .directory { return "\(displayPath(current)) is not a folder" }
    // As the effective user with its capabilities (AT_EACCESS), as the run will make them.
    if withFileSystemPath(current, { faccessat(AT_FDCWD, $0, W_OK | X_OK, AT_EACCESS) }) != 0 {
        let why = systemMessage()
        if let missing { return "cannot make the folder \(displayPath(missing)): " + why }
        // There already, and it takes no files (read-only, no permission): the run fails each output so.
        return "cannot create a file in \(displayPath(current)): " + why
    }
    return nil
}
