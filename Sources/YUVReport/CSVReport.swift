// CSV (RFC 4180): a heading line, a row per image, a totals row; lines end in CRLF.

func csvLine(_ fields: [String]) -> String { fields.map(csvField).joined(separator: ",") }

public func csvHeader() -> String { csvLine(Column.csv.map { $0.key! }) }

public func csvRow(_ r: ImageRecord) -> String { csvLine(Column.csv.map { $0.value(r).csv }) }

/// The totals row: the captions, each summed column, each quality measure's worst.
public func csvTotals(_ t: Totals) -> String {
    csvLine(Column.csv.map { c in
        switch c.total {
        case .caption(let caption)?: return caption(t)
        case .sum(let total)?: return total(t).csv
        case .spread(let measure)?: return t.worst.map(measure)?.csv ?? ""
        case nil: return ""
        }
    })
}
