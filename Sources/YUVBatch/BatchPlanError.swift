import YUVIO

/// Why a batch cannot be planned. The cases carry what was met; they name no command-line option, so a front
/// end words them (the command line: `yuvconv/Messages.swift`). `isUsage` tells a request that cannot work
/// as asked (exit 2 on the command line) from a file that could not be read or must not be written (exit 1).
public enum BatchPlanError: Error, Sendable {
    /// No output folder was given (`given` false: no `-o` at all), or standard output was (`-o -`).
    case noOutputFolder(given: Bool)
    /// The output folder names something that is not a folder, and does not end in "/" to ask for one.
    case outputNotFolder(String)
    /// Standard input named among the inputs.
    case standardInput
    /// Standard input, the only input, to an output folder: it has no name to make the output's from.
    case standardInputToFolder
    /// Standard input named twice, or named and also the list of files.
    case standardInputTwice
    /// One stream (a pipe, FIFO, socket or device) named twice under two names (`- /dev/stdin`, a FIFO and a
    /// link to it): it can be read only once.
    case sameStream(first: String, second: String)
    /// An empty name template.
    case emptyTemplate
    /// A `{…}` in the template that is none of the placeholders (it would have become part of every name).
    case unknownPlaceholder(template: String, placeholder: String)
    /// A template that starts with "/": names are made inside the output folder, so it would not name the
    /// absolute path it reads as.
    case absoluteTemplate(String)
    /// The template gives `input` a name that is empty, a folder, or climbs out with "..".
    case nameOutsideFolder(template: String, name: String, input: String)
    /// No format can be written to an output (its name says none, or the format cannot carry what was asked).
    case format(OutputFormat.Refusal)
    /// Two inputs would write one output. `hint`: a template that tells them apart; `partial`: it does not tell
    /// every file of the batch apart (nor does any template tried), so following it meets another clash.
    case sameOutput(first: String, second: String, output: String, hint: String? = nil, partial: Bool = false)
    /// The report file is also one of the image outputs.
    case reportIsOutput(String)
    /// An output is one of the batch's inputs, by its own name.
    case outputIsInput(String)
    /// An output is one of the batch's inputs (`input`) under another name: a link to it, or a path through "..".
    case outputIsInputByAnotherName(String, input: String)
    /// An output is the list the inputs were read from.
    case outputIsList(String)
    /// An input by its size and times only (`WriteError.likeAnInput`).
    case outputLikeAnInput(String)
    /// Two outputs of different names reach one file (a symbolic link in the output folder, or to a folder).
    case sameFile(first: String, second: String)
    /// Two outputs whose names differ only in letter case, in a folder whose file system takes them for one file
    /// (macOS's APFS, FAT, ext4 with casefold): the second would replace the first.
    case sameFileByCase(first: String, second: String)
    /// A file the run writes (an output, the report file, the manifest) would also be the folder of another
    /// (`file`, and `of` inside it).
    case outputIsFolder(file: String, of: String)
    /// A folder or the list of files could not be read.
    case file(FileError)

    public var isUsage: Bool {
        switch self {
        case .outputIsInput, .outputIsInputByAnotherName, .outputIsList, .outputLikeAnInput, .sameFile, .sameFileByCase, .file:
            return false
        default: return true
        }
    }

    /// The file error of a case that is not a usage error.
    public var fileError: FileError? {
        switch self {
        case .file(let e): return e
        case .outputIsInput(let path):
            // The usual cause: outputs written among the inputs, which the next run's folder walk reads as inputs.
            return FileError(path: path, reason: "is an input of this batch; refusing to overwrite an input (where the output "
                             + "folder is also an input folder, an earlier run's outputs are read as inputs: give the outputs "
                             + "a folder of their own)")
        case .outputIsInputByAnotherName(let path, let input):
            return FileError(path: path, reason: "is an input of this batch, \(displayPath(input)), under another name (a link to it, "
                             + "or a path through ..); refusing to overwrite an input")
        case .outputIsList(let path):
            return FileError(path: path, reason: "is the list this batch's inputs were read from; refusing to overwrite it")
        case .outputLikeAnInput(let path):
            return FileError(path: path, reason: "is an input of this batch, or a file alike to one in size and times, which this "
                             + "file system (FUSE, an overlay or a network mount) may show under another number; refusing to "
                             + "overwrite an input (if it is another file, give the outputs a folder of their own)")
        case .sameFile(let first, let second):
            return FileError(path: second, reason: "is the same file as the output \(displayPath(first)) (through a symbolic link); "
                             + "refusing to write one over the other")
        case .sameFileByCase(let first, let second):
            return FileError(path: second, reason: "is the same file as the output \(displayPath(first)): this folder's file "
                             + "system does not tell upper from lower case; refusing to write one over the other (rename one "
                             + "of their inputs, or convert into a folder that tells case apart)")
        default: return nil
        }
    }
}
