import YUVCore

/// What an output file is: raw planes of a layout, a YUV4MPEG2 stream, a PNG drawn back to RGB, or a JPEG.
/// `OutputFormat.resolve` is the one place that decides it from `--format` and a name, for single files and
/// every file of a batch alike.
public enum OutputFormat: Equatable, Sendable {
    case raw(PixelLayout)
    case y4m
    case png
    case jpeg

    /// `--format` names: FFmpeg's pixel-format names, and the containers; every output extension names its
    /// format too (`yuv` is yuv420p, as `.yuv` is; `jpe`), through `init(fileExtension:)`.
    public init?(name: String) {
        switch name.lowercased() {
        case "yuv4mpegpipe": self = .y4m
        case "mjpeg": self = .jpeg
        default:
            if let l = PixelLayout(name: name) {
                self = .raw(l)
            } else if let f = OutputFormat(fileExtension: name) {
                self = f
            } else {
                return nil
            }
        }
    }

    /// The format a file name's extension names (case-insensitive): `.nv12 .nv21 .yuv .i420 .yuv420p .yv12
    /// .p010 .yuv420p10le .y4m .png .jpg .jpeg .jpe`.
    public init?(fileExtension ext: String) {
        switch ext.lowercased() {
        case "y4m": self = .y4m
        case "png": self = .png
        case "jpg", "jpeg", "jpe": self = .jpeg
        default:
            guard let l = PixelLayout(fileExtension: ext) else { return nil }
            self = .raw(l)
        }
    }

    public static let names = "nv12, nv21, yuv420p (i420), yv12, p010, yuv420p10le, y4m, png, jpeg"
    public static let extensions = (PixelLayout.fileExtensions.map(\.0) + ["y4m", "png", "jpg", "jpeg", "jpe"])
        .map { "." + $0 }.joined(separator: " ")

    /// Why a name does not say what to write.
    public struct Unresolved: Error, Sendable {
        public let path: String
        public let fileExtension: String
        public var reason: String {
            "cannot tell the output format from the extension '.\(fileExtension)' (known: \(OutputFormat.extensions)); "
                + "name the format"
        }
    }

    /// The format to write to `path`: the one asked for, else the name's extension; standard output, a
    /// device and a name without an extension get NV12, the default. An unknown extension is refused, never
    /// silently NV12.
    public static func resolve(asked: OutputFormat?, path: String) throws(Unresolved) -> OutputFormat {
        if let asked { return asked }
        guard path != "-" else { return .raw(.nv12) }
        guard let (before, ext) = nameAndExtension(path) else { return .raw(.nv12) }
        // A hidden name (`.png`, `out/.y4m`) says its format when what follows its dot is one; other hidden
        // names (`.out`) have no extension.
        if before.isEmpty { return OutputFormat(fileExtension: ext) ?? .raw(.nv12) }
        if let f = OutputFormat(fileExtension: ext) { return f }
        if path.hasScalarPrefix("/dev/") || path.hasScalarPrefix("/proc/") { return .raw(.nv12) }
        throw Unresolved(path: path, fileExtension: ext)
    }

    /// The format `path`'s extension names when `asked` (`--format`) writes another (`-o x.png -f nv21`: raw NV21 in
    /// a file every viewer takes for a PNG, and a later batch over the folder refuses), or nil: no format asked, the
    /// name names none, it names this one, or it is `.yuv` and raw planes are written (of any layout, as the field
    /// uses the name; a PNG in `x.yuv` is said).
    public static func contradiction(asked: OutputFormat?, path: String) -> OutputFormat? {
        guard let asked, path != "-", let (_, ext) = nameAndExtension(path),
              let named = OutputFormat(fileExtension: ext), named != asked else { return nil }
        if case .raw = asked, ext.lowercased() == "yuv" { return nil }
        return named
    }

    /// The file name's part before its last `.` and the extension after it, or nil without a `.` — by scalar
    /// (`aroundLastSlash`, `around(last:)`): a `/` or `.` before a combining mark is one Character with it.
    static func nameAndExtension(_ path: String) -> (String, String)? { (path.aroundLastSlash?.1 ?? path).around(last: ".") }

    /// What a run asks of its outputs that not every format carries (most of it only raw planes).
    public enum RawOnly: Sendable, Equatable {
        /// Rows padded to an alignment.
        case rowPadding
        /// Rows padded to an odd number of bytes: 8-bit layouts only (a 10-bit layout's rows would begin
        /// inside its 16-bit words, which no reader takes).
        case oddRowPadding
        /// Planes padded to a multiple of rows.
        case planePadding
        /// An A plane (8-bit) after the 4:2:0 planes: 8-bit raw layouts only.
        case alphaPlane
        /// Samples of this many bits (`--depth`): 10 in a 10-bit raw layout, Y4M or PNG (drawn at 16 bits), 8 in
        /// the rest.
        case bitDepth(Int)
        /// Sharp chroma, whose rows are 8-bit: every format but the 10-bit raw layouts (a 10-bit Y4M is
        /// `bitDepth(10)`, refused with it before any format is known).
        case sharpChroma
    }

    /// Whether this format can carry `need`.
    public func carries(_ need: RawOnly) -> Bool {
        switch (need, self) {
        case (.bitDepth(let bits), .raw(let layout)): return layout.bitDepth == bits
        case (.bitDepth(let bits), .y4m), (.bitDepth(let bits), .png): return bits == 8 || bits == 10
        case (.bitDepth(let bits), _): return bits == 8
        case (.sharpChroma, .raw(let layout)): return layout.bitDepth == 8
        case (.sharpChroma, _): return true
        case (.oddRowPadding, .raw(let layout)): return layout.bitDepth == 8
        // The A plane is 8-bit: after 16-bit planes it would make a file no pixel format describes.
        case (.alphaPlane, .raw(let layout)): return layout.bitDepth == 8
        case (_, .raw): return true
        default: return false
        }
    }

    /// The layout written for this format at `bitDepth` (Y4M: yuv420p or yuv420p10le; PNG drawn from either, 8
    /// or 16 bits a sample; a raw layout has its own).
    public func layout(bitDepth: Int) -> PixelLayout {
        if self == .y4m || self == .png, bitDepth == 10 { return .yuv420p10le }
        return layout
    }

    /// Why no format can be written to a path: its name says none, or the format cannot carry what was asked.
    public enum Refusal: Error, Sendable {
        case unresolved(Unresolved)
        case rawOnly(RawOnly, OutputFormat)
    }

    /// `resolve`, then a refusal when the format is not raw and `needs` asks what only raw planes carry (the
    /// first of `needs` is the one named).
    public static func resolve(asked: OutputFormat?, path: String, needs: [RawOnly]) throws(Refusal) -> OutputFormat {
        let format: OutputFormat
        do { format = try resolve(asked: asked, path: path) } catch { throw .unresolved(error) }
        if let need = needs.first(where: { !format.carries($0) }) { throw .rawOnly(need, format) }
        return format
    }

    /// The layout the conversion produces for this output (containers and encoders take planar 4:2:0).
    public var layout: PixelLayout {
        if case .raw(let l) = self { return l }
        return .yuv420p
    }

    /// The format as messages name it: `PNG`, `JPEG`, `Y4M`, `raw nv21`.
    public var displayName: String {
        switch self {
        case .y4m: return "Y4M"
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        case .raw(let l): return "raw \(l.rawValue)"
        }
    }

    /// The extension a batch's `{ext}` stands for.
    public var fileExtension: String {
        switch self {
        case .y4m: return "y4m"
        case .png: return "png"
        case .jpeg: return "jpg"
        case .raw(.nv12): return "nv12"
        case .raw(.nv21): return "nv21"
        case .raw(.yuv420p): return "yuv"
        case .raw(.yv12): return "yv12"
        case .raw(.p010): return "p010"
        case .raw(.yuv420p10le): return "yuv420p10le"
        }
    }

    /// The name `{format}` stands for.
    public var name: String {
        switch self {
        case .y4m: return "y4m"
        case .png: return "png"
        case .jpeg: return "jpeg"
        case .raw(let l): return l.rawValue
        }
    }

    /// The largest side this format holds: libjpeg's 65500 for JPEG, 2^31 − 1 for PNG; raw planes and Y4M
    /// have no limit of their own.
    public var maxSide: Int? {
        switch self {
        case .jpeg: return 65500
        case .png: return 0x7fff_ffff
        case .raw, .y4m: return nil
        }
    }

    /// Why a `width`×`height` picture does not fit this format, or nil: said before any work (the picture's
    /// header gives its size), never by the encoder after the whole conversion.
    public func sizeProblem(width: Int, height: Int) -> String? {
        guard let most = maxSide, width > most || height > most else { return nil }
        return "a \(name.uppercased()) holds at most \(most) pixels a side and the picture is \(width)x\(height); "
            + "write \(self == .png ? "" : "PNG, ")Y4M or a raw layout"
    }

    /// True for raw planes, which alone can carry an A plane after them (`--alpha keep`).
    public var isRaw: Bool {
        if case .raw = self { return true }
        return false
    }
}
