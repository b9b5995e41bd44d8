#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVBatch
import YUVCore
import YUVIO
import YUVReport

/// `yuvconv report INPUT… DIR/…`: convert each in memory, measure, print the report with totals. The inputs
/// are chosen as `convert` chooses them (folders, -r, --files-from, --shard; standard input once), measured
/// -j N at once and reported in the order given. Exit 1 when any file failed (it is still listed, with its
/// reason).
func runReport(_ options: Options) -> Int32 {
    guard !options.inputs.isEmpty || options.filesFrom != nil else {
        return usageFailure("report needs at least one file, folder or --files-from list")
    }
    if let conflict = options.sharpChromaConflict() { return usageFailure(conflict) }
    let shardRemedy = "measure it without --shard"
    if let refused = refuseShardedStandardInput(options, doing: shardRemedy) { return refused }
    if let refused = refuseReportOnStandardError(options) { return refused }
    // What `report` measures is a conversion to `measuredFormat`: what convert refuses for that format
    // (--alpha keep or --align for a Y4M or JPEG, --depth 10 for nv12, sharp chroma for a 10-bit layout) is
    // refused here too, not reported as sizes no output can have.
    let measured = options.measuredFormat
    if let need = options.rawOnlyNeeds().first(where: { !measured.carries($0) }) {
        return usageFailure(OutputFormat.Refusal.rawOnly(need, measured).cliMessage)
    }
    // Options that do nothing for the conversion measured, as convert names them (-0 without a list, --chroma-loc
    // for a PNG or JPEG, --primaries with colour management off, …).
    for w in options.ignoredOptionWarnings(format: measured, rawInput: false, report: true) { printErr("yuvconv: warning: \(w)") }
    // One file named (no folder, no list): -r, -j and --fail-fast do nothing, as convert says of one.
    if options.namesOneFile, let w = options.batchOnlyWarning { printErr("yuvconv: warning: \(w)") }
    // -v shows each converted image's line above a batch's progress line: `report` prints no such lines (its
    // report holds every image), one file or many.
    if options.given.contains("--verbose") {
        printErr("yuvconv: warning: -v shows each converted image's line above a batch's progress line; report prints "
                 + "none (its report holds every image), so it is ignored")
    }
    let selection: BatchSelection, protected: SortedIdentities
    var unread = 0
    do throws(BatchPlanError) {
        let inputs = try gatherInputs(options, standardInput: true)
        unread = inputs.unreadFolderCount
        if let refused = refuseShardedStandardInput(options, inputs: inputs, doing: shardRemedy) { return refused }
        // One file given twice under one path (`a.png ./a.png`, a list and its folder) would be counted twice:
        // refused over the whole batch, so every shard agrees, as convert refuses it. Two paths to one file (a
        // hard or symbolic link, in a backup tree say) are two inputs here as with convert's {dir}.
        if let (first, second) = try repeatedInput(inputs) {
            return planFailure(.sameOutput(first: first, second: second, output: first))
        }
        selection = try inputs.selection(shard: options.shard, keepOrder: true)
        protected = try selection.protected(listFile: inputs.listFile)
    } catch {
        return planFailure(error)
    }
    if let refused = refuseInputsAsStandardStreams(protected) { return refused }
    if let refused = refuseStandardStreamHazards(written: options.reportFile == nil ? [STDOUT_FILENO] : [], force: options.force,
                                                 replaced: options.reportFile.map { [$0] } ?? []) {
        return refused
    }
    // Standard error is none of the files this run reads or writes: the messages held until now go out.
    releaseMessages(drop: false)
    let reportSink: AtomicOutput?
    do { reportSink = try openReportFile(options, protected: protected) } catch { return fileFailure(error) }
    var run = BatchRun(options, count: selection.count, report: options.reportFormat ?? .text, to: reportSink)
    // One file at a time: its decoder and converter on two threads, as a single conversion.
    if run.threads == 1 { run.options.inBatch = false }
    let shared = UncheckedSendable(run.options)
    var items = selection.reader()
    run.start(next: { items.next() }) { item in measureOne(input: item.input, options: shared.value) }
    let status = run.finish(summary: "measured", skipped: nil, always: false)
    if let error = selection.readFailure {
        printErr("yuvconv: error: \(error.cli)")
        return statusAfterUnreadFolders(max(status, 1), unread)
    }
    return statusAfterUnreadFolders(status, unread)
}

/// The file among `inputs` whose second mention comes first in input order (the same identity and the same path,
/// once `.` and `..` are taken out), as its two paths in that order; nil when none. Whichever files repeat, the
/// one named is the one a reader of the command meets first — not the first in an order of inode numbers. On
/// disk (a sort of identity, name and position records): flat in the number of files.
func repeatedInput(_ inputs: BatchInputs) throws(BatchPlanError) -> (String, String)? {
    let whole = try inputs.selection(shard: nil, keepOrder: true)   // in the order given
    let keys = Spool()
    let here = currentFolder().pathParts   // once, not a getcwd an input
    func key(_ input: String) -> [UInt8] {
        // A path that reaches nothing (gone, unreadable) by its name alone: `gone.png ./gone.png` is one input
        // given twice, refused as convert refuses it (it was two failed rows in the totals).
        let id = inputIdentity(input) ?? FileIdentity(device: 0, inode: 0)
        let name = PathBytes.encode(lexicalPath(input, in: here))
        // A path holds no NUL: the 0 ends the name, so a name that begins another sorts wholly before it.
        return withUnsafeBytes(of: id.device.bigEndian, Array.init) + withUnsafeBytes(of: id.inode.bigEndian, Array.init)
            + name + [0]
    }
    var r = whole.reader(), position: UInt64 = 0
    while let item = r.next() {
        keys.appendRecord(key(item.input) + withUnsafeBytes(of: position.bigEndian, Array.init))
        position += 1
    }
    // Sorted, one file's mentions are together in input order: its first record is its first mention, its
    // second where it repeats. The repeat named: the one whose second mention comes first.
    var named: (first: UInt64, second: UInt64)?
    do throws(FileError) {
        try keys.seal()
        let sorted = try keys.sortedRecords()
        var reader = sorted.reader(), last: [UInt8] = [], seen = 0, firstOfKey: UInt64 = 0
        while let rec = reader.nextRecord() {
            let k = Array(rec.dropLast(8)), at = rec.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            seen = k == last ? seen + 1 : 1
            if seen == 1 { firstOfKey = at }
            if seen == 2, named.map({ at < $0.second }) ?? true { named = (firstOfKey, at) }
            last = k
        }
    } catch {
        throw .file(error)
    }
    guard let named else { return nil }
    // The two paths by their positions, in one more read of the inputs.
    var again = whole.reader(), at: UInt64 = 0, first: String?
    while let item = again.next() {
        if at == named.first { first = item.input }
        if at == named.second, let first { return (first, item.input) }
        at += 1
    }
    return nil
}

/// The path as written, made absolute (from `here`, the current folder's parts) and without `.`, `..` or doubled
/// slashes — links not followed: a link is another name for a file, as a hard link is.
func lexicalPath(_ input: String, in here: [String] = currentFolder().pathParts) -> String {
    var parts: [String] = input.isAbsolutePath ? [] : here
    for part in input.pathParts where part != "." {
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }
    return "/" + parts.joined(separator: "/")
}

/// Converts `input` in memory and measures it, for `report`.
func measureOne(input: String, options: Options) -> Outcome {
    let name = displayPath(input), layout = options.layout(for: options.measuredFormat)
    let decodeOptions = options.decodeOptions
    // One admission for the conversion and sharp chroma's second reading (as `convertOne`).
    let admitted = Ledger.beginWork()
    defer { if admitted { Ledger.endWork() } }
    do throws(FileError) {
        // The conversion streams into nothing, as a file conversion streams: its memory figures are a real
        // conversion's, with --metrics too (measured as the bands pass).
        let (spec, siting) = options.made(for: options.measuredFormat)
        var report = try convert(path: input, spec: spec, layout: layout, into: DiscardSink(fitting: options.measuredFormat),
                                 options: decodeOptions, metrics: options.metrics, siting: siting)
        // Sharp chroma's gain over the box, from a second reading (after the first has released what it held).
        if let box = try boxBilinearPSNR(path: input, report: report, spec: spec, layout: layout, options: decodeOptions,
                                         siting: siting) {
            report.quality?.psnrRGBBilinearBox = box
        }
        let peak = peakResidentBytes()
        // Said on standard error as a conversion says it (the report's `warnings` only counts them).
        warnAboutDecoding(name: name, report: report)
        let record = options.record(file: name, report: report, quality: report.quality, peakRSS: peak,
                                    format: options.measuredFormat)
        return Outcome(record: record, failure: nil)
    } catch {
        // `report` writes nothing of an image: an interrupted one is said as not measured, not as "(nothing
        // written)", the words a conversion's interrupted file gets.
        let said = error.reason == DecodeError.interrupted.reason
            ? FileError(path: error.path, reason: "interrupted before it was measured") : error
        return .failed(input, said, alignment: options.reportAlignment)
    }
}

extension Options {
    /// The output `report` measures a conversion to: --format, else NV12 — P010 with --depth 10, its 10-bit
    /// kin (convert names the output, so it refuses --depth 10 for a .nv12; report has no name to go by).
    var measuredFormat: OutputFormat { format ?? .raw(depth == 10 ? .p010 : .nv12) }
}
