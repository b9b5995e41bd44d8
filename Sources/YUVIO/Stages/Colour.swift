import CShims
import YUVCore

/// What colour management does for a source (`ImageDecoder.colourPlan`).
public enum ColourAction: Sendable, Equatable {
    /// No colour information, or a space the target already is (an sRGB profile to sRGB).
    case none
    /// A transform to the target space, before the conversion.
    case transform
    /// The decoder's own transform (a CMYK JPEG's profile): its rows are already in the target space.
    case decoded
    /// A profile that cannot be used: a warning, and the samples are used as stored.
    case broken
}

extension Primaries {
    /// The C side's target (`yc_target`).
    var target: Int32 {
        switch self {
        case .bt709: return 0
        case .p3: return 1
        case .bt2020: return 2
        }
    }
}

extension Primaries {
    /// The ICC profile a PNG or JPEG output in these primaries carries (LittleCMS's, as the colour stage's
    /// target), so viewers show its colours as they are; nil for BT.709, which is sRGB: what an untagged
    /// picture is taken as, so those outputs stay as they were.
    public var outputProfile: (name: String, bytes: [UInt8])? { Self.outputProfiles[self] ?? nil }

    /// Made once per process (LittleCMS builds and serialises each; a batch's outputs share them).
    private static let outputProfiles: [Primaries: (name: String, bytes: [UInt8])?] = Dictionary(
        uniqueKeysWithValues: allCases.map { p in
            guard p != .bt709 else { return (p, nil) }
            let t = yc_target(UInt32(p.target))
            let size = yc_colour_target_icc(t, nil, 0)
            guard size > 0 else { return (p, nil) }
            var bytes = [UInt8](repeating: 0, count: size)
            guard yc_colour_target_icc(t, &bytes, size) == size else { return (p, nil) }
            return (p, (p == .p3 ? "Display P3" : "BT.2020", bytes))
        })
}

/// The colour stage: a LittleCMS transform of the source's RGB rows (in place, on the worker, before the
/// alpha stage) to the target RGB space. Made once per conversion; rows of one format.
public final class ColourTransform {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { yc_colour_transform_free(handle) }

    /// True when rows may be transformed on several threads at once (the fast path's tables, or a LittleCMS
    /// transform without its 1-pixel cache).
    public var isConcurrent: Bool { yc_colour_transform_is_concurrent(handle) != 0 }

    /// Transforms `count` rows of `width` pixels, `rowBytes` apart, in place.
    public func apply(_ rows: UnsafeMutableRawPointer, rowBytes: Int, width: Int, count: Int) {
        yc_colour_transform_apply(handle, rows, rowBytes, UInt32(width), UInt32(count))
    }
}
