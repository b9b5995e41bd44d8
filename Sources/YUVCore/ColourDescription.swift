/// What a conversion's numbers mean, as video tools name it: matrix, range, primaries, transfer and chroma
/// siting, by FFmpeg's names and as ITU-T H.273 (CICP) code points. Raw planes carry none of it, so this is
/// what the report prints and what a reader must be told (`ffmpegInputArguments`): FFmpeg takes untagged raw
/// video as BT.601 limited range, and reads a full-range BT.709 NV12 file with visibly wrong contrast.
///
/// Without colour management the RGB converted is the source's as stored, taken as sRGB: BT.709 primaries
/// and the sRGB transfer for every matrix, BT.2020 primaries with the BT.2020 matrix (CONVENTIONS §1b).
/// Chroma is centre-sited unless asked otherwise (`ChromaLocation`).
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
    public init(spec: ConversionSpec, primaries: Primaries? = nil, chromaLocation siting: ChromaLocation = .center) {
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
        chromaLocation = Value(name: siting.rawValue, cicp: siting.cicp)
    }

    /// FFmpeg's input options that say all of the above (before `-i`).
    public var ffmpegTags: [String] {
        ["-color_range", range.name, "-colorspace", matrix.name, "-color_primaries", primaries.name,
         "-color_trc", transfer.name, "-chroma_sample_location", chromaLocation.name]
    }

    /// The input options that read a raw frame of `layout` back correctly: `ffmpeg ARGS -i FILE …`. FFmpeg has
    /// no YV12 pixel format: a YV12 frame is read as yuv420p and its planes swapped (`ffmpegFilter`).
    /// With `alpha` (an A plane after the planes, `--alpha keep`), a planar layout is ffmpeg's yuva420p (YV12's
    /// swapped chroma still needs the filter below); NV12 and NV21 with A have no ffmpeg format and keep
    /// their own, which reads the picture and ignores the A plane after it.
    public func ffmpegInputArguments(layout: PixelLayout, width: Int, height: Int, alpha: Bool = false) -> [String] {
        let name = alpha && (layout == .yuv420p || layout == .yv12) ? "yuva420p" : layout.ffmpegName
        return ["-f", "rawvideo", "-pix_fmt", name, "-s", "\(width)x\(height)"] + ffmpegTags
    }

    /// The filter a layout and siting need after reading (`-vf …`), or nil: YV12's V and U planes swapped back;
    /// and for chroma that is not centre-sited, its place given to the scaler — ffmpeg's scaler (5.1) ignores
    /// `-chroma_sample_location` when it converts to RGB and takes every 4:2:0 chroma as centre-sited, so left
    /// and topleft planes came back 4 to 6 dB lower than centre ones (`scale`'s `in_h_chr_pos`/`in_v_chr_pos`,
    /// in 1/256 of a luma pixel from the block's top-left: 128 is the middle).
    public static func ffmpegFilter(layout: PixelLayout, siting: ChromaLocation = .center) -> String? {
        var parts: [String] = []
        if layout == .yv12 { parts.append("swapuv") }
        if let position = siting.scalerPosition {
            parts.append("scale=in_h_chr_pos=\(position.h):in_v_chr_pos=\(position.v)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
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

/// Where a 4:2:0 chroma sample sits (FFmpeg's `-chroma_sample_location` names, H.273 ChromaSampleLocType),
/// and so which pixels' chroma it averages (CONVENTIONS §1): `center` (JPEG, MPEG-1; the 2×2 block),
/// `left` (MPEG-2, H.264, HEVC: columns 1 2 1 across two rows), `topleft` (co-sited; BT.2020/HDR video:
/// 1 2 1 both ways).
public enum ChromaLocation: String, CaseIterable, Sendable {
    case center, left, topleft

    public init?(name: String) {
        switch name.lowercased() {
        case "center", "centre", "jpeg", "mpeg1": self = .center
        case "left", "mpeg2", "h264": self = .left
        case "topleft", "top-left", "cosited", "co-sited", "paldv": self = .topleft
        default: return nil
        }
    }

    /// Where ffmpeg's scaler must be told the samples sit (`in_h_chr_pos`, `in_v_chr_pos`: 1/256 of a luma pixel
    /// from the 2×2 block's top-left corner), or nil for centre, which it assumes.
    public var scalerPosition: (h: Int, v: Int)? {
        switch self {
        case .center: return nil
        case .left: return (0, 128)
        case .topleft: return (0, 0)
        }
    }

    /// H.273 ChromaSampleLocType.
    public var cicp: Int {
        switch self {
        case .left: return 0
        case .center: return 1
        case .topleft: return 2
        }
    }

    /// The YUV4MPEG2 colour-space tag of 8-bit 4:2:0 with this siting.
    public var y4mTag: String {
        switch self {
        case .center: return "C420jpeg"
        case .left: return "C420mpeg2"
        case .topleft: return "C420paldv"
        }
    }

    /// The taps of chroma sample (i, j): horizontal (offset from column 2i, weight) and vertical (offset from
    /// row 2j, weight).
    public var taps: (horizontal: [(Int, Int)], vertical: [(Int, Int)]) {
        let pair = [(0, 1), (1, 1)], triple = [(-1, 1), (0, 2), (1, 1)]
        switch self {
        case .center: return (pair, pair)
        case .left: return (triple, pair)
        case .topleft: return (triple, triple)
        }
    }

    /// The sum of the taps' weights (4, 8, 16).
    public var weightSum: Int {
        let (h, v) = taps
        return h.reduce(0) { $0 + $1.1 } * v.reduce(0) { $0 + $1.1 }
    }
}
