/// Why an input could not be read or decoded. Each case carries what a user needs to act: the
/// decoder's own message where there is one. The file name is added by `FileError`. Messages name no
/// command-line option: `remedy` says which limit or choice was met, and a front end names its own option.
public enum DecodeError: Error, Equatable, Sendable {
    case cannotOpen(String)
    case isDirectory
    case empty
    /// No signature yuvconv knows; `maybe`: a format whose signature is too short to name it by (a bare JPEG XL
    /// codestream's FF 0A, which raw samples may spell too), said beside raw YUV's advice.
    case unknownFormat(maybe: String? = nil)
    /// A picture of a format yuvconv does not read, known by its signature (`InputSource.otherFormat`).
    case otherFormat(String)
    /// A YUV4MPEG2 stream where only images are read (a batch, `report`): it converts on its own.
    case yuvStream
    case tooLarge(width: Int, height: Int, limit: Int)
    /// More scans than the limit.
    case tooManyScans(String)
    /// The decoder warned that pixels are missing or wrong (a truncated or corrupt stream).
    case damaged(String)
    /// A JPEG scan whose blocks were all read from fewer bytes than it holds: its codes were damaged, and the
    /// blocks after the damage are wrong (nothing is missing: the picture is decoded as it reads).
    case leftover(String)
    /// A raw frame whose size does not match the bytes there are.
    case frameSize(String)
    /// A stream that goes on past what any image within the pixel limit can need.
    case streamTooLong(String)
    case decoder(String)
    /// A picture the conversion would hold whole (a progressive JPEG's coefficients, an interlaced PNG, a turned
    /// picture) above the limit for the file (`ImageDecoder.wholeBudget`).
    case wholeBudget(String)
    case interrupted

    public var reason: String {
        switch self {
        case .cannotOpen(let why): return "cannot open: \(why)"
        case .isDirectory: return "is a directory"
        case .empty: return "empty file"
        case .unknownFormat(let maybe):
            return "not a JPEG or PNG file (unrecognised signature" + (maybe.map { "; it starts as \($0) does" } ?? "") + ")"
        case .otherFormat(let what): return "\(what), not a JPEG or PNG file: yuvconv reads JPEG, PNG and raw YUV or Y4M "
            + "(convert it first, e.g. ffmpeg -i FILE out.png)"
        case .yuvStream: return "a YUV4MPEG2 (Y4M) stream: batches and reports take JPEG and PNG; it converts on its own (yuvconv FILE -o OUTPUT)"
        case .tooLarge(let w, let h, let limit):
            let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
            return "\(w)x\(h) is \(overflow ? "more than \(Int.max)" : "\(pixels)") pixels, above the limit of \(limit)"
        case .tooManyScans(let m), .damaged(let m), .frameSize(let m), .streamTooLong(let m), .decoder(let m),
             .wholeBudget(let m), .leftover(let m): return m
        case .interrupted: return "interrupted before it was finished (nothing written)"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .tooLarge: return .maxPixels
        case .tooManyScans: return .maxScans
        case .damaged: return .allowDamaged
        case .leftover: return .allowLeftover
        case .frameSize: return .frameSize
        case .streamTooLong: return .maxPixels
        case .wholeBudget: return .maxMemory
        case .unknownFormat: return .rawSize
        case .isDirectory: return .folderInput
        default: return nil
        }
    }
}

/// What a user can change to get past an error: a front end turns it into its own option's name.
public enum Remedy: Sendable, Equatable {
    /// Raise the pixel limit.
    case maxPixels
    /// Raise the scan limit.
    case maxScans
    /// Raise the limit on a picture held whole.
    case maxMemory
    /// Accept damaged or truncated image data.
    case allowDamaged
    /// Accept a scan whose codes were damaged, decoded as it reads.
    case allowLeftover
    /// Say the raw input's size and layout.
    case frameSize
    /// Allow replacing an existing file.
    case overwrite
    /// Not an image the decoders know: raw YUV would need its size.
    case rawSize
    /// A folder where a file was wanted (a list's entry): a folder is walked when given as one.
    case folderInput
}

/// Why an output could not be written.
public enum WriteError: Error, Equatable, Sendable {
    case exists
    /// A block device (a disk or a partition): written in place, like any device, but only with `--force`.
    case blockDevice
    /// A descriptor open on a file with bytes after its position (`3<>file`): writing there replaces them.
    case descriptorHasData(Int32)
    case sameAsInput
    /// An input by its size and times only (`FileIdentitySet.holdsByNumber` false): the same file under another
    /// number (FUSE, an overlay), or another alike to it to the file system's clock tick.
    case likeAnInput
    case system(String)
    /// Memory for a whole picture the system refused (`Ledger.outOfMemory` says how much and for what): not a
    /// failure to write, said as it is.
    case outOfMemory(String)
    /// A picture the output format cannot hold (`OutputFormat.sizeProblem` says why), found before the work.
    case unfit(String)
    /// A signal ending the run came while the file was being named (its temporary name is refused then, so
    /// that the handlers can remove every name made): said as an interrupted decode is, not as a failure.
    case interrupted

    public var reason: String {
        switch self {
        case .outOfMemory(let why), .unfit(let why): return why
        case .exists: return "already exists"
        case .blockDevice: return "is a block device (a disk or partition)"
        case .descriptorHasData(let fd):
            return "\(fd == 1 ? "standard output" : "descriptor \(fd)") is open on a file with data where writing would start"
        case .sameAsInput: return "is the input file; refusing to overwrite an input"
        case .likeAnInput:
            return "is the input file, or a file alike to it in size and times, which this file system (FUSE, an overlay "
                + "or a network mount) may show under another number; refusing to overwrite an input (if it is another "
                + "file, write the output elsewhere)"
        case .system(let why): return why
        case .interrupted: return DecodeError.interrupted.reason
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .exists, .blockDevice, .descriptorHasData: return .overwrite
        default: return nil
        }
    }
}

/// An error tied to the file it happened to: printed as `FILE: reason`.
public struct FileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    /// What the user can change, when something can be (see `Remedy`).
    public let remedy: Remedy?

    /// `reason` is one line whatever it quotes — a Y4M header's words, a decoder's text, a profile's name: its
    /// control characters, tabs and newlines too, are shown as `\xNN` here, the one place every file's error
    /// passes, in messages and in every report.
    public init(path: String, reason: String, remedy: Remedy? = nil) {
        self.path = path
        self.reason = PathBytes.escapingControls(reason, keepLayout: false)
        self.remedy = remedy
    }

    public init(path: String, _ error: DecodeError) { self.init(path: path, reason: error.reason, remedy: error.remedy) }
    public init(path: String, _ error: WriteError) { self.init(path: path, reason: error.reason, remedy: error.remedy) }

    /// An output's error: `-` named as standard output, not as the standard input an input `-` is.
    public init(output path: String, _ error: WriteError) {
        self.init(output: path, reason: error.reason, remedy: error.remedy)
    }

    /// An output's error: `-` is standard output there (`<stdout>`), not standard input as for an input.
    public init(output path: String, reason: String, remedy: Remedy? = nil) {
        self.init(path: path == "-" ? "<stdout>" : path, reason: reason, remedy: remedy)
    }

    /// Writing `output` failed while `input` was converted (a full disk, a closed pipe): the input's line, as every
    /// failure of a conversion is, naming the output — `in.png: cannot write out/a.jpg: No space left on device` —
    /// whatever the output's format or the input's kind. (Refusals before any work, an output already there,
    /// name the output alone: `init(output:_:)`.)
    /// Memory refused, a picture the format cannot hold and an interrupt are not failures to write: said as they
    /// are.
    public init(input: String, writing output: String?, _ error: WriteError) {
        switch error {
        case .outOfMemory, .unfit, .interrupted:
            self.init(path: input, reason: error.reason, remedy: error.remedy)
        default:
            let written = output.map { $0 == "-" ? "<stdout>" : displayPath($0) } ?? "the output"
            self.init(path: input, reason: "cannot write \(written): \(error.reason)", remedy: error.remedy)
        }
    }

    public var description: String { "\(displayPath(path)): \(reason)" }
}

extension DecodeError {
    /// A regular input whose size or modification time moved between its opening and its last byte read: its
    /// rows or frame would be of two versions of it (image and raw inputs alike).
    public static let changedWhileRead = DecodeError.decoder("changed while it was read (another program wrote to it, or set its "
                                                             + "time): its rows are of two versions of it, so the output fails "
                                                             + "(a file output is not written)")
}
