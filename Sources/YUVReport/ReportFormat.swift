/// The report's formats (`--report`).
public enum ReportFormat: String, CaseIterable, Sendable {
    case text, json, csv, html
}

/// The whole report in a format (JSON Lines: one object per image, then the totals object).
public func renderReport(_ records: [ImageRecord], format: ReportFormat) -> String {
    let t = Totals(records)
    switch format {
    case .text: return textReport(records, t)
    case .json: return (records.map(jsonLine) + [jsonTotals(t)]).joined(separator: "\n")
    case .csv: return ([csvHeader()] + records.map(csvRow) + [csvTotals(t)]).joined(separator: "\r\n")
    case .html: return htmlReport(records, t)
    }
}
