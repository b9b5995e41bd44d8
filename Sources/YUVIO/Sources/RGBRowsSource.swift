import YUVCore

/// RGB rows from a decoder (PNG, and JPEG on the RGB route or when it is CMYK), converted exactly by
/// `RGBToYUV420` after the colour stage (a LittleCMS transform, when the source's profile asks for one) and
/// the alpha stage. With an EXIF orientation the rows are decoded whole and turned
/// first (the orientation stage).
final class RGBRowsSource: BandSource {
    let geometry: PlaneGeometry
    let bandRows: Int
    let pathName = "RGB"
    private let decoder: ImageDecoder
    private let driver: RGBToYUV420
    /// The 10-bit rows, for a 10-bit layout.
    private let deep: RGBToYUV420Deep
    private let turn: Orientation
    private let alpha: AlphaMode
    private let format: SourceFormat
    /// Bytes of one decoded row (of the upright picture when turned).
    private let rowBytes: Int
    private var ledger: Ledger?
    private var slots: [UnsafeMutableRawPointer] = []
    private var whole: (pointer: UnsafeMutableRawPointer, bytes: Int)?
    private var recorded = 0
    private var probe: QualityProbe?

    /// The colour stage's transform, when the source's colours are transformed.
    private let colour: ColourTransform?

    init(decoder: ImageDecoder, spec: ConversionSpec, kernels: KernelChoice, turn: Orientation, alpha: AlphaMode,
         colour: ColourTransform? = nil) {
        self.decoder = decoder
        self.colour = colour
        self.turn = turn
        self.alpha = alpha
        let info = decoder.info
        format = info.rowFormat
        driver = RGBToYUV420(spec: spec, source: info.rowFormat.converted, kernels: kernels)
        deep = RGBToYUV420Deep(spec: spec, source: info.rowFormat.converted)
        let up = turn.size(width: info.width, height: info.height)
        geometry = PlaneGeometry(width: up.width, height: up.height)
        rowBytes = up.width * info.rowFormat.bytesPerPixel
        bandRows = rowsPerBand(rowBytes: rowBytes + 3 * up.width)
    }

    func prepare(slots count: Int, ledger: Ledger) throws {
        self.ledger = ledger
        if turn.isIdentity {
            slots = (0..<count).map { _ in ledger.allocate(rowBytes * bandRows) }
            if decoder.info.interlaced {
                recorded = rowBytes * geometry.height   // libpng holds the whole Adam7 picture
                ledger.record(recorded)
            }
            return
        }
        whole = try decodeUpright(decoder, turn: turn, ledger: ledger)
        if interruptSignal() != nil { throw DecodeError.interrupted }
    }

    func produce(slot: Int, row: Int, count: Int) throws {
        guard turn.isIdentity else { return }
        try decoder.readRows(into: slots[slot], rowBytes: rowBytes, count: count)
    }

    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int> {
        let source = whole.map { $0.pointer + row * rowBytes } ?? slots[slot]
        colour?.apply(source, rowBytes: rowBytes, width: geometry.width, count: count)
        let (rows, stride) = applyAlpha(alpha, rows: source, rowBytes: rowBytes, width: geometry.width, count: count,
                                        format: format, into: band.alpha)
        if band.frame.bytesPerSample == 2 {
            deep.convert(band: rows, rowBytes: stride, rowCount: count, width: geometry.width, layout: band.layout,
                         y: UnsafeMutableRawPointer(band.y), u: UnsafeMutableRawPointer(band.u),
                         v: band.frame.isBiPlanar ? nil : UnsafeMutableRawPointer(band.v))
        } else {
            driver.convert(band: rows, rowBytes: stride, firstRow: row, rowCount: count, into: band.targets(origin: row))
        }
        // Measured against the rows converted: after the alpha stage (16-bit RGBA packed to RGB).
        if let probe {
            for r in 0..<count {
                probe.add(row: row + r, source: rows + r * stride, format: format.converted, band: band, first: row)
            }
        }
        return row..<(row + count)
    }

    func measure(with probe: QualityProbe, ledger: Ledger) { self.probe = probe }

    func finish() throws { try decoder.finish() }

    deinit {
        for p in slots { ledger?.deallocate(p, bytes: rowBytes * bandRows) }
        if let whole { ledger?.deallocate(whole.pointer, bytes: whole.bytes) }
        if recorded > 0 { ledger?.record(-recorded) }
    }
}

extension SourceFormat {
    /// The rows a driver converts for rows of this format (16-bit RGBA is reduced to RGB first).
    var converted: SourceFormat { self == .rgba16 ? .rgb16 : self }
}
