import YUVCore
import YUVIO

/// The batch's totals and quality spread.
public struct Totals: Sendable {
    public let images: Int, failed: Int, pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int
    /// Each quality measure's lowest and median over the images measured (nil when none was).
    public let worst: QualityReport?, median: QualityReport?
    /// The process's peak resident set (`peakResidentBytes`) over the whole run: reported once, here, since in a
    /// batch no image has a peak of its own (each has its buffers, `conversion_buffers_bytes`).
    public let peakRSS: Int
    /// A batch's inputs that were not converted and did not fail: skipped as already there (each with a line
    /// of its own), and not started (the run was interrupted, or stopped by --fail-fast; no line); so images +
    /// failed + skipped + notStarted is every input. `interrupted`: a signal stopped the run.
    public var skipped = 0, notStarted = 0, interrupted = false

    /// The totals of `records`; the peak is `peakRSS`, else the highest the records give (a single
    /// conversion's: the process did nothing else).
    public init(_ records: [ImageRecord], peakRSS: Int? = nil) {
        let sum = TotalsAccumulator()
        for r in records { sum.add(Tally(r)) }
        // In memory up to 4096 images: nothing to fail.
        self = (try? sum.totals(peakRSS: peakRSS ?? records.map(\.peakRSS).max() ?? 0))
            ?? Totals(images: 0, failed: 0, pixels: 0, rgba: 0, rgb: 0, yuv: 0, aligned: 0, worst: nil, median: nil, peakRSS: 0)
    }

    init(images: Int, failed: Int, pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int, worst: QualityReport?,
         median: QualityReport?, peakRSS: Int) {
        (self.images, self.failed, self.pixels, self.rgba, self.rgb, self.yuv, self.aligned) =
            (images, failed, pixels, rgba, rgb, yuv, aligned)
        (self.worst, self.median, self.peakRSS) = (worst, median, peakRSS)
    }

    /// ", S skipped, N not started (interrupted)", or nothing; ", interrupted" when a signal stopped the run with
    /// nothing left to start (it came during the last files: they failed).
    public var skippedAndNotStarted: String {
        (skipped > 0 ? ", \(skipped) skipped" : "")
            + (notStarted > 0 ? ", \(notStarted) not started" + (interrupted ? " (interrupted)" : "") : interrupted ? ", interrupted" : "")
    }

    public var savingRGBA: Saving { Saving(baseline: rgba, ours: yuv) }
    public var savingRGB: Saving { Saving(baseline: rgb, ours: yuv) }
}

/// What one image adds to the totals.
public struct Tally: Sendable {
    let converted: Bool, skipped: Bool
    let pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int
    let quality: QualityReport?

    /// A converted image's figures as given (tests).
    init(pixels: Int, rgba: Int, rgb: Int, yuv: Int, aligned: Int) {
        (converted, skipped, quality) = (true, false, nil)
        (self.pixels, self.rgba, self.rgb, self.yuv, self.aligned) = (pixels, rgba, rgb, yuv, aligned)
    }

    public init(_ r: ImageRecord) {
        converted = r.g != nil
        skipped = r.g == nil && r.skipped != nil
        pixels = r.g?.pixels ?? 0
        rgba = r.g?.rgbaBytes ?? 0
        rgb = r.g?.rgbBytes ?? 0
        yuv = r.yuvBytes
        aligned = r.alignedBytes
        quality = r.g == nil ? nil : r.quality
    }
}

/// The totals as the images come in, in memory that does not grow with their number: running sums, each
/// measure's running minimum, and its median — exact, from the measures set aside (`QualitySpread`).
public final class TotalsAccumulator {
    var images = 0, failed = 0, skipped = 0, pixels = 0, rgba = 0, rgb = 0, yuv = 0, aligned = 0
    var worst: [Double]?
    let spread = QualitySpread()
    /// The bilinear round trip's PSNR apart: an image whose figures a manifest kept from before it was measured
    /// has none, so its worst and median are over the images that have one.
    var worstBilinear: Double?
    let bilinear = QualitySpread(measures: 1)

    public init() {}

    public func add(_ t: Tally) {
        guard t.converted else {
            if t.skipped { skipped += 1 } else { failed += 1 }
            return
        }
        images += 1
        // Sums that stop at Int.max: an image's figures are bounded (a manifest entry's pixels at 2^44), their
        // sum over a batch is not — 2^17 forged entries of a kept output reached 2^63 and trapped (a hostile
        // round), where a sum beyond any real batch is at worst a figure too large, said as the largest.
        func add(_ sum: inout Int, _ v: Int) {
            let (r, over) = sum.addingReportingOverflow(v)
            sum = over ? (v < 0 ? Int.min : Int.max) : r
        }
        add(&pixels, t.pixels)
        add(&rgba, t.rgba)
        add(&rgb, t.rgb)
        add(&yuv, t.yuv)
        add(&aligned, t.aligned)
        if let q = t.quality {
            let v = QualitySpread.measures(q)
            // IEEE minimum: a NaN (a library caller's figure) is passed over whichever image it comes with (`min`
            // kept it when it came first, and dropped it when it came second).
            worst = worst.map { zip($0, v).map { Double.minimum($0, $1) } } ?? v
            spread.add(v)
            if let b = q.psnrRGBBilinear {
                worstBilinear = Double.minimum(worstBilinear ?? b, b)
                bilinear.add([b])
            }
        }
    }

    /// The totals so far, with the run's peak memory.
    public func totals(peakRSS: Int) throws(FileError) -> Totals {
        var worstQ = worst.map(QualitySpread.report), medianQ = try spread.median().map(QualitySpread.report)
        worstQ?.psnrRGBBilinear = worstBilinear
        medianQ?.psnrRGBBilinear = try bilinear.median()?.first
        var t = Totals(images: images, failed: failed, pixels: pixels, rgba: rgba, rgb: rgb, yuv: yuv, aligned: aligned,
                       worst: worstQ, median: medianQ, peakRSS: peakRSS)
        t.skipped = skipped
        return t
    }
}

/// Every image's quality measures (five, or `measures`), for their medians: in memory for the first 4096 images,
/// then all on disk (a `Spool`, 8 bytes a measure), where the median is selected exactly in eight passes over the file,
/// a byte of each value at a time (radix selection: 256 counters per rank sought), whatever the number.
final class QualitySpread {
    private var held: [Double] = []
    private var spool: Spool?
    private(set) var count = 0
    static let heldImages = 4096
    /// Measures an image adds.
    let n: Int

    init(measures: Int = 5) { n = measures }

    static func measures(_ q: QualityReport) -> [Double] { [q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB, q.ssimY] }

    static func report(_ v: [Double]) -> QualityReport {
        QualityReport(psnrY: v[0], psnrCb: v[1], psnrCr: v[2], psnrRGB: v[3], ssimY: v[4])
    }

    func add(_ v: [Double]) {
        count += 1
        if let spool {
            for x in v { spool.append(bigEndian: Self.key(x)) }
            return
        }
        held += v
        if count > Self.heldImages {
            let s = Spool()
            for x in held { s.append(bigEndian: Self.key(x)) }
            held = []
            spool = s
        }
    }

    /// Each measure's median (the mean of the middle two for an even count), or nil when nothing was measured.
    func median() throws(FileError) -> [Double]? {
        guard count > 0 else { return nil }
        let ranks = count % 2 == 1 ? [count / 2] : [count / 2 - 1, count / 2]
        guard let spool else {
            return (0..<n).map { m in
                let s = stride(from: m, to: held.count, by: n).map { held[$0] }.sorted()
                return ranks.map { s[$0] }.reduce(0, +) / Double(ranks.count)
            }
        }
        try spool.seal()
        // One selection per measure and rank: the key's bytes found from the most significant down.
        var prefix = [UInt64](repeating: 0, count: n * ranks.count)
        var rank = (0..<n).flatMap { _ in ranks }
        for byte in 0..<8 {
            var counts = [Int](repeating: 0, count: 256 * prefix.count)
            var reader = spool.reader()
            let shift = UInt64(56 - 8 * byte)
            while let first = reader.readBigEndian() {
                var keys = [first]
                for _ in 1..<n { keys.append(reader.readBigEndian() ?? 0) }
                for s in prefix.indices {
                    let key = keys[s / ranks.count]
                    // Only the keys that share the bytes found so far.
                    if byte > 0 && key >> (shift + 8) != prefix[s] { continue }
                    counts[s * 256 + Int((key >> shift) & 0xFF)] += 1
                }
            }
            try spool.seal()
            for s in prefix.indices {
                var b = 0
                while rank[s] >= counts[s * 256 + b] {
                    rank[s] -= counts[s * 256 + b]
                    b += 1
                }
                prefix[s] = prefix[s] << 8 | UInt64(b)
            }
        }
        return (0..<n).map { m in
            (0..<ranks.count).map { Self.value(prefix[m * ranks.count + $0]) }.reduce(0, +) / Double(ranks.count)
        }
    }

    /// A number whose unsigned order is the value's order (+∞ included).
    static func key(_ d: Double) -> UInt64 {
        let bits = d.bitPattern
        return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
    }

    static func value(_ key: UInt64) -> Double {
        Double(bitPattern: key >> 63 == 1 ? key & ~(1 << 63) : ~key)
    }
}
