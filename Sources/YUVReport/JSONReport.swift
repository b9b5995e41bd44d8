// JSON Lines: an object per image ("type": "image"), then one of totals ("type": "totals"); docs/report.schema.json.

func jsonObject(_ fields: [(String, String)]) -> String {
    "{" + fields.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
}

/// One image: every column with a key, in order, but those that do not apply (a failed image has only its
/// file, ok and error).
public func jsonLine(_ r: ImageRecord) -> String {
    jsonObject([("type", jsonString("image"))] + Column.json.compactMap { c in c.value(r).json.map { (c.key!, $0) } })
}

/// The totals: how many images and failures, each summed column, then each quality measure's worst and median.
public func jsonTotals(_ t: Totals) -> String {
    var f: [(String, String)] = [("type", jsonString("totals")), ("images", "\(t.images)"), ("failed", "\(t.failed)"),
                                   ("skipped", "\(t.skipped)"), ("not_started", "\(t.notStarted)"),
                                   ("interrupted", t.interrupted ? "true" : "false")]
    for c in Column.json {
        if case .sum(let total)? = c.total { f.append((c.key!, total(t).json ?? "null")) }
    }
    for (name, q) in [("worst", t.worst), ("median", t.median)] {
        for c in Column.json {
            if case .spread(let measure)? = c.total { f.append(("\(name)_\(c.key!)", q.map(measure)?.json ?? "null")) }
        }
    }
    return jsonObject(f)
}
