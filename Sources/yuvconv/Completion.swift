/// The shells `--completion` writes a script for.
enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}

/// The words that may come first, before any option: what `Options.parse` takes as a verb.
let subcommands: [(name: String, help: String)] = [
    ("convert", "convert images (the default)"),
    ("report", "memory and quality, nothing written"),
]

/// The completion script of `yuvconv --completion SHELL`, made from the option table: every name of every
/// option (after `report`, those it takes), the values of those with a fixed set (`ValueCompletion.oneOf`), file
/// names for operands and for options that take a path, the subcommands as the first word.
func completionScript(_ shell: Shell) -> String {
    let options = OptionSpec.groups.flatMap(\.options)
    let header = "# \(shell.rawValue) completion for yuvconv, made by `yuvconv --completion \(shell.rawValue)` "
        + "from its option table.\n"
    switch shell {
    case .bash: return header + bashCompletion(options)
    case .zsh: return "#compdef yuvconv\n" + header + zshCompletion(options)
    case .fish: return header + fishCompletion(options)
    }
}

/// An option's one-line description: its `summary` (an option whose help begins with its values: the shells show
/// one description for the option and each value, and fish gives every value the option's), or its help up to the
/// first ';' or full stop outside parentheses.
private func shortHelp(_ option: OptionSpec) -> String {
    if let summary = option.summary { return summary }
    let help = option.help.joined(separator: " ")
    var depth = 0, previous: Character = " "
    for (i, c) in help.enumerated() {
        if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
        if depth == 0 && (c == ";" || (c == " " && previous == ".")) {
            return String(help.prefix(previous == "." ? i - 1 : i))
        }
        previous = c
    }
    return help
}

/// Every name of the options that take a value, space-separated, the long ones and the short ones: the words each
/// shell's script skips the next word after when it looks for the first operand (the verb), grouped short flags
/// ending with one of them (`-qj`) included.
private func valueTakingNames(_ options: [OptionSpec]) -> (long: String, short: String) {
    let names = options.filter { $0.value != nil }.flatMap(\.names)
    return (names.filter { $0.hasPrefix("--") }.joined(separator: " "), names.filter { !$0.hasPrefix("--") }.joined(separator: " "))
}

/// bash: a function for `complete -F`. bash splits `--name=value` at '=' (COMP_WORDBREAKS), so after an '='
/// the option is the word before it.
private func bashCompletion(_ options: [OptionSpec]) -> String {
    // A case per option with values to offer; one for those taking a path, one for those with nothing to offer.
    var cases: [String] = [], paths: [String] = [], others: [String] = []
    for option in options where option.value != nil {
        switch option.completes {
        case .path: paths += option.names
        case .anything: others += option.names
        case .oneOf(let values):
            cases.append("        \(option.names.joined(separator: "|"))) "
                + "COMPREPLY=($(compgen -W '\(values.joined(separator: " "))' -- \"$cur\")); return 0 ;;")
        }
    }
    cases.append("        \(paths.joined(separator: "|"))) _yuvconv_files; return 0 ;;")
    cases.append("        \(others.joined(separator: "|"))) return 0 ;;")
    let names = options.flatMap(\.names).joined(separator: " ")
    let reportNames = options.filter { $0.notInReport == nil }.flatMap(\.names).joined(separator: " ")
    let (valuedLong, valuedShort) = valueTakingNames(options)
    return """
        _yuvconv_files() {
            compopt -o filenames 2>/dev/null
            mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
        }

        # The option in the word $1 whose value is the next word, or nothing: a long one, or the last of grouped
        # short ones (`-qf`: -f), when no letter is left after it for its value (`-qfnv21`).
        _yuvconv_valued() {
            local w=$1 k
            case $w in
                --?*) [[ ' \(valuedLong) ' == *" $w "* ]] && echo "$w" ;;
                -?*) for (( k = 1; k < ${#w}; k++ )); do
                         if [[ ' \(valuedShort) ' == *" -${w:k:1} "* ]]; then
                             (( k == ${#w} - 1 )) && echo "-${w:k:1}"
                             return
                         fi
                     done ;;
            esac
        }

        # The first operand before the word completed (the verb when it is one; options may come before it, and an
        # option's value is none), or nothing when there is none yet.
        _yuvconv_first() {
            local i w
            for (( i = 1; i < COMP_CWORD; i++ )); do
                w=${COMP_WORDS[i]}
                case $w in
                    --|-) echo -; return ;;
                    =) (( i++ )) ;;
                    -*) [[ -n $(_yuvconv_valued "$w") && ${COMP_WORDS[i+1]} != = ]] && (( i++ )) ;;
                    *) echo "$w"; return ;;
                esac
            done
        }

        _yuvconv() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev= i
            COMPREPLY=()
            (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
            if [[ $cur == = ]]; then
                cur=
            elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then
                prev=${COMP_WORDS[COMP_CWORD-2]}
            fi
            case $(_yuvconv_valued "$prev") in
        \(cases.joined(separator: "\n"))
            esac
            for (( i = 1; i < COMP_CWORD; i++ )); do
                [[ ${COMP_WORDS[i]} == -- ]] && { _yuvconv_files; return 0; }
            done
            local first=$(_yuvconv_first)
            if [[ $cur == -* ]]; then
                if [[ $first == report ]]; then
                    COMPREPLY=($(compgen -W '\(reportNames) --' -- "$cur"))
                else
                    COMPREPLY=($(compgen -W '\(names) --' -- "$cur"))
                fi
                return 0
            fi
            [[ -z $first ]] && COMPREPLY=($(compgen -W '\(subcommands.map(\.name).joined(separator: " "))' -- "$cur"))
            _yuvconv_files
        }

        complete -F _yuvconv yuvconv

        """
}

/// zsh: `_arguments` specs. Loaded from $fpath (a file named _yuvconv) it completes at once; sourced, it
/// registers itself with compdef.
private func zshCompletion(_ options: [OptionSpec]) -> String {
    /// Inside single quotes, and inside the [description] of a spec.
    func quoted(_ s: String) -> String { s.replacing("'", with: "'\\''") }
    func described(_ s: String) -> String {
        quoted(s.replacing("\\", with: "\\\\").replacing("[", with: "\\[").replacing("]", with: "\\]"))
    }
    func argumentSpec(_ option: OptionSpec) -> String {
        // -o+ and -j+: the value may be joined (-ofile); --name=: --name=value or --name value.
        let forms = option.names.map { name in
            option.value == nil ? name : name + (name.hasPrefix("--") ? "=" : option.joinsValue ? "+" : "")
        }
        // '--name=[…]…', or for aliases '(-o --output)'{-o+,--output=}'[…]…': each excludes the others.
        var spec = forms.count == 1 ? "'" + forms[0]
            : "'(\(option.names.joined(separator: " ")))'{\(forms.joined(separator: ","))}'"
        spec += "[\(described(shortHelp(option)))]"
        if let placeholder = option.value {
            switch option.completes {
            case .path: spec += ":\(placeholder):_files"
            case .oneOf(let values): spec += ":\(placeholder):(\(values.joined(separator: " ")))"
            case .anything: spec += ":\(placeholder): "
            }
        }
        return "        " + spec + "'"
    }
    let (valuedLong, valuedShort) = valueTakingNames(options)
    let common = options.filter { $0.notInReport == nil }.map(argumentSpec)
    let convertOnly = options.filter { $0.notInReport != nil }.map(argumentSpec)
    let commands = subcommands.map { "\($0.name)\\:\"\($0.help)\"" }.joined(separator: " ")
    return """
        # The verb where it can be: no operand yet and no `--` before the word ($first and $dashes, _yuvconv's, which
        # zsh's dynamic scope lets this see; by position alone, `-j4 <Tab>` offered no verb).
        _yuvconv_operands() {
            if [[ -z $first && -z $dashes ]]; then
                _alternative 'commands:command:((\(commands)))' 'files:input:_files'
            else
                _files
            fi
        }

        # Whether the word $1 ends with an option whose value is the next word: a long one, or the last of grouped
        # short ones (`-qj`: -j) with no letter left after it for its value (`-qj4`).
        _yuvconv_valued() {
            local w=$1 k
            case $w in
                (--?*) [[ ' \(valuedLong) ' == *" $w "* ]] && return 0 ;;
                (-?*) for (( k = 2; k <= ${#w}; k++ )); do
                          if [[ ' \(valuedShort) ' == *" -${w[k]} "* ]]; then
                              (( k == ${#w} )) && return 0
                              return 1
                          fi
                      done ;;
            esac
            return 1
        }

        _yuvconv() {
            local -a specs
            specs=(
        \(common.joined(separator: "\n"))
            )
            # Options `report` refuses are offered to convert only: after `report` as the first operand (options
            # may come before it; an option's value is none).
            local i w first= dashes=
            for (( i = 2; i < CURRENT; i++ )); do
                w=$words[i]
                case $w in
                    (--) dashes=1; break ;;
                    (-) first=-; break ;;
                    (-*) _yuvconv_valued $w && (( i++ )) ;;
                    (*) first=$w; break ;;
                esac
            done
            [[ $first == report ]] || specs+=(
        \(convertOnly.joined(separator: "\n"))
            )
            _arguments -s -S $specs '*:input:_yuvconv_operands'
        }

        if [[ $funcstack[1] == _yuvconv ]]; then
            _yuvconv "$@"
        else
            compdef _yuvconv yuvconv
        fi

        """
}

/// fish: a `complete` line per option; operands are files (fish's default), the subcommands come first.
/// zsh: `_arguments -s` reads grouped short flags as the command line does (`-qf` offered files, not formats).
private func fishCompletion(_ options: [OptionSpec]) -> String {
    func quoted(_ s: String) -> String { "'" + s.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
    // The first operand decides (options may come before it; an option's value is none, `--name=value` one word).
    let (valuedLong, valuedShort) = valueTakingNames(options)
    var lines = ["""
        function __yuvconv_valued
            # Whether the word ends with an option whose value is the next word: a long one, or the last of grouped
            # short ones (`-qj`: -j) with no letter left after it for its value (`-qj4`).
            set -l w $argv[1]
            if string match -q -- '--*' $w
                contains -- $w \(valuedLong); return
            end
            set -l n (string length -- $w)
            for k in (seq 2 $n)
                if contains -- -(string sub -s $k -l 1 -- $w) \(valuedShort)
                    test $k = $n; return
                end
            end
            return 1
        end

        function __yuvconv_first
            # The first operand before the word being completed (options may come before it; an option's value is
            # none, `--name=value` one word), or `-` or `--`, whichever comes first; nothing when there is none.
            set -l skip 0
            for w in (commandline -opc)[2..-1]
                if test $skip = 1; set skip 0; continue; end
                switch $w
                    case '--*=*'; continue
                    case '-' '--'; printf '%s\\n' $w; return
                    case '-*'; __yuvconv_valued $w; and set skip 1; continue
                    case '*'; printf '%s\\n' $w; return
                end
            end
        end

        function __yuvconv_wants_command
            # The verb only before any operand, and never after `--`, where every word is a file (fish's own
            # __fish_use_subcommand offered the verbs there).
            # (An empty operand, `''`, is one: an empty line, one element.)
            set -l first (__yuvconv_first)
            not set -q first[1]
        end

        function __yuvconv_not_report
            set -l first (__yuvconv_first)
            test "$first" != report
        end
        """]
    lines += subcommands.map {
        "complete -c yuvconv -n __yuvconv_wants_command -a \($0.name) -d \(quoted($0.help))"
    }
    for option in options {
        // Options `report` refuses are offered to convert only: when the first word is not `report`
        // (`__fish_seen_subcommand_from` looks at every word: `-o report` hid them too).
        var line = "complete -c yuvconv" + (option.notInReport == nil ? "" : " -n __yuvconv_not_report")
        for name in option.names {
            line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst())"
        }
        if option.value != nil {
            switch option.completes {
            case .path: line += " -r -F"
            case .oneOf(let values): line += " -x -a \(quoted(values.joined(separator: " ")))"
            case .anything: line += " -x"
            }
        }
        lines.append(line + " -d " + quoted(shortHelp(option)))
    }
    return lines.joined(separator: "\n") + "\n"
}
