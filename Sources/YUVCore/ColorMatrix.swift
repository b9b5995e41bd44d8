/// The RGB → Y′CbCr matrices yuvconv knows, with Kr and Kb in exact 1/10000 units
/// (BT.2020 is the non-constant-luminance form). Kg = 1 − Kr − Kb.
public enum ColorMatrix: String, CaseIterable, Sendable {
    case bt601, bt709, bt2020

    /// The denominator of `kr`, `kg` and `kb`.
    public static let scale: Int = 10_000

    public var kr: Int {
        switch self {
        case .bt601: return 2990
        case .bt709: return 2126
        case .bt2020: return 2627
        }
    }

    public var kb: Int {
        switch self {
        case .bt601: return 1140
        case .bt709: return 722
        case .bt2020: return 593
        }
    }

    public var kg: Int { Self.scale - kr - kb }

    /// Accepts the names FFmpeg and common tools use: `bt709`/`709`, `bt601`/`601`/`smpte170m`/`bt470bg`,
    /// `bt2020`/`2020`/`bt2020nc`.
    public init?(name: String) {
        switch name.lowercased() {
        case "bt709", "709", "rec709": self = .bt709
        case "bt601", "601", "rec601", "smpte170m", "bt470bg": self = .bt601
        case "bt2020", "2020", "rec2020", "bt2020nc", "bt2020-ncl": self = .bt2020
        default: return nil
        }
    }
}

/// Full range puts Y and C on 0…255; limited ("video", "tv") range puts Y on 16…235 and C on 16…240.
public enum ColorRange: String, CaseIterable, Sendable {
    case full, limited

    public init?(name: String) {
        switch name.lowercased() {
        case "full", "pc", "jpeg": self = .full
        case "limited", "tv", "mpeg", "video": self = .limited
        default: return nil
        }
    }
}

/// A matrix and a range: everything that decides the numbers of a conversion.
public struct ConversionSpec: Hashable, Sendable, CustomStringConvertible {
    public var matrix: ColorMatrix
    public var range: ColorRange

    public init(matrix: ColorMatrix = .bt709, range: ColorRange = .full) {
        self.matrix = matrix
        self.range = range
    }

    public var description: String { "\(matrix.rawValue) \(range.rawValue)" }

    public static var all: [ConversionSpec] {
        ColorMatrix.allCases.flatMap { m in ColorRange.allCases.map { ConversionSpec(matrix: m, range: $0) } }
    }
}
