/// How the three 4:2:0 planes are laid out in a file or buffer. Names are FFmpeg's `-pix_fmt` names, so
/// output can go straight into `ffmpeg -f rawvideo -pix_fmt NAME -s WxH -i -`.
public enum PixelLayout: String, CaseIterable, Sendable {
    /// Y plane, then one plane of interleaved U,V (CoreVideo's `420YpCbCr8BiPlanar…`).
    case nv12
    /// Y plane, then interleaved V,U.
    case nv21
    /// Y, U, V planes (also called I420).
    case yuv420p
    /// Y, V, U planes.
    case yv12
    /// 10-bit: Y plane, then interleaved U,V; 16-bit little-endian words, the value in the high 10 bits
    /// (CoreVideo's `420YpCbCr10BiPlanar…`, Android's `YUVP010`; FFmpeg's `p010le`).
    case p010
    /// 10-bit: Y, U, V planes of 16-bit little-endian words, the value in the low 10 bits.
    case yuv420p10le

    /// FFmpeg's pixel-format names and their aliases, and every file extension that names a layout (`yuv`).
    public init?(name: String) {
        switch name.lowercased() {
        case "nv12": self = .nv12
        case "nv21": self = .nv21
        case "yuv420p", "i420", "iyuv": self = .yuv420p
        case "yv12": self = .yv12
        case "p010", "p010le": self = .p010
        case "yuv420p10le", "yuv420p10", "i010": self = .yuv420p10le
        default:
            guard let layout = PixelLayout(fileExtension: name) else { return nil }
            self = layout
        }
    }

    /// The file extensions that name a layout, in the order messages and the docs list them.
    public static let fileExtensions: [(String, PixelLayout)] = [
        ("nv12", .nv12), ("nv21", .nv21), ("yuv", .yuv420p), ("i420", .yuv420p), ("yuv420p", .yuv420p),
        ("yv12", .yv12), ("p010", .p010), ("yuv420p10le", .yuv420p10le), ("i010", .yuv420p10le),
    ]

    /// The layout a file name's extension implies (`fileExtensions`, any case), for outputs and raw inputs alike.
    public init?(fileExtension ext: String) {
        let e = ext.lowercased()
        guard let layout = Self.fileExtensions.first(where: { $0.0 == e })?.1 else { return nil }
        self = layout
    }

    /// The 8-bit layouts: what the 8-bit drivers (`RGBToYUV420`, `YCbCrToYUV420`, `PlaneTargets`) write.
    public static let eightBitLayouts: [PixelLayout] = allCases.filter { $0.bitDepth == 8 }

    /// True when U and V share one interleaved plane.
    public var isBiPlanar: Bool { self == .nv12 || self == .nv21 || self == .p010 }

    /// Bits of each sample's value: 8, or 10 for the 16-bit-word layouts.
    public var bitDepth: Int { bytesPerSample == 2 ? 10 : 8 }

    /// Bytes of one stored sample.
    public var bytesPerSample: Int { self == .p010 || self == .yuv420p10le ? 2 : 1 }

    /// How far a 10-bit value is shifted up in its 16-bit word (P010 keeps it in the high bits).
    public var sampleShift: Int { self == .p010 ? 6 : 0 }

    /// The 8-bit layout with this one's planes (for a 10-bit layout: NV12 or yuv420p).
    public var eightBit: PixelLayout {
        switch self {
        case .p010: return .nv12
        case .yuv420p10le: return .yuv420p
        default: return self
        }
    }

    /// FFmpeg's `-pix_fmt` name (little-endian spelled out where FFmpeg's plain name is native-endian).
    public var ffmpegName: String {
        switch self {
        case .p010: return "p010le"
        case .yv12: return "yuv420p"    // with -vf swapuv: FFmpeg has no yv12
        default: return rawValue
        }
    }

    /// The CoreVideo pixel format this layout corresponds to, for the report.
    public var coreVideoName: String? {
        switch self {
        case .nv12: return "420YpCbCr8BiPlanar"
        case .yuv420p: return "420YpCbCr8Planar"
        case .p010: return "420YpCbCr10BiPlanar"
        default: return nil
        }
    }
}
