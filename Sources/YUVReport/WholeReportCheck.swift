/// Whether a file is exactly one report this program writes, read whole: `ReportFormat.isReport` looks at its two
/// ends only, and a file that begins and ends as a report can hold more — several runs' reports concatenated
/// (`>>`, as JSON Lines invite) or lines of someone's own between them. `--update` replaces only one report, so
/// such a file is not one: fed the file's bytes in order (`feed`), `isWholeReport` says whether every record is
/// of the one report's shape and its totals come once, at the end.
///
/// - JSON Lines: every line an image's record or the totals', the totals once and last.
/// - CSV: the header once and first; every record as many fields as it (quoted fields followed); the TOTAL row
///   once and last.
/// - text: the heading once and first; the rule once; after it the totals, the memory line and at most the
///   quality lines (the image lines before the rule are free text).
/// - HTML: the page's start once and first, its end once and last (its body is free text).
public struct WholeReportCheck {
    private enum Kind { case json, csv, text, html }
    private var kind: Kind?
    private var record: [UInt8] = []
    private var inQuotes = false
    private var fields = 1
    private var records = 0
    private var failed = false
    /// JSON, CSV: the totals seen, and whether the last record was them. Text: 0 body, 1 after the rule,
    /// 2 after the totals line, 3 after the memory line. HTML: the end seen.
    private var totals = 0
    private var lastWasTotals = false
    private var textState = 0
    private var headerFields = 0

    /// A record longer than this is no report's (a report's longest line is an image's JSON record, a few KiB).
    static let longestRecord = 1 << 20

    public init() {}

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes {
            if failed { return }
            if b == UInt8(ascii: "\"") && kind == .csv { inQuotes.toggle() }
            if b == UInt8(ascii: ",") && kind == .csv && !inQuotes { fields += 1 }
            if b == UInt8(ascii: "\n") && !inQuotes {
                take()
                continue
            }
            record.append(b)
            if record.count > Self.longestRecord { failed = true }
        }
    }

    /// After the last bytes: whether the file was one whole report.
    public mutating func isWholeReport() -> Bool {
        if !record.isEmpty { take() }
        guard !failed, records > 0, let kind else { return false }
        switch kind {
        case .json, .csv: return totals == 1 && lastWasTotals
        case .text: return textState == 3
        case .html: return totals == 1 && lastWasTotals
        }
    }

    private mutating func take() {
        defer {
            record.removeAll(keepingCapacity: true)
            fields = 1
            inQuotes = false
        }
        if record.last == UInt8(ascii: "\r") { record.removeLast() }
        let line = String(decoding: record, as: UTF8.self)
        records += 1
        if records == 1 {
            if line.hasPrefix("{\"type\": \"") { kind = .json }
            else if line == csvHeader() { kind = .csv; headerFields = Column.csv.count }
            else if line.hasPrefix(String(textHeading().prefix(40))) { kind = .text; return }
            else if line.hasPrefix("<!DOCTYPE html>") { kind = .html }
            else { failed = true; return }
            if kind == .csv { return }
        }
        if lastWasTotals && kind != .text && !(kind == .html && line.isEmpty) {
            failed = true   // anything after the totals (or the page's end)
            return
        }
        switch kind! {
        case .json:
            if line.hasPrefix("{\"type\": \"totals\", \"images\": ") && line.hasSuffix("}") {
                totals += 1
                lastWasTotals = true
            } else if !(line.hasPrefix("{\"type\": \"image\", \"file\": ") && line.hasSuffix("}")) {
                failed = true
            }
        case .csv:
            if fields != headerFields || line == csvHeader() { failed = true }
            else if line.hasPrefix("\"TOTAL (") {
                totals += 1
                lastWasTotals = true
            }
        case .text:
            let rule = String(repeating: "-", count: 80)
            switch textState {
            case 0:
                if line == rule { textState = 1 }
                else if line.hasPrefix(String(textHeading().prefix(40))) || line.hasPrefix("total: ") { failed = true }
            case 1: if line.hasPrefix("total: ") { textState = 2 } else { failed = true }
            case 2: if line.hasPrefix("memory: peak RSS ") { textState = 3 } else { failed = true }
            default: if !(line.hasPrefix("quality: ") || line.hasPrefix("         ")) { failed = true }
            }
        case .html:
            if line.contains("<!DOCTYPE html>") && records > 1 { failed = true }
            else if line.contains("</html>") {
                if line != "</html>" { failed = true }
                totals += 1
                lastWasTotals = true
            }
        }
        if totals > 1 { failed = true }
    }
}
