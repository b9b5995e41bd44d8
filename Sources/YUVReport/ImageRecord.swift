import YUVCore
import YUVIO

/// One image's line of the report: a converted image (`report`), or a failed one (`error`).
public struct ImageRecord: Sendable {
    public var file: String
    public var error: String?
    public var report: ConversionReport?
    public var quality: QualityReport?
    public var alignment: Int
    public var peakRSS: Int

    public init(file: String, error: String?, report: ConversionReport?, quality: QualityReport?, alignment: Int,
                peakRSS: Int) {
        (self.file, self.error, self.report, self.quality, self.alignment, self.peakRSS) =
            (file, error, report, quality, alignment, peakRSS)
    }

    public var g: PlaneGeometry? { report?.geometry }
    /// The YUV buffers, with the alpha plane when it is kept (2.5 B/px then).
    public var yuvBytes: Int { (g?.tightBytes ?? 0) + (report?.alphaBytes ?? 0) }
    public var alignedBytes: Int {
        guard let g else { return 0 }
        let up = (g.width + alignment - 1) / alignment * alignment
        return g.alignedBytes(alignment: alignment, biPlanar: report!.layout.isBiPlanar) + (report!.alphaBytes > 0 ? up * g.height : 0)
    }
    public var savingRGBA: Saving { Saving(baseline: g?.rgbaBytes ?? 0, ours: yuvBytes) }
    public var savingRGB: Saving { Saving(baseline: g?.rgbBytes ?? 0, ours: yuvBytes) }
    /// The naive route's peak: an RGBA decode plus the YUV buffers.
    public var naivePeak: Int { (g?.rgbaBytes ?? 0) + yuvBytes }
}
