#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// How a JPEG is converted: straight from its YCbCr planes (the default), or decoded to RGB first.
public enum JPEGPath: String, Sendable, CaseIterable {
    case direct, rgb
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
    public var maxPixels: Int
    public var allowTruncated: Bool
    public var jpegPath: JPEGPath
    /// Decode on one thread while another converts and writes (the default). A batch that runs one file per
    /// core turns it off: the files already keep every core busy, and `-j N` then means N threads.
    public var pipelined: Bool
    public var alpha: AlphaMode
    public var orientation: OrientationMode
    /// Most scans a progressive JPEG may have (`--max-scans`).
    public var maxScans = ImageDecoder.defaultMaxScans

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels, allowTruncated: Bool = false,
                jpegPath: JPEGPath = .direct, pipelined: Bool = true, alpha: AlphaMode = .ignore,
                orientation: OrientationMode = .auto) {
        self.alpha = alpha
        self.orientation = orientation
        self.maxPixels = maxPixels
        self.allowTruncated = allowTruncated
        self.jpegPath = jpegPath
        self.pipelined = pipelined
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
    /// "direct YCbCr" (JPEG planes, no RGB) or "RGB".
    public let path: String
    /// The alpha plane's bytes when alpha is kept (W·H), else 0.
    public var alphaBytes: Int = 0
    /// The buffers this conversion allocated at their peak (band buffers, chroma held for a pipe, the
    /// whole picture when kept in memory), from the ledger.
    public let ledgerPeakBytes: Int
    /// The EXIF orientation applied (identity when there was none or `--orientation ignore`).
    public var orientation: Orientation = .identity
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

/// Where finished row bands go.
public protocol BandSink: AnyObject {
    /// Called once, before any band.
    func begin(geometry: PlaneGeometry, layout: PixelLayout) throws(WriteError)
    /// Luma rows `firstRow ..< firstRow + rows` and their chroma rows, as held by `band`.
    func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError)
    /// After the last band.
    func end() throws(WriteError)
    /// Bytes the sink itself holds at its peak.
    var heldBytes: Int { get }
}

/// One band of output rows in the output layout: `rows` luma rows and `rows/2` chroma rows.
public final class BandBuffer {
    public let geometry: PlaneGeometry
    public let layout: PixelLayout
    public let rows: Int
    let y: UnsafeMutablePointer<UInt8>
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>
    /// The band's alpha rows (W bytes each) when alpha is kept.
    let alpha: UnsafeMutablePointer<UInt8>?
    public let byteCount: Int

    init(geometry g: PlaneGeometry, layout: PixelLayout, rows: Int, alpha keepAlpha: Bool = false) {
        precondition(rows & 1 == 0)
        geometry = g
        self.layout = layout
        self.rows = rows
        let lumaBytes = g.width * rows, chromaBytes = g.chromaWidth * rows / 2
        byteCount = lumaBytes + 2 * chromaBytes + (keepAlpha ? lumaBytes : 0)
        y = .allocate(capacity: byteCount)
        u = y + lumaBytes
        v = u + chromaBytes
        alpha = keepAlpha ? v + chromaBytes : nil
    }

    deinit { y.deallocate() }

    /// Targets for picture rows starting at `origin` (even).
    func targets(origin: Int) -> PlaneTargets {
        PlaneTargets(width: geometry.width, height: geometry.height, layout: layout, origin: origin, y: y, u: u, v: v)
    }

    /// The bytes of luma rows 0..<n, and of chroma rows 0..<m (bi-planar: one run; planar: U run, V run).
    var luma: UnsafeMutablePointer<UInt8> { y }
    var uPlane: UnsafeMutablePointer<UInt8> { u }
    var vPlane: UnsafeMutablePointer<UInt8> { v }
}

/// Where each plane's bytes start in a tightly packed file of `layout`.
struct FileOffsets {
    let g: PlaneGeometry
    let layout: PixelLayout

    /// Byte offset of chroma row `row` (bi-planar: the interleaved row; planar: of U, or of V).
    func chroma(row: Int, v: Bool) -> Int {
        let plane = g.chromaWidth * g.chromaHeight
        switch layout {
        case .nv12, .nv21: return g.pixels + row * 2 * g.chromaWidth
        case .yuv420p: return g.pixels + (v ? plane : 0) + row * g.chromaWidth
        case .yv12: return g.pixels + (v ? 0 : plane) + row * g.chromaWidth
        }
    }
}

/// Keeps the whole picture in memory (tests, and callers that want the bytes).
public final class MemorySink: BandSink {
    public private(set) var image: YUVImage?
    /// The alpha plane, when the conversion kept one.
    public private(set) var alpha: [UInt8]?

    public init() {}

    public func begin(geometry: PlaneGeometry, layout: PixelLayout) throws(WriteError) {
        image = YUVImage(width: geometry.width, height: geometry.height, layout: layout)
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        let g = band.geometry, offsets = FileOffsets(g: g, layout: band.layout)
        if let a = band.alpha {
            if alpha == nil { alpha = [UInt8](repeating: 0, count: g.pixels) }
            alpha!.withUnsafeMutableBufferPointer { (p: inout UnsafeMutableBufferPointer<UInt8>) in
                (p.baseAddress! + firstRow * g.width).update(from: a, count: rows * g.width)
            }
        }
        image!.bytes.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress!
            (base + firstRow * g.width).update(from: band.luma, count: rows * g.width)
            let c0 = firstRow / 2, cn = (rows + 1) / 2
            if band.layout.isBiPlanar {
                (base + offsets.chroma(row: c0, v: false)).update(from: band.uPlane, count: cn * 2 * g.chromaWidth)
            } else {
                (base + offsets.chroma(row: c0, v: false)).update(from: band.uPlane, count: cn * g.chromaWidth)
                (base + offsets.chroma(row: c0, v: true)).update(from: band.vPlane, count: cn * g.chromaWidth)
            }
        }
    }

    public func end() throws(WriteError) {}

    public var heldBytes: Int { (image?.bytes.count ?? 0) + (alpha?.count ?? 0) }
}

/// Writes bands to an `AtomicOutput`: at their offsets with `pwrite` when the output is a file, so nothing
/// but the band is held; in order when it is a pipe, holding only the chroma planes (½ byte a pixel)
/// until the luma plane has gone out.
public final class OutputSink: BandSink {
    let output: AtomicOutput
    let container: Container
    var offsets: FileOffsets?
    var chroma: UnsafeMutablePointer<UInt8>?
    var chromaBytes = 0
    var base = 0
    /// Whether an A plane follows the 4:2:0 planes.
    let withAlpha: Bool

    /// What wraps the planes: nothing (raw), or a one-frame YUV4MPEG2 stream.
    public enum Container: Sendable {
        case raw
        /// `YUV4MPEG2 W H F1:1 Ip A1:1 C420jpeg XCOLORRANGE=…`, a `FRAME` line, then Y, U, V (yuv420p).
        case y4m(ColorRange)

        func header(_ g: PlaneGeometry) -> [UInt8] {
            switch self {
            case .raw: return []
            case .y4m(let range):
                return Array(("YUV4MPEG2 W\(g.width) H\(g.height) F1:1 Ip A1:1 C420jpeg XCOLORRANGE="
                              + (range == .full ? "FULL" : "LIMITED") + "\nFRAME\n").utf8)
            }
        }
    }

    public init(output: AtomicOutput, container: Container = .raw, alpha: Bool = false) {
        self.output = output
        self.container = container
        withAlpha = alpha
    }

    public func begin(geometry: PlaneGeometry, layout: PixelLayout) throws(WriteError) {
        offsets = FileOffsets(g: geometry, layout: layout)
        let header = container.header(geometry)
        base = header.count
        if !output.isSeekable {
            // Everything after the luma plane waits: chroma (and alpha) planes.
            chromaBytes = geometry.tightBytes - geometry.pixels + (withAlpha ? geometry.pixels : 0)
            chroma = .allocate(capacity: chromaBytes)
            if !header.isEmpty { try output.write(header) }
        } else {
            try output.reserve(base + geometry.tightBytes + (withAlpha ? geometry.pixels : 0))
            if !header.isEmpty {
                let failure: WriteError? = header.withUnsafeBytes { b in
                    do throws(WriteError) { try output.write(b, at: 0) } catch { return error }
                    return nil
                }
                if let failure { throw failure }
            }
        }
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        let o = offsets!, g = o.g
        let c0 = firstRow / 2, cn = (rows + 1) / 2
        let runs: [(UnsafeMutablePointer<UInt8>, Int, Int)] = band.layout.isBiPlanar
            ? [(band.uPlane, o.chroma(row: c0, v: false), cn * 2 * g.chromaWidth)]
            : [(band.uPlane, o.chroma(row: c0, v: false), cn * g.chromaWidth),
               (band.vPlane, o.chroma(row: c0, v: true), cn * g.chromaWidth)]
        let alphaRun = band.alpha.map { ($0, g.tightBytes + firstRow * g.width, rows * g.width) }
        if let chroma {
            try output.write(UnsafeRawBufferPointer(start: band.luma, count: rows * g.width))
            for (src, offset, count) in runs + (alphaRun.map { [$0] } ?? []) {
                (chroma + offset - g.pixels).update(from: src, count: count)
            }
        } else {
            if let (src, offset, count) = alphaRun {
                try output.write(UnsafeRawBufferPointer(start: src, count: count), at: base + offset)
            }
            try output.write(UnsafeRawBufferPointer(start: band.luma, count: rows * g.width), at: base + firstRow * g.width)
            for (src, offset, count) in runs { try output.write(UnsafeRawBufferPointer(start: src, count: count), at: base + offset) }
        }
    }

    public func end() throws(WriteError) {
        if let chroma {
            try output.write(UnsafeRawBufferPointer(start: chroma, count: chromaBytes))
        }
    }

    public var heldBytes: Int { chromaBytes }

    deinit { chroma?.deallocate() }
}

/// Decodes `path` (a JPEG or PNG, `-` for standard input) band by band and converts each band as it
/// arrives into `sink`: the RGB picture is never held whole, nor (with a file sink) the YUV picture.
public func convert(path: String, spec: ConversionSpec, layout: PixelLayout, into sink: BandSink,
                    kernels: KernelChoice = kernelChoiceFromEnvironment(),
                    options: DecodeOptions = DecodeOptions()) throws(FileError) -> ConversionReport {
    let name = path == "-" ? "<stdin>" : path
    do {
        let source = try InputSource(path: path, maxPixels: options.maxPixels)
        let decoder = try ImageDecoder(source: source, maxPixels: options.maxPixels, maxScans: options.maxScans,
                                       allowTruncated: options.allowTruncated, raw: options.jpegPath == .direct,
                                       alpha16: options.alpha != .ignore)
        let info = decoder.info
        let g = PlaneGeometry(width: info.width, height: info.height)
        // The EXIF orientation, applied to the picture before conversion (whole pixels, so the RGB route stays
        // the exact conversion of the upright picture). A turned picture is held whole while it is turned.
        let turn = options.turn(for: info)
        let upright = turn.size(width: g.width, height: g.height)
        let og = PlaneGeometry(width: upright.width, height: upright.height)
        try sink.begin(geometry: og, layout: layout)
        var ledger = 0
        let pathName: String
        let pipeline = BandPipeline(slots: options.pipelined ? 3 : 1, threaded: options.pipelined)
        let shared = UncheckedSendable(sink)
        if !turn.isIdentity {
            (pathName, ledger) = try convertTurned(decoder, turn: turn, stored: g, upright: og, spec: spec,
                                                   layout: layout, kernels: kernels, options: options, into: sink)
        } else if decoder.isRaw {
            pathName = "direct YCbCr"
            let raw = decoder.rawLayout
            // Built by the worker on its first band (with the reference rows its 64K-entry table costs a few
            // ms), while the decoder is already producing.
            let lazyDriver = Lazy { YCbCrToYUV420(target: spec, width: g.width, height: g.height,
                                                  components: raw.components, h: raw.h, v: raw.v, kernels: kernels) }
            // Per slot: the decoder's planes for `group` iMCU rows stacked, and the output band they become.
            // Several iMCU rows a hand-off (about 64 luma rows): fewer thread wake-ups, same bytes.
            let group = max(1, rowsPerBand(rowBytes: 3 * g.width) / raw.bandRows), bandRows = group * raw.bandRows
            let planes = (0..<pipeline.slots).map { _ in
                (0..<raw.components).map {
                    UnsafeMutablePointer<UInt8>.allocate(capacity: raw.planeWidth[$0] * raw.planeRows[$0] * group)
                }
            }
            let keep = options.alpha == .keep
            let bands = (0..<pipeline.slots).map { _ in BandBuffer(geometry: g, layout: layout, rows: bandRows, alpha: keep) }
            defer { planes.joined().forEach { $0.deallocate() } }
            ledger = pipeline.slots * (bands[0].byteCount
                + (0..<raw.components).reduce(0) { $0 + raw.planeWidth[$1] * raw.planeRows[$1] * group })
            var row = 0
            let work = UncheckedSendable((planes, bands, lazyDriver, raw.planeWidth))
            try pipeline.run(produce: { slot in
                guard row < g.height else { return nil }
                if interruptSignal() != nil { throw DecodeError.interrupted }
                let n = min(bandRows, g.height - row)
                var decoded = 0
                while decoded < n {
                    let k = decoded / raw.bandRows
                    let at = (0..<raw.components).map { planes[slot][$0] + k * raw.planeRows[$0] * raw.planeWidth[$0] }
                    _ = try decoder.readRawBand(planes: at, strides: raw.planeWidth)
                    decoded += raw.bandRows
                }
                defer { row += n }
                return (row, n)
            }, consume: { slot, first, n in
                let (planes, bands, lazyDriver, widths) = work.value
                let driver = lazyDriver.value
                let p = planes[slot]
                driver.convert(planes: p, strides: widths, firstRow: first, rowCount: n,
                               into: bands[slot].targets(origin: first))
                bands[slot].alpha?.update(repeating: 255, count: n * g.width)   // a JPEG is opaque
                try shared.value.consume(bands[slot], firstRow: first, rows: n)
            })
        } else {
            pathName = "RGB"
            let driver = RGBToYUV420(spec: spec, source: info.rowFormat.converted, kernels: kernels)
            let rowBytes = info.width * info.rowFormat.bytesPerPixel
            let bandRows = rowsPerBand(rowBytes: rowBytes + 3 * g.width)
            let rgb = (0..<pipeline.slots).map { _ in UnsafeMutableRawPointer.allocate(byteCount: rowBytes * bandRows, alignment: 64) }
            let alphaMode = options.alpha
            let bands = (0..<pipeline.slots).map { _ in
                BandBuffer(geometry: g, layout: layout, rows: bandRows, alpha: alphaMode == .keep)
            }
            defer { rgb.forEach { $0.deallocate() } }
            ledger = pipeline.slots * (bands[0].byteCount + rowBytes * bandRows)
            if info.interlaced { ledger += rowBytes * g.height }  // libpng needs the whole Adam7 picture
            var row = 0
            let work = UncheckedSendable((rgb, bands, driver))
            try pipeline.run(produce: { slot in
                guard row < g.height else { return nil }
                if interruptSignal() != nil { throw DecodeError.interrupted }
                let n = min(bandRows, g.height - row)
                try decoder.readRows(into: rgb[slot], rowBytes: rowBytes, count: n)
                defer { row += n }
                return (row, n)
            }, consume: { slot, first, n in
                let (rgb, bands, driver) = work.value
                let (rows, stride) = applyAlpha(alphaMode, rows: rgb[slot], rowBytes: rowBytes, width: g.width, count: n,
                                                format: info.rowFormat, into: bands[slot].alpha)
                driver.convert(band: rows, rowBytes: stride, firstRow: first, rowCount: n,
                               into: bands[slot].targets(origin: first))
                try shared.value.consume(bands[slot], firstRow: first, rows: n)
            })
        }
        try decoder.finish()
        try sink.end()
        let w = decoder.warnings
        var report = ConversionReport(info: info, geometry: og, layout: layout, spec: spec, inputBytes: source.byteCount,
                                      warnings: w.count, firstWarning: w.first, path: pathName,
                                      ledgerPeakBytes: ledger + sink.heldBytes)
        report.alphaBytes = options.alpha == .keep ? g.pixels : 0
        report.orientation = turn
        return report
    } catch let e as DecodeError {
        throw FileError(path: name, e)
    } catch let e as WriteError {
        throw FileError(path: name, reason: "cannot write the output: \(e.reason)")
    } catch {
        throw FileError(path: name, reason: "\(error)")
    }
}

/// Rows a band hands off at once: up to 64 (fewer thread wake-ups), but never more than about 4 MiB of rows
/// of `rowBytes` each, so a very wide picture (a 1,000,000-pixel-wide PNG) still costs a few MiB a band, not
/// a GiB. Even, at least 2 (a 4:2:0 chroma row covers two luma rows).
func rowsPerBand(rowBytes: Int) -> Int {
    let rows = (4 << 20) / max(rowBytes, 1)
    return max(2, min(64, rows) & ~1)
}

extension YCbCrToYUV420 {
    /// One band from the component planes (luma, or luma, Cb, Cr), each pointing at the band's first row.
    func convert(planes p: [UnsafeMutablePointer<UInt8>], strides: [Int], firstRow: Int, rowCount: Int,
                 into t: PlaneTargets) {
        convert(y: p[0], yStride: strides[0],
                cb: p.count > 1 ? UnsafePointer(p[1]) : nil, cbStride: p.count > 1 ? strides[1] : 0,
                cr: p.count > 2 ? UnsafePointer(p[2]) : nil, crStride: p.count > 2 ? strides[2] : 0,
                firstRow: firstRow, rowCount: rowCount, into: t)
    }
}

extension DecodeOptions {
    /// The orientation to apply to a source: its EXIF tag under `auto`, none under `ignore`.
    func turn(for info: SourceInfo) -> Orientation {
        orientation == .auto ? Orientation(exif: info.orientation) : .identity
    }
}

/// The decoder's rows, all of them, turned upright: a buffer the caller deallocates, and its row stride.
/// Holds the stored picture and the upright one at once.
func decodeUpright(_ decoder: ImageDecoder, turn: Orientation) throws(DecodeError) -> (UnsafeMutableRawPointer, Int) {
    let (w, h) = (decoder.info.width, decoder.info.height), bpp = decoder.info.rowFormat.bytesPerPixel
    let up = turn.size(width: w, height: h)
    let stored = UnsafeMutableRawPointer.allocate(byteCount: w * bpp * h, alignment: 64)
    defer { stored.deallocate() }
    try decoder.readRows(into: stored, rowBytes: w * bpp, count: h)
    let upright = UnsafeMutableRawPointer.allocate(byteCount: up.width * bpp * up.height, alignment: 64)
    turn.apply(stored, srcRowBytes: w * bpp, width: w, height: h, bytesPerPixel: bpp, to: upright,
               dstRowBytes: up.width * bpp)
    return (upright, up.width * bpp)
}

/// A picture with an EXIF orientation: decoded whole (RGB rows, or the direct path's YCbCr planes as stored),
/// turned upright, then converted in bands into `sink`. Returns the path's name and the ledger's peak.
func convertTurned(_ decoder: ImageDecoder, turn: Orientation, stored g: PlaneGeometry, upright og: PlaneGeometry,
                   spec: ConversionSpec, layout: PixelLayout, kernels: KernelChoice, options: DecodeOptions,
                   into sink: BandSink) throws -> (String, Int) {
    let info = decoder.info
    let keep = options.alpha == .keep
    if decoder.isRaw {
        // Planes as the decoder stores them (padded widths, whole iMCU rows), then each component turned on
        // its real samples; 5–8 swap the sampling factors too (4:2:2 turned is 4:4:0).
        let raw = decoder.rawLayout, n = raw.components
        let hMax = raw.h.max()!, vMax = raw.v.max()!
        let bands = (g.height + raw.bandRows - 1) / raw.bandRows
        let storedPlanes = (0..<n).map { UnsafeMutablePointer<UInt8>.allocate(capacity: raw.planeWidth[$0] * raw.planeRows[$0] * bands) }
        defer { storedPlanes.forEach { $0.deallocate() } }
        for b in 0..<bands {
            if interruptSignal() != nil { throw DecodeError.interrupted }
            _ = try decoder.readRawBand(planes: (0..<n).map { storedPlanes[$0] + b * raw.planeRows[$0] * raw.planeWidth[$0] },
                                        strides: raw.planeWidth)
        }
        let compW = (0..<n).map { (g.width * raw.h[$0] + hMax - 1) / hMax }
        let compH = (0..<n).map { (g.height * raw.v[$0] + vMax - 1) / vMax }
        let upW = (0..<n).map { turn.size(width: compW[$0], height: compH[$0]).width }
        let upH = (0..<n).map { turn.size(width: compW[$0], height: compH[$0]).height }
        let planes = (0..<n).map { UnsafeMutablePointer<UInt8>.allocate(capacity: upW[$0] * upH[$0]) }
        defer { planes.forEach { $0.deallocate() } }
        for c in 0..<n {
            turn.apply(storedPlanes[c], srcRowBytes: raw.planeWidth[c], width: compW[c], height: compH[c],
                       bytesPerPixel: 1, to: planes[c], dstRowBytes: upW[c])
        }
        let hUp = turn.swapsAxes ? raw.v : raw.h, vUp = turn.swapsAxes ? raw.h : raw.v
        let driver = YCbCrToYUV420(target: spec, width: og.width, height: og.height, components: n, h: hUp, v: vUp,
                                   kernels: kernels)
        let vMaxUp = vUp.max()!, vC = n > 1 ? vUp[1] : vMaxUp
        let bandRows = max(1, rowsPerBand(rowBytes: 3 * og.width) / driver.bandRows) * driver.bandRows
        let band = BandBuffer(geometry: og, layout: layout, rows: bandRows, alpha: keep)
        var row = 0
        while row < og.height {
            let count = min(bandRows, og.height - row), crow = row * vC / vMaxUp
            let at = (0..<n).map { planes[$0] + ($0 == 0 ? row : crow) * upW[$0] }
            driver.convert(planes: at, strides: upW, firstRow: row, rowCount: count, into: band.targets(origin: row))
            band.alpha?.update(repeating: 255, count: count * og.width)   // a JPEG is opaque
            try sink.consume(band, firstRow: row, rows: count)
            row += count
        }
        let planeBytes = (0..<n).reduce(0) { $0 + raw.planeWidth[$1] * raw.planeRows[$1] * bands + upW[$1] * upH[$1] }
        return ("direct YCbCr", planeBytes + band.byteCount)
    }
    // RGB rows, whole, turned pixel by pixel; then the usual bands (alpha handling included) from memory.
    let (pixels, rowBytes) = try decodeUpright(decoder, turn: turn)
    defer { pixels.deallocate() }
    if interruptSignal() != nil { throw DecodeError.interrupted }
    let driver = RGBToYUV420(spec: spec, source: info.rowFormat.converted, kernels: kernels)
    let bandRows = rowsPerBand(rowBytes: rowBytes + 3 * og.width)
    let band = BandBuffer(geometry: og, layout: layout, rows: bandRows, alpha: keep)
    var row = 0
    while row < og.height {
        let count = min(bandRows, og.height - row)
        let (rows, stride) = applyAlpha(options.alpha, rows: pixels + row * rowBytes, rowBytes: rowBytes, width: og.width,
                                        count: count, format: info.rowFormat, into: band.alpha)
        driver.convert(band: rows, rowBytes: stride, firstRow: row, rowCount: count, into: band.targets(origin: row))
        try sink.consume(band, firstRow: row, rows: count)
        row += count
    }
    return ("RGB", 2 * rowBytes * og.height + band.byteCount)
}

extension SourceFormat {
    /// The rows a driver converts for rows of this format (16-bit RGBA is reduced to RGB first).
    var converted: SourceFormat { self == .rgba16 ? .rgb16 : self }
}

/// Applies the alpha mode to a band of source rows and returns the rows to convert (and their stride):
/// 8-bit rows in place — flatten C′ = ⌊(C·a + bg·(255 − a))/255 + ½⌋, premultiply C′ = ⌊C·a/255 + ½⌋;
/// 16-bit R,G,B,A rows packed to R,G,B in place, the same with 65535 and bg·257 (so the colour keeps 16 bits
/// until the conversion's one rounding). With `alphaRows` (keep) the alpha goes there as 8 bits
/// (⌊a·255/65535 + ½⌋ for 16-bit; 255 for sources without alpha).
func applyAlpha(_ mode: AlphaMode, rows: UnsafeMutableRawPointer, rowBytes: Int, width: Int, count: Int,
                format: SourceFormat, into alphaRows: UnsafeMutablePointer<UInt8>?) -> (UnsafeMutableRawPointer, Int) {
    if format == .rgba16 {
        applyAlpha16(mode, rows: rows, rowBytes: rowBytes, width: width, count: count, into: alphaRows)
        return (rows, rowBytes)
    }
    if let alphaRows {
        guard format == .rgba8 else {
            alphaRows.update(repeating: 255, count: count * width)
            return (rows, rowBytes)
        }
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width { alphaRows[r * width + x] = p[4 * x + 3] }
        }
        return (rows, rowBytes)
    }
    guard format == .rgba8 else { return (rows, rowBytes) }
    @inline(__always) func round255(_ n: Int) -> UInt8 { UInt8((2 * n + 255) / 510) }   // ⌊n/255 + ½⌋
    switch mode {
    case .ignore, .keep: break
    case .premultiply:
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width {
                let a = Int(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = round255(Int(p[4 * x + c]) * a) }
            }
        }
    case .flatten(let br, let bg, let bb):
        let bgc = [Int(br), Int(bg), Int(bb)]
        for r in 0..<count {
            let p = rows.assumingMemoryBound(to: UInt8.self) + r * rowBytes
            for x in 0..<width {
                let a = Int(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = round255(Int(p[4 * x + c]) * a + bgc[c] * (255 - a)) }
            }
        }
    }
    return (rows, rowBytes)
}

/// 16-bit R,G,B,A rows → R,G,B rows of the same stride, in place (each pixel moves left, never over one
/// not yet read), with the alpha mode applied.
func applyAlpha16(_ mode: AlphaMode, rows: UnsafeMutableRawPointer, rowBytes: Int, width: Int, count: Int,
                  into alphaRows: UnsafeMutablePointer<UInt8>?) {
    @inline(__always) func round65535(_ n: Int) -> UInt16 { UInt16((2 * n + 65535) / 131070) }   // ⌊n/65535 + ½⌋
    var bg = [0, 0, 0], flatten = false
    if case .flatten(let r, let g, let b) = mode { (bg, flatten) = ([Int(r) * 257, Int(g) * 257, Int(b) * 257], true) }
    let premultiply = mode == .premultiply
    for r in 0..<count {
        let p = (rows + r * rowBytes).assumingMemoryBound(to: UInt16.self)
        for x in 0..<width {
            let a = Int(p[4 * x + 3])
            alphaRows?[r * width + x] = UInt8((2 * a + 257) / 514)   // ⌊a·255/65535 + ½⌋ = ⌊a/257 + ½⌋
            for c in 0..<3 {
                let v = Int(p[4 * x + c])
                p[3 * x + c] = flatten ? round65535(v * a + bg[c] * (65535 - a))
                             : premultiply ? round65535(v * a) : UInt16(v)
            }
        }
    }
}

/// A value made on first use (by whichever single thread uses it).
final class Lazy<T> {
    private let make: () -> T
    private var made: T?
    init(_ make: @escaping () -> T) { self.make = make }
    var value: T {
        if let made { return made }
        let v = make()
        made = v
        return v
    }
}

/// Converts `path` into memory and returns the picture (tests and library callers).
public func convertFile(path: String, spec: ConversionSpec, layout: PixelLayout,
                        kernels: KernelChoice = kernelChoiceFromEnvironment(),
                        options: DecodeOptions = DecodeOptions()) throws(FileError) -> Conversion {
    let sink = MemorySink()
    let report = try convert(path: path, spec: spec, layout: layout, into: sink, kernels: kernels, options: options)
    return Conversion(report: report, image: sink.image!)
}

/// The process's peak resident set so far, in bytes (`getrusage`).
public func peakResidentBytes() -> Int {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)           // bytes on macOS
    #else
    return Int(usage.ru_maxrss) * 1024    // KiB on Linux
    #endif
}

/// Writes every band to two sinks (a file and memory, when a report needs the picture afterwards).
public final class TeeSink: BandSink {
    let a: BandSink, b: BandSink

    public init(_ a: BandSink, _ b: BandSink) {
        self.a = a
        self.b = b
    }

    public func begin(geometry: PlaneGeometry, layout: PixelLayout) throws(WriteError) {
        try a.begin(geometry: geometry, layout: layout)
        try b.begin(geometry: geometry, layout: layout)
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        try a.consume(band, firstRow: firstRow, rows: rows)
        try b.consume(band, firstRow: firstRow, rows: rows)
    }

    public func end() throws(WriteError) {
        try a.end()
        try b.end()
    }

    public var heldBytes: Int { a.heldBytes + b.heldBytes }
}

/// Measures `image` (the conversion of `path`) against the source picture, decoded again to R, G, B row by
/// row (JPEG through libjpeg-turbo's RGB output, as viewers show it).
public func measureQuality(path: String, image: YUVImage, spec: ConversionSpec,
                           options: DecodeOptions = DecodeOptions()) throws(FileError) -> QualityReport {
    let name = path == "-" ? "<stdin>" : path
    do {
        let source = try InputSource(path: path, maxPixels: options.maxPixels)
        let decoder = try ImageDecoder(source: source, maxPixels: options.maxPixels, maxScans: options.maxScans,
                                       allowTruncated: options.allowTruncated, raw: false)
        let format = decoder.info.rowFormat
        let rowBytes = decoder.info.width * format.bytesPerPixel
        let rowBuf = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { rowBuf.deallocate() }
        var acc = QualityAccumulator(image: image, spec: spec)
        let turn = options.turn(for: decoder.info)
        if !turn.isIdentity {
            // The conversion was of the upright picture: measure against the upright source.
            let (turned, turnedRowBytes) = try decodeUpright(decoder, turn: turn)
            defer { turned.deallocate() }
            for y in 0..<image.height { acc.add(row: turned + y * turnedRowBytes, format: format) }
            return acc.result()
        }
        for _ in 0..<decoder.info.height {
            try decoder.readRows(into: rowBuf, rowBytes: rowBytes, count: 1)
            acc.add(row: rowBuf, format: format)
        }
        return acc.result()
    } catch {
        throw FileError(path: name, error)
    }
}
