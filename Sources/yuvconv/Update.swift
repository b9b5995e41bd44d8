#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

// `--update`: the output folder's manifest (`Manifest`, `.yuvconv-manifest`) says what each output was made
// from and with; it is read before the batch, decides each item (`Manifest.check`), gives the report of every
// output kept, and is written back after the batch, merged with the entries of outputs this run did not touch.

extension Options {
    /// Everything that shapes an output's bytes, in one canonical line: the version that last changed them
    /// (`outputBytesVersion`), the format, the conversion as it applies (a JPEG is BT.601 full range whatever was asked; row
    /// and plane padding only for raw layouts; quality only for JPEG), alpha, orientation, the JPEG path,
    /// whether damaged input is accepted, and sharp chroma (named only when asked, so keys made before it
    /// still match). Options that only refuse (`--max-pixels`) or only report are not in it. The JPEG path and
    /// `--allow-truncated` shape only a JPEG's bytes: for any other input they stand at their defaults, so changing
    /// them converts no PNG again (and keys made before keep matching).
    func optionsKey(for format: OutputFormat, jpegInput: Bool) -> String {
        let spec = format == .jpeg ? ConversionSpec(matrix: .bt601, range: .full) : self.spec
        let alpha: String
        switch self.alpha {
        case .ignore: alpha = "ignore"
        case .keep: alpha = "keep"
        case .premultiply: alpha = "premultiply"
        case .flatten(let r, let g, let b):
            alpha = "flatten=#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        return "yuvconv=\(outputBytesVersion) format=\(format.name) layout=\(layout(for: format).rawValue)"
            + " matrix=\(spec.matrix.rawValue) range=\(spec.range.rawValue)"
            + " colour=\(colourManagement ? "auto" : "off") primaries=\(decodeOptions.target(for: spec).rawValue)"
            + " chroma-loc=\((format == .jpeg || format == .png ? nil : siting)?.rawValue ?? "center")"
            + " align=\(format.isRaw ? fileAlignment : 1) align-height=\(format.isRaw ? heightAlignment : 1)"
            + " alpha=\(alpha) orientation=\(orientation.rawValue) jpeg-path=\((jpegInput ? jpegPath : .auto).rawValue)"
            + " allow-truncated=\(jpegInput && allowTruncated ? 1 : 0)" + (format == .jpeg ? " quality=\(quality)" : "")
            + (chromaFilter == .sharp ? " chroma-filter=sharp" : "")   // box, the default, keeps older keys valid
    }
}

extension Options {
    /// The options key `item`'s output would be made with: whether its input is a JPEG looked at (its first bytes)
    /// only when the two keys differ, i.e. when a JPEG-only option is not at its default — and only in a regular
    /// file (a FIFO or device is not opened for it: that has effects).
    func optionsKey(for item: BatchItem) -> String {
        let jpeg = optionsKey(for: item.format, jpegInput: true), other = optionsKey(for: item.format, jpegInput: false)
        guard jpeg != other else { return jpeg }
        let isJPEG = FileStatus(path: item.input)?.kind == .regular && RawInput.isJPEG(head: RawInput.head(item.input, 3))
        return isJPEG ? jpeg : other
    }
}

/// The manifest of a batch's output folder, as read before the batch: searched on disk (`ManifestFile`), so a
/// folder of any number of outputs costs no memory per output.
struct UpdateManifest: Sendable {
    let path: String
    let manifest: ManifestFile
    /// The output folder with its links followed: an output of this tool lies in it by its own name, no link
    /// on the way (`Update.check`).
    let folderPlace: String
    /// The output folder as given.
    let folderPath: String
    /// `--force`: a file at the manifest's place that is not a manifest may be replaced.
    let force: Bool
    /// The outputs made, recorded as they are made (`ManifestJournal`): what a run that ends before writing its
    /// manifest leaves for the next one.
    let journal: ManifestJournal

    /// Reads the manifest of `folder` (none yet is an empty one). Nil after the message, with `failure` 2 when
    /// an output or the report file would be the manifest itself (a usage error), and 1 when the manifest's
    /// place holds a link, something other than a regular file, (without --force) a file that is not a
    /// manifest, or a manifest that cannot be read: converting everything again would be the safe side for the
    /// outputs, but the manifest written at the end would then drop every entry of the other runs it holds.
    /// Lines that cannot be read are a warning: their outputs are converted again.
    init?(folder: BatchOutputFolder, plan: BatchPlan, options: Options, failure: inout Int32) {
        failure = 2
        force = options.force
        path = folder.path(of: Manifest.fileName)
        folderPlace = BatchPlan.resolved(folder.path)
        folderPath = folder.path
        journal = ManifestJournal(folder: folder.path) { printErr("yuvconv: error: \($0)") }
        // The manifest and its lock file (`ManifestFile.lockPath`) are --update's: no output, nor the report, may
        // be either (a lock file replaced under a run holding it would let the next run in beside it).
        // A journal's name (`.yuvconv-manifest.journal.…`) is refused alike, with the same words and status.
        let keys = [outputKey(path), outputKey(ManifestFile.lockPath(of: path))]
        func clashes(_ p: String) -> Bool {
            keys.contains(outputKey(p)) || AtomicOutput.reservedNameProblem(p, folders: false) != nil
        }
        var items = plan.reader(), clash: String?
        while clash == nil, let item = items.next() {
            if clashes(item.output) { clash = item.output }
        }
        if let clash = clash ?? options.reportFile.flatMap({ clashes($0) ? $0 : nil }) {
            let why = AtomicOutput.reservedNameProblem(clash, folders: false)
                ?? "is where --update keeps its manifest or its lock, which no output or report may take; name it otherwise"
            _ = usageFailure("\(displayPath(clash)) \(why)")
            return nil
        }
        // The manifest is merged at the end through temporary files (and searched in a sorted copy when its lines
        // are not in order): a temporary folder that takes none fails the run there, after the work — refused
        // now, the run and its dry run alike, saying which folder.
        failure = 1
        if let why = Spool.folderProblem() {
            printErr("yuvconv: error: --update merges its manifest through temporary files, and \(why); set TMPDIR to a "
                     + "writable folder")
            return nil
        }
        // The manifest is rewritten at the end: a link there would have its target rewritten, and a file that is
        // not a manifest is someone's file, replaced only with --force. Both refused before any work; so is a
        // manifest that is one of the inputs (it would be refused at the end, after the work, and unrecorded).
        if let st = FileStatus(path: path), plan.protected.holds(st, at: path) {
            printErr("yuvconv: error: \(displayPath(path)): is an input of this run and where --update keeps its "
                     + "manifest; refusing to overwrite an input")
            return nil
        }
        // A folder path too long for its manifest's name: said so, not as a manifest that cannot be read.
        if let why = PathBytes.lengthProblem(path) {
            printErr("yuvconv: error: \(displayPath(path)): --update keeps its manifest there, a name the system cannot "
                     + "make (\(why)): give the output folder a shorter path")
            return nil
        }
        if let st = FileStatus(path: path, follow: false), st.kind != .regular {
            printErr("yuvconv: error: \(displayPath(path)): " + (st.kind == .symlink
                ? "is a symbolic link; --update keeps its manifest in a regular file of this name (remove the link)"
                : "is not a regular file; --update keeps its manifest in a regular file of this name"))
            return nil
        }
        // What a run that ended before writing the manifest made (killed, or its write failed): its journal's lines
        // put in first, so that its outputs are recorded, not refused as someone else's. A dry run writes nothing
        // in the folder: it decides from a private copy of the manifest with them in, as the run will.
        var dryCopy: ManifestJournal.DryCopy?
        func recorded(_ n: Int) -> String { "\(n) output\(n == 1 ? "" : "s") of an earlier run that ended before writing it" }
        // The first few journal files that could not be taken, then how many more (a folder of thousands would
        // flood the run's messages).
        func sayProblems(_ problems: [String]) {
            for p in problems.prefix(5) { printErr("yuvconv: warning: \(p)") }
            let more = problems.count - 5
            if more > 0 {
                printErr("yuvconv: warning: … and \(more) more file\(more == 1 ? "" : "s") named as journals of --update's, left as "
                         + (more == 1 ? "it is" : "they are"))
            }
        }
        func unreadNote(_ unread: Int) -> String {
            "\(unread) line\(unread == 1 ? "" : "s") of an earlier run's journal cut short or unreadable: "
                + (unread == 1 ? "its output is" : "theirs are") + " not recorded"
        }
        if options.dryRun {
            let (copy, n, unread, problems) = ManifestJournal.dryRunCopy(folder: folder.path, manifest: path,
                                                                         protected: plan.protected, force: options.force)
            dryCopy = copy
            sayProblems(problems)
            if unread > 0 { printErr("yuvconv: warning: \(displayPath(path)): " + unreadNote(unread)) }
            if n > 0 {
                printErr("yuvconv: warning: \(displayPath(path)): \(recorded(n)) \(n == 1 ? "is" : "are") in its journal: a run records "
                         + (n == 1 ? "it" : "them") + " first" + (copy != nil ? ", as this dry run does"
                             : " (this dry run could not, and lists \(n == 1 ? "it" : "them") as not recorded)"))
            }
        } else {
            let (n, unread, problems, error) = ManifestJournal.recover(folder: folder.path, manifest: path,
                                                                       protected: plan.protected, force: options.force) {
                printErr("yuvconv: warning: \($0)")
            }
            sayProblems(problems)
            if let error {
                printErr("yuvconv: error: \(error.cli); --update records there first the outputs an earlier run made and "
                         + "did not record (its journal, kept for the next run)")
                return nil
            }
            if n > 0 { printErr("yuvconv: warning: \(displayPath(path)): \(recorded(n)) recorded from its journal") }
            if unread > 0 { printErr("yuvconv: warning: \(displayPath(path)): " + unreadNote(unread)) }
        }
        let readFrom = dryCopy?.path ?? path
        do throws(FileError) {
            // (A dry run's private copy is read, then removed: its descriptor stays open.)
            defer { dryCopy?.remove() }
            let manifest = try ManifestFile(path: readFrom)
            if manifest.foreign && !options.force {
                let why = manifest.problems.first ?? ""
                printErr("yuvconv: error: \(displayPath(path)): " + (why.hasPrefix("not ")
                    ? "exists and is not a yuvconv manifest (its first line differs); --update would replace it: remove it, or use --force"
                    : "is \(why), or --force to replace it and lose its entries"))
                return nil
            }
            self.manifest = manifest
            let (problems, n) = (manifest.problems, manifest.problemCount)
            if n > 0 {
                // "such as": the lines of a name given twice out of order are found in a sorted copy, without their
                // numbers, so the problem shown is not always the first line's.
                printErr("yuvconv: warning: \(displayPath(path)): \(n == 1 ? "" : "\(n) lines unread, such as ")"
                         + "\(problems[0]); any output " + (n == 1 ? "it" : "they") + " recorded is converted again")
            }
        } catch {
            // A temporary file that could not be written (the sorted copy of an unsorted manifest, in a full
            // $TMPDIR) is the temporary folder's problem, not the manifest's: removing the manifest would lose it.
            if error.path == Spool.folder {
                printErr("yuvconv: error: \(error.cli); --update searches its manifest (\(displayPath(path))) through a "
                         + "sorted copy there: make room, or set TMPDIR to a writable folder with room")
            } else {
                printErr("yuvconv: error: \(error.cli); --update needs its manifest to tell what is up to date, and "
                         + "would drop the entries it holds: make it readable, or remove it to convert everything again")
            }
            return nil
        }
    }

    /// What `--update` does with `item`, and the entry of an output it keeps. Without `--force` it replaces an
    /// out-of-date output only when the manifest records it (yuvconv made it: a file of that name it did not
    /// make — ffmpeg's, a hand-made one — is never overwritten without `--force`, as everywhere else) and it is a
    /// plain file of the output folder, reached by its name with no link on the way (`whyNotInFolder`): a link
    /// could lead anywhere (a recorded name whose folder became a link to elsewhere reached someone's file
    /// there), a device is a disk. Anything else stays.
    /// A new output too: a dangling link at its name, or a folder of its name that is a link, would have it made
    /// wherever the link leads (a link planted in a shared output folder sent new files anywhere).
    func check(_ item: BatchItem, options: Options) -> (action: BatchAction, entry: ManifestEntry?) {
        let decided = manifest.check(item, optionsKey: options.optionsKey(for: item))
        switch decided.action {
        case .replace, .convert: break
        case .skip:
            // A raw output's size follows from its picture's: a line whose figures say otherwise (edited, or
            // damaged as it was written) would put them in the report, so the output is made again.
            if let entry = decided.entry, item.format.isRaw,
               FrameLayout(width: entry.report.geometry.width, height: entry.report.geometry.height,
                           pixelLayout: entry.report.layout, alignment: options.fileAlignment,
                           heightAlignment: options.heightAlignment, alpha: options.alpha == .keep).byteCount != entry.outputBytes {
                return (.replace(.unchecked("its manifest line's picture size does not match the output")), nil)
            }
            return decided
        }
        guard !options.force else { return decided }
        if case .replace(.unrecorded) = decided.action { return (.skip(upToDate: false), nil) }
        guard whyNotInFolder(item) != nil else { return decided }
        return (.skip(upToDate: false), nil)
    }

    /// Whether keeping `item` as up to date changes its manifest line (a touched input's new time, an input named
    /// another way): the manifest is then written at the end, as when something is converted.
    func rewrites(_ item: BatchItem, kept entry: ManifestEntry) -> Bool {
        guard let old = manifest.entry(named: item.name) else { return true }
        return !old.input.utf8.elementsEqual(entry.input.utf8) || old.inputBytes != entry.inputBytes
            || old.inputModified != entry.inputModified || old.inputInode != entry.inputInode
            || old.inputChanged != entry.inputChanged
            || old.outputModified != entry.outputModified || old.outputInode != entry.outputInode
            || old.outputChanged != entry.outputChanged
    }

    /// The failure of an output `check` would not write (it turned a conversion into a skip: a file the manifest
    /// does not record, or one not reached plainly), for the report and the dry run alike: why, and `--force` only
    /// when a forced run would write it — what `AtomicOutput.check`
    /// refuses even then (a folder, a socket, an input; a link to one) is said as it would say it, without the hint.
    func refusal(_ item: BatchItem, protected: any FileIdentitySet) -> FileError {
        do throws(WriteError) {
            _ = try AtomicOutput.check(path: item.output, force: true, inputs: [item.input], protected: protected)
        } catch {
            return FileError(output: item.output, error)
        }
        let why = whyNotInFolder(item).map { $0 + "; --update writes only plain files of the output folder, reached by their names" }
            ?? "is already there and not recorded in the folder's \(Manifest.fileName) (it may not be yuvconv's), so --update keeps it"
        return FileError(path: item.output, reason: why, remedy: .overwrite)
    }

    /// Why `item`'s output is not (or would not be) a plain file of the output folder reached by its own name, or
    /// nil when it is — nothing there yet counts when the place its name leads to is in the folder.
    func whyNotInFolder(_ item: BatchItem) -> String? {
        let st = FileStatus(path: item.output, follow: false)
        let why = st?.kind == .symlink ? "is a symbolic link"
            : st.map { $0.kind != .regular } == true ? "is not a plain file"
            : BatchPlan.resolved(item.output) != joinedPath(folderPlace, item.name)
                ? "is reached through a symbolic link below the output folder" : nil
        // The output folder itself moved or replaced mid-run (a link put at its path) is said as such, not as
        // this output's link (looked at only for an output refused: not a second resolution for every file).
        if why != nil && BatchPlan.resolved(folderPath) != folderPlace { return "is in an output folder that was moved or replaced" }
        return why
    }

    /// The outcome of an output kept as up to date: its report line from the manifest's figures.
    func kept(_ item: BatchItem, _ entry: ManifestEntry, options: Options) -> Outcome {
        var record = options.record(file: displayPath(item.input), report: entry.report, quality: entry.quality,
                                    peakRSS: entry.peakRSS, format: item.format)
        record.output = OutputDigest(bytes: entry.outputBytes, sha256: entry.outputSHA256)
        record.upToDate = true
        record.outputPath = displayPath(item.output)
        return Outcome(record: record, failure: nil, skipped: true, manifestChange: (item.name, entry))
    }

    /// Converts `item` with `convert`, and records the result for the manifest. The input is hashed before it
    /// is converted: should it change meanwhile, the manifest holds the older content's digest and the next run
    /// converts it again, the safe side. A failed conversion, an input that cannot be hashed (not a regular file)
    /// or an output that is not a regular file leaves the entry as it was.
    func convert(_ item: BatchItem, options: Options,
                 _ convert: (((ConversionReport, OutputDigest) -> String?)?) -> Outcome) -> Outcome {
        let input = try? ManifestEntry.read(item.input)
        // Stopped by a signal while hashing: not started, and its entry (if any) left as it was.
        if input == nil, interruptSignal() != nil { return .notStarted(item.input) }
        // Journaled just before the output is named (a kill after the naming finds it recorded): its size, time, inode
        // and SHA-256 from the written file's own descriptor, the report's figures without the quality measures (made
        // after it) — the manifest's line, written at the end, has them all. A line whose file never got the name (a
        // kill in between, a naming that failed) is kept by no later run: the file there is not the one it describes.
        // A line the journal cannot take fails its output unnamed, and the run starts no more files (`journal.failed`):
        // an output named unrecorded was refused by the next run ("already there and not recorded") until --force
        // made it again — hundreds of them when a file-size limit stopped the journal early in a run.
        let journaled: ((ConversionReport, OutputDigest) -> String?)? = input.map { input in
            { report, digest in
                // The file read is the one hashed: one written or replaced between the two (a photo being synced)
                // gave a line whose input was not the output's (its size not the report's: a line no run could read
                // back, the output left unrecorded and refused by every later run until --force).
                // By the one rule for an input's bytes (`holdsTheBytes`: not its inode number, which a FUSE file
                // system may give anew, as sshfs did to unchanged inputs under memory pressure).
                if let read = report.inputVersion, !input.status.holdsTheBytes(of: read) {
                    return "its input changed between its hashing for --update's manifest and its reading (another program wrote "
                        + "or replaced it): not written, so that no line says it was made from what was hashed; the next "
                        + "--update converts it again"
                }
                guard let inode = digest.inode, let modified = digest.modified else { return nil }
                return journal.append(ManifestEntry(
                    output: item.name, input: item.input, inputBytes: input.status.size, inputModified: input.status.modified,
                    inputSHA256: input.sha256, optionsKey: options.optionsKey(for: item.format, jpegInput: report.info.container == .jpeg),
                    outputBytes: digest.bytes, outputModified: modified, outputSHA256: digest.sha256, report: report, quality: nil, peakRSS: 0,
                    outputInode: inode, inputInode: input.status.inode, inputChanged: input.changed, outputChanged: nil))
            }
        }
        if journaled != nil, let why = journal.prepare() {
            return Outcome.failed(item.input, FileError(path: item.output, reason: why), alignment: options.reportAlignment)
        }
        // A failed (or interrupted) conversion changes no line: the file at its output is as it was, so its line, if
        // it had one, still says what that file is and what it was made from — the next run converts it again when
        // the input or options differ, keeps it when they do not, and replaces it as yuvconv's (dropping the line
        // made the next run refuse yuvconv's own output without --force). An entry another run wrote stays too.
        var outcome = convert(journaled)
        guard outcome.failure == nil, let input, let report = outcome.record.report, let digest = outcome.record.output,
              let written = FileStatus(path: item.output), written.kind == .regular, written.size == digest.bytes else {
            // Converted but not recordable (an input that cannot be hashed: a FIFO, a device): said, since the next
            // run will find the output unrecorded (or its old line stale) and ask for --force.
            if outcome.failure == nil && !options.quiet {
                printErr("yuvconv: warning: \(displayPath(item.output)): not recorded in \(Manifest.fileName): "
                         + (input == nil ? "its input is not a regular file that can be hashed" : "the output is not the file written")
                         + " (the next --update replaces it only with --force)")
            }
            return outcome
        }
        // The output's time and inode as written, from its own descriptor (`OutputDigest`): a look by name after it
        // was named could find another run's file there, and record its time beside this one's SHA-256.
        outcome.manifestChange = (item.name, ManifestEntry(
            output: item.name, input: item.input, inputBytes: input.status.size, inputModified: input.status.modified,
            inputSHA256: input.sha256, optionsKey: options.optionsKey(for: item.format, jpegInput: report.info.container == .jpeg),
            outputBytes: digest.bytes, outputModified: digest.modified ?? written.modified, outputSHA256: digest.sha256, report: report,
            quality: outcome.record.quality, peakRSS: outcome.record.peakRSS, outputInode: digest.inode,
            inputInode: input.status.inode, inputChanged: input.changed,
            // Its change time once named (linking and renaming set it), when the name still leads to the file written.
            outputChanged: digest.inode.map { $0 == written.inode } == true ? written.changed : nil))
        return outcome
    }

    /// Writes the manifest back (atomically, replacing the old one): as it is on disk now — another run into
    /// the same folder may have written it meanwhile — with this run's entries put in (a failure changes none).
    /// Unchanged, it is not written. Nil, or the error (the outputs themselves are written; the next run finds the
    /// new ones in this run's journal, which the next run records first).
    func write(_ changes: Spool, protected: any FileIdentitySet) -> FileError? {
        let error = manifest.write(to: path, changes: changes, protected: protected, force: force) { printErr("yuvconv: warning: \($0)") }
        // Written: the journal has nothing the manifest lacks. Not written: kept, for the next run to record.
        journal.finish(remove: error == nil)
        return error
    }
}
