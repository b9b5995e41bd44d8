import YUVCore

/// The batch's totals and quality spread.
public struct Totals: Sendable {
    public let images: Int, failed: Int, pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int
    /// Each quality measure's lowest and median over the images measured (nil when none was).
    public let worst: QualityReport?, median: QualityReport?

    public init(_ records: [ImageRecord]) {
        var images = 0, failed = 0, pixels = 0, rgba = 0, rgb = 0, yuv = 0, aligned = 0
        var qualities: [QualityReport] = []
        for r in records {
            guard let g = r.g else {
                failed += 1
                continue
            }
            images += 1
            pixels += g.pixels
            rgba += g.rgbaBytes
            rgb += g.rgbBytes
            yuv += r.yuvBytes
            aligned += r.alignedBytes
            if let q = r.quality { qualities.append(q) }
        }
        (self.images, self.failed, self.pixels, self.rgba, self.rgb, self.yuv, self.aligned) =
            (images, failed, pixels, rgba, rgb, yuv, aligned)
        worst = Totals.spread(qualities) { $0.min()! }
        median = Totals.spread(qualities, Totals.median)
    }

    /// One statistic of each quality measure over `qualities`, measure by measure.
    static func spread(_ qualities: [QualityReport], _ statistic: ([Double]) -> Double) -> QualityReport? {
        if qualities.isEmpty { return nil }
        func of(_ measure: (QualityReport) -> Double) -> Double { statistic(qualities.map(measure)) }
        // Over the images that have it (figures kept from before it was measured do not).
        let bilinear = qualities.compactMap(\.psnrRGBBilinear)
        return QualityReport(psnrY: of { $0.psnrY }, psnrCb: of { $0.psnrCb }, psnrCr: of { $0.psnrCr },
                             psnrRGB: of { $0.psnrRGB }, ssimY: of { $0.ssimY },
                             psnrRGBBilinear: bilinear.isEmpty ? nil : statistic(bilinear))
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    public var savingRGBA: Saving { Saving(baseline: rgba, ours: yuv) }
    public var savingRGB: Saving { Saving(baseline: rgb, ours: yuv) }
}
