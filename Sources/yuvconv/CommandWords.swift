/// One word of the command line as the parser reads it.
enum CommandWord {
    /// A file, the verb, `-`, or any word after `--` (`afterDashes`).
    case operand(String, afterDashes: Bool)
    /// `--`: every later word is an operand.
    case endOfOptions
    /// An option as typed in `arg`: `flag` its name (`-o` of `-ofile` or of a cluster's `-qo`), `inline` the value
    /// joined to it (`--name=value`, `-ofile`), `next` the word after it when it takes a value and none is joined
    /// (nil at the end of the line).
    case option(OptionSpec, flag: String, inline: String?, next: String?, arg: String)
    /// A word that starts like an option and is none; `error` says so.
    case unknown(String, error: UsageError)
}

/// The command line's words in turn, read once for the parser (`Options.parse`) and for standard error's look at
/// the arguments (`standardErrorMustStayUntouched`), so the two cannot read one word two ways: the look read
/// `-oops.txt` after `--`, or as `--files-from`'s value, as an output named `ops.txt`, left the file it names
/// unprotected, and a usage error's message went into it.
/// By scalar, as getopt reads bytes: `-` and a combining mark are one Character to Swift (`-\u{301}x` was taken as
/// a file, `--name=\u{301}x` as an unknown option, `-o\u{301}x.nv12` as one too).
struct CommandWords: IteratorProtocol {
    private var rest: ArraySlice<String>
    private var onlyOperands = false

    init(_ args: [String]) { rest = args[...] }

    mutating func next() -> CommandWord? {
        guard let arg = rest.popFirst() else { return nil }
        if onlyOperands || arg == "-" || !arg.hasScalarPrefix("-") { return .operand(arg, afterDashes: onlyOperands) }
        if arg == "--" {
            onlyOperands = true
            return .endOfOptions
        }
        // --name=value, and -ofile / -j4 / -fnv21 / -s640x427: every short option that takes a value takes it joined
        // too, as getopt does
        var flag = arg
        var inline: String?
        let scalars = Array(arg.unicodeScalars), long = arg.hasScalarPrefix("--")
        if long, let eq = scalars.firstIndex(of: "=") {
            flag = String(scalars: scalars[..<eq])
            inline = String(scalars: scalars[(eq + 1)...])
        } else if !long, scalars.count > 2, OptionSpec.byName[arg.scalarPrefix(2)]?.joinsValue == true {
            flag = arg.scalarPrefix(2)
            inline = arg.droppingScalars(2)
        } else if !long, scalars.count > 2, let first = OptionSpec.byName[arg.scalarPrefix(2)], first.value == nil {
            // Short flags together, as getopt takes them: -qy is -q -y, -qo out is -q -o out. Only when every
            // letter up to one that takes a value is a flag: else the whole word is the unknown option
            // (`-help` is not -h -e -l -p), and a '-' is no letter (`-q-` is not -q --).
            guard OptionSpec.isCluster(arg) else { return .unknown(arg, error: OptionSpec.unknownInCluster(arg)) }
            flag = arg.scalarPrefix(2)
            rest = ["-" + arg.droppingScalars(2)] + rest
        }
        guard let option = OptionSpec.byName[flag] else { return .unknown(arg, error: OptionSpec.unknown(arg)) }
        let next = option.value != nil && inline == nil ? rest.popFirst() : nil
        return .option(option, flag: flag, inline: inline, next: next, arg: arg)
    }
}
