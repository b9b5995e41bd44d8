import YUVCore

/// How a JPEG is converted: straight from its YCbCr planes (the default), or decoded to RGB first.
public enum JPEGPath: String, Sendable, CaseIterable {
    /// The default: the direct path, except for chroma at full resolution one way or both (4:4:4, 4:2:2, 4:4:0),
    /// which the RGB route converts closer to the source, about as fast (`yc_jpeg_open` says why).
    case auto
    /// The direct path wherever the file allows it, 4:4:4, 4:2:2 and 4:4:0 too.
    case direct
    /// Decoded to RGB, then the contract's conversion.
    case rgb
}

/// What happens to alpha (PNG alpha channels and tRNS; other sources are opaque).
public enum AlphaMode: Sendable, Equatable {
    /// Dropped: the contract converts the colour samples as stored.
    case ignore
    /// Kept as a full-resolution plane after the 4:2:0 planes (yuva420p for planar layouts, "nv12a" —
    /// NV12 followed by the A plane — for bi-planar ones).
    case keep
    /// Composited over an opaque colour first: C' = ⌊(C·a + bg·(255 − a))/255 + ½⌋.
    case flatten(r: UInt8, g: UInt8, b: UInt8)
    /// Colour multiplied by alpha first: C' = ⌊C·a/255 + ½⌋.
    case premultiply
}

/// Whether the EXIF orientation is applied (`auto`, the default: output is upright as viewers show it) or
/// the picture is converted as stored (`ignore`: the contract's "sample values as stored", yuvref's output).
public enum OrientationMode: String, Sendable, CaseIterable {
    case auto, ignore
}

/// Options that decide how an input is read.
public struct DecodeOptions: Sendable {
    /// Most pixels a picture may have; a negative one is 0 (every picture refused, with the reason).
    public var maxPixels: Int { didSet { maxPixels = max(maxPixels, 0) } }
    public var allowTruncated: Bool
    public var jpegPath: JPEGPath
    /// Decode on one thread while another converts and writes (the default). A batch that runs one file per
    /// core turns it off: the files already keep every core busy, and `-j N` then means N threads.
    public var pipelined: Bool
    /// With `pipelined`: keep the workers off the CPU the decoding thread runs on when the conversion begins (Linux;
    /// `BandPipeline`). For a program that gives the machine's cores to one conversion, as the command line's single
    /// conversion does; off by default.
    public var placesThreads = false
    /// The least picture (in pixels) whose workers `placesThreads` places: below it the scheduler is left alone.
    /// A placed worker kept waiting by other work is let go only after a band, and a smaller picture is over
    /// before that pays — with another process's shell loops busy on the machine, a 256×256 JPEG took 12.9 ms
    /// placed against 6.1 left to the scheduler, a 2048×1536 one 34 against 26 — while on a quiet machine it gains
    /// nothing measurable (4.5–5.5 against 4.7–4.8 ms, 22.1–22.6 against 22.6–22.8: docs/performance.md).
    public static let placementMinimumPixels = 6_000_000

    /// Whether a conversion of a `pixels`-pixel picture places its workers (`placesThreads`, and a picture large
    /// enough: `placementMinimumPixels`).
    public func placesWorkers(pixels: Int) -> Bool { placesThreads && pixels >= Self.placementMinimumPixels }
    public var alpha: AlphaMode
    /// Say when `ignore` dropped an alpha that made pixels transparent: the default's warning, off when
    /// `--alpha ignore` was asked for by name (the user knows).
    public var sayDroppedAlpha = true
    public var orientation: OrientationMode
    /// Most scans a progressive JPEG may have (`--max-scans`, 1 or more); 0 or less: no limit (the flood of
    /// scans it guards against is then the program's to bound).
    public var maxScans = ImageDecoder.defaultMaxScans
    /// Most bytes a picture held whole may take (`--max-memory`); nil: by the file's size
    /// (`ImageDecoder.wholeBudget`). 0 or less is 1 byte: every picture held whole refused (never "no limit").
    public var maxMemory: Int? { didSet { maxMemory = maxMemory.map { max($0, 1) } } }
    /// Colour management (`--color-management auto|off`): on by default.
    public var colourManagement = true
    /// The RGB space to convert in (`--primaries`); nil: the matrix's (`Primaries(for:)`).
    public var primaries: Primaries?
    /// How chroma is made (`--chroma-filter`): the contract's box, or sharp chroma (8-bit outputs only; a JPEG
    /// then goes through RGB).
    public var chromaFilter = ChromaFilter.box
    /// The identities of the run's inputs as it found them (nil: not checked). An input that is a FIFO or a
    /// device when opened, and none of them, was put in place of a file after the run listed it (a folder walk
    /// takes regular files only): refused before it is read — a FIFO whose writer never writes held a batch.
    public var listed: (any FileIdentitySet)?

    /// The target RGB space for `spec`.
    public func target(for spec: ConversionSpec) -> Primaries { primaries ?? Primaries(for: spec.matrix) }

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels, allowTruncated: Bool = false,
                jpegPath: JPEGPath = .auto, pipelined: Bool = true, alpha: AlphaMode = .ignore,
                orientation: OrientationMode = .auto) {
        self.alpha = alpha
        self.orientation = orientation
        self.maxPixels = max(maxPixels, 0)
        self.allowTruncated = allowTruncated
        self.jpegPath = jpegPath
        self.pipelined = pipelined
    }
}

/// One kind of warning a conversion met: its sentence (that of the first), and how many came.
public struct WarningKind: Sendable, Equatable {
    public let text: String
    public var count: Int

    public init(text: String, count: Int = 1) { (self.text, self.count) = (text, count) }

    /// The same sentence but for its decimal numbers ("1214 bytes … marker 0xd0", "836 … 0xd0"), as the decoder
    /// keeps its kinds (`same_kind` in yc_decode.c): a hexadecimal number, a marker, is part of the kind — junk
    /// before a quantisation table (0xdb) and before a Huffman table (0xc4) are two — but for the eight restart
    /// markers (0xd0 … 0xd7), one kind. (Every hexadecimal number was one, so the junk before 0xc4 went unsaid,
    /// counted in "(2 times)" under 0xdb's line.)
    func sameKind(as other: WarningKind) -> Bool { Self.shape(text) == Self.shape(other.text) }

    static func shape(_ s: String) -> String {
        var out = "", digits = false
        var i = s.unicodeScalars.startIndex
        let u = s.unicodeScalars
        while i < u.endIndex {
            let c = u[i]
            // (A "0x" inside a decimal number, "640x480", is no hexadecimal number: the decoder reads it so too.)
            if c == "0", !digits, u.index(after: i) < u.endIndex, u[u.index(after: i)] == "x" {
                i = u.index(i, offsetBy: 2)
                var hex = ""
                while i < u.endIndex, ("0"..."9").contains(u[i]) || ("a"..."f").contains(u[i]) {
                    hex.unicodeScalars.append(u[i])
                    i = u.index(after: i)
                }
                out += LibraryMessages.isRestartMarker(hex) ? "0xRST" : "0x" + hex
                digits = false
                continue
            }
            if ("0"..."9").contains(c) {
                if !digits { out += "#" }
                digits = true
            } else {
                out.unicodeScalars.append(c)
                digits = false
            }
            i = u.index(after: i)
        }
        return out
    }
}

/// What one conversion did.
public struct ConversionReport: Sendable {
    public let info: SourceInfo
    public let geometry: PlaneGeometry
    public let layout: PixelLayout
    public let spec: ConversionSpec
    public let inputBytes: Int
    public let warnings: Int
    public let firstWarning: String
    /// The kinds of warning said (the first of them `firstWarning`), with how many of each: damage to the pixels
    /// first, then what colour management could not do, then the decoder's others in the order they came. They
    /// count `warnings` but for those of kinds the decoder did not keep. Empty when restored from a manifest,
    /// which keeps the first.
    public var warningKinds: [WarningKind] = []
    /// "direct YCbCr" (JPEG planes, no RGB) or "RGB".
    public let path: String
    /// The alpha plane's bytes when alpha is kept (W·H), else 0.
    public var alphaBytes: Int = 0
    /// The buffers this conversion allocated at their peak (band buffers, chroma held for a pipe, the
    /// whole picture when kept in memory), from the ledger.
    public let ledgerPeakBytes: Int
    /// The orientation applied, EXIF's or XMP's (`info.orientationSource`); identity when there was none or
    /// `--orientation ignore`.
    public var orientation: Orientation = .identity
    /// What colour management did ("Display P3 → sRGB"), nil when it did nothing.
    public var colour: String?
    /// The RGB space converted (colour management's target).
    public var primaries: Primaries = .bt709
    /// Where the chroma samples sit.
    public var chromaLocation: ChromaLocation = .center
    /// How chroma was made: the contract's box, or sharp chroma.
    public var chromaFilter = ChromaFilter.box
    /// The input file as it was read (nil for standard input or a pipe): what a second reading of it must find
    /// (`boxBilinearPSNR`).
    public var inputVersion: FileVersion?
    /// PSNR and SSIM against the source, when the conversion was asked to measure them.
    public var quality: QualityReport?
}

extension ConversionReport {
    /// The orientation applied and where it was read, for people: "turned 90° clockwise (EXIF 6)", "… (XMP 6)".
    public var orientationText: String {
        "\(orientation) (\(info.orientationSource.rawValue) \(orientation.exif))"
    }

    /// A report put back together from figures kept since the conversion (`--update`'s manifest), for an
    /// image that is up to date and not converted again.
    public init(restoring info: SourceInfo, geometry: PlaneGeometry, layout: PixelLayout, spec: ConversionSpec,
                inputBytes: Int, warnings: Int, firstWarning: String, path: String, alphaBytes: Int,
                ledgerPeakBytes: Int, orientation: Orientation) {
        self.init(info: info, geometry: geometry, layout: layout, spec: spec, inputBytes: inputBytes, warnings: warnings,
                  firstWarning: firstWarning, path: path, alphaBytes: alphaBytes, ledgerPeakBytes: ledgerPeakBytes,
                  orientation: orientation)
    }
}

extension SourceInfo {
    /// What the decoder said of a source, put back together from figures kept since (`--update`'s manifest).
    public init(restoring container: Container, width: Int, height: Int, sampling: String, rowFormat: SourceFormat,
                progressive: Bool, interlaced: Bool, hasAlpha: Bool, orientation: Int) {
        self.init(container: container, width: width, height: height, sampling: sampling, rowFormat: rowFormat,
                  progressive: progressive, interlaced: interlaced, hasAlpha: hasAlpha, orientation: orientation)
    }
}

/// Everything one in-memory conversion produced: the picture in its output layout and what the input was.
public struct Conversion: Sendable {
    public let report: ConversionReport
    public let image: YUVImage
    public var info: SourceInfo { report.info }
    public var inputBytes: Int { report.inputBytes }
    public var warnings: Int { report.warnings }
    public var firstWarning: String { report.firstWarning }
}
