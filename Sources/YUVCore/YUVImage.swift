/// A YUV 4:2:0 picture (8-bit, or 10-bit in 16-bit words) held in one buffer, already in its output layout: the bytes are exactly
/// what a raw file of that layout contains (planes tightly packed), so writing it is one write.
public struct YUVImage: Sendable {
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    public var bytes: [UInt8]

    public init(width: Int, height: Int, layout: PixelLayout) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        self.layout = layout
        bytes = [UInt8](repeating: 0, count: FrameLayout(width: width, height: height, pixelLayout: layout).byteCount)
    }

    /// A picture from bytes already in its layout (a raw or Y4M frame as read): no second buffer.
    public init(width: Int, height: Int, layout: PixelLayout, bytes: [UInt8]) {
        precondition(width > 0 && height > 0)
        precondition(bytes.count == FrameLayout(width: width, height: height, pixelLayout: layout).byteCount)
        self.width = width
        self.height = height
        self.layout = layout
        self.bytes = bytes
    }

    public var geometry: PlaneGeometry { PlaneGeometry(width: width, height: height) }

    /// What is wrong when `bytes` (a public var) no longer holds exactly the planes: what reads them by their
    /// geometry (the JPEG encoder, a frame's conversion) refuses the picture rather than read past the buffer.
    public var planesProblem: String? {
        let size = frameLayout.byteCount
        return bytes.count == size ? nil
            : "the picture's bytes (\(bytes.count)) are not its \(width)x\(height) \(layout.rawValue) planes (\(size))"
    }

    /// The Y plane (W × H).
    public var yPlane: ArraySlice<UInt8> { bytes[0..<(width * height)] }

    /// The U (Cb) plane, ⌈W/2⌉ × ⌈H/2⌉, de-interleaved when the layout is bi-planar.
    public var uPlane: [UInt8] { chromaPlane(u: true) }
    /// The V (Cr) plane, ⌈W/2⌉ × ⌈H/2⌉.
    public var vPlane: [UInt8] { chromaPlane(u: false) }

    /// Where this picture's bytes lie: tightly packed, in its layout.
    public var frameLayout: FrameLayout { FrameLayout(width: width, height: height, pixelLayout: layout) }

    func chromaPlane(u: Bool) -> [UInt8] {
        let f = frameLayout, n = f.chromaWidth * f.chromaHeight
        if f.isBiPlanar {
            let base = f.offset(of: .uv), first = (layout == .nv12) == u ? 0 : 1
            return (0..<n).map { bytes[base + 2 * $0 + first] }
        }
        let base = f.offset(of: u ? .u : .v)
        return Array(bytes[base..<(base + n)])
    }
}

/// Sizes of a W × H 4:2:0 picture and of its decoded alternatives: the arithmetic the per-image line
/// and the report share.
public struct PlaneGeometry: Sendable, Equatable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixels: Int { width * height }
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// W·H + 2·⌈W/2⌉·⌈H/2⌉: every 4:2:0 layout, tightly packed.
    public var tightBytes: Int { FrameLayout(width: width, height: height, pixelLayout: .yuv420p).byteCount }

    /// The same with every row padded to a multiple of `alignment` bytes, as CoreVideo pads rows
    /// (a bi-planar chroma row is 2·⌈W/2⌉ bytes; planar U and V rows are ⌈W/2⌉ each).
    public func alignedBytes(alignment: Int, biPlanar: Bool) -> Int {
        FrameLayout(width: width, height: height, pixelLayout: biPlanar ? .nv12 : .yuv420p, alignment: alignment).byteCount
    }

    /// 4 bytes a pixel: what a decoded RGBA8888 bitmap (UIImage/CGImage) holds.
    public var rgbaBytes: Int { pixels * 4 }
    /// 3 bytes a pixel.
    public var rgbBytes: Int { pixels * 3 }
}

/// A saving of `ours` against `baseline`, in bytes and percent.
public struct Saving: Sendable, Equatable {
    public let baseline: Int
    public let ours: Int

    public init(baseline: Int, ours: Int) {
        self.baseline = baseline
        self.ours = ours
    }

    public var bytes: Int { baseline - ours }
    public var percent: Double { baseline == 0 ? 0 : Double(bytes) * 100 / Double(baseline) }
}

/// Human units in powers of 1024: "512 B", "17.4 KiB", "46.5 MiB".
public func formatBytes(_ n: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(n)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    if unit == 0 { return "\(n) B" }
    return formatFixed(value, decimals: 1) + " " + units[unit]
}

/// `value` with a fixed number of decimals, rounded half away from zero (no Foundation here).
public func formatFixed(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    // Past 2^53 no digit after the point is known (and past 2^63 `Int` would trap): what Swift prints.
    guard scaled < 9_007_199_254_740_992 else { return value.isNaN ? "nan" : "\(value)" }
    let whole = Int(scaled / scale)
    let frac = Int(scaled - Double(whole) * scale)
    var text = "\(whole)"
    if decimals > 0 {
        let f = String(frac)
        text += "." + String(repeating: "0", count: decimals - f.count) + f
    }
    return (value < 0 && scaled != 0 ? "-" : "") + text
}
