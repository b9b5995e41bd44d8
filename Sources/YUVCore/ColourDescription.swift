/// What a conversion's numbers mean, as video tools name it: matrix, range, primaries, transfer and chroma
/// siting, by FFmpeg's names and as ITU-T H.273 (CICP) code points. Raw planes carry none of it, so this is
/// what the report prints and what a reader must be told (`ffmpegInputArguments`): FFmpeg takes untagged raw
/// video as BT.601 limited range, and reads a full-range BT.709 NV12 file with visibly wrong contrast.
///
/// Without colour management the RGB converted is the source's as stored, taken as sRGB: BT.709 primaries
/// and the sRGB transfer for every matrix, BT.2020 primaries with the BT.2020 matrix (CONVENTIONS §1b).
/// Chroma is centre-sited (JPEG, MPEG-1; H.273 ChromaSampleLocType 1).
public struct ColourDescription: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// FFmpeg's name (`-colorspace`, `-color_primaries`, `-color_trc`, `-color_range`, `-chroma_sample_location`).
        public let name: String
        /// The H.273 code point (VideoFullRangeFlag 0/1 for the range).
        public let cicp: Int
    }

    public let matrix: Value
    public let range: Value
    public let primaries: Value
    public let transfer: Value
    public let chromaLocation: Value

    /// `primaries`: the RGB space converted (colour management's target); nil for the matrix's own (BT.2020
    /// primaries with the BT.2020 matrix, else BT.709/sRGB).
    public init(spec: ConversionSpec, primaries: Primaries? = nil) {
        switch spec.matrix {
        case .bt709: matrix = Value(name: "bt709", cicp: 1)
        case .bt601: matrix = Value(name: "smpte170m", cicp: 6)
        case .bt2020: matrix = Value(name: "bt2020nc", cicp: 9)
        }
        range = spec.range == .full ? Value(name: "pc", cicp: 1) : Value(name: "tv", cicp: 0)
        switch primaries ?? Primaries(for: spec.matrix) {
        case .bt709: self.primaries = Value(name: "bt709", cicp: 1)
        case .p3: self.primaries = Value(name: "smpte432", cicp: 12)
        case .bt2020: self.primaries = Value(name: "bt2020", cicp: 9)
        }
        transfer = Value(name: "iec61966-2-1", cicp: 13)
        chromaLocation = Value(name: "center", cicp: 1)
    }

    /// FFmpeg's input options that say all of the above (before `-i`).
    public var ffmpegTags: [String] {
        ["-color_range", range.name, "-colorspace", matrix.name, "-color_primaries", primaries.name,
         "-color_trc", transfer.name, "-chroma_sample_location", chromaLocation.name]
    }

    /// The input options that read a raw frame of `layout` back correctly: `ffmpeg ARGS -i FILE …`. FFmpeg has
    /// no YV12 pixel format: a YV12 frame is read as yuv420p and its planes swapped (`ffmpegFilter`).
    public func ffmpegInputArguments(layout: PixelLayout, width: Int, height: Int) -> [String] {
        ["-f", "rawvideo", "-pix_fmt", layout.ffmpegName, "-s", "\(width)x\(height)"] + ffmpegTags
    }

    /// The filter a layout needs after reading (`-vf …`), or nil: YV12's V and U planes swapped back.
    public static func ffmpegFilter(layout: PixelLayout) -> String? {
        layout == .yv12 ? "swapuv" : nil
    }
}

/// The RGB spaces a conversion can target (`--primaries`), all D65 with the sRGB transfer: BT.709/sRGB,
/// Display P3 (what Apple displays use), BT.2020.
public enum Primaries: String, CaseIterable, Sendable {
    case bt709, p3, bt2020

    /// The default for a matrix: BT.2020 primaries with the BT.2020 matrix, else sRGB's.
    public init(for matrix: ColorMatrix) { self = matrix == .bt2020 ? .bt2020 : .bt709 }

    public init?(name: String) {
        switch name.lowercased() {
        case "bt709", "srgb", "709": self = .bt709
        case "p3", "display-p3", "displayp3", "smpte432": self = .p3
        case "bt2020", "2020": self = .bt2020
        default: return nil
        }
    }
}
