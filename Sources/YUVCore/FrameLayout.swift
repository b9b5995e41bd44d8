/// Where every byte of a 4:2:0 frame lives: plane order and interleave (the `PixelLayout`), bytes per
/// sample, row strides (rows padded to a multiple of `alignment` bytes, as CoreVideo, GPUs and hardware
/// encoders want them) and plane offsets, and an optional full-resolution A plane after the others.
/// Every writer, the raw/Y4M reader, the in-memory picture and the report's sizes ask this type and nothing
/// else; `alignment: 1` is the tightly packed frame FFmpeg's rawvideo reads.
public struct FrameLayout: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixelLayout: PixelLayout
    /// 1 for 8-bit samples, 2 for the 10-bit layouts' 16-bit words (the layout's own).
    public var bytesPerSample: Int { pixelLayout.bytesPerSample }
    /// Every row of every plane starts a multiple of this many bytes after its plane's start (1: tight).
    public let alignment: Int
    /// The luma plane has a multiple of this many rows (padding rows after the picture's), and each chroma
    /// plane half as many, rounded up (1: the picture's own rows). Raspberry Pi's codecs want 16.
    public let heightAlignment: Int
    /// An A plane (W × H) follows the 4:2:0 planes.
    public let alpha: Bool

    /// The planes a frame can hold; `uv` is a bi-planar layout's interleaved chroma plane (U,V for NV12,
    /// V,U for NV21).
    public enum Plane: Sendable, Equatable { case y, u, v, uv, a }

    /// An alignment below 1 is 1 (tightly packed): the one place that decides, for every caller (a library
    /// caller's 0 trapped in the precondition, behind each public entry that takes one).
    public init(width: Int, height: Int, pixelLayout: PixelLayout, alignment: Int = 1,
                heightAlignment: Int = 1, alpha: Bool = false) {
        precondition(width > 0 && height > 0)
        self.heightAlignment = max(heightAlignment, 1)
        self.width = width
        self.height = height
        self.pixelLayout = pixelLayout
        self.alignment = max(alignment, 1)
        self.alpha = alpha
    }

    /// The largest row or height alignment a library caller may ask for (the command takes 1 to 4096): past it the
    /// padded sizes overflowed (`Int.max` trapped); a conversion asked for more throws with `alignmentProblem`.
    public static let maxAlignment = 1 << 24

    /// Why `alignment` and `heightAlignment` cannot lay out a frame (nil when they can; 0 and below are 1).
    public static func alignmentProblem(_ alignment: Int, _ heightAlignment: Int) -> String? {
        max(alignment, heightAlignment) <= maxAlignment ? nil
            : "an alignment of \(max(alignment, heightAlignment)) is above the largest, \(maxAlignment)"
    }

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    public var isBiPlanar: Bool { pixelLayout.isBiPlanar }

    /// The planes in the order they follow each other in the frame.
    public var planes: [Plane] {
        let chroma: [Plane]
        switch pixelLayout {
        case .nv12, .nv21, .p010: chroma = [.uv]
        case .yuv420p, .yuv420p10le: chroma = [.u, .v]
        case .yv12: chroma = [.v, .u]
        }
        return [.y] + chroma + (alpha ? [.a] : [])
    }

    /// Samples' bytes in one row of `plane` (without padding).
    public func rowBytes(_ plane: Plane) -> Int {
        switch plane {
        case .y: return width * bytesPerSample
        case .a: return width
        case .u, .v: return chromaWidth * bytesPerSample
        case .uv: return 2 * chromaWidth * bytesPerSample
        }
    }

    /// Bytes from one row of `plane` to the next: `rowBytes` rounded up to the alignment.
    public func stride(_ plane: Plane) -> Int {
        (rowBytes(plane) + alignment - 1) / alignment * alignment
    }

    /// Rows of `plane`, padding rows included.
    public func rows(_ plane: Plane) -> Int {
        let luma = (height + heightAlignment - 1) / heightAlignment * heightAlignment
        return plane == .y || plane == .a ? luma : (luma + 1) / 2
    }

    /// Bytes `plane` takes in the frame.
    public func planeBytes(_ plane: Plane) -> Int { stride(plane) * rows(plane) }

    /// Where `plane` starts in the frame. A plane the layout does not have (`.u` of NV12) traps.
    public func offset(of plane: Plane) -> Int {
        var at = 0
        for p in planes {
            if p == plane { return at }
            at += planeBytes(p)
        }
        preconditionFailure("\(pixelLayout) has no \(plane) plane")
    }

    /// Where row `row` of `plane` starts in the frame.
    public func offset(of plane: Plane, row: Int) -> Int { offset(of: plane) + row * stride(plane) }

    /// The frame's size: every plane, padding included.
    public var byteCount: Int { planes.reduce(0) { $0 + planeBytes($1) } }

    /// The 4:2:0 planes' size without the A plane.
    public var colourByteCount: Int { byteCount - (alpha ? planeBytes(.a) : 0) }

    /// The same frame tightly packed (no padded rows, no padding rows).
    public var tight: FrameLayout {
        FrameLayout(width: width, height: height, pixelLayout: pixelLayout, alpha: alpha)
    }
}
