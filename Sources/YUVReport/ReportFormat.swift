import YUVIO

/// The report's formats (`--report`).
public enum ReportFormat: String, CaseIterable, Sendable {
    case text, json, csv, html

    /// The columns this format shows (the text and HTML tables, or every field of a JSON or CSV line).
    var columns: [Column] {
        switch self {
        case .text: Column.textTable
        case .json: Column.json
        case .csv: Column.csv
        case .html: Column.htmlTable
        }
    }

    /// Whether a line of this format shows the output's size and SHA-256 (JSON and CSV): the output is hashed
    /// as it is written only for a report that shows the hash (or for `--update`'s manifest), as it costs about
    /// a fifth of a JPEG's conversion.
    public var showsOutputDigest: Bool { columns.contains { $0.key == "output_sha256" } }
}

/// What one image adds to a report, made by the thread that converted it: its text in the format, and the
/// figures the totals (and the HTML chart) need. A `ReportStream` then takes the pieces in order.
public struct ReportPiece: Sendable {
    let text: String
    let tally: Tally
    /// The HTML chart's bars: the file's label, the naive route's peak and this conversion's buffers, and the
    /// line under them (`htmlBarNote`: tight and aligned output sizes, the quality measured).
    let bar: (label: String, naive: Int, used: Int, note: String)?

    public init(_ r: ImageRecord, format: ReportFormat) {
        switch format {
        case .json: text = jsonLine(r)
        case .csv: text = csvRow(r)
        case .text: text = textLines(r)
        case .html: text = htmlImageRow(r)
        }
        tally = Tally(r)
        bar = format == .html ? r.report.map { (shorten(r.file, 30), r.naivePeak, $0.ledgerPeakBytes, htmlBarNote(r)) } : nil
    }
}

/// A report written as it goes: the heading at once, each image's piece as it is appended, the totals at the
/// end — so a batch keeps no image's record for its report. JSON Lines, CSV and the text table are written
/// straight through; the HTML page opens with the totals and a chart scaled to the largest image, so its
/// table rows and bars are set aside on disk (a `Spool`) and written after them. The bytes are those of
/// `renderReport` over the same records. Every piece ends at a line's end: text another stream writes in between
/// (standard error, into the same log) starts a line of its own, never the end of a report's line.
public final class ReportStream {
    public let format: ReportFormat
    private let write: (String) -> Void
    private let sum = TotalsAccumulator()
    private var images = 0
    /// HTML: the table's rows and the chart's bars, and the largest bar.
    private let rows = Spool(), bars = Spool()
    private var converted = 0, largest = 1

    public init(format: ReportFormat, write: @escaping (String) -> Void) {
        self.format = format
        self.write = write
        switch format {
        case .csv: write(csvHeader() + "\r\n")
        case .text: write(textHeading() + "\n")
        case .json, .html: break
        }
    }

    public func append(_ piece: ReportPiece) {
        switch format {
        case .json: write(piece.text + "\n")
        case .csv: write(piece.text + "\r\n")
        case .text: write(piece.text + "\n")
        case .html:
            rows.appendRecord(Array(piece.text.utf8))
            if let bar = piece.bar {
                bars.append(bigEndian: UInt64(bar.naive))
                bars.append(bigEndian: UInt64(bar.used))
                bars.appendRecord(Array(bar.label.utf8))
                bars.appendRecord(Array(bar.note.utf8))
                largest = max(largest, bar.naive, bar.used)
                converted += 1
            }
        }
        sum.add(piece.tally)
        images += 1
    }

    /// Writes the totals (for HTML, the whole page) with the run's peak memory; the totals written.
    @discardableResult
    public func finish(peakRSS: Int, notStarted: Int = 0, interrupted: Bool = false) throws(FileError) -> Totals {
        var t = try sum.totals(peakRSS: peakRSS)
        (t.notStarted, t.interrupted) = (notStarted, interrupted)
        switch format {
        case .json: write(jsonTotals(t) + "\n")
        case .csv: write(csvTotals(t) + "\r\n")
        case .text: write(textTotals(t) + "\n")
        case .html:
            try rows.seal()
            try bars.seal()
            writeHTML(t)
            try rows.seal()
            try bars.seal()
        }
        return t
    }

    private func writeHTML(_ t: Totals) {
        write(htmlHead(t))
        // The chart is for looking at: past `htmlChartLimit` images (76 px each: 20,000 made it 1.5 million px
        // tall, 7.6 MB of the page before its table) it shows the first ones and says so; the table has all.
        let shown = min(converted, htmlChartLimit)
        if shown < converted {
            write("<p>The chart shows the first \(shown) of the \(converted) images converted; the table lists every one.</p>\n")
        }
        write(htmlChartStart(bars: shown))
        var out = "", i = 0, reader = bars.reader()
        while i < shown, let naive = reader.readBigEndian(), let used = reader.readBigEndian(),
              let label = reader.nextRecord(), let note = reader.nextRecord() {
            out += htmlBar(index: i, label: String(decoding: label, as: UTF8.self), naive: Int(naive), used: Int(used),
                           largest: largest, note: String(decoding: note, as: UTF8.self))
            i += 1
            if out.utf8.count > 1 << 16 { write(out); out = "" }
        }
        write(out + "</svg>\n" + htmlTableStart())
        out = ""
        var table = rows.reader()
        while let row = table.nextRecord() {
            out += String(decoding: row, as: UTF8.self) + "\n"
            if out.utf8.count > 1 << 16 { write(out); out = "" }
        }
        write(out + htmlTail(t))
    }
}

/// The whole report in a format (JSON Lines: one object per image, then the totals object), as a
/// `ReportStream` writes it; the peak memory of the totals is `peakRSS`, else the highest of the records'.
public func renderReport(_ records: [ImageRecord], format: ReportFormat, peakRSS: Int? = nil) -> String {
    var out = ""
    let stream = ReportStream(format: format) { out += $0 }
    for r in records { stream.append(ReportPiece(r, format: format)) }
    // Small enough to stay in memory: nothing to fail.
    _ = try? stream.finish(peakRSS: peakRSS ?? records.map(\.peakRSS).max() ?? 0)
    return out
}

/// The lines and line starts that mark a report's parts, as the renderers write them: what `isReport` and
/// `WholeReportCheck` recognise a report by (computed once: the check compares every record of a file with them).
enum ReportMarks {
    static let jsonImage = "{\"type\": \"image\", \"file\": "
    static let jsonTotals = "{\"type\": \"totals\", \"images\": "
    static let csvHeaderLine = csvHeader()
    static let csvTotals = "\"TOTAL ("
    /// The text table's heading, as far as it is the same whatever the report holds.
    static let textHeadingStart = String(textHeading().prefix(40))
    static let textRule = String(repeating: "-", count: 80)
    static let textTotals = "total: ", textMemory = "memory: peak RSS "
    static let textQuality = "quality: ", textQualityMore = "         "
    static let htmlStart = "<!DOCTYPE html>", htmlEnd = "</html>"
}

extension ReportFormat {
    /// Whether a file is a whole report this program writes, in any format, from its first bytes (`head`, up to
    /// 512) and its last (`tail`, up to 4 KiB): JSON Lines of records (an image's or the totals') ending with the
    /// totals, the CSV header's first columns and the TOTAL row last, the text table's heading and its totals at the
    /// end, the HTML page's head and its end. `--update` remakes its report each run, but replaces only such a file
    /// (or an empty one) without `--force` — never a photo, notes or a dataset that happen to be at that name.
    public static func isReport(head: [UInt8], tail: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        // The end too: a file that only begins as a report does is someone else's (a JSON Lines dataset whose first
        // line is `{"type": "image", "file": …}`, as Python's json.dumps writes it, was replaced by an --update run).
        // A report file is put in place whole, so its end is its totals.
        let end = String(decoding: tail, as: UTF8.self)
        let lines = end.split(whereSeparator: \.isNewline)   // CSV's "\r\n" is one Character
        let last = lines.last.map(String.init) ?? ""
        // A JSON report's first line is an image's or (no inputs) the totals': GeoJSON and JSON Schema files start
        // `{"type": "` too.
        typealias M = ReportMarks
        if text.hasPrefix(M.jsonImage) || text.hasPrefix(M.jsonTotals) {
            return last.hasPrefix(M.jsonTotals) && last.hasSuffix("}")
        }
        if text.hasPrefix(M.csvHeaderLine.prefix(40)) { return last.hasPrefix(M.csvTotals) }
        if text.hasPrefix(M.textHeadingStart) {
            // The totals end it: "total: …", "memory: peak RSS …", then at most the quality lines.
            guard let memory = lines.lastIndex(where: { $0.hasPrefix(M.textMemory) }), memory > 0,
                  lines[memory - 1].hasPrefix(M.textTotals) else { return false }
            return lines[(memory + 1)...].allSatisfy { $0.hasPrefix(M.textQuality) || $0.hasPrefix(M.textQualityMore) }
        }
        return text.hasPrefix(M.htmlStart) && text.contains("<title>yuvconv memory report</title>") && last == M.htmlEnd
    }
}
