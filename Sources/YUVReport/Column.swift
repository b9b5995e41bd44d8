import YUVCore
import YUVIO

/// One column of the report: its name in JSON and CSV, its heading in the tables, its value for an image
/// and how it is totalled. Every format walks `Column.all` in order and takes the columns it shows.
public struct Column: Sendable {
    /// The JSON key and CSV heading; nil for a column only the tables show.
    public let key: String?
    /// CSV shows it too (JSON shows every column with a key).
    public let inCSV: Bool
    /// The terminal table's heading and width; left-aligned columns are shortened to fit.
    public let text: TextHeading?
    /// The HTML table's heading.
    public let html: String?
    public let value: @Sendable (ImageRecord) -> Cell
    public let total: Total?

    public struct TextHeading: Sendable {
        public let heading: String
        public let width: Int
        public let left: Bool
    }

    /// How a column is totalled.
    public enum Total: Sendable {
        /// Text naming the totals row rather than a measure (CSV writes it; JSON names its totals object
        /// by its own fields and HTML heads the row "total").
        case caption(@Sendable (Totals) -> String)
        /// One figure for the whole batch: a sum, or the run's peak memory.
        case sum(@Sendable (Totals) -> Cell)
        /// A quality measure: its worst (lowest) and median over the images.
        case spread(@Sendable (QualityReport) -> Cell)
    }

    init(_ key: String?, csv: Bool = true, text: (String, Int)? = nil, left: Bool = false, html: String? = nil,
         total: Total? = nil, _ value: @escaping @Sendable (ImageRecord) -> Cell) {
        self.key = key
        self.inCSV = key != nil && csv
        self.text = text.map { TextHeading(heading: $0.0, width: $0.1, left: left) }
        self.html = html
        self.total = total
        self.value = value
    }

    /// A column of converted images only (absent for a failed one).
    static func converted(_ key: String?, csv: Bool = true, text: (String, Int)? = nil, html: String? = nil,
                          total: Total? = nil, _ value: @escaping @Sendable (ImageRecord, ConversionReport) -> Cell) -> Column {
        Column(key, csv: csv, text: text, html: html, total: total) { r in r.report.map { value(r, $0) } ?? .absent }
    }

    /// A quality measure: unmeasured when the image has no quality figures; totalled as worst and median.
    static func quality(_ key: String, text: (String, Int)? = nil, html: String? = nil,
                        _ measure: @escaping @Sendable (QualityReport) -> Cell) -> Column {
        converted(key, text: text, html: html, total: .spread(measure)) { r, _ in r.quality.map(measure) ?? .unmeasured }
    }

    /// A pair of quality measures only the tables show (no key), totalled as each measure's worst (the HTML
    /// footer's Cb / Cr cell was empty, while CSV and text gave the worst of each).
    static func qualityCell(text: (String, Int)? = nil, html: String? = nil,
                            _ cell: @escaping @Sendable (QualityReport) -> Cell) -> Column {
        converted(nil, text: text, html: html, total: .spread(cell)) { r, _ in r.quality.map(cell) ?? .unmeasured }
    }

    /// The report's columns, in the order every format writes them.
    public static let all: [Column] = [
        Column("file", text: ("file", 22), left: true, html: "file",
               total: .caption { "TOTAL (\($0.images) image\($0.images == 1 ? "" : "s"), \($0.failed) failed\($0.skippedAndNotStarted))" }) { .name($0.file) },
        Column("ok", total: .caption { $0.failed == 0 ? "true" : "false" }) { .flag($0.report != nil || $0.skipped != nil) },
        Column("error") { r in r.error.map { .name($0) } ?? .absent },
        converted(nil, text: ("size", 10), html: "size") { _, rep in .size(width: rep.geometry.width, height: rep.geometry.height) },
        converted(nil, html: "source") { _, rep in .text(rep.info.container.rawValue + " " + rep.info.sampling) },
        converted("format") { _, rep in .text(rep.info.container.rawValue) },
        converted("width") { _, rep in .count(rep.geometry.width) },
        converted("height") { _, rep in .count(rep.geometry.height) },
        converted("pixels", csv: false, total: .sum { .count($0.pixels) }) { _, rep in .count(rep.geometry.pixels) },
        converted("source_sampling") { _, rep in .text(rep.info.sampling) },
        converted("file_bytes") { _, rep in .bytes(rep.inputBytes) },
        converted(nil, html: "output") { _, rep in .text(rep.layout.rawValue + " " + rep.spec.description) },
        converted("layout") { _, rep in .text(rep.layout.rawValue) },
        converted("matrix") { _, rep in .text(rep.spec.matrix.rawValue) },
        converted("range") { _, rep in .text(rep.spec.range.rawValue) },
        // What the numbers mean, by FFmpeg's names and H.273 code points, and how to read raw planes back.
        converted("color_primaries") { _, rep in .text(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).primaries.name) },
        converted("color_transfer") { _, rep in .text(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).transfer.name) },
        converted("chroma_location") { _, rep in .text(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).chromaLocation.name) },
        converted("cicp_primaries") { _, rep in .count(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).primaries.cicp) },
        converted("cicp_transfer") { _, rep in .count(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).transfer.cicp) },
        converted("cicp_matrix") { _, rep in .count(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).matrix.cicp) },
        converted("cicp_full_range") { _, rep in .count(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).range.cicp) },
        converted("cicp_chroma_location") { _, rep in .count(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).chromaLocation.cicp) },
        converted("ffmpeg_rawvideo_input") { r, rep in
            // A Y4M: the tags its header lacks (untagged, ffmpeg reads it as BT.601: 34 dB instead of 45.6 on
            // kodim23), before `-i` as for rawvideo.
            if r.y4m {
                return .arguments(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation)
                    .ffmpegTags.joined(separator: " "))
            }
            // Plain rawvideo only, else empty: FFmpeg reads no row or plane padding, and has no bi-planar pixel
            // format with an A plane (docs/cli.md gives the numpy and dd ways to read those).
            if !r.rawVideo || r.filePadded || (rep.alphaBytes > 0 && rep.layout.isBiPlanar) { return .text("") }
            return .arguments(ColourDescription(spec: rep.spec, primaries: rep.primaries, chromaLocation: rep.chromaLocation).ffmpegInputArguments(layout: rep.layout, width: rep.geometry.width,
                                                                         height: rep.geometry.height, alpha: rep.alphaBytes > 0).joined(separator: " "))
        },
        converted("ffmpeg_filter") { _, rep in ColourDescription.ffmpegFilter(layout: rep.layout, siting: rep.chromaLocation).map { .arguments($0) } ?? .text("") },
        converted("color_management") { _, rep in .name(rep.colour ?? "none") },
        converted("path", html: "path") { _, rep in .text(rep.path) },
        converted("orientation", csv: false) { _, rep in .count(rep.orientation.exif) },
        converted("rgba_bytes", text: ("RGBA", 10), html: "RGBA", total: .sum { .bytes($0.rgba) }) { _, rep in
            .bytes(rep.geometry.rgbaBytes)
        },
        converted("rgb_bytes", total: .sum { .bytes($0.rgb) }) { _, rep in .bytes(rep.geometry.rgbBytes) },
        converted("yuv_bytes", text: ("YUV", 10), html: "YUV", total: .sum { .bytes($0.yuv) }) { r, _ in .bytes(r.yuvBytes) },
        converted("alignment", csv: false) { r, _ in .count(r.alignment) },
        converted("yuv_aligned_bytes", total: .sum { .bytes($0.aligned) }) { r, _ in .bytes(r.alignedBytes) },
        converted("alpha_bytes", csv: false) { _, rep in .bytes(rep.alphaBytes) },
        converted("saving_vs_rgba_bytes", total: .sum { .bytes($0.savingRGBA.bytes) }) { r, _ in .bytes(r.savingRGBA.bytes) },
        converted("saving_vs_rgba_percent", text: ("saved", 7), html: "saved", total: .sum { .percent($0.savingRGBA.percent) }) {
            r, _ in .percent(r.savingRGBA.percent)
        },
        converted("saving_vs_rgb_bytes", total: .sum { .bytes($0.savingRGB.bytes) }) { r, _ in .bytes(r.savingRGB.bytes) },
        converted("saving_vs_rgb_percent", total: .sum { .percent($0.savingRGB.percent) }) { r, _ in .percent(r.savingRGB.percent) },
        quality("psnr_y_db", text: ("PSNR Y", 7), html: "PSNR Y dB") { .decibels($0.psnrY) },
        // The narrow table shows the worse chroma plane; HTML shows both.
        qualityCell(text: ("Cb/Cr", 7)) { .decibels(min($0.psnrCb, $0.psnrCr)) },
        qualityCell(html: "PSNR Cb / Cr dB") { .decibelPair($0.psnrCb, $0.psnrCr) },
        quality("psnr_cb_db") { .decibels($0.psnrCb) },
        quality("psnr_cr_db") { .decibels($0.psnrCr) },
        quality("psnr_rgb_db") { .decibels($0.psnrRGB) },
        quality("ssim_y", text: ("SSIM", 7), html: "SSIM Y") { .similarity($0.ssimY) },
        // Each image's own memory: its conversion's buffers, as its ledger counted them. The process's peak is
        // the run's, not an image's (in a batch, a peak so far): the totals give it, once.
        converted("conversion_buffers_bytes", html: "buffers") { _, rep in .bytes(rep.ledgerPeakBytes) },
        Column("peak_rss_bytes", total: .sum { .bytes($0.peakRSS) }) { _ in .absent },
        converted("naive_peak_bytes") { r, _ in .bytes(r.naivePeak) },
        converted("warnings", csv: false) { _, rep in .count(rep.warnings) },
        // The file written, as `stat` and `sha256sum` see it (null when nothing was written: `report`).
        converted("output_bytes") { r, _ in r.output.map { .bytes($0.bytes) } ?? .unmeasured },
        converted("output_sha256") { r, _ in r.output.map { .text($0.sha256) } ?? .unmeasured },
        converted("up_to_date") { r, _ in .flag(r.upToDate) },
        // Added after the rest, so CSV columns keep their places: how chroma was made, and the round trip a
        // player makes (bilinear chroma), which sharp chroma is made for.
        converted("chroma_filter") { _, rep in .text(rep.chromaFilter.rawValue) },
        quality("psnr_rgb_bilinear_db") { $0.psnrRGBBilinear.map { .decibels($0) } ?? .unmeasured },
        // Why an input was skipped without being read (its output already there); absent for the others.
        Column("skipped") { r in r.skipped.map { .text($0) } ?? .absent },
        // Where the output is (written, kept or already there); absent without one (`report`, a failure).
        Column("output") { r in r.outputPath.map { .name($0) } ?? .absent },
        // Added last, so CSV columns keep their places. Sharp chroma's own gain: the box filter's planes of the same RGB through the same player (per image
        // only: the text line gives them too; the totals' spread is of the measures above).
        converted("psnr_rgb_bilinear_box_db") { r, _ in r.quality?.psnrRGBBilinearBox.map { .decibels($0) } ?? .unmeasured },
        converted("sharp_gain_db") { r, _ in r.quality?.sharpGain.map { .decibels($0) } ?? .unmeasured },
        // What `warnings` counts, said: the first warning (damage converted past first), as the run printed it.
        converted("first_warning", csv: false) { _, rep in rep.warnings > 0 ? .text(rep.firstWarning) : .unmeasured },
    ]

    /// The columns JSON writes (with a key), CSV writes, and the two tables show.
    public static var json: [Column] { all.filter { $0.key != nil } }
    public static var csv: [Column] { all.filter { $0.inCSV } }
    public static var textTable: [Column] { all.filter { $0.text != nil } }
    public static var htmlTable: [Column] { all.filter { $0.html != nil } }
}
