import CSIMD
import Dispatch
import Synchronization
import YUVCore

/// RGB rows from a decoder (PNG, and JPEG on the RGB route or when it is CMYK), converted exactly by
/// `RGBToYUV420` (8-bit, centre-sited: the SIMD rows) or `RGBToYUV420Exact` (10-bit, left or top-left siting)
/// after the colour stage (a LittleCMS transform, when the source's profile asks for one) and
/// the alpha stage. With an EXIF orientation the rows are decoded whole and turned
/// first (the orientation stage). With sharp chroma, `SharpYUV420` converts instead, writing rows
/// `SharpYUV420.lagRows` rows behind those it was handed (their kept alpha and, for the quality stage, their
/// source rows wait in row windows).
final class RGBRowsSource: BandSource {
    let geometry: PlaneGeometry
    let bandRows: Int
    let pathName = "RGB"
    private let decoder: ImageDecoder
    private let driver: RGBToYUV420
    private let spec: ConversionSpec
    private let siting: ChromaLocation
    /// The exact rows of the output's depth and siting, when the SIMD rows do not make them (made on the first
    /// band, which knows the depth).
    private var exact: RGBToYUV420Exact?
    /// Top-left siting reads the row above a band: the previous band's last row, as converted.
    private var above: UnsafeMutableRawPointer?
    private var haveAbove = false
    private let turn: Orientation
    private let alpha: AlphaMode
    private let format: SourceFormat
    /// Some pixel was less than opaque and `alpha` is `ignore` (bands are staged on more than one thread).
    private let transparent = Atomic<Bool>(false)
    /// Whether to look for that at all: `ignore` (the default's warning; not when asked for by name, whose warning
    /// is not given), and a source with alpha (a PNG's channel or tRNS: a JPEG's RGB rows are RGBX, its fourth
    /// byte no alpha, and a profiled CMYK JPEG's is not even written).
    private let watchesTransparency: Bool
    var droppedTransparency: Bool { transparent.load(ordering: .relaxed) }
    /// Bytes of one decoded row (of the upright picture when turned).
    private let rowBytes: Int
    private var ledger: Ledger?
    private var slots: [UnsafeMutableRawPointer] = []
    private var whole: (pointer: UnsafeMutableRawPointer, bytes: Int)?
    private var recorded = 0
    private var probe: QualityProbe?

    /// The colour stage's transform, when the source's colours are transformed.
    private let colour: ColourTransform?
    /// Whether the decoding thread may take colour-stage bands (`help`): an upright picture whose transform
    /// is stateless.
    private let sharesColour: Bool
    /// The colour stage's work shared with the decoding thread: the bands the stage has not started, in order,
    /// and per slot a signal that the decoding thread finished the band it took.
    private let unstarted = Mutex<[(slot: Int, row: Int, count: Int)]>([])
    private var helped: [DispatchSemaphore] = []
    /// Sharp chroma: the driver, and the rows not yet written that the alpha plane (`--alpha keep`) and the
    /// quality stage still need (each band's alpha goes to `alphaBand` first).
    /// Sharp chroma's rows: asked for (`sharpWanted`) at init, made in `prepare`, where a refusal can be thrown.
    private var sharp: SharpYUV420?
    private let sharpWanted: Bool
    /// A 4:2:0 JPEG, upright: per slot, the planes the decoder hands out (luma rows, then the Cb and Cr rows they
    /// need), made into the slot's RGB rows by the first stage that reads them — the colour stage, else the
    /// conversion — so that libjpeg's upsampling and colour conversion (`yc_ycc420_rgbx` makes its bytes) leave
    /// the decoding thread: a Display P3 photo's conversion no longer waits for them.
    private let ycc: (yStride: Int, cStride: Int, chromaRows: Int)?
    private var planes: [UnsafeMutableRawPointer] = []
    /// Per slot, whether the decoding thread already made the band's RGB rows: it does when the colour stage is
    /// behind (a band it has not started is waiting), as libjpeg did — a smooth photo decodes faster than its
    /// colour stage transforms, and that stage's worker then has no time for the rows. Written before the band
    /// is handed on, read after.
    private var madeRGB: UnsafeMutableBufferPointer<Bool> = .init(start: nil, count: 0)
    /// Tests only: the decoding thread makes every band's RGB rows (true) or none (false), whatever the stages do.
    nonisolated(unsafe) static var decoderMakesRGB: Bool?
    private var waitingAlpha: RowWindow?, waitingSource: RowWindow?
    private var alphaBand: UnsafeMutablePointer<UInt8>?
    private var sharpBytes = 0

    /// `chromaFilter` sharp is for 8-bit, centre-sited outputs only (`RGBToYUV420Exact` has no sharp rows).
    init(decoder: ImageDecoder, spec: ConversionSpec, kernels: KernelChoice, turn: Orientation, alpha: AlphaMode,
         colour: ColourTransform? = nil, siting: ChromaLocation = .center, chromaFilter: ChromaFilter = .box,
         saysDroppedAlpha: Bool = true) {
        self.decoder = decoder
        self.spec = spec
        self.siting = siting
        self.colour = colour
        sharesColour = colour?.isConcurrent == true && turn.isIdentity
        self.turn = turn
        self.alpha = alpha
        let info = decoder.info
        watchesTransparency = alpha == .ignore && saysDroppedAlpha && info.hasAlpha
        format = info.rowFormat
        driver = RGBToYUV420(spec: spec, source: info.rowFormat.converted, kernels: kernels)
        let up = turn.size(width: info.width, height: info.height)
        geometry = PlaneGeometry(width: up.width, height: up.height)
        rowBytes = up.width * info.rowFormat.bytesPerPixel
        let rows = rowsPerBand(rowBytes: rowBytes + 3 * up.width)
        if decoder.isYCC420 && turn.isIdentity {
            // Whole iMCU rows a band (16 luma rows), which the decoder writes straight into the band's planes.
            bandRows = max(16, rows / 16 * 16)
            ycc = (yStride: (up.width + 63) & ~63, cStride: ((up.width + 1) / 2 + 63) & ~63, chromaRows: bandRows / 2 + 3)
        } else {
            bandRows = rows
            ycc = nil
        }
        sharpWanted = chromaFilter == .sharp
    }

    /// The calls after the last band that write the rows sharp chroma still holds: `lagRows` of them.
    var trailingBands: Int { sharpWanted ? (SharpYUV420.lagRows + bandRows - 1) / bandRows : 0 }

    func prepare(slots count: Int, ledger: Ledger) throws {
        self.ledger = ledger
        // A progressive JPEG's coefficients, which libjpeg holds whole (the report said 1.5 MiB of buffers for a
        // 48 MP one that held 137 MiB).
        // An interlaced PNG's picture, which libpng holds whole as stored (a palette's indices: the RGB rows counted
        // instead said 51 MiB of buffers for a 4096x4096 palette PNG that peaked at 30 MiB), turned or not.
        recorded = decoder.coefficientBytes + decoder.yccHeldBytes   // the latter 0 unless it reads planes
            + decoder.interlacedImageBytes
        ledger.record(recorded)
        if sharpWanted {
            // Rows wait at most `lagRows` behind a band: room for a band more than that.
            let held = min(bandRows + SharpYUV420.lagRows, geometry.height)
            // Its rows and the windows beside them (tens of MiB for a wide picture), asked for with the room the
            // work after them takes: allocated unasked, a refusal under an address-space limit stopped the process
            // (SIGABRT, a batch's other files and its summary lost).
            let windows = (alpha == .keep ? geometry.width * held : 0)
                + (probe != nil ? geometry.width * format.converted.bytesPerPixel * held : 0)
            let need = SharpYUV420.byteCount(width: geometry.width, height: geometry.height, bandRows: bandRows) + windows
            // The windows made under the same look as the rows: two jobs are not both told of room for one.
            let made = try Ledger.required(need, for: "sharp chroma's rows") {
                (SharpYUV420(spec: spec, source: format.converted, width: geometry.width, height: geometry.height,
                             bandRows: bandRows),
                 alpha == .keep ? RowWindow(rowBytes: geometry.width, capacity: held) : nil,
                 probe != nil ? RowWindow(rowBytes: geometry.width * format.converted.bytesPerPixel, capacity: held) : nil)
            }
            sharp = made.0
            waitingAlpha = made.1
            waitingSource = made.2
            if alpha == .keep { alphaBand = try ledger.allocateBytes(geometry.width * bandRows) }
            sharpBytes = made.0.byteCount + (waitingAlpha?.byteCount ?? 0) + (waitingSource?.byteCount ?? 0)
            ledger.record(sharpBytes)
        }
        if turn.isIdentity {
            // Each kept as it is made: one refused (`Ledger.allocate` throws) leaves those before it to deinit.
            for _ in 0..<count { slots.append(try ledger.allocate(rowBytes * bandRows)) }
            if ycc != nil {
                for _ in 0..<count { planes.append(try ledger.allocate(planeBytes)) }
                madeRGB = .allocate(capacity: count)
                madeRGB.initialize(repeating: false)
            }
            helped = (0..<count).map { _ in DispatchSemaphore(value: 0) }
            // Top-left siting's copy of the row above a band (a turned picture is held whole: its row is there).
            if siting == .topleft { above = try ledger.allocate(rowBytes) }
            return
        }
        whole = try decodeUpright(decoder, turn: turn, ledger: ledger)
        if interruptSignal() != nil { throw DecodeError.interrupted }
    }

    /// A slot's planes (`ycc`): luma, Cb, Cr.
    private var planeBytes: Int { ycc.map { $0.yStride * bandRows + 2 * $0.cStride * $0.chromaRows } ?? 0 }

    private func planes(slot: Int) -> (y: UnsafeMutableRawBufferPointer, cb: UnsafeMutableRawBufferPointer,
                                       cr: UnsafeMutableRawBufferPointer) {
        let (yBytes, cBytes) = (ycc!.yStride * bandRows, ycc!.cStride * ycc!.chromaRows)
        let y = planes[slot]
        return (UnsafeMutableRawBufferPointer(start: y, count: yBytes),
                UnsafeMutableRawBufferPointer(start: y + yBytes, count: cBytes),
                UnsafeMutableRawBufferPointer(start: y + yBytes + cBytes, count: cBytes))
    }

    func produce(slot: Int, row: Int, count: Int) throws {
        guard turn.isIdentity else { return }
        if let ycc {
            let p = planes(slot: slot)
            try decoder.readYCC420(y: p.y, yStride: ycc.yStride, cb: p.cb, cr: p.cr, cStride: ycc.cStride, count: count)
            madeRGB[slot] = false
            if sharesColour && (Self.decoderMakesRGB ?? unstarted.withLock({ !$0.isEmpty })) {
                makeRGB(slot: slot, row: row, count: count)
                madeRGB[slot] = true
            }
        } else {
            try decoder.readRows(into: slots[slot], rowBytes: rowBytes, count: count)
        }
        if sharesColour { unstarted.withLock { $0.append((slot, row, count)) } }
    }

    /// While the decoder waits for a slot (the colour stage is behind): the colour stage's work for the newest
    /// band it has not started — the stage meanwhile works on the older ones, and waits for this one if it
    /// gets there first.
    func help() -> Bool {
        guard sharesColour, let band = unstarted.withLock({ $0.popLast() }) else { return false }
        colourStage(slot: band.slot, row: band.row, count: band.count)
        helped[band.slot].signal()
        return true
    }

    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int> {
        if colour == nil { makeRGB(slot: slot, row: row, count: count) }
        if let sharp { return convertSharp(sharp, slot: slot, row: row, count: count, into: band) }
        let (rows, stride) = staged(slot: slot, row: row, count: count, alphaInto: band.alpha)
        if band.frame.bytesPerSample == 2 || siting != .center {
            if exact == nil {
                exact = RGBToYUV420Exact(spec: spec, source: format.converted, siting: siting, bitDepth: band.layout.bitDepth)
            }
            // The row above this band: in the whole picture when turned, else the copy of the last band's.
            let up: UnsafeRawPointer? = row == 0 ? nil
                : whole != nil ? UnsafeRawPointer(rows - stride) : (haveAbove ? UnsafeRawPointer(above) : nil)
            exact!.convert(band: rows, rowBytes: stride, firstRow: row, rowCount: count, height: geometry.height,
                           width: geometry.width, above: up, layout: band.layout, y: UnsafeMutableRawPointer(band.y),
                           u: UnsafeMutableRawPointer(band.u), v: band.frame.isBiPlanar ? nil : UnsafeMutableRawPointer(band.v))
            if siting == .topleft && whole == nil {
                above!.copyMemory(from: rows + (count - 1) * stride, byteCount: stride)
                haveAbove = true
            }
        } else {
            driver.convert(band: rows, rowBytes: stride, firstRow: row, rowCount: count, into: band.targets(origin: row))
        }
        return row..<(row + count)
    }

    /// The quality stage runs apart except with sharp chroma, whose rows come out behind those handed in (it
    /// measures them as it writes them, from its own window of source rows).
    var measuresApart: Bool { probe != nil && !sharpWanted }

    /// Measured against the rows converted, which stay in the slot (or the whole picture) until this stage is
    /// done with them: after the colour and alpha stages (16-bit RGBA packed to RGB), both in place.
    func measure(slot: Int, row: Int, count: Int, band: BandBuffer) {
        guard let probe else { return }
        let rows = rows(slot: slot, row: row)
        for r in 0..<count {
            probe.add(row: row + r, source: rows + r * rowBytes, format: format.converted, band: band, first: row)
        }
    }

    /// The colour stage runs on a worker of its own, before the conversion: the transform is the most costly
    /// step of a colour-managed conversion, and beside the decoder and the conversion it shares two cores.
    var transformsApart: Bool { colour != nil }

    func transform(slot: Int, row: Int, count: Int) {
        if sharesColour {
            let mine = unstarted.withLock { queue in
                guard let i = queue.firstIndex(where: { $0.slot == slot }) else { return false }
                queue.remove(at: i)
                return true
            }
            if !mine { return helped[slot].wait() }   // the decoding thread took this band
        }
        colourStage(slot: slot, row: row, count: count)
    }

    /// The colour stage's work on a band: the transform, in place.
    private func colourStage(slot: Int, row: Int, count: Int) {
        makeRGB(slot: slot, row: row, count: count)
        colour?.apply(rows(slot: slot, row: row), rowBytes: rowBytes, width: geometry.width, count: count)
    }

    /// A 4:2:0 JPEG's band (`ycc`): its RGB rows, from the planes the decoder left in the slot.
    private func makeRGB(slot: Int, row: Int, count: Int) {
        guard let ycc, count > 0, !madeRGB[slot] else { return }
        let p = planes(slot: slot)
        yc_ycc420_rgbx(p.y.baseAddress!.assumingMemoryBound(to: UInt8.self), ycc.yStride,
                       p.cb.baseAddress!.assumingMemoryBound(to: UInt8.self),
                       p.cr.baseAddress!.assumingMemoryBound(to: UInt8.self), ycc.cStride, UInt32(geometry.width), UInt32(row),
                       UInt32(count), slots[slot].assumingMemoryBound(to: UInt8.self), rowBytes)
    }

    /// The band's rows as decoded (and turned), in the slot or the whole picture.
    private func rows(slot: Int, row: Int) -> UnsafeMutableRawPointer {
        whole.map { $0.pointer + row * rowBytes } ?? slots[slot]
    }

    /// The band's rows after the colour stage (`transform`, already run) and the alpha stage (a kept alpha
    /// plane goes to `alphaInto`), and their stride.
    private func staged(slot: Int, row: Int, count: Int, alphaInto: UnsafeMutablePointer<UInt8>?)
        -> (UnsafeMutableRawPointer, Int) {
        let source = rows(slot: slot, row: row)
        if watchesTransparency && !transparent.load(ordering: .relaxed)
            && hasTransparency(source, rowBytes: rowBytes, width: geometry.width, count: count, format: format) {
            transparent.store(true, ordering: .relaxed)
        }
        return applyAlpha(alpha, rows: source, rowBytes: rowBytes, width: geometry.width, count: count, format: format,
                          into: alphaInto)
    }

    /// Sharp chroma: the band's rows (after the colour and alpha stages) go to the driver, and the rows it can
    /// finish now — those with all their context — are written, with their alpha and measured.
    private func convertSharp(_ sharp: SharpYUV420, slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int> {
        precondition(band.frame.bytesPerSample == 1, "sharp chroma writes 8-bit layouts")
        let width = geometry.width
        if count > 0 {
            let (rows, stride) = staged(slot: slot, row: row, count: count, alphaInto: alphaBand)
            sharp.push(rows, rowBytes: stride, count: count)
            let done = sharp.ready.lowerBound
            if let waitingAlpha, let alphaBand {
                waitingAlpha.drop(before: done)
                waitingAlpha.append(count).copyMemory(from: alphaBand, byteCount: count * width)
            }
            if let waitingSource {
                waitingSource.drop(before: done)
                let to = waitingSource.append(count), n = waitingSource.rowBytes
                for r in 0..<count { (to + r * n).copyMemory(from: rows + r * stride, byteCount: n) }
            }
        }
        let out = sharp.ready
        guard !out.isEmpty else { return out }
        sharp.write(into: band.targets(origin: out.lowerBound))
        if let waitingAlpha, let alpha = band.alpha {
            for r in out {
                (alpha + (r - out.lowerBound) * width).update(from: waitingAlpha.row(r).assumingMemoryBound(to: UInt8.self),
                                                              count: width)
            }
        }
        if let probe, let waitingSource {
            for r in out {
                probe.add(row: r, source: waitingSource.row(r), format: format.converted, band: band, first: out.lowerBound)
            }
        }
        return out
    }

    func measure(with probe: QualityProbe, ledger: Ledger) throws(WriteError) { self.probe = probe }

    func finish() throws { try decoder.finish() }

    deinit {
        for p in slots { ledger?.deallocate(p, bytes: rowBytes * bandRows) }
        for p in planes { ledger?.deallocate(p, bytes: planeBytes) }
        madeRGB.deallocate()
        if let whole { ledger?.deallocate(whole.pointer, bytes: whole.bytes) }
        if recorded > 0 { ledger?.record(-recorded) }
        if sharpBytes > 0 { ledger?.record(-sharpBytes) }
        if let alphaBand { ledger?.deallocate(UnsafeMutableRawPointer(alphaBand), bytes: geometry.width * bandRows) }
        if let above { ledger?.deallocate(above, bytes: rowBytes) }
    }
}

extension SourceFormat {
    /// The rows a driver converts for rows of this format (16-bit RGBA is reduced to RGB first).
    var converted: SourceFormat { self == .rgba16 ? .rgb16 : self }
}
