/// The quality measures as first written: every figure in `Double`, pixel by pixel — the definition the fast
/// `QualityAccumulator` keeps. It measures 16-bit sources (whose samples, scaled by 255/65535, are no
/// small integers), and the tests hold the fast accumulator to it on every range, size and source format.
/// It keeps only the last eight rows of exact and output luma (SSIM's windows), the chroma rows before the
/// current one, and — since an odd row's bilinear chroma blends in the next chroma row — an odd row's source
/// and luma until that row comes.
public struct ReferenceQualityAccumulator {
    public let width: Int, height: Int
    let spec: ConversionSpec
    let kr: Double, kg: Double, kb: Double
    var sumY = 0.0, sumCb = 0.0, sumCr = 0.0, sumRGB = 0.0, sumBilinear = 0.0
    var row = 0
    // The bilinear round trip: the chroma rows (U, V) of the current row pair and of the one before, and an
    // odd row waiting for the next chroma row (its source row as given, up to 8 bytes a pixel, and output luma).
    var chromaNow: [[UInt8]], chromaBefore: [[UInt8]]
    var waitingSource: [UInt8], waitingY: [UInt8]
    var waitingFormat = SourceFormat.rgb8
    // SSIM: exact and output luma of the last 8 rows, and the windows' sum.
    var ring: [[Double]]
    var outRing: [[UInt8]]
    var ssimSum = 0.0, ssimCount = 0

    public init(width: Int, height: Int, spec: ConversionSpec) {
        self.width = width
        self.height = height
        self.spec = spec
        let s = Double(ColorMatrix.scale)
        kr = Double(spec.matrix.kr) / s
        kb = Double(spec.matrix.kb) / s
        kg = Double(spec.matrix.kg) / s
        ring = Array(repeating: [Double](repeating: 0, count: width), count: 8)
        outRing = Array(repeating: [UInt8](repeating: 0, count: width), count: 8)
        let cw = (width + 1) / 2
        chromaNow = [[UInt8](repeating: 0, count: cw), [UInt8](repeating: 0, count: cw)]
        chromaBefore = chromaNow
        waitingSource = [UInt8](repeating: 0, count: 8 * width)
        waitingY = [UInt8](repeating: 0, count: width)
    }

    /// Bytes this accumulator holds (the two rings, the chroma rows and the row kept for the bilinear round
    /// trip), for a conversion's ledger.
    public var byteCount: Int { 8 * width * (MemoryLayout<Double>.stride + 1) + 4 * ((width + 1) / 2) + 9 * width }

    var window: Int { min(8, width, height) }
    /// Windows every 4 pixels; every 1 when they are smaller than 8 (`QualityAccumulator.ssimStep`).
    var ssimStep: Int { window < 8 ? 1 : 4 }

    /// Adds the next source row (`format`: R,G,B[,X] bytes or 16-bit R,G,B) with the output's luma row `y`
    /// and the U and V rows (⌈width/2⌉ samples) of the chroma row that covers it.
    public mutating func add(row src: UnsafeRawPointer, format: SourceFormat, y: UnsafePointer<UInt8>,
                             u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        precondition(row < height)
        let w = width
        let full = spec.range == .full
        let ys = full ? 1.0 : 219.0 / 255, cs = full ? 1.0 : 224.0 / 255, yo = full ? 0.0 : 16
        let slot = row % 8
        let cw = (w + 1) / 2
        if row % 2 == 0 {
            // A new row pair: its chroma rows become the current ones, and the odd row waiting for them is done.
            swap(&chromaBefore, &chromaNow)
            for i in 0..<cw { chromaNow[0][i] = u[i]; chromaNow[1][i] = v[i] }
            if row > 0 { sumBilinear += waitingError(own: chromaBefore, below: chromaNow) }
        }
        for x in 0..<w {
            let (r, g, b) = Self.pixel(src, format, x)
            let yp = kr * r + kg * g + kb * b
            let yExact = yo + yp * ys
            let cbExact = 128 + (b - yp) / (2 * (1 - kb)) * cs
            let crExact = 128 + (r - yp) / (2 * (1 - kr)) * cs
            let yo8 = Double(y[x]), cb8 = Double(u[x / 2]), cr8 = Double(v[x / 2])
            sumY += (yo8 - yExact) * (yo8 - yExact)
            sumCb += (cb8 - cbExact) * (cb8 - cbExact)
            sumCr += (cr8 - crExact) * (cr8 - crExact)
            // The round trip through the exact inverse.
            let yl = (yo8 - yo) / ys, cbp = (cb8 - 128) / cs, crp = (cr8 - 128) / cs
            let rr = yl + 2 * (1 - kr) * crp, bb = yl + 2 * (1 - kb) * cbp
            let gg = (yl - kr * rr - kb * bb) / kg
            sumRGB += Self.squaredError(rr, r)
            sumRGB += Self.squaredError(gg, g)
            sumRGB += Self.squaredError(bb, b)
            ring[slot][x] = yExact
            outRing[slot][x] = y[x]
        }
        if row % 2 == 0 {
            // An even row blends its own chroma row with the one above (itself at the top).
            sumBilinear += bilinearError(src, format, y, chromaNow, row == 0 ? chromaNow : chromaBefore)
        } else {
            waitingSource.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: src, count: w * format.bytesPerPixel))
            }
            waitingFormat = format
            for x in 0..<w { waitingY[x] = y[x] }
        }
        row += 1
        let n = window
        if row >= n && (row - n) % ssimStep == 0 { addSSIM(lastRow: row - 1) }
    }

    /// A rebuilt channel, rounded half up and clamped to 0…255, against the source's: the squared error.
    @inline(__always)
    static func squaredError(_ out: Double, _ want: Double) -> Double {
        let q = min(max((out + 0.5).rounded(.down), 0), 255)
        return (q - want) * (q - want)
    }

    /// R, G, B of pixel `x` of a source row, on the 0…255 scale.
    @inline(__always)
    static func pixel(_ src: UnsafeRawPointer, _ format: SourceFormat, _ x: Int) -> (Double, Double, Double) {
        let p = format.samples(src, x)
        if format == .rgb8 || format == .rgba8 { return (Double(p.r), Double(p.g), Double(p.b)) }
        return (Double(p.r) * 255 / 65535, Double(p.g) * 255 / 65535, Double(p.b) * 255 / 65535)
    }

    /// The squared RGB error of one row rebuilt with bilinear chroma: `own` is the chroma row (U, V) covering
    /// it, `other` the one it blends in with weight ¼ (above an even row, below an odd one).
    func bilinearError(_ src: UnsafeRawPointer, _ format: SourceFormat, _ y: UnsafePointer<UInt8>, _ own: [[UInt8]],
                       _ other: [[UInt8]]) -> Double {
        let full = spec.range == .full, last = own[0].count - 1
        let ys = full ? 1.0 : 219.0 / 255, cs = full ? 1.0 : 224.0 / 255, yo = full ? 0.0 : 16
        var sum = 0.0
        for x in 0..<width {
            let i = x / 2, j = x % 2 == 0 ? max(i - 1, 0) : min(i + 1, last)
            @inline(__always) func chroma(_ c: Int) -> Double {
                let near = 3 * Double(own[c][i]) + Double(other[c][i]), far = 3 * Double(own[c][j]) + Double(other[c][j])
                return (3 * near + far) / 16
            }
            let yl = (Double(y[x]) - yo) / ys, cbp = (chroma(0) - 128) / cs, crp = (chroma(1) - 128) / cs
            let rr = yl + 2 * (1 - kr) * crp, bb = yl + 2 * (1 - kb) * cbp
            let gg = (yl - kr * rr - kb * bb) / kg
            let (r, g, b) = Self.pixel(src, format, x)
            sum += Self.squaredError(rr, r) + Self.squaredError(gg, g) + Self.squaredError(bb, b)
        }
        return sum
    }

    /// The waiting odd row's error, with its own chroma row and the one below it.
    func waitingError(own: [[UInt8]], below: [[UInt8]]) -> Double {
        waitingSource.withUnsafeBytes { s in
            waitingY.withUnsafeBufferPointer { y in bilinearError(s.baseAddress!, waitingFormat, y.baseAddress!, own, below) }
        }
    }

    /// SSIM windows whose last row is `lastRow`.
    mutating func addSSIM(lastRow: Int) {
        let n = window, w = width
        let first = lastRow - n + 1
        guard first >= 0 else { return }
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var x = 0
        while x + n <= w {
            var sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
            for r in first...lastRow {
                let exact = ring[r % 8], out = outRing[r % 8]
                for i in x..<(x + n) {
                    let a = Double(out[i]), b = exact[i]
                    sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b
                }
            }
            let k = Double(n * n)
            let ma = sa / k, mb = sb / k
            let va = saa / k - ma * ma, vb = sbb / k - mb * mb, cov = sab / k - ma * mb
            ssimSum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
            ssimCount += 1
            x += ssimStep
        }
    }

    /// Whether every row was added.
    public var isComplete: Bool { row == height }

    /// The measures, once every row was added.
    public func result() -> QualityReport {
        precondition(row == height, "every source row must be added")
        let px = Double(width * height)
        // An even height leaves its last row waiting: there is no chroma row below it, so its own is repeated.
        let bilinear = sumBilinear + (height % 2 == 0 ? waitingError(own: chromaNow, below: chromaNow) : 0)
        return QualityReport(psnrY: QualityReport.psnr(mse: sumY / px), psnrCb: QualityReport.psnr(mse: sumCb / px),
                             psnrCr: QualityReport.psnr(mse: sumCr / px), psnrRGB: QualityReport.psnr(mse: sumRGB / (3 * px)),
                             ssimY: ssimCount == 0 ? 1 : ssimSum / Double(ssimCount),
                             psnrRGBBilinear: QualityReport.psnr(mse: bilinear / (3 * px)))
    }
}
