import YUVBatch
import YUVIO

/// The library's errors name no option; this is where the command line adds its own names to them.
extension FileError {
    /// The reason, with the option that gets past it.
    var cliReason: String {
        switch remedy {
        case .maxPixels?: return reason + " (--max-pixels)"
        case .maxScans?: return reason + " (--max-scans)"
        case .maxMemory?: return reason + " (--max-memory)"
        case .overwrite?: return reason + " (use --force to overwrite)"
        case .frameSize?: return reason + " (check --size and --pix-fmt)"
        case .allowDamaged?:
            // Damage met in the image data (never before the first scan, where there is no image to accept). The
            // decode stops there, so whether the rest of the file is worse is not known: said so.
            return reason + "; --allow-truncated decodes past such damage, filling what is missing with grey, "
                + "unless the file is worse further on"
        case .allowLeftover?: return reason + "; --allow-truncated converts it as it decodes, with a warning"
        case .rawSize?: return reason + "; raw YUV is converted one file at a time, its size given: yuvconv FILE --size WxH -o OUT"
        // (A list made by `find DIR` without -type f names its folders: "is a directory" said nothing of what to do.)
        case .folderInput?:
            // (Standard input redirected from a folder was given neither as a folder nor in a list.)
            if path == "-" { return reason + ": standard input is a folder here (< DIR); give the folder as an input to convert its pictures" }
            return reason + ": a folder given as an input is walked for its pictures (-r for its subfolders); "
                + "a --files-from list names files (find DIR -type f lists only them)"
        case nil: return reason
        }
    }

    /// `FILE: reason` as the command line prints it.
    var cli: String { "\(displayPath(path)): \(cliReason)" }
}

extension OutputFormat.Refusal {
    /// The usage error's text, naming the option that asked.
    var cliMessage: String {
        switch self {
        case .unresolved(let u): return "\(displayPath(u.path)): \(u.reason) with --format"
        case .rawOnly(.rowPadding, let format): return "--align pads the rows of raw layouts; \(format.name) has no row padding"
        case .rawOnly(.oddRowPadding, let format):
            return "an odd --align would start the rows of \(format.name) inside its 16-bit samples; give an even one (64, 32, 2)"
        case .rawOnly(.planePadding, let format):
            return "--align-height pads the planes of raw layouts; \(format.name) has no padding rows"
        case .rawOnly(.alphaPlane, let format):
            return format.isRaw
                ? "--alpha keep writes an 8-bit A plane after 8-bit planes; \(format.name) is 10-bit (use an 8-bit layout)"
                : "--alpha keep writes raw layouts only (an A plane after the 4:2:0 planes), not \(format.name)"
        case .rawOnly(.bitDepth(let bits), let format):
            return bits == 10
                ? "--depth 10 writes p010, yuv420p10le, y4m or png (16-bit); \(format.name) is 8-bit"
                : "--depth \(bits) does not fit \(format.name)" + (format.layout.bitDepth == 10 ? ", a 10-bit layout" : "")
        case .rawOnly(.sharpChroma, let format):
            return "--chroma-filter sharp writes 8-bit layouts; \(format.name) is 10-bit (use an 8-bit layout, or --chroma-filter box)"
        }
    }
}

extension BatchPlanError {
    /// A usage error's text, with the options that set what was met.
    var cliMessage: String {
        switch self {
        // A folder or a list is a batch however many files it holds (one folder named with `-o -` was told of "many
        // inputs"); `--` makes every word after it a file, `-o` too.
        case .noOutputFolder(let given):
            // Without -o at all the problem is the missing folder, not standard output (a hostile round's `a b`).
            if !given {
                return "no output folder given: a batch (more than one file, a folder or a list) writes its outputs into "
                    + "a folder, -o DIR/ (after --, every word is a file, -o too)"
            }
            return "a batch (more than one file, a folder or a list) writes its outputs into a folder, "
                + "not to standard output: -o DIR/ (after --, every word is a file, -o too)"
        case .outputNotFolder(let path):
            return "-o \(displayPath(path)) is not a folder (end it with / to make one): a batch — many inputs, a folder, "
                + "--files-from or --shard — writes its outputs into one"
        case .standardInput: return "standard input cannot be one of many inputs"
        case .standardInputToFolder:
            return "standard input has no file name to make an output's name from in a folder: give the output file (-o FILE)"
        case .standardInputTwice: return "standard input can be read only once (- given twice, or with --files-from -)"
        case .sameStream(let first, let second):
            let shown = first == "-" ? "standard input (-)"
                : first.hasPrefix("--files-from ") ? "the list (\(displayPath(first)))" : displayPath(first)
            return "\(shown) and \(displayPath(second)) are one stream "
                + "(a pipe, FIFO or device), which can be read only once"
        case .emptyTemplate: return "--name needs a template, e.g. '{stem}.{ext}'"
        case .absoluteTemplate(let template):
            return "--name '\(displayPath(template))' starts with '/': output names are made inside the output folder; "
                + "give the folder with -o and the name relative to it"
        case .unknownPlaceholder(let template, let placeholder):
            let unmatched = !(placeholder.hasPrefix("{") && placeholder.hasSuffix("}"))
            return "--name '\(displayPath(template))': \(displayPath(placeholder)) is not a placeholder"
                + (unmatched ? ", its brace is unmatched" : "") + " (the template knows {stem}, {name}, {dir}, {ext} and {format})"
        case .nameOutsideFolder(let template, let name, let input):
            // `{dir}` holds the folder given itself when it has no trailing slash (as rsync reads it): `..` or
            // `.` then lands in the name.
            // Only when the template itself has no such part (`{dir}/../{stem}`: that one is the template's).
            func dots(_ s: String) -> Bool { s.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." } }
            let dotted = template.contains("{dir}") && dots(name) && !dots(template)
            return "--name '\(displayPath(template))' gives '\(displayPath(name))' for \(displayPath(input)): "
                + "an output name must be a file inside the output folder (no '..' or '.', not empty)"
                + (dotted ? "; {dir} includes a folder given without a trailing '/' (`..` is itself, `../` its "
                    + "contents): give it as '../' or './'" : "")
        case .format(let refusal): return refusal.cliMessage
        case .sameOutput(let first, let second, let output, let hint, let partial):
            // The same file given twice under one path: no name template separates it from itself. (Two paths to one
            // file — a hard link, a link — are two inputs whose names clash, said below.)
            // (By scalar: one name in NFC and in NFD is two files, which `==` takes as one.)
            if first.sameScalars(second)
                || (lexicalPath(first).sameScalars(lexicalPath(second)) && inputIdentity(first) == inputIdentity(second)) {
                return "\(displayPath(first)) is given twice (as \(displayPath(second)) too); "
                    + "list each input once"
            }
            // The hint is a template the plan tried on these two: it tells them apart.
            let clash = "\(displayPath(first)) and \(displayPath(second)) would both write \(displayPath(output))"
            if let hint, partial {
                // It tells these two apart, but the batch has files no template tells apart (one name, {dir} empty).
                return clash + " (--name '\(displayPath(hint))' would tell these two apart, but no template tried tells every "
                    + "file of this batch apart: files of one name whose {dir} is empty — given one by one or as a folder's "
                    + "contents — clash whatever the template; give the folders themselves, without a trailing /, or convert "
                    + "them in separate runs)"
            }
            if let hint { return clash + " (change --name, e.g. '\(displayPath(hint))')" }
            // No template does: files of one name whose {dir} is empty (given one by one, or as a folder's contents).
            if first.pathParts.last == second.pathParts.last {
                return clash + " (no --name tells them apart: their names are the same and {dir} is empty for files given "
                    + "one by one or a folder's contents; give the folders themselves, without a trailing /, or convert "
                    + "them in separate runs)"
            }
            return clash + " (no --name template tried tells them apart; give --name one with {stem} or {name} in it)"
        case .reportIsOutput(let file):
            if file == "-" { return "the report on standard output is also one of the image outputs; name a --report-file" }
            return "--report-file \(displayPath(file)) is also an image output"
        case .outputIsFolder(let file, let inside):
            return "\(displayPath(file)) would be both a file this run writes and the folder of \(displayPath(inside)); "
                + "change --name (or --report-file) so that no file of the run is another's folder"
        case .outputIsInput, .outputIsInputByAnotherName, .outputIsList, .outputLikeAnInput, .sameFile, .sameFileByCase, .file:
            return fileError.map(\.cli) ?? ""
        }
    }
}
