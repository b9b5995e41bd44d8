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

    public init?(name: String) {
        switch name.lowercased() {
        case "nv12": self = .nv12
        case "nv21": self = .nv21
        case "yuv420p", "i420", "iyuv": self = .yuv420p
        case "yv12": self = .yv12
        default: return nil
        }
    }

    /// The layout an output file name implies: `.nv12 .nv21 .yuv .i420 .yv12`.
    public init?(fileExtension ext: String) {
        switch ext.lowercased() {
        case "nv12": self = .nv12
        case "nv21": self = .nv21
        case "yuv", "i420", "yuv420p": self = .yuv420p
        case "yv12": self = .yv12
        default: return nil
        }
    }

    /// True when U and V share one interleaved plane.
    public var isBiPlanar: Bool { self == .nv12 || self == .nv21 }

    /// The CoreVideo pixel format this layout corresponds to, for the report.
    public var coreVideoName: String? {
        switch self {
        case .nv12: return "420YpCbCr8BiPlanar"
        case .yuv420p: return "420YpCbCr8Planar"
        default: return nil
        }
    }
}
