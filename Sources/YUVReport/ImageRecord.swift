import YUVCore
import YUVIO

/// One image's line of the report: a converted image (`report`), a failed one (`error`), or one skipped
/// (`skipped`).
public struct ImageRecord: Sendable {
    public var file: String
    public var error: String?
    public var report: ConversionReport?
    public var quality: QualityReport?
    public var alignment: Int
    /// The plane-height alignment of the aligned figure (`--align-height`; 1 when not asked).
    public var heightAlignment = 1
    /// The written file's rows or planes are padded (`--align`, `--align-height`): not plain rawvideo.
    public var filePadded = false
    /// The output is (or, for `report`, would be) raw planes: not a Y4M, PNG or JPEG, which ffmpeg's rawvideo
    /// options do not read.
    public var rawVideo = true
    /// The output is (or would be) a Y4M file: its header gives the size, layout and range but not the matrix,
    /// primaries or transfer, which ffmpeg must be told.
    public var y4m = false
    /// The process's peak resident set right after this conversion. Not reported per image (in a batch it is the
    /// peak of everything so far): a report's totals give the run's, and a single conversion's is its own.
    public var peakRSS: Int
    /// The written output's size and SHA-256, hashed as it was written (nil when nothing was written: `report`).
    public var output: OutputDigest?
    /// Where the output went (`-`: standard output), as the run named it; nil when there is none (`report`, a
    /// failure).
    public var outputPath: String?
    /// Kept by `--update` as up to date, not converted again: the figures are those its manifest recorded when
    /// it was converted (its buffers and peak memory included).
    public var upToDate = false
    /// Skipped without being converted or read — its output already there and no `--force` (a batch without
    /// `--update`) — and why: a line of its own, so every input has one, with no figures.
    public var skipped: String?

    public init(file: String, error: String?, report: ConversionReport?, quality: QualityReport?, alignment: Int,
                peakRSS: Int) {
        (self.file, self.error, self.report, self.quality, self.alignment, self.peakRSS) =
            (file, error, report, quality, alignment, peakRSS)
    }

    public var g: PlaneGeometry? { report?.geometry }
    /// The output frame with its rows padded to `alignment` (`FrameLayout` is the one place that knows).
    public func frame(alignment: Int, heightAlignment: Int = 1) -> FrameLayout? {
        report.map { FrameLayout(width: $0.geometry.width, height: $0.geometry.height, pixelLayout: $0.layout,
                                 alignment: alignment, heightAlignment: heightAlignment, alpha: $0.alphaBytes > 0) }
    }
    /// The YUV buffers, with the alpha plane when it is kept (2.5 B/px then).
    public var yuvBytes: Int { frame(alignment: 1)?.byteCount ?? 0 }
    /// The same with rows padded to `alignment`: the file's size when `--align` wrote it so.
    public var alignedBytes: Int { frame(alignment: alignment, heightAlignment: heightAlignment)?.byteCount ?? 0 }
    /// What `alignedBytes` is padded to, as the text and HTML reports label it: "64", or "6, height 5" when
    /// `--align-height` pads the plane heights too (the label once named only the rows' padding).
    public var alignmentLabel: String { heightAlignment > 1 ? "\(alignment), height \(heightAlignment)" : "\(alignment)" }
    public var savingRGBA: Saving { Saving(baseline: g?.rgbaBytes ?? 0, ours: yuvBytes) }
    public var savingRGB: Saving { Saving(baseline: g?.rgbBytes ?? 0, ours: yuvBytes) }
    /// The naive route's peak: an RGBA decode plus the YUV buffers.
    public var naivePeak: Int { (g?.rgbaBytes ?? 0) + yuvBytes }
}
