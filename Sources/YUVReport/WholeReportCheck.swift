/// Whether a file is exactly one report this program writes, read whole: `ReportFormat.isReport` looks at its two
/// ends only, and a file that begins and ends as a report can hold more — several runs' reports concatenated
/// (`>>`, as JSON Lines invite) or lines of someone's own between them. `--update` replaces only one report, so
/// such a file is not one: fed the file's bytes in order (`feed`), `isWholeReport` says whether every record is
/// of the one report's shape and its totals end it.
///
/// - JSON Lines: every line an image's record or the totals', the totals once and last.
/// - CSV: the header once and first; every record as many fields as it (quoted fields followed); the last record
///   the TOTAL row (an image's row may begin so too: a file named `TOTAL (a,b).png`).
/// - text: the heading once and first; the rule once; after it the totals, the memory line and at most the
///   quality lines (the image lines before the rule are free text: a file may be named `total: x.png`).
/// - HTML: the page's start once and first, its end once and last (its body is free text).
///
/// Records are found a buffer at a time (`firstIndex(of:)`), not byte by byte: a report of a million images is
/// read at the disk's speed.
public struct WholeReportCheck {
    private enum Kind { case json, csv, text, html }
    private var kind: Kind?
    /// The record being read: the bytes of it seen so far, and (CSV) how many quotes they hold — a newline after
    /// an odd number of them is inside a quoted field.
    private var record: [UInt8] = []
    private var quotes = 0
    private var records = 0
    private var failed = false
    /// JSON: the totals seen, and whether the last record was them. Text: 0 body, 1 after the rule, 2 after the
    /// totals line, 3 after the memory line. HTML: the page's end seen. CSV: the TOTAL rows seen, and whether the
    /// last record is one.
    private var totals = 0
    private var lastWasTotals = false
    private var textState = 0

    /// A record longer than this is no report's (a report's longest line is an image's JSON record, a few KiB).
    static let longestRecord = 1 << 20

    public init() {}

    /// Already known not to be one report: the rest need not be read.
    public var isRefused: Bool { failed }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !failed, !rest.isEmpty {
            guard let nl = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                append(rest)
                return
            }
            append(rest[..<nl])
            rest = rest[(nl + 1)...]
            if kind == .csv && quotes % 2 == 1 {
                record.append(UInt8(ascii: "\n"))   // inside a quoted field
                continue
            }
            take()
        }
    }

    private mutating func append(_ bytes: Slice<UnsafeRawBufferPointer>) {
        if kind == .csv { quotes += bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\"") ? 1 : 0) } }
        record.append(contentsOf: bytes)
        if record.count > Self.longestRecord { failed = true }
    }

    /// After the last bytes: whether the file was one whole report.
    public mutating func isWholeReport() -> Bool {
        if !record.isEmpty { take() }
        guard !failed, records > 0, let kind else { return false }
        switch kind {
        case .json, .html: return totals == 1 && lastWasTotals
        case .csv: return records > 1 && totals == 1 && lastWasTotals
        case .text: return textState == 3
        }
    }

    /// The CSV record's fields, quoted ones followed (a comma inside quotes is not a separator).
    private func csvFields() -> Int {
        var n = 1, inQuotes = false
        for b in record {
            if b == UInt8(ascii: "\"") { inQuotes.toggle() } else if b == UInt8(ascii: ","), !inQuotes { n += 1 }
        }
        return n
    }

    /// Whether the record's `error` and `format` fields (the third and fourth) are empty: so is a TOTAL row's, and
    /// never an image's (a converted one names its format, a failed one its error).
    private func csvErrorAndFormatEmpty() -> Bool {
        var field = 0, inQuotes = false, filled = false
        for b in record {
            if b == UInt8(ascii: "\"") { inQuotes.toggle() }
            if b == UInt8(ascii: ","), !inQuotes {
                field += 1
                if field > 3 { break }
            } else if field == 2 || field == 3 {
                filled = true
            }
        }
        return !filled
    }

    private mutating func take() {
        defer {
            record.removeAll(keepingCapacity: true)
            quotes = 0
        }
        if record.last == UInt8(ascii: "\r") { record.removeLast() }
        typealias M = ReportMarks
        let line = String(decoding: record, as: UTF8.self)
        records += 1
        if records == 1 {
            if line.hasPrefix("{\"type\": \"") { kind = .json }
            else if line == M.csvHeaderLine { kind = .csv; return }
            else if line.hasPrefix(M.textHeadingStart) { kind = .text; return }
            else if line.hasPrefix(M.htmlStart) { kind = .html }
            else { failed = true; return }
        }
        switch kind! {
        case .json:
            if lastWasTotals { failed = true }   // anything after the totals
            else if line.hasPrefix(M.jsonTotals) && line.hasSuffix("}") {
                totals += 1
                lastWasTotals = true
            } else if !(line.hasPrefix(M.jsonImage) && line.hasSuffix("}")) {
                failed = true
            }
        case .csv:
            // Another report's header, or a record of another shape; the TOTAL row is the last record's.
            // Counted as JSON's and HTML's are: two runs' CSV appended without the second header has two TOTAL rows
            // (it was replaced by --update as one whole report). A TOTAL row by its caption and its empty error and
            // format: an image named `TOTAL (a,b).png` is an image's row.
            if line == M.csvHeaderLine || csvFields() != Column.csv.count { failed = true }
            lastWasTotals = line.hasPrefix(M.csvTotals) && csvErrorAndFormatEmpty()
            if lastWasTotals { totals += 1 }
        case .text:
            switch textState {
            case 0:
                if line == M.textRule { textState = 1 }
                else if line.hasPrefix(M.textHeadingStart) { failed = true }
            case 1: if line.hasPrefix(M.textTotals) { textState = 2 } else { failed = true }
            case 2: if line.hasPrefix(M.textMemory) { textState = 3 } else { failed = true }
            default: if !(line.hasPrefix(M.textQuality) || line.hasPrefix(M.textQualityMore)) { failed = true }
            }
        case .html:
            if lastWasTotals { failed = true }   // anything after the page's end, blank lines too
            else if line.contains(M.htmlStart) && records > 1 { failed = true }
            else if line.contains(M.htmlEnd) {
                if line != M.htmlEnd { failed = true }
                totals += 1
                lastWasTotals = true
            }
        }
    }
}
