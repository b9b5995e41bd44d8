import YUVCore
import YUVIO
import YUVReport

/// One command-line option: the names it answers to, whether it takes a value, its help, and what it does.
/// The table (`OptionSpec.groups`) drives the parser, the "takes no value" check and the help's option lines.
struct OptionSpec: Sendable {
    /// Every name it answers to. The help shows the first short (-x) and the first long (--name) one;
    /// further names are aliases (--pix_fmt, FFmpeg's spelling).
    let names: [String]
    /// The value's placeholder in the help (PATH, N); nil for a flag, which takes no value.
    let value: String?
    /// Its help, a line per line of the help text.
    let help: [String]
    /// A short option whose value may be joined to it: -ofile, -j4.
    let joinsValue: Bool
    /// What a shell completes for its value (the completion scripts of `--completion`).
    let completes: ValueCompletion
    /// Why `yuvconv report` refuses it (it only shapes written images), completing "report …"; nil when
    /// report takes it.
    let notInReport: String?
    /// One line on what the option is about, for the completion scripts, when its help begins with its values
    /// ("nv12 (default), nv21, …": a description of one value, not of the option); nil: the help's first clause.
    let summary: String?
    /// It names a file the run reads or writes (-o, --files-from, --report-file): refused given twice, since the
    /// second would take the first one's place and drop it without a word.
    let once: Bool
    /// Applies it: the option as written (for messages) and its value ("" for a flag).
    let apply: @Sendable (inout Options, _ flag: String, _ value: String) throws(UsageError) -> Void

    /// An option that takes a value.
    init(_ names: [String], _ value: String, joined: Bool = false, completes: ValueCompletion = .anything,
         summary: String? = nil, notInReport: String? = nil, once: Bool = false, _ help: [String],
         _ apply: @escaping @Sendable (inout Options, _ flag: String, _ value: String) throws(UsageError) -> Void) {
        (self.names, self.value, self.help, self.joinsValue, self.apply) = (names, value, help, joined, apply)
        self.once = once
        self.completes = completes
        self.summary = summary
        self.notInReport = notInReport
    }

    /// A flag.
    init(_ names: [String], notInReport: String? = nil, _ help: [String], _ set: @escaping @Sendable (inout Options) -> Void) {
        (self.names, self.value, self.help, self.joinsValue, self.completes) = (names, nil, help, false, .anything)
        self.summary = nil
        self.notInReport = notInReport
        self.once = false
        self.apply = { o, _, _ in set(&o) }
    }

    /// The first short (-x) and the first long (--name) name: the ones the help shows.
    var shortName: String? { names.first { !$0.hasPrefix("--") } }
    var longName: String? { names.first { $0.hasPrefix("--") } }

    /// The help's line for it: names and placeholder, then the help from column 27.
    var helpLines: String {
        let short = shortName, long = longName
        let label = "  " + (short.map { $0 + (long == nil ? "" : ", ") } ?? "    ") + (long ?? "")
            + (value.map { " " + $0 } ?? "")
        let indent = String(repeating: " ", count: 27)
        return help.enumerated().map { i, line in
            i == 0 ? label + HelpParts.pad(label, 27) + line : indent + line
        }.joined(separator: "\n")
    }

    /// A value that is one of a set of names: `parse` it, or say which names there are.
    static func named<T>(_ text: String, _ what: String, _ choices: String, _ parse: (String) -> T?) throws(UsageError) -> T {
        // Any case, as the format names always were (`--report JSON`, `--orientation AUTO`).
        guard let v = parse(text) ?? parse(text.lowercased()) else { throw UsageError(message: "unknown \(what) '\(text)' (\(choices))") }
        return v
    }

    /// Whether `arg` is a word of short options together, as getopt reads it (`-qy`, `-qo out`, `-qoout`): the letters
    /// in turn, each a known flag up to one that takes a value, which takes the rest of the word or, with none left,
    /// the next argument. Not a long option, one letter, a first letter that takes a value (`-fnv21` is -f nv21), nor
    /// a word with a letter before the value's that is unknown or '-' (`-help`, `-q-`). `CommandWords` asks.
    static func isCluster(_ arg: String) -> Bool {
        let scalars = Array(arg.unicodeScalars)
        guard scalars.count > 2, scalars[0] == "-", scalars[1] != "-", byName["-" + String(scalars[1])]?.value == nil
        else { return false }
        for c in scalars.dropFirst() {
            guard c != "-", let option = byName["-" + String(c)] else { return false }
            if option.value != nil { return true }
        }
        return true
    }

    /// A word `isCluster` refused: `unknown`'s word when it names an option meant (`-force`, `-help`), else the letter
    /// that is no option, in its word (`-qZ` was "unknown option '-qZ'", the good letter with the bad).
    static func unknownInCluster(_ arg: String) -> UsageError {
        let whole = unknown(arg)
        guard !whole.message.contains("did you mean"),
              let bad = arg.unicodeScalars.dropFirst().first(where: { $0 == "-" || byName["-" + String($0)] == nil })
        else { return whole }
        return UsageError(message: bad == "-" ? "unknown option '\(arg)': '-' is no option letter"
                                              : "unknown option '-\(String(bad))' (in '\(arg)')")
    }

    /// "unknown option 'ARG'", with the option meant when one is near: the same word after two dashes
    /// (`-force`), the one long name the word begins (`--qual`), or a long name at most two edits away (`--fromat`,
    /// `--dryrun`), when only one is that near.
    static func unknown(_ arg: String) -> UsageError {
        let word = String(arg.drop { $0 == "-" }.prefix { $0 != "=" })
        let names = byName.keys.filter { $0.hasPrefix("--") }
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var row = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var next = [i + 1]
                for (j, y) in b.enumerated() { next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (x == y ? 0 : 1))) }
                row = next
            }
            return row[b.count]
        }
        var meant: String?
        // The options whose long name begins with the word (`--qual`, `--dry`, `--rec`): an abbreviation, which no
        // option takes, but which means one when only one begins so (`--qual` was offered `--null`, two edits away).
        let extended = Set(names.filter { $0.hasPrefix("--" + word.lowercased()) }.compactMap { byName[$0]?.longName })
        if !word.isEmpty, byName["--" + word] != nil, "--" + word != arg {
            meant = "--" + word
        } else if word.count >= 3, extended.count == 1 {
            meant = extended.first
        } else if word.count >= 3, (2...3).contains(extended.count) {
            // A beginning several names share (`--rep`: --report, --report-file): those, not a name a few edits away
            // that it does not begin (it was offered --help).
            let sorted = extended.sorted()
            meant = sorted.dropLast().joined(separator: ", ") + " or " + sorted.last!
        } else if word.count >= 3 {
            // Any case (`--FORCE`); a name past a few dozen letters is no near miss of any (and the distance's cost
            // grows with the product of the lengths).
            guard word.count <= 40 else { return UsageError(message: "unknown option '\(arg)'") }
            let scored = names.map { ($0, distance(Array("--" + word.lowercased()), Array($0))) }
            let best = scored.map(\.1).min() ?? .max
            // One option however many of its names are that near (`--pixfmt`: `--pix-fmt` and `--pix_fmt`), named
            // by the name its help shows.
            let near = Set(scored.filter { $0.1 == best }.compactMap { byName[$0.0]?.longName })
            if best <= 2, near.count == 1 { meant = near.first }
        }
        return UsageError(message: "unknown option '\(arg)'" + (meant.map { "; did you mean \($0)?" } ?? ""))
    }

    /// The one reading of a count on the command line: ASCII digits only. `Int(_:)` also takes a sign, so
    /// `--align +64` and `-s 17x+9` were taken while `-s ' 17x9'` was refused.
    static func decimal<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// A whole number within `range`.
    static func number(_ flag: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = decimal(text), range.contains(n) else {
            throw UsageError(message: "\(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    /// A size in bytes: a number (digits, with a decimal fraction or not: 1.5G), then K, M, G or T (KiB, MiB,
    /// GiB, TiB; upper or lower case, with "iB" or "B" after it or not), at least 1 MiB; a fraction of a byte
    /// is dropped.
    static func byteSize(_ flag: String, _ text: String) throws(UsageError) -> Int {
        let lower = text.lowercased()
        let whole = lower.prefix { $0.isASCII && $0.isNumber }
        var rest = lower.dropFirst(whole.count)
        var fraction: Substring?
        if rest.first == "." {
            fraction = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(1 + fraction!.count)
        }
        let shifts: [String: Int] = ["": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
                                     "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40]
        func refuse(_ why: String = "") -> UsageError {
            UsageError(message: "\(flag) needs a size of at least 1 MiB, such as 512M, 1.5G or 2G, not '\(text)'" + why)
        }
        // One number (digits, and after a point at least one more), then a unit.
        guard !whole.isEmpty, fraction?.isEmpty != true, let shift = shifts[String(rest)] else {
            throw refuse(whole.isEmpty ? "" : " (one number, then K, M, G or T)")
        }
        guard let n = Int(whole), n <= Int.max >> shift else { throw refuse(" (more than this system can count)") }
        // The fraction's bytes, exactly: ⌊digits · 2^shift / 10^k⌋ in double width (its first 18 digits: any
        // after them weigh less than a byte at T). Below 2^shift, so the sum cannot overflow (n ≤ Int.max >> shift).
        var part = 0
        if let digits = fraction?.prefix(18), let d = Int(digits) {
            let product = d.multipliedFullWidth(by: 1 << shift)
            part = Self.pow10(digits.count).dividingFullWidth(product).quotient
        }
        let bytes = (n << shift) + part
        guard bytes >= 1 << 20 else { throw refuse() }
        return bytes
    }

    private static func pow10(_ n: Int) -> Int { (0..<n).reduce(1) { p, _ in p * 10 } }
}

/// What a shell may complete as an option's value.
enum ValueCompletion: Sendable {
    /// Nothing to offer (a number, a size, a template).
    case anything
    /// A file name.
    case path
    /// One of these names.
    case oneOf([String])
}

/// Options under a heading in the help, with a note after them.
struct OptionGroup: Sendable {
    let title: String?
    let options: [OptionSpec]
    let note: [String]

    init(_ title: String?, _ options: [OptionSpec], note: [String] = []) {
        (self.title, self.options, self.note) = (title, options, note)
    }

    var help: String {
        ((title.map { [$0] } ?? []) + options.map(\.helpLines) + note.map { "  " + $0 }).joined(separator: "\n")
    }
}
