import CSIMD
import YUVCore

/// The quality stage (`--metrics`): it sees every band as it streams — the source rows that were converted and
/// the output rows they became — and accumulates PSNR and SSIM (`QualityAccumulator`). No second decode and no
/// whole picture: the RGB route hands it its decoded rows; the JPEG direct path hands it the YCbCr planes,
/// from which `DecoderRGB` rebuilds the RGB a libjpeg-turbo decode shows, byte for byte.
final class QualityProbe {
    private(set) var accumulator: QualityAccumulator
    private let ledger: Ledger
    /// U and V of one chroma row, for bi-planar outputs.
    private let scratchU: UnsafeMutablePointer<UInt8>, scratchV: UnsafeMutablePointer<UInt8>
    private let chromaWidth: Int
    private let scratchBytes: Int

    init(geometry g: PlaneGeometry, spec: ConversionSpec, ledger: Ledger) throws(WriteError) {
        // About 80 bytes a pixel of width, asked for first (under an address-space limit its allocation stopped the
        // process: a 60,000-wide picture's 4.8 MB).
        let need = QualityAccumulator.byteCount(width: g.width, height: g.height)
        accumulator = try Ledger.required(need, for: "the quality measures' rows") {
            QualityAccumulator(width: g.width, height: g.height, spec: spec)
        }
        self.ledger = ledger
        chromaWidth = (g.width + 1) / 2
        scratchBytes = 2 * chromaWidth
        scratchU = try ledger.allocateBytes(scratchBytes)
        scratchV = scratchU + chromaWidth
        ledger.record(accumulator.byteCount)
    }

    deinit {
        ledger.deallocate(UnsafeMutableRawPointer(scratchU), bytes: scratchBytes)
        ledger.record(-accumulator.byteCount)
    }

    /// The measures, when every row was added (nil otherwise: the conversion stopped early).
    var result: QualityReport? { accumulator.isComplete ? accumulator.result() : nil }

    /// Adds picture row `row` (source row `source` in `format`) with the output rows `band` holds for it
    /// (`band` starts at picture row `first`).
    func add(row: Int, source: UnsafeRawPointer, format: SourceFormat, band: BandBuffer, first: Int) {
        let (y, u, v) = outputRows(band, row: row, first: first)
        accumulator.add(row: source, format: format, y: y, u: u, v: v)
    }

    /// Adds picture row `row` from planar rows `r`, `g`, `b` with the output rows `band` holds for it.
    func addPlanar(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, row: Int,
                   band: BandBuffer, first: Int) {
        let (y, u, v) = outputRows(band, row: row, first: first)
        accumulator.addPlanarRow(r: r, g: g, b: b, y: y, u: u, v: v)
    }

    /// Adds a row from planar rows `r`, `g`, `b` whose output rows were copied aside (`y`, `u`, `v`: planar).
    func addPlanar(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, y: UnsafePointer<UInt8>,
                   u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        accumulator.addPlanarRow(r: r, g: g, b: b, y: y, u: u, v: v)
    }

    /// Adds a row whose output rows were copied aside (`y`, `u`, `v`: planar).
    func add(source: UnsafeRawPointer, format: SourceFormat, y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>,
             v: UnsafePointer<UInt8>) {
        accumulator.add(row: source, format: format, y: y, u: u, v: v)
    }

    /// The output's luma row and the U and V rows covering picture row `row`, as planar rows.
    func outputRows(_ band: BandBuffer, row: Int, first: Int)
        -> (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>) {
        let cw = chromaWidth, c = row / 2 - first / 2
        let y = UnsafePointer(band.y + (row - first) * band.frame.width)
        if band.frame.isBiPlanar {
            let uv = band.u + c * 2 * cw
            if band.layout == .nv12 {
                yc_quality_split_pairs(uv, cw, scratchU, scratchV)
            } else {
                yc_quality_split_pairs(uv, cw, scratchV, scratchU)
            }
            return (y, UnsafePointer(scratchU), UnsafePointer(scratchV))
        }
        return (y, UnsafePointer(band.u + c * cw), UnsafePointer(band.v + c * cw))
    }
}

/// The RGB rows libjpeg-turbo's decoder gives for a YCbCr (or greyscale) JPEG with its default settings —
/// fancy upsampling (`jdsample.c`: h2v1, h1v2 and h2v2 triangle filters; the box for chroma two or fewer
/// samples wide and for other ratios) and `jdcolor.c`'s fixed-point YCbCr → RGB — rebuilt from the planes
/// the direct path decodes. Its SIMD code gives the same bytes as this C arithmetic; a test holds this to
/// the decoder's own RGB output on every sampling.
struct DecoderRGB {
    enum Upsampling: Equatable { case grey, full, fancyH2V1, fancyH1V2, fancyH2V2, box }
    let width: Int
    let upsampling: Upsampling
    /// Luma samples per chroma sample, across and down.
    let hr: Int, vr: Int
    /// The chroma planes' real size (libjpeg's downsampled width and height).
    let chromaWidth: Int, chromaHeight: Int
    private let crR: [Int32], cbB: [Int32], crG: [Int32], cbG: [Int32]
    /// jdcolor.c's four multipliers, FIX(1.40200), FIX(1.77200), FIX(0.71414), FIX(0.34414): the tables
    /// above are these products, which `row`'s C computes in vector lanes instead of looking them up.
    private let fixes: (Int32, Int32, Int32, Int32)
    /// The C row's upsampling mode (`yc_quality_decoder_rgb_row`; grey needs none).
    private let cMode: Int32
    private let scratch: Scratch

    /// One row's upsampled Cb and Cr (a byte a pixel) and a chroma row's column sums (padded by one each side).
    final class Scratch {
        let cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, sums: UnsafeMutablePointer<Int32>
        init(width: Int, chromaWidth: Int) {
            cb = .allocate(capacity: 2 * width)
            cr = cb + width
            sums = .allocate(capacity: chromaWidth + 2)
        }
        deinit { cb.deallocate(); sums.deallocate() }
    }

    init(width: Int, height: Int, components: Int, h: [Int], v: [Int]) {
        self.width = width
        let hMax = h.prefix(components).max()!, vMax = v.prefix(components).max()!
        hr = components == 1 ? 1 : hMax / h[1]
        vr = components == 1 ? 1 : vMax / v[1]
        chromaWidth = components == 1 ? width : (width * h[1] + hMax - 1) / hMax
        chromaHeight = components == 1 ? height : (height * v[1] + vMax - 1) / vMax
        switch (components == 1, hr, vr) {
        case (true, _, _): upsampling = .grey
        case (false, 1, 1): upsampling = .full
        case (false, 2, 1): upsampling = yc_jpeg_fancy_across(UInt32(chromaWidth)) != 0 ? .fancyH2V1 : .box
        case (false, 1, 2): upsampling = .fancyH1V2
        case (false, 2, 2): upsampling = yc_jpeg_fancy_across(UInt32(chromaWidth)) != 0 ? .fancyH2V2 : .box
        default: upsampling = .box
        }
        // jdcolor.c's tables from its multipliers (yc_ycc_rows.h): 16 fractional bits.
        let half: Int32 = 1 << 15
        let (fCrR, fCbB, fCrG, fCbG) = (Int32(YC_JPEG_FIX_CR_R), Int32(YC_JPEG_FIX_CB_B), Int32(YC_JPEG_FIX_CR_G),
                                        Int32(YC_JPEG_FIX_CB_G))
        crR = (0..<256).map { i in (fCrR * Int32(i - 128) + half) >> 16 }
        cbB = (0..<256).map { i in (fCbB * Int32(i - 128) + half) >> 16 }
        crG = (0..<256).map { i in -fCrG * Int32(i - 128) }
        cbG = (0..<256).map { i in -fCbG * Int32(i - 128) + half }
        fixes = (fCrR, fCbB, fCrG, fCbG)
        switch upsampling {
        case .full, .grey: cMode = 0
        case .fancyH2V1: cMode = 1
        case .fancyH1V2: cMode = 2
        case .fancyH2V2: cMode = 3
        case .box: cMode = 4
        }
        scratch = Scratch(width: width, chromaWidth: chromaWidth)
    }

    /// Bytes of the row scratch, for the ledger.
    var scratchBytes: Int { 2 * width + 4 * (chromaWidth + 2) }

    /// Whether row `row`'s chroma needs the chroma row after its own (a vertical triangle filter, odd row).
    var vertical: Bool { upsampling == .fancyH1V2 || upsampling == .fancyH2V2 }

    /// The chroma row picture row `row` takes its samples from, and the one it blends in (itself when none;
    /// libjpeg repeats the first and the last real row at the edges).
    func chromaRows(of row: Int) -> (own: Int, other: Int) {
        let c = row / vr
        guard vertical else { return (c, c) }
        let other = row % 2 == 0 ? c - 1 : c + 1
        return (c, min(max(other, 0), chromaHeight - 1))
    }

    /// One RGB row, planar (`rgb`: R, G and B rows), from a luma row and, per chroma component, its own row and
    /// the blended one (`chromaRows`): in C, one copy per CPU tier (`yc_quality_rows_body.h`), each component
    /// upsampled into a row of its own (jdsample.c's filters, as `sample` writes them per pixel), then
    /// jdcolor.c's arithmetic — the tables' products computed in the loop, the same integers — over contiguous
    /// lanes.
    func row(y: UnsafePointer<UInt8>, cb: (UnsafePointer<UInt8>, UnsafePointer<UInt8>)?,
             cr: (UnsafePointer<UInt8>, UnsafePointer<UInt8>)?, parity: Int,
             into rgb: (r: UnsafeMutablePointer<UInt8>, g: UnsafeMutablePointer<UInt8>, b: UnsafeMutablePointer<UInt8>)) {
        let pr = rgb.r, pg = rgb.g, pb = rgb.b
        guard upsampling != .grey, let cb, let cr else {
            pr.update(from: y, count: width)
            pg.update(from: y, count: width)
            pb.update(from: y, count: width)
            return
        }
        withUnsafePointer(to: fixes) { f in
            f.withMemoryRebound(to: Int32.self, capacity: 4) { fix in
                yc_quality_decoder_rgb_row(cMode, y, cb.0, cb.1, cr.0, cr.1, width, chromaWidth, Int32(hr), Int32(parity),
                                           fix, scratch.sums, scratch.cb, scratch.cr, pr, pg, pb)
            }
        }
    }

    /// The pixel in column `x` of a row (`parity`: the row's number mod 2) whose luma is `y`.
    @inline(__always)
    func pixel(y: UInt8, cb: (UnsafePointer<UInt8>, UnsafePointer<UInt8>)?, cr: (UnsafePointer<UInt8>, UnsafePointer<UInt8>)?,
               x: Int, parity: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        guard upsampling != .grey, let cb, let cr else { return (y, y, y) }
        let l = Int32(y)
        let b = Int(sample(cb.0, cb.1, x: x, parity: parity)), r = Int(sample(cr.0, cr.1, x: x, parity: parity))
        return (clamp(l + crR[r]), clamp(l + ((cbG[b] + crG[r]) >> 16)), clamp(l + cbB[b]))
    }

    @inline(__always) private func clamp(_ v: Int32) -> UInt8 { UInt8(min(max(v, 0), 255)) }

    /// One component's sample in luma column `x`, from its own chroma row and the blended one: jdsample.c's
    /// filters written per output sample (its first and last columns are its special cases).
    @inline(__always)
    func sample(_ own: UnsafePointer<UInt8>, _ other: UnsafePointer<UInt8>, x: Int, parity: Int) -> UInt8 {
        let n = chromaWidth, i = x / 2, even = x % 2 == 0
        switch upsampling {
        case .grey, .full:
            return own[x]
        case .box:
            return own[x / hr]
        case .fancyH2V1:
            // h2v1_fancy_upsample: ¾ nearer + ¼ further, biased 1 (left) and 2 (right).
            if even { return i == 0 ? own[0] : UInt8((Int(own[i]) * 3 + Int(own[i - 1]) + 1) >> 2) }
            return i == n - 1 ? own[n - 1] : UInt8((Int(own[i]) * 3 + Int(own[i + 1]) + 2) >> 2)
        case .fancyH1V2:
            // h1v2_fancy_upsample: ¾ own row + ¼ the other, biased 1 (upper row) and 2 (lower).
            return UInt8((Int(own[x]) * 3 + Int(other[x]) + (parity == 0 ? 1 : 2)) >> 2)
        case .fancyH2V2:
            // h2v2_fancy_upsample: column sums 3·own + other, then ¾/¼ across, biased 8 and 7, over 16.
            @inline(__always) func sum(_ k: Int) -> Int { Int(own[k]) * 3 + Int(other[k]) }
            if even { return UInt8(i == 0 ? (sum(0) * 4 + 8) >> 4 : (sum(i) * 3 + sum(i - 1) + 8) >> 4) }
            return UInt8(i == n - 1 ? (sum(i) * 4 + 7) >> 4 : (sum(i) * 3 + sum(i + 1) + 7) >> 4)
        }
    }
}

/// Feeds a `QualityProbe` from the direct path's planes, band by band: each picture row's RGB as the decoder
/// would give it, with the output rows.
///
/// The work can be split between two threads so that it balances the two cores: each band's RGB rows are
/// rebuilt into its slot's rows (`prepare`) — by the decoding thread while it waits for a free slot
/// (`JPEGPlanesSource.help`), or else by the quality stage when it comes to the band, in band order either
/// way — and the quality stage measures them (`add`) with the output rows. Measured on 12 MP: the rebuild is
/// about a sixth of the quality stage's time, and the stage shares a core with the conversion while the
/// decoder waits for slots.
///
/// A row whose vertical filter needs the next band's first chroma row is rebuilt at the head of the next
/// band's rows (its luma and own chroma row copied aside until then), and its output rows are copied aside
/// by the quality stage until it comes; the previous band's last chroma row is kept for the next band's
/// first row. Greyscale rows need no rebuild: luma is R, G and B.
final class PlanesQuality {
    let probe: QualityProbe
    let rgb: DecoderRGB
    private let ledger: Ledger
    private let buffer: UnsafeMutablePointer<UInt8>
    private let bufferBytes: Int
    /// One interleaved RGB row (`addTurned`), or the last waiting row's planar R, G, B (`finish`).
    private let rgbRow: UnsafeMutablePointer<UInt8>
    /// The decoding thread's side: the previous band's last chroma row (Cb, Cr) and its index; a row waiting
    /// for the next band's chroma (its luma and own chroma rows).
    private let prevCb: UnsafeMutablePointer<UInt8>, prevCr: UnsafeMutablePointer<UInt8>
    private var prevRow = -1
    private let waitY: UnsafeMutablePointer<UInt8>, waitCb: UnsafeMutablePointer<UInt8>, waitCr: UnsafeMutablePointer<UInt8>
    private var pending: Int?
    /// Per slot: planar rebuilt rows (R rows, then G, then B, `slotRows` each), set once by `allocate`; and the
    /// picture rows they hold (first, count), written by whichever thread rebuilds the slot's band and read by
    /// the quality stage — in raw memory, not a Swift array, whose element writes are writes of the whole
    /// array and would race with the reads of other slots.
    private var slots: [UnsafeMutablePointer<UInt8>] = []
    private var made: UnsafeMutablePointer<(first: Int, count: Int)>?
    private var slotRows = 0, slotBytes = 0
    /// The quality stage's side: the output rows of a row waiting for its RGB.
    private let waitOutY: UnsafeMutablePointer<UInt8>, waitOutU: UnsafeMutablePointer<UInt8>, waitOutV: UnsafeMutablePointer<UInt8>
    private var waiting: Int?

    init(probe: QualityProbe, rgb: DecoderRGB, ledger: Ledger) throws(WriteError) {
        self.probe = probe
        self.rgb = rgb
        self.ledger = ledger
        let w = rgb.width, cw = rgb.chromaWidth, ow = (w + 1) / 2
        // `addTurned` fills an upright row: wider than a stored one when the turn swaps the axes (5–8).
        let rgbBytes = 3 * max(w, probe.accumulator.width)
        bufferBytes = rgbBytes + 2 * cw + w + 2 * cw + w + 2 * ow
        buffer = try ledger.allocateBytes(bufferBytes)
        rgbRow = buffer
        prevCb = rgbRow + rgbBytes
        prevCr = prevCb + cw
        waitY = prevCr + cw
        waitCb = waitY + w
        waitCr = waitCb + cw
        waitOutY = waitCr + cw
        waitOutU = waitOutY + w
        waitOutV = waitOutU + ow
        ledger.record(rgb.scratchBytes)
    }

    deinit {
        ledger.deallocate(UnsafeMutableRawPointer(buffer), bytes: bufferBytes)
        for s in slots { ledger.deallocate(UnsafeMutableRawPointer(s), bytes: slotBytes) }
        made?.deallocate()
        ledger.record(-rgb.scratchBytes)
    }

    /// The rebuilt rows of `count` slots of bands up to `bandRows` rows (and the waiting row before them).
    func allocate(slots count: Int, bandRows: Int) throws(WriteError) {
        guard rgb.upsampling != .grey else { return }
        slotRows = bandRows + 1
        slotBytes = 3 * rgb.width * slotRows
        for _ in 0..<count { slots.append(try ledger.allocateBytes(slotBytes)) }   // each kept for deinit as made
        made = .allocate(capacity: count)
        made!.initialize(repeating: (0, 0), count: count)
    }

    private func planes(_ slot: Int, _ k: Int)
        -> (r: UnsafeMutablePointer<UInt8>, g: UnsafeMutablePointer<UInt8>, b: UnsafeMutablePointer<UInt8>) {
        let w = rgb.width, r = slots[slot] + k * w
        return (r, r + slotRows * w, r + 2 * slotRows * w)
    }

    /// On the decoding thread, once band `first ..< first + count` is decoded into `slot`: its RGB rows (and
    /// the row waiting for this band's chroma) into the slot's rows. `luma(row)` is a luma row,
    /// `chroma(c, row)` component c's chroma row (nil when not in this band).
    func prepare(slot: Int, first: Int, count: Int, luma: (Int) -> UnsafePointer<UInt8>,
                 chroma: (Int, Int) -> UnsafePointer<UInt8>?) {
        guard rgb.upsampling != .grey else { return }
        func chromaRow(_ c: Int, _ row: Int) -> UnsafePointer<UInt8>? {
            if let p = chroma(c, row) { return p }
            return row == prevRow ? UnsafePointer(c == 1 ? prevCb : prevCr) : nil
        }
        var n = 0, head = first
        if let row = pending {
            let other = rgb.chromaRows(of: row).other
            rgb.row(y: waitY, cb: (UnsafePointer(waitCb), chromaRow(1, other)!), cr: (UnsafePointer(waitCr), chromaRow(2, other)!),
                    parity: row % 2, into: planes(slot, 0))
            (n, head, pending) = (1, row, nil)
        }
        for row in first..<(first + count) {
            let (own, other) = rgb.chromaRows(of: row)
            guard let cb1 = chromaRow(1, other), let cr1 = chromaRow(2, other) else {
                // The next band's first chroma row is needed: keep this row's parts until then.
                waitY.update(from: luma(row), count: rgb.width)
                waitCb.update(from: chromaRow(1, own)!, count: rgb.chromaWidth)
                waitCr.update(from: chromaRow(2, own)!, count: rgb.chromaWidth)
                pending = row
                break
            }
            rgb.row(y: luma(row), cb: (chromaRow(1, own)!, cb1), cr: (chromaRow(2, own)!, cr1), parity: row % 2,
                    into: planes(slot, n))
            n += 1
        }
        made![slot] = (head, n)
        let last = (first + count - 1) / rgb.vr
        if let cb = chroma(1, last), let cr = chroma(2, last) {
            prevCb.update(from: cb, count: rgb.chromaWidth)
            prevCr.update(from: cr, count: rgb.chromaWidth)
            prevRow = last
        }
    }

    /// On the quality stage: picture rows `first ..< first + count`, whose RGB rows `prepare` made in `slot`
    /// (`luma(row)`: a luma row, for greyscale), with the output rows in `band`.
    func add(slot: Int, first: Int, count: Int, luma: (Int) -> UnsafePointer<UInt8>, band: BandBuffer) {
        if rgb.upsampling == .grey {
            for row in first..<(first + count) {
                let y = luma(row)
                probe.addPlanar(r: y, g: y, b: y, row: row, band: band, first: first)
            }
            return
        }
        let made = self.made![slot]
        var k = 0
        if let row = waiting {
            precondition(made.count > 0 && made.first == row, "the waiting row is rebuilt first")
            let p = planes(slot, 0)
            probe.addPlanar(r: p.r, g: p.g, b: p.b, y: waitOutY, u: waitOutU, v: waitOutV)
            (k, waiting) = (1, nil)
        }
        for row in first..<(first + count) {
            guard k < made.count else {
                // Rebuilt with the next band: keep this row's output rows until then.
                let (y, u, v) = probe.outputRows(band, row: row, first: first)
                waitOutY.update(from: y, count: rgb.width)
                waitOutU.update(from: u, count: (rgb.width + 1) / 2)
                waitOutV.update(from: v, count: (rgb.width + 1) / 2)
                waiting = row
                break
            }
            precondition(made.first + k == row, "rebuilt rows follow the picture's")
            let p = planes(slot, k)
            probe.addPlanar(r: p.r, g: p.g, b: p.b, row: row, band: band, first: first)
            k += 1
        }
    }

    /// Picture rows `first ..< first + count` of a turned picture, from the planes as stored (`planes`, rows
    /// `strides` apart; `rgb` describes them): each upright pixel is the decoder's pixel at its stored
    /// position, so the measure is against the picture a viewer shows — decoded, then turned.
    func addTurned(first: Int, count: Int, turn: Orientation, planes: [UnsafePointer<UInt8>], strides: [Int],
                   storedHeight: Int, band: BandBuffer) {
        let width = probe.accumulator.width, storedWidth = rgb.width
        for row in first..<(first + count) {
            for x in 0..<width {
                let s = turn.storedPosition(x: x, y: row, width: storedWidth, height: storedHeight)
                let luma = planes[0][s.y * strides[0] + s.x]
                var p: (r: UInt8, g: UInt8, b: UInt8)
                if rgb.upsampling == .grey {
                    p = (luma, luma, luma)
                } else {
                    let (own, other) = rgb.chromaRows(of: s.y)
                    p = rgb.pixel(y: luma, cb: (planes[1] + own * strides[1], planes[1] + other * strides[1]),
                                  cr: (planes[2] + own * strides[2], planes[2] + other * strides[2]), x: s.x, parity: s.y % 2)
                }
                rgbRow[3 * x] = p.r; rgbRow[3 * x + 1] = p.g; rgbRow[3 * x + 2] = p.b
            }
            probe.add(row: row, source: rgbRow, format: .rgb8, band: band, first: first)
        }
    }

    /// After the last band: a row still waiting (only when the picture ended) takes its own chroma row twice.
    func finish() {
        guard let row = pending, waiting == row else { return }
        let w = rgb.width, p = (r: rgbRow, g: rgbRow + w, b: rgbRow + 2 * w)
        rgb.row(y: waitY, cb: (UnsafePointer(waitCb), UnsafePointer(waitCb)), cr: (UnsafePointer(waitCr), UnsafePointer(waitCr)),
                parity: row % 2, into: p)
        probe.addPlanar(r: p.r, g: p.g, b: p.b, y: waitOutY, u: waitOutU, v: waitOutV)
        (pending, waiting) = (nil, nil)
    }
}
