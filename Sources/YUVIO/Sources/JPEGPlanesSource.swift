#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import YUVCore

/// The JPEG direct path's source: the decoder's YCbCr planes, iMCU row by iMCU row (grouped to about 64
/// luma rows a band), converted by `YCbCrToYUV420` without ever building RGB. With an EXIF orientation the
/// planes are decoded whole and each component turned on its real samples first (the orientation stage);
/// 5–8 swap the sampling factors too (4:2:2 turned is 4:4:0). Left and top-left siting resample the chroma in
/// the driver (`YCbCrSiting.swift`); top-left reads the chroma row above each band, kept from the band before.
final class JPEGPlanesSource: BandSource {
    let geometry: PlaneGeometry
    let bandRows: Int
    let pathName = "direct YCbCr"
    private let decoder: ImageDecoder
    private let raw: (bandRows: Int, planeWidth: [Int], planeRows: [Int], components: Int, h: [Int], v: [Int])
    private let turn: Orientation
    private let group: Int
    /// Built by the worker on its first band (with the reference rows its 64K-entry table costs a few ms),
    /// while the decoder is already producing.
    private let makeDriver: () -> YCbCrToYUV420
    private var driver: YCbCrToYUV420?
    private var ledger: Ledger?
    /// The bytes libjpeg holds for a progressive JPEG's coefficients, recorded in the ledger.
    private var coefficients = 0
    /// Threaded, unturned, unmeasured: the inverse DCTs of the bands decoded and not yet converted, which the
    /// converting thread runs before it converts a band, or the decoding thread while it waits for a slot
    /// (yc_jpeg_idct.c): the entropy decoding, the one part that cannot be shared, is then less of the decoding
    /// thread's work.
    private var idctRing: (ring: OpaquePointer, buffer: UnsafeMutableRawPointer, bytes: Int)?
    /// Tests only: the ring's iMCU rows (1: most blocks find it full and run at once).
    nonisolated(unsafe) static var idctRingRows: Int?
    /// The slot the decoding thread filled last.
    private var lastSlot = 0
    /// Per slot, per component: `group` iMCU rows of the decoder's planes, stacked.
    private var slots: [[(pointer: UnsafeMutablePointer<UInt8>, bytes: Int)]] = []
    /// Turned: each component's upright plane, its width, and how its rows follow luma rows.
    private var upright: [(pointer: UnsafeMutablePointer<UInt8>, bytes: Int, width: Int)] = []
    private var chromaV = 1, maxV = 1
    /// Sampling factors of the converted (upright) planes.
    private let hUp: [Int], vUp: [Int]
    private var quality: PlanesQuality?
    /// Decoded bands whose RGB rows the quality stage needs and nobody rebuilt yet, in order: the quality
    /// stage rebuilds a band when it comes to it, unless the decoding thread, waiting for a free slot,
    /// got there first (`help`). Rebuilt under the lock, one band at a time, in order.
    private let rebuilds = Mutex<[(slot: Int, row: Int, count: Int)]>([])
    /// Tests only: the quality stage dawdles (1 ms a band), so that the decoding thread helps whenever the
    /// slots are full (`BandPipeline.helpAfterEveryBand` makes it help on every band).
    nonisolated(unsafe) static var slowQualityStage = false
    /// Turned and measured: the planes as stored, kept for the quality stage.
    private var stored: [(pointer: UnsafeMutablePointer<UInt8>, bytes: Int)] = []
    /// Top-left siting in bands: the last Cb and Cr rows of the band converted before (its slot is refilled
    /// by the decoder while the next band converts), and whether they hold one yet.
    private let keepsRowAbove: Bool
    private var carry: [(pointer: UnsafeMutablePointer<UInt8>, bytes: Int)] = []
    private var carrying = false

    init(decoder: ImageDecoder, spec: ConversionSpec, kernels: KernelChoice, turn: Orientation,
         siting: ChromaLocation = .center) {
        self.decoder = decoder
        self.turn = turn
        raw = decoder.rawLayout
        let stored = PlaneGeometry(width: decoder.info.width, height: decoder.info.height)
        let up = turn.size(width: stored.width, height: stored.height)
        geometry = PlaneGeometry(width: up.width, height: up.height)
        let (n, raw) = (raw.components, raw)
        hUp = turn.swapsAxes ? raw.v : raw.h
        vUp = turn.swapsAxes ? raw.h : raw.v
        if turn.isIdentity {
            group = max(1, rowsPerBand(rowBytes: 3 * stored.width) / raw.bandRows)
            bandRows = group * raw.bandRows
            makeDriver = { YCbCrToYUV420(target: spec, width: stored.width, height: stored.height, components: n,
                                         h: raw.h, v: raw.v, kernels: kernels, siting: siting) }
        } else {
            let (hUp, vUp) = (self.hUp, self.vUp)
            let d = YCbCrToYUV420(target: spec, width: up.width, height: up.height, components: n, h: hUp, v: vUp,
                                  kernels: kernels, siting: siting)
            driver = d
            makeDriver = { d }
            maxV = vUp.max()!
            chromaV = n > 1 ? vUp[1] : maxV
            group = 1
            bandRows = max(1, rowsPerBand(rowBytes: 3 * up.width) / d.bandRows) * d.bandRows
        }
        // A turned picture's upright planes are whole: the row above a band is in them.
        keepsRowAbove = siting == .topleft && n == 3 && turn.isIdentity
    }

    func prepare(slots count: Int, ledger: Ledger) throws {
        self.ledger = ledger
        // A progressive JPEG's coefficients, which libjpeg holds whole.
        coefficients = decoder.coefficientBytes
        ledger.record(coefficients)
        let n = raw.components
        if turn.isIdentity {
            // Chroma's row above, and luma's (the gamut step weighs the luma rows the chroma rows are weighed by).
            // Each buffer kept as it is made, so that one refused (`Ledger.allocate` throws) leaves those before it to
            // deinit, not lost.
            if keepsRowAbove {
                for c in 0...2 { carry.append((try ledger.allocateBytes(raw.planeWidth[c]), raw.planeWidth[c])) }
            }
            try quality?.allocate(slots: count, bandRows: bandRows)
            for _ in 0..<count {
                slots.append([])
                for c in 0..<n {
                    let bytes = raw.planeWidth[c] * raw.planeRows[c] * group
                    slots[slots.count - 1].append((try ledger.allocateBytes(bytes), bytes))
                }
            }
            // A band and an iMCU row: the band the converting thread runs while the next one is decoded (a band's
            // room is back once it is run), two bytes a sample and 16 a block, about 1.1 MB at 4032 wide. Rings of
            // two and three bands were no faster on the photos of `make bench-e2e`.
            let rows = Self.idctRingRows ?? group + 1, ringBytes = decoder.idctRingBytes(rows: rows)
            if count > 1 && quality == nil && ringBytes > 0 {
                let buffer = try ledger.allocate(ringBytes)
                if let ring = decoder.makeIDCTRing(in: buffer, bytes: ringBytes, rows: rows, slots: count) {
                    idctRing = (ring, buffer, ringBytes)
                } else {
                    ledger.deallocate(buffer, bytes: ringBytes)
                }
            }
            return
        }
        // The orientation stage: planes as the decoder stores them (padded widths, whole iMCU rows), then
        // each component turned on its real samples.
        let stored = PlaneGeometry(width: decoder.info.width, height: decoder.info.height)
        let hMax = raw.h.max()!, vMax = raw.v.max()!
        let bands = (stored.height + raw.bandRows - 1) / raw.bandRows
        // Every plane, stored and upright, allocated before any is decoded (one refused: that file fails).
        let sizes = (0..<n).map { c in
            let w = (stored.width * raw.h[c] + hMax - 1) / hMax, h = (stored.height * raw.v[c] + vMax - 1) / vMax
            return (w: w, h: h, up: turn.size(width: w, height: h), stored: raw.planeWidth[c] * raw.planeRows[c] * bands)
        }
        try decoder.checkWhole(sizes.reduce(0) { $0 + $1.stored + $1.up.width * $1.up.height }, for: "turning the picture")
        var storedPlanes: [(pointer: UnsafeMutablePointer<UInt8>, bytes: Int)] = []
        func refuse() -> DecodeError {
            storedPlanes.forEach { ledger.deallocate(UnsafeMutableRawPointer($0.pointer), bytes: $0.bytes) }
            let whole = sizes.reduce(0) { $0 + $1.stored + $1.up.width * $1.up.height }
            return .decoder(Ledger.outOfMemoryUnderALimit(whole, for: "turning the picture"))
        }
        for size in sizes {
            guard let p = ledger.allocateIfAvailable(size.stored) else { throw refuse() }
            storedPlanes.append((p.assumingMemoryBound(to: UInt8.self), size.stored))
        }
        for size in sizes {
            let bytes = size.up.width * size.up.height
            guard let p = ledger.allocateIfAvailable(bytes) else { throw refuse() }   // those in `upright`: deinit
            upright.append((p.assumingMemoryBound(to: UInt8.self), bytes, size.up.width))
        }
        // Kept while the quality stage measures against the picture as decoded (then turned).
        defer {
            if quality == nil {
                storedPlanes.forEach { ledger.deallocate(UnsafeMutableRawPointer($0.pointer), bytes: $0.bytes) }
                decoder.releaseWhole(sizes.reduce(0) { $0 + $1.stored })   // the output's are checked after (`runPipeline`)
            }
        }
        if quality != nil { self.stored = storedPlanes }
        for b in 0..<bands {
            if interruptSignal() != nil { throw DecodeError.interrupted }
            _ = try decoder.readRawBand(planes: (0..<n).map { storedPlanes[$0].pointer + b * raw.planeRows[$0] * raw.planeWidth[$0] },
                                        strides: raw.planeWidth)
        }
        for (c, size) in sizes.enumerated() {
            turn.apply(storedPlanes[c].pointer, srcRowBytes: raw.planeWidth[c], width: size.w, height: size.h, bytesPerPixel: 1,
                       to: upright[c].pointer, dstRowBytes: size.up.width)
        }
    }

    func produce(slot: Int, row: Int, count: Int) throws {
        guard turn.isIdentity else { return }
        lastSlot = slot
        if let idctRing { ImageDecoder.beginIDCT(idctRing.ring, slot: slot) }
        var decoded = 0
        while decoded < count {
            let k = decoded / raw.bandRows
            let at = (0..<raw.components).map { slots[slot][$0].pointer + k * raw.planeRows[$0] * raw.planeWidth[$0] }
            _ = try decoder.readRawBand(planes: at, strides: raw.planeWidth,
                                        deferringTo: idctRing?.ring, slot: slot)
            decoded += raw.bandRows
        }
        if quality != nil {
            rebuilds.withLock { $0.append((slot, row, count)) }
        }
    }

    /// While the decoder waits for a slot: the inverse DCTs of the bands handed on, oldest first (the conversion
    /// is behind), or (the quality stage is behind) the next band's RGB rows.
    func help() -> Bool {
        if let idctRing {
            for k in 1...slots.count where ImageDecoder.shareIDCT(idctRing.ring, slot: (lastSlot + k) % slots.count) {
                return true
            }
            return false
        }
        guard quality != nil else { return false }
        return rebuilds.withLock { queue in
            guard !queue.isEmpty else { return false }
            rebuild(queue.removeFirst())
            return true
        }
    }

    /// The quality stage's RGB rows of a decoded band (`PlanesQuality.prepare`).
    private func rebuild(_ band: (slot: Int, row: Int, count: Int)) {
        let q = quality!
        let (luma, chroma) = rows(slot: band.slot, row: band.row, vr: q.rgb.vr, chromaHeight: q.rgb.chromaHeight)
        q.prepare(slot: band.slot, first: band.row, count: band.count, luma: luma, chroma: chroma)
    }

    /// The luma row of picture row r and component c's chroma row r (nil when not in this band) of the band
    /// in `slot` (picture rows from `row`), as the rows of its planes.
    private func rows(slot: Int, row: Int, vr: Int, chromaHeight: Int)
        -> (luma: (Int) -> UnsafePointer<UInt8>, chroma: (Int, Int) -> UnsafePointer<UInt8>?) {
        let planes = slots[slot], strides = raw.planeWidth, c0 = row / vr, group = group, planeRows = raw.planeRows
        return ({ UnsafePointer(planes[0].pointer + ($0 - row) * strides[0]) },
                { c, r in
                    let k = r - c0
                    guard k >= 0, k < group * planeRows[c], r < chromaHeight else { return nil }
                    return UnsafePointer(planes[c].pointer + k * strides[c])
                })
    }

    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int> {
        if driver == nil { driver = makeDriver() }
        if let idctRing { ImageDecoder.runIDCT(idctRing.ring, slot: slot) }
        let (planes, strides): ([UnsafeMutablePointer<UInt8>], [Int])
        var above: (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)?, lumaAbove: UnsafePointer<UInt8>?
        if turn.isIdentity {
            (planes, strides) = (slots[slot].map(\.pointer), raw.planeWidth)
            if carrying { (above, lumaAbove) = ((UnsafePointer(carry[1].pointer), UnsafePointer(carry[2].pointer)), UnsafePointer(carry[0].pointer)) }
        } else {
            let crow = row * chromaV / maxV
            (planes, strides) = (upright.enumerated().map { c, p in p.pointer + (c == 0 ? row : crow) * p.width }, upright.map(\.width))
            if row > 0 && upright.count == 3 {
                let r = (row - 1) * chromaV / maxV
                above = (UnsafePointer(upright[1].pointer + r * upright[1].width), UnsafePointer(upright[2].pointer + r * upright[2].width))
                lumaAbove = UnsafePointer(upright[0].pointer + (row - 1) * upright[0].width)
            }
        }
        if band.frame.bytesPerSample == 2 {
            driver!.convertDeep(y: planes[0], yStride: strides[0], cb: planes.count > 1 ? UnsafePointer(planes[1]) : nil,
                                cbStride: planes.count > 1 ? strides[1] : 0, cr: planes.count > 2 ? UnsafePointer(planes[2]) : nil,
                                crStride: planes.count > 2 ? strides[2] : 0, rowCount: count, above: above,
                                lumaAbove: lumaAbove, layout: band.layout, yOut: UnsafeMutableRawPointer(band.y), uOut: UnsafeMutableRawPointer(band.u),
                                vOut: band.frame.isBiPlanar ? nil : UnsafeMutableRawPointer(band.v))
        } else {
            driver!.convert(planes: planes, strides: strides, firstRow: row, rowCount: count, above: above,
                            lumaAbove: lumaAbove, into: band.targets(origin: row))
        }
        if keepsRowAbove && count > 0 {
            // The chroma row under this band's last picture row: the next band's row above.
            let last = (count - 1) * raw.v[1] / raw.v.max()!
            for c in 1...2 { carry[c].pointer.update(from: planes[c] + last * strides[c], count: strides[c]) }
            carry[0].pointer.update(from: planes[0] + (count - 1) * strides[0], count: strides[0])
            carrying = true
        }
        band.alpha?.update(repeating: 255, count: count * geometry.width)   // a JPEG is opaque
        return row..<(row + count)
    }

    var measuresApart: Bool { quality != nil }

    func measure(slot: Int, row: Int, count: Int, band: BandBuffer) {
        if let quality { measure(quality, slot: slot, row: row, count: count, band: band) }
    }

    func measure(with probe: QualityProbe, ledger: Ledger) throws(WriteError) {
        // A turned picture is measured on its planes as stored: the decoder upsamples before any turn.
        let w = decoder.info.width, h = decoder.info.height
        let rgb = DecoderRGB(width: w, height: h, components: raw.components, h: raw.h, v: raw.v)
        quality = try PlanesQuality(probe: probe, rgb: rgb, ledger: ledger)
    }

    /// The band's rows to the quality stage: from the slot's planes (rows of this band only), or from the
    /// upright planes (every row).
    private func measure(_ q: PlanesQuality, slot: Int, row: Int, count: Int, band: BandBuffer) {
        if turn.isIdentity {
            if Self.slowQualityStage { usleep(1000) }
            // This band's RGB rows, unless the decoding thread made them.
            rebuilds.withLock { queue in
                while let next = queue.first, next.row <= row { rebuild(queue.removeFirst()) }
            }
            q.add(slot: slot, first: row, count: count,
                  luma: rows(slot: slot, row: row, vr: q.rgb.vr, chromaHeight: q.rgb.chromaHeight).luma, band: band)
        } else {
            q.addTurned(first: row, count: count, turn: turn, planes: stored.map { UnsafePointer($0.pointer) },
                        strides: raw.planeWidth, storedHeight: decoder.info.height, band: band)
        }
    }

    func finish() throws {
        quality?.finish()
        try decoder.finish()
    }

    deinit {
        for p in slots.joined() { ledger?.deallocate(UnsafeMutableRawPointer(p.pointer), bytes: p.bytes) }
        for p in upright { ledger?.deallocate(UnsafeMutableRawPointer(p.pointer), bytes: p.bytes) }
        for p in carry { ledger?.deallocate(UnsafeMutableRawPointer(p.pointer), bytes: p.bytes) }
        for p in stored { ledger?.deallocate(UnsafeMutableRawPointer(p.pointer), bytes: p.bytes) }
        if let idctRing { ledger?.deallocate(idctRing.buffer, bytes: idctRing.bytes) }
        if coefficients > 0 { ledger?.record(-coefficients) }
    }
}

extension YCbCrToYUV420 {
    /// One band from the component planes (luma, or luma, Cb, Cr), each pointing at the band's first row.
    func convert(planes p: [UnsafeMutablePointer<UInt8>], strides: [Int], firstRow: Int, rowCount: Int,
                 above: (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)?, lumaAbove: UnsafePointer<UInt8>?,
                 into t: PlaneTargets) {
        convert(y: p[0], yStride: strides[0],
                cb: p.count > 1 ? UnsafePointer(p[1]) : nil, cbStride: p.count > 1 ? strides[1] : 0,
                cr: p.count > 2 ? UnsafePointer(p[2]) : nil, crStride: p.count > 2 ? strides[2] : 0,
                firstRow: firstRow, rowCount: rowCount, above: above, lumaAbove: lumaAbove, into: t)
    }
}
