/// Why an input could not be read or decoded. Each case carries what a user needs to act: the
/// decoder's own message where there is one. The file name is added by `FileError`.
public enum DecodeError: Error, Equatable, Sendable {
    case cannotOpen(String)
    case isDirectory
    case empty
    case unknownFormat
    case tooLarge(width: Int, height: Int, limit: Int)
    case decoder(String)
    case interrupted

    public var reason: String {
        switch self {
        case .cannotOpen(let why): return "cannot open: \(why)"
        case .isDirectory: return "is a directory"
        case .empty: return "empty file"
        case .unknownFormat: return "not a JPEG or PNG file (unrecognised signature)"
        case .tooLarge(let w, let h, let limit):
            let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
            return "\(w)x\(h) is \(overflow ? "more than \(Int.max)" : "\(pixels)") pixels, above the limit of \(limit) (--max-pixels)"
        case .decoder(let message): return message
        case .interrupted: return "interrupted before it was finished (nothing written)"
        }
    }
}

/// Why an output could not be written.
public enum WriteError: Error, Equatable, Sendable {
    case exists
    case sameAsInput
    case system(String)

    public var reason: String {
        switch self {
        case .exists: return "already exists (use --force to overwrite)"
        case .sameAsInput: return "is the input file; refusing to overwrite an input"
        case .system(let why): return why
        }
    }
}

/// An error tied to the file it happened to: printed as `FILE: reason`.
public struct FileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(path: String, _ error: DecodeError) { self.init(path: path, reason: error.reason) }
    public init(path: String, _ error: WriteError) { self.init(path: path, reason: error.reason) }

    public var description: String { "\(displayPath(path)): \(reason)" }
}
