import YUVCore
import YUVIO

// The output names a batch's `--name` template gives (its placeholders, expanded), and the template a name clash's
// message offers instead (BatchPlan.swift plans the batch with them).
extension BatchPlan {
    /// The placeholders `outputName` expands.
    public static let placeholders: Set<Substring> = ["{stem}", "{name}", "{dir}", "{ext}", "{format}"]

    /// The first `{word}` of `template` that is not a placeholder, if any.
    /// A brace left unmatched (`x{stem`, `{stem}}`) is one too: it would have become part of every name.
    static func unknownPlaceholder(in template: String) -> String? {
        var rest = template[...]
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else { return String(rest[open...]) }
            let token = rest[open...close]
            if !placeholders.contains(token) { return String(token) }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }

    /// Expands the name template for one input: `{stem}`, `{name}` (the input's file name without and with its
    /// extension), `{dir}` (its folder below the folder argument), and `{ext}` and `{format}`, those of
    /// `format` (what was asked for, NV12 by default); the expanded name's own extension then decides what is
    /// written. Doubled and leading slashes and leading "./" are dropped.
    /// The template with each `{key}` replaced by its value, in one pass over the template's scalars: the
    /// values are never read as templates themselves (an input named `{ext}.png` is that name), and a value that
    /// begins with a combining mark cannot join the `}` before it into one Character that a String search for
    /// the next placeholder misses (`{format}{stem}` once gave `{format}́img.nv12`).
    static func expand(_ template: String, _ values: [String: String]) -> String {
        let t = Array(template.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < t.count {
            if t[i] == "{", let close = t[(i + 1)...].firstIndex(of: "}"),
               let value = values[String(String.UnicodeScalarView(t[(i + 1)..<close]))] {
                out.append(contentsOf: value.unicodeScalars)
                i = close + 1
            } else {
                out.append(t[i])
                i += 1
            }
        }
        return String(out)
    }

    public static func outputName(_ template: String, item: BatchItem, format: OutputFormat) -> String {
        let base = item.input.pathParts.last ?? item.input
        let stem = base.around(last: ".")?.0 ?? base
        let name = expand(template, ["stem": stem, "name": base, "ext": format.fileExtension, "format": format.name,
                                     "dir": item.dir])
        // By scalar (`pathParts`): a `/` before a combining mark is one Character with it, and a String's
        // hasPrefix("/") kept it — every top-level input of '{dir}/{stem}.nv12' whose name began with one was then
        // "reached through a link" to --update. A trailing `/` is kept (no file name: refused).
        var parts = name.pathParts
        while parts.first == "." { parts.removeFirst() }
        return parts.joined(separator: "/") + (name.unicodeScalars.last == "/" && !parts.isEmpty ? "/" : "")
    }

    /// A name template for the clash's hint: one that gives inputs `a` and `b` (as planned, with their `{dir}`)
    /// two names and — in a batch of at most `checkedWhole` files — every planned input a name of its own, so
    /// that the hint does not lead to the next clash (a tree with files that differ by extension and files of
    /// one name in two folders). Tried in turn: `template` under `{dir}/`, then with `{name}` for `{stem}` (a
    /// `{stem}.y4m` stays Y4M), then that with `{dir}/` before it, then the plain `{name}.{ext}` and `{dir}/{name}.{ext}` (a template
    /// naming neither). None that names an output as `--update`'s manifest (or its lock or journal), which every
    /// file would then be refused. Without one for the whole batch, the first that separates the two, said to be
    /// so (`separatesAll` false: following it meets the next clash); nil when none does (files of one name whose
    /// `{dir}` is empty, given one by one or as a folder's contents).
    /// Without `--format` (`asked` false), none whose extension would change the outputs' format (`{stem}` → `{name}`
    /// turned the raw outputs of an extensionless template into PNGs).
    static func separatingTemplate(_ template: String, _ a: String, _ b: String, among planned: Spool,
                                   format: OutputFormat, asked: Bool = true, outputFolder: BatchOutputFolder? = nil,
                                   checkedWhole: Int = 100_000) -> (template: String, separatesAll: Bool)? {
        var all: [BatchItem] = [], pair: [String: BatchItem] = [:], whole = true, records = planned.reader()
        while let r = records.nextRecord() {
            let (input, dir, _) = plannedFields(r)
            let item = BatchItem(input: PathBytes.decode(input), dir: PathBytes.decode(dir))
            if (item.input == a || item.input == b) && pair[item.input] == nil { pair[item.input] = item }
            if whole && all.count < checkedWhole { all.append(item) } else { whole = false }
            if !whole && pair.count == 2 { break }
        }
        guard let x = pair[a], let y = pair[b] else { return nil }
        let named = template.contains("{stem}") ? template.replacingAll("{stem}", "{name}") : template
        // First the template under its folder, as it is: files of one name in two folders need only their {dir}
        // (`x.png` then stays `x.nv12`, not `x.png.nv12`, which {name} gives).
        var candidates = template.contains("{dir}") ? [named] : ["{dir}/" + template, named]
        if !named.contains("{dir}") { candidates.append("{dir}/" + named) }
        // A template that names its own format (`o.png`, `o-{format}.jpg`): the input's stem or name in its
        // place, the extension kept — `{name}.{ext}` would change the format, so `--name o.png` clashing got no hint.
        let slash = template.lastIndex(of: "/")
        let folder = slash.map { String(template[...$0]) } ?? "", last = slash.map { String(template[template.index(after: $0)...]) } ?? template
        if let dot = last.lastIndex(of: "."), case let ext = last[last.index(after: dot)...],
           !ext.isEmpty, !ext.contains("{"), !ext.contains("}") {
            for stem in ["{stem}", "{name}"] {
                candidates += [folder + stem + "." + ext, (folder.contains("{dir}") ? folder : "{dir}/" + folder) + stem + "." + ext]
            }
        }
        candidates += ["{name}.{ext}", "{dir}/{name}.{ext}"]
        let ownFormat = try? OutputFormat.resolve(asked: nil, path: outputName(template, item: x, format: format))
        let separating = candidates.filter {
            let (nx, ny) = (outputName($0, item: x, format: format), outputName($0, item: y, format: format))
            return $0 != template && nx != ny
                && AtomicOutput.reservedNameProblem(nx) == nil && AtomicOutput.reservedNameProblem(ny) == nil
                && (asked || ownFormat == nil || (try? OutputFormat.resolve(asked: nil, path: nx)) == ownFormat)
        }
        // For the whole batch: every name its own, none a manifest's, none the folder of another (`p` and `p/x`:
        // refused as a file that is also a folder), and none an input of the batch (`{stem}.png` for `a.png` in its
        // own folder: refused as overwriting an input) — else following the hint meets the next refusal.
        var inputs: Set<FileIdentity>?
        func isInput(_ name: String) -> Bool {
            // By the path resolved too, as the plan's own check does (`in/w/../a.png` before `in/w` is made).
            guard let outputFolder else { return false }
            let path = outputFolder.path(of: name)
            guard let (st, at) = statusResolving(path) else { return false }
            if inputs == nil { inputs = Set((all + [x, y]).flatMap { inputIdentities($0.input) }) }
            return inputs!.holds(st, at: at)
        }
        func separatesAll(_ candidate: String) -> Bool {
            var seen = Set<String>()
            for item in all {
                let name = outputName(candidate, item: item, format: format)
                if !seen.insert(name).inserted || AtomicOutput.reservedNameProblem(name) != nil || isInput(name) { return false }
            }
            for name in seen {
                let parts = name.pathParts
                for k in stride(from: 1, to: parts.count, by: 1) where seen.contains(parts[..<k].joined(separator: "/")) {
                    return false
                }
            }
            return true
        }
        if whole, let candidate = separating.first(where: separatesAll) { return (candidate, true) }
        // (A batch too large to try whole, or none that tells every file apart: the pair's, one that names neither of
        // them as an input when there is one.)
        let clear = separating.first { !isInput(outputName($0, item: x, format: format)) && !isInput(outputName($0, item: y, format: format)) }
        return (clear ?? separating.first).map { ($0, !whole) }
    }
}
