import YUVCore
import YUVIO

// The output names a batch's `--name` template gives (its placeholders, expanded), and the template a name clash's
// message offers instead (BatchPlan.swift plans the batch with them).
extension BatchPlan {
    /// The placeholders `outputName` expands.
    public static let placeholders: Set<Substring> = ["{stem}", "{name}", "{dir}", "{ext}", "{format}"]

    /// The first `{word}` of `template` that is not a placeholder, if any.
    /// A brace left unmatched (`x{stem`, `{stem}}`) is one too: it would have become part of every name.
    /// By scalar, as `expand` reads the template: a brace that a mark joins into one Character is still a brace
    /// (`\u{6DD}{stem}.{ext}` was refused as an unmatched `}`).
    static func unknownPlaceholder(in template: String) -> String? {
        let t = Array(template.unicodeScalars)
        var i = 0
        while let open = t[i...].firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard t[open] == "{", let close = t[open...].firstIndex(of: "}") else { return String(scalars: t[open...]) }
            let token = String(scalars: t[open...close])
            if !placeholders.contains(Substring(token)) { return token }
            i = close + 1
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
        // The two inputs by their scalars: one name in NFC and in NFD are two files (`==` takes them as one).
        var all: [BatchItem] = [], x: BatchItem?, y: BatchItem?, whole = true, records = planned.reader()
        while let r = records.nextRecord() {
            let (input, dir, _) = plannedFields(r)
            let item = BatchItem(input: PathBytes.decode(input), dir: PathBytes.decode(dir))
            if x == nil && item.input.sameScalars(a) { x = item } else if y == nil && item.input.sameScalars(b) { y = item }
            if whole && all.count < checkedWhole { all.append(item) } else { whole = false }
            if !whole && x != nil && y != nil { break }
        }
        guard let x, let y else { return nil }
        let named = template.replacingAll("{stem}", "{name}")
        // First the template under its folder, as it is: files of one name in two folders need only their {dir}
        // (`x.png` then stays `x.nv12`, not `x.png.nv12`, which {name} gives).
        var candidates = template.containsScalars("{dir}") ? [named] : ["{dir}/" + template, named]
        if !named.containsScalars("{dir}") { candidates.append("{dir}/" + named) }
        // A template that names its own format (`o.png`, `o-{format}.jpg`): the input's stem or name in its
        // place, the extension kept — `{name}.{ext}` would change the format, so `--name o.png` clashing got no hint.
        let t = Array(template.unicodeScalars), slash = t.lastIndex(of: "/")
        let folder = slash.map { String(scalars: t[...$0]) } ?? "", lastScalars = slash.map { Array(t[($0 + 1)...]) } ?? t
        if let dot = lastScalars.lastIndex(of: "."), case let ext = String(scalars: lastScalars[(dot + 1)...]),
           !ext.isEmpty, !ext.containsScalars("{"), !ext.containsScalars("}") {
            for stem in ["{stem}", "{name}"] {
                candidates += [folder + stem + "." + ext, (folder.containsScalars("{dir}") ? folder : "{dir}/" + folder) + stem + "." + ext]
            }
        }
        candidates += ["{name}.{ext}", "{dir}/{name}.{ext}"]
        let ownFormat = try? OutputFormat.resolve(asked: nil, path: outputName(template, item: x, format: format))
        let separating = candidates.filter {
            let (nx, ny) = (outputName($0, item: x, format: format), outputName($0, item: y, format: format))
            return $0 != template && !nx.sameScalars(ny)
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
        // Names by their scalars, as the plan keys outputs (one name in NFC and in NFD: two files).
        func separatesAll(_ candidate: String) -> Bool {
            var seen = Set<[Unicode.Scalar]>()
            for item in all {
                let name = outputName(candidate, item: item, format: format)
                if !seen.insert(Array(name.unicodeScalars)).inserted || AtomicOutput.reservedNameProblem(name) != nil
                    || isInput(name) {
                    return false
                }
            }
            for name in seen {
                let parts = String(scalars: name).pathParts
                for k in stride(from: 1, to: parts.count, by: 1)
                    where seen.contains(Array(parts[..<k].joined(separator: "/").unicodeScalars)) {
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
