import CShims
import YUVCore

/// What an input holds, as stored.
public struct SourceInfo: Sendable, Equatable {
    public enum Container: String, Sendable { case jpeg = "JPEG", png = "PNG" }

    public let container: Container
    public let width: Int
    public let height: Int
    /// The source's own sampling, for people: "4:2:0", "grey 8-bit", "RGBA 16-bit", "palette 4-bit + tRNS".
    public let sampling: String
    /// The row format the decoder hands out.
    public let rowFormat: SourceFormat
    public let progressive: Bool
    public let interlaced: Bool
    /// PNG with an alpha channel or tRNS.
    public var hasAlpha: Bool = false
    /// The EXIF orientation tag (JPEG APP1 Exif, PNG eXIf), else XMP's tiff:Orientation; 1 when there is none.
    public var orientation: Int = 1
    /// Where `orientation` was read, as reports name it.
    public enum OrientationSource: String, Sendable { case exif = "EXIF", xmp = "XMP" }
    public var orientationSource = OrientationSource.exif
    /// Where the orientation that decides holds none — an EXIF tag outside 1…8 or not a number, or (no EXIF tag)
    /// an XMP tiff:Orientation that is no integer 1…8: `orientation` is then 1, and applying orientations
    /// (`--orientation auto`) says so. Nil when it is usable or absent.
    public var orientationUnusable: OrientationSource?
}

/// A row-streaming JPEG or PNG decoder. All C types and error codes stay in here.
public final class ImageDecoder {
    public let source: InputSource
    public let info: SourceInfo
    private let handle: OpaquePointer
    private var rowsRead = 0

    /// Largest picture accepted by default: 16384² = 268,435,456 pixels.
    public static let defaultMaxPixels = 268_435_456

    /// `raw`: ask for the JPEG direct path (decoder planes, no colour conversion); `isRaw` says whether the
    /// file allowed it. `turned`: the caller applies the file's EXIF orientation, so the direct path is taken
    /// only when that turn keeps the chroma grid (an odd width mirrored does not). `fullChroma`: a 4:4:4, 4:2:2 or 4:4:0
    /// JPEG too (else it goes through RGB: `JPEGPath.auto`).
    /// `alpha16`: a 16-bit PNG with alpha keeps it (`rgba16` rows) for the alpha modes.
    /// Most scans a progressive JPEG may have by default (libjpeg-turbo's tools use the same limit).
    public static let defaultMaxScans = 500

    /// The most bytes this conversion may hold its picture whole in (a progressive or multi-scan JPEG's
    /// coefficients, an interlaced PNG's rows, a picture turned by its EXIF orientation); more is refused before
    /// any is allocated (`wholeBudget`).
    public let wholeBudget: Int

    /// The limit on a picture held whole: `maxMemory` when given (`--max-memory`), else 128 bytes for each byte
    /// of the file and never below 256 MiB — a real file is well below (a progressive photo needs 15–30 times its
    /// size, a soft one at low quality about 70), a bomb is far above (a 355-byte progressive JPEG declaring
    /// 16384x16384 needed 1.5 GiB). A stream counts the bytes read when it is opened: 256 MiB. The file's size
    /// is what it is: bytes added to it (after its end, in metadata) raise the limit, so untrusted input wants
    /// an explicit `--max-memory`.
    public static func wholeBudget(maxMemory: Int?, inputBytes: Int) -> Int {
        // 0 is the C side's "no limit": a limit of 0 or less is 1 byte, every picture held whole refused.
        if let maxMemory { return max(maxMemory, 1) }
        let (scaled, overflow) = max(inputBytes, 0).multipliedReportingOverflow(by: 128)
        return max(256 << 20, overflow ? Int.max : scaled)
    }

    /// Whether the decoder counted the caller's `alsoHeld` planes already (a progressive or multi-scan JPEG,
    /// from its header): then `checkWhole` is not asked for them again.
    public var alsoHeldCounted: Bool { yc_held_counted(handle) != 0 }

    /// `.wholeBudget` when `bytes` more held whole for `what`, with what is held already (the decoder's
    /// coefficients, a turned picture), are above this decoder's limit; else they count (`yc_refuse_whole`, which
    /// the decoder's own go through too).
    public func checkWhole(_ bytes: Int, for what: String) throws(DecodeError) {
        guard yc_refuse_whole(handle, UInt64(max(bytes, 0)), what) != 0 else { return }
        throw .wholeBudget(String(cString: yc_error(handle)))
    }

    /// `bytes` counted by `checkWhole` let go: a turned picture's stored copy, once turned (`yc_release_whole`).
    public func releaseWhole(_ bytes: Int) { yc_release_whole(handle, UInt64(max(bytes, 0))) }

    /// The count of pictures held whole for a source without a decoder (raw YUV or Y4M re-encoded to JPEG): the
    /// same rule, limit and sentence as `checkWhole` (`yc_whole_check`).
    public struct WholeCount {
        private var held: UInt64 = 0
        private let limit: UInt64

        public init(maxMemory: Int?, inputBytes: Int) {
            limit = UInt64(ImageDecoder.wholeBudget(maxMemory: maxMemory, inputBytes: inputBytes))
        }

        public mutating func check(_ bytes: Int, for what: String) throws(DecodeError) {
            var message = [CChar](repeating: 0, count: 512)
            guard yc_whole_check(&held, limit, UInt64(max(bytes, 0)), what, &message, message.count) != 0 else { return }
            throw .wholeBudget(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    public init(source: InputSource, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                maxScans: Int = ImageDecoder.defaultMaxScans, maxMemory: Int? = nil,
                allowTruncated: Bool = false, raw: Bool = false, turned: Bool = false, fullChroma: Bool = false,
                planesForRGB: Bool = false, alpha16: Bool = false, colourTarget: Primaries? = nil,
                orientationIgnored: Bool = false, storedKept: Bool = false,
                alsoHeld: (perBlock: Int, perPixel: Int, perOddBlock: Int, what: String)? = nil) throws(DecodeError) {
        self.source = source
        _ = Self.roomCheckInstalled
        wholeBudget = Self.wholeBudget(maxMemory: maxMemory, inputBytes: source.byteCount)
        // A limit below its range refuses every picture, with the reason (maxPixels 0; `wholeBudget` is at least 1
        // byte, 0 being C's "no limit"), not a trap; maxScans 0 or less: no limit, as documented.
        guard let h = yc_open_held(source.file, source.format, UInt64(max(maxPixels, 0)), UInt64(wholeBudget),
                                   Int32(clamping: max(maxScans, 0)),
                                   allowTruncated ? 1 : 0,
                                   (raw ? 1 | (turned ? 2 : 0) | (fullChroma ? 4 : 0) : 0) | (planesForRGB ? 8 | (turned ? 16 : 0) : 0)
                                       | (orientationIgnored ? 32 : 0) | (storedKept ? 64 : 0),
                                   alpha16 ? 1 : 0, colourTarget?.target ?? -1, source.stream,
                                   UInt64(max(alsoHeld?.perBlock ?? 0, 0)), UInt64(max(alsoHeld?.perPixel ?? 0, 0)),
                                   UInt64(max(alsoHeld?.perOddBlock ?? 0, 0)),
                                   alsoHeld?.what ?? "") else {
            throw .decoder("out of memory")
        }
        if yc_failed(h) != 0 {
            let error = Self.failure(h, source)
            yc_close(h)
            throw error
        }
        handle = h
        info = Self.describe(yc_get_info(h)!.pointee, format: source.format)
    }

    deinit { yc_close(handle) }

    /// The decoders ask before they take a picture whole themselves (`yc_set_room_check`): once, for the process.
    private static let roomCheckInstalled: Void = yc_set_room_check({ bytes in Ledger.roomForWhole(Int(clamping: bytes)) ? 1 : 0 },
                                                                     { bytes, owner in Ledger.wholeTaken(Int(clamping: bytes), owner: UInt(owner)) })

    /// The decoder's failure as an error: a stream cut off at its limit says so, whatever the library made
    /// of the missing bytes.
    static func failure(_ h: OpaquePointer, _ source: InputSource) -> DecodeError {
        if source.exceededStreamLimit || yc_file_over_limit(h) != 0 {
            return .streamTooLong("the \(source.stream == nil ? "file" : "stream") is longer than the pixel limit lets one be "
                                  + "(16 MiB plus 8 bytes a pixel of it: room for any image within it, and its metadata unless that is larger)")
        }
        let message = String(cString: yc_error(h)), fromLibrary = yc_error_from_library(h) != 0
        switch yc_get_error_kind(h) {
        case YC_ERROR_INTERRUPTED: return .interrupted
        case YC_ERROR_DAMAGED: return .damaged(LibraryMessages.explain(message, library: "libjpeg", fromLibrary: fromLibrary))
        case YC_ERROR_TOO_MANY_SCANS: return .tooManyScans(message)
        case YC_ERROR_WHOLE_BUDGET: return .wholeBudget(message)
        case YC_ERROR_NO_ROOM: return .decoder(Ledger.outOfMemoryUnderALimit(Int(clamping: yc_no_room_bytes(h)), for: message))
        case YC_ERROR_LEFTOVER: return .leftover(LibraryMessages.explain(message, library: "libjpeg"))
        case YC_ERROR_TOO_LARGE:
            let i = yc_get_info(h)!.pointee
            return .tooLarge(width: Int(i.width), height: Int(i.height), limit: source.maxPixels)
        default:
            return .decoder(LibraryMessages.explain(message, library: source.format == YC_FORMAT_PNG ? "libpng" : "libjpeg",
                                                    fromLibrary: fromLibrary))
        }
    }

    private var failure: DecodeError { Self.failure(handle, source) }

    /// What colour management does for this source (when the decoder was given a target): nothing, a
    /// transform (then `colourTransform` makes it), the decoder's own (a CMYK profile), or nothing because its
    /// profile is broken; and a sentence.
    public var colourPlan: (action: ColourAction, text: String, keptSRGB: Bool) {
        let c = yc_get_colour(handle)!.pointee
        // A profile's description, now read in UTF-8, may hold C1 controls, U+2028 or bidirectional overrides
        // (the C side escapes C0 and DEL): shown as \u{NNNN}, as in names, in messages and in every report; a byte
        // that is not UTF-8 (a Latin-1 PNG profile name) as \xNN, as in names (it showed as U+FFFD).
        let text = PathBytes.escapingControls(withUnsafeBytes(of: c.text) { PathBytes.decode($0.prefix(while: { $0 != 0 })) },
                                              keepLayout: false)
        return (c.action == 1 ? .transform : c.action == 2 ? .decoded : c.action < 0 ? .broken : .none, text, c.kept_srgb != 0)
    }

    /// The transform of this source's colours to `target` for rows of `format` (in place), or nil when there
    /// is none to make. `reference`: LittleCMS's double-precision transform, rounded half up (tests). Throws when
    /// the system refused LittleCMS the memory for it (an address-space limit): out of memory, the file's failure —
    /// never a transform quietly not made, whose colours would then depend on the limit.
    public func colourTransform(to target: Primaries, format: SourceFormat, reference: Bool = false) throws(DecodeError) -> ColourTransform? {
        _ = yc_lcms_take_refusal()
        let made = colourTransformMade(to: target, format: format, reference: reference)
        let refused = yc_lcms_take_refusal()
        // Any refusal, even one LittleCMS got past (the fast tables' read refused, the full transform then made):
        // which transform a file gets must never depend on the limit.
        if refused > 0 {
            throw .decoder(Ledger.outOfMemoryUnderALimit(Int(refused), for: "its ICC profile's colour transform"))
        }
        return made
    }

    private func colourTransformMade(to target: Primaries, format: SourceFormat, reference: Bool) -> ColourTransform? {
        let rows: yc_rows
        switch format {
        case .rgb8: rows = YC_ROWS_RGB8
        case .rgba8: rows = YC_ROWS_RGBA8
        case .rgb16: rows = YC_ROWS_RGB16
        case .rgba16: rows = YC_ROWS_RGBA16
        }
        return yc_colour_transform_create(yc_get_colour(handle), yc_target(UInt32(target.target)), rows,
                                          reference ? 1 : 0).map(ColourTransform.init)
    }

    /// The bytes the JPEG library holds for a multi-scan (progressive) JPEG's coefficients, the whole picture's
    /// (0 for others): a conversion's buffers count them (`Ledger.record`), as they count an interlaced PNG's.
    public var coefficientBytes: Int { Int(yc_coefficients_held(handle)) }

    /// The bytes libpng holds of an interlaced PNG while it is read: its rows as stored after libpng's
    /// transformations (a palette's indices, one byte a pixel), not as the conversion gets them; 0 for others.
    public var interlacedImageBytes: Int { Int(yc_png_image_held(handle)) }

    /// Warnings the decoder tolerated (junk between JPEG segments, a bad ancillary PNG chunk): how many, and their
    /// kinds as sentences (`LibraryMessages.explainWarning`, the one place that words them) with how many of each,
    /// damage converted past (`--allow-truncated`) first (`damaged` of them). Kinds the decoder kept apart that
    /// read the same once explained but for their decimal numbers (`WarningKind.sameKind`, the decoder's rule) are one.
    /// 68 warnings of a damaged JPEG once showed as its Exif note "(+68 more)", the damage among those never said.
    public var warnings: (count: Int, kinds: [WarningKind], damaged: Int) {
        let count = Int(yc_warning_count(handle))
        guard count > 0 else { return (0, [], 0) }
        let library = source.format == YC_FORMAT_PNG ? "libpng" : "libjpeg"
        var damage: [WarningKind] = [], other: [WarningKind] = []
        for i in 0..<yc_kept_warning_count(handle) {
            var harm: Int32 = 0, times: Int32 = 0
            guard let text = yc_kept_warning(handle, i, &harm, &times) else { continue }
            let said = LibraryMessages.explainWarning(String(cString: text), library: library, fileBytes: source.byteCount)
            let kind = WarningKind(text: said, count: Int(times))
            if let k = damage.firstIndex(where: { $0.sameKind(as: kind) }) {
                damage[k].count += kind.count
            } else if let k = other.firstIndex(where: { $0.sameKind(as: kind) }) {
                other[k].count += kind.count
                if harm != 0 { damage.append(other.remove(at: k)) }
            } else if harm != 0 {
                damage.append(kind)
            } else {
                other.append(kind)
            }
        }
        return (count, damage + other, damage.count)
    }

    /// Decodes the next `count` rows into `buffer`, `rowBytes` apart.
    public func readRows(into buffer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(DecodeError) {
        if yc_read_rows(handle, buffer.assumingMemoryBound(to: UInt8.self), rowBytes, UInt32(count)) != 0 {
            throw failure
        }
        rowsRead += count
    }

    /// A 4:2:0 YCbCr JPEG on the RGB route, opened with `planesForRGB`: its rows can come as planes
    /// (`readYCC420`) for `yc_ycc420_rgbx` to make RGB rows of on another thread — the bytes `readRows` gives,
    /// libjpeg's.
    public var isYCC420: Bool { yc_get_info(handle)!.pointee.ycc420 != 0 }

    /// The bytes the decoder holds for that (two iMCU rows of planes; and `readRows`' own, once it has read).
    public var yccHeldBytes: Int { Int(yc_get_info(handle)!.pointee.ycc_held) }

    /// The next `count` rows as planes (`isYCC420`): luma rows in `y`, `yStride` apart, and in `cb` and `cr`,
    /// `cStride` apart, the chroma rows `yc_ycc420_rgbx` reads for them. Every row owns its whole stride (the
    /// decoder may write whole blocks into it): `y` holds `count`·`yStride` bytes, `cb` and `cr`
    /// (`count`/2 + 3)·`cStride`; the strides at least the rows' widths.
    public func readYCC420(y: UnsafeMutableRawBufferPointer, yStride: Int, cb: UnsafeMutableRawBufferPointer,
                           cr: UnsafeMutableRawBufferPointer, cStride: Int, count: Int) throws(DecodeError) {
        let width = info.width, chromaRows = count / 2 + 3
        precondition(count > 0 && yStride >= width && cStride >= (width + 1) / 2 && y.count >= count * yStride
                     && cb.count >= chromaRows * cStride && cr.count >= chromaRows * cStride, "planes too small")
        if yc_jpeg_ycc_rows(handle, y.baseAddress!.assumingMemoryBound(to: UInt8.self), yStride,
                            cb.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            cr.baseAddress!.assumingMemoryBound(to: UInt8.self), cStride, UInt32(count)) != 0 {
            throw failure
        }
        rowsRead += count
    }

    /// True when the decoder hands out YCbCr planes (`readRawBand`) rather than RGB rows.
    public var isRaw: Bool { yc_get_info(handle)!.pointee.raw != 0 }

    /// The direct path's band layout: luma rows per band, and per component the padded width, the rows per
    /// band and the sampling factors.
    public var rawLayout: (bandRows: Int, planeWidth: [Int], planeRows: [Int], components: Int, h: [Int], v: [Int]) {
        let i = yc_get_info(handle)!.pointee
        let n = Int(i.jpeg_components)
        return (Int(i.raw_band_rows),
                Array([Int(i.raw_plane_width.0), Int(i.raw_plane_width.1), Int(i.raw_plane_width.2)].prefix(n)),
                Array([Int(i.raw_plane_rows.0), Int(i.raw_plane_rows.1), Int(i.raw_plane_rows.2)].prefix(n)), n,
                Array([Int(i.jpeg_h_samp.0), Int(i.jpeg_h_samp.1), Int(i.jpeg_h_samp.2)].prefix(n)),
                Array([Int(i.jpeg_v_samp.0), Int(i.jpeg_v_samp.1), Int(i.jpeg_v_samp.2)].prefix(n)))
    }

    /// The bytes of a ring that holds `rows` iMCU rows' inverse DCTs (`readRawBand(…deferringTo:)`), or 0 when
    /// this decoder's cannot be deferred.
    public func idctRingBytes(rows: Int) -> Int { yc_idct_ring_bytes(handle, Int32(rows)) }

    /// A ring for `rows` iMCU rows and the bands of `slots` slots in `buffer` (`idctRingBytes` bytes, 64-byte
    /// aligned), or nil.
    public func makeIDCTRing(in buffer: UnsafeMutableRawPointer, bytes: Int, rows: Int, slots: Int) -> OpaquePointer? {
        yc_idct_ring_init(handle, buffer, bytes, Int32(rows), Int32(slots))
    }

    /// Starts the band of `slot` in `ring` (the band it held before was run: the slot is free).
    public static func beginIDCT(_ ring: OpaquePointer, slot: Int) { yc_idct_ring_begin(ring, Int32(slot)) }

    /// Writes the samples of the blocks `ring` holds for `slot`'s band and gives their room back: on the one thread
    /// that reads the bands next, in the order they were read, while this decoder may be decoding another band.
    public static func runIDCT(_ ring: OpaquePointer, slot: Int) { yc_idct_ring_run(ring, Int32(slot)) }

    /// A piece of `slot`'s band's work, on the decoding thread while it waits for the converting one (whose
    /// `runIDCT` waits for it): false when none is left.
    public static func shareIDCT(_ ring: OpaquePointer, slot: Int) -> Bool { yc_idct_ring_share(ring, Int32(slot)) != 0 }

    /// Over the process so far: blocks whose inverse DCT was deferred, those run from the ring, and pieces of it
    /// the decoding thread did.
    static var idctCounts: (queued: UInt64, run: UInt64, shared: UInt64) {
        var q: UInt64 = 0, r: UInt64 = 0, s: UInt64 = 0
        yc_idct_counts(&q, &r, &s)
        return (q, r, s)
    }

    /// Decodes the next iMCU row of planes; returns the luma rows it holds (may reach below the picture).
    /// With a ring (`makeIDCTRing`), the samples of the blocks it takes, as `slot`'s band, are written only by
    /// `runIDCT` (yc_jpeg_idct.c).
    public func readRawBand(planes: [UnsafeMutablePointer<UInt8>], strides: [Int],
                            deferringTo ring: OpaquePointer? = nil, slot: Int = 0) throws(DecodeError) -> Int {
        var p: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
            (planes[0], planes.count > 1 ? planes[1] : nil, planes.count > 2 ? planes[2] : nil)
        var st: (Int, Int, Int) = (strides[0], strides.count > 1 ? strides[1] : 0, strides.count > 2 ? strides[2] : 0)
        let got = withUnsafePointer(to: &p) { pp in
            withUnsafePointer(to: &st) { sp in
                pp.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { planesPtr in
                    sp.withMemoryRebound(to: Int.self, capacity: 3) { stridesPtr in
                        yc_read_raw_band_deferred(handle, planesPtr, stridesPtr, ring, Int32(slot))
                    }
                }
            }
        }
        if got < 0 { throw failure }
        return Int(got)
    }

    /// Reads the rest of the file (PNG checksums and trailing chunks, the JPEG end marker).
    public func finish() throws(DecodeError) {
        if yc_finish(handle) != 0 { throw failure }
    }

    static func describe(_ i: yc_info, format: yc_format) -> SourceInfo {
        if format == YC_FORMAT_JPEG {
            let h = [i.jpeg_h_samp.0, i.jpeg_h_samp.1, i.jpeg_h_samp.2, i.jpeg_h_samp.3]
            let v = [i.jpeg_v_samp.0, i.jpeg_v_samp.1, i.jpeg_v_samp.2, i.jpeg_v_samp.3]
            var sampling: String
            switch i.jpeg_colorspace {
            case 1: sampling = "grey"
            case 2: sampling = "RGB"
            case 4: sampling = "CMYK"
            case 5: sampling = "YCCK"
            default: sampling = jpegSubsampling(h: h, v: v)
            }
            if i.jpeg_progressive != 0 { sampling += " progressive" }
            var info = SourceInfo(container: .jpeg, width: Int(i.width), height: Int(i.height), sampling: sampling,
                                  rowFormat: .rgba8, progressive: i.jpeg_progressive != 0, interlaced: false)
            info.orientation = Int(i.orientation)
            info.orientationSource = i.orientation_from_xmp != 0 ? .xmp : .exif
            info.orientationUnusable = i.orientation_unusable == 0 ? nil : i.orientation_unusable == 2 ? .xmp : .exif
            return info
        }
        let depth = Int(i.png_bit_depth)
        var kind: String
        switch i.png_color_type {
        case 0: kind = "grey"
        case 2: kind = "RGB"
        case 3: kind = "palette"
        case 4: kind = "grey+alpha"
        case 6: kind = "RGBA"
        default: kind = "type \(i.png_color_type)"
        }
        var sampling = "\(kind) \(depth)-bit"
        if i.png_has_trns != 0 { sampling += " + tRNS" }
        if i.png_interlaced != 0 { sampling += " interlaced" }
        var info = SourceInfo(container: .png, width: Int(i.width), height: Int(i.height), sampling: sampling,
                              rowFormat: i.bytes_per_sample == 2 ? (i.channels == 4 ? .rgba16 : .rgb16)
                                                                 : (i.channels == 4 ? .rgba8 : .rgb8),
                              progressive: false, interlaced: i.png_interlaced != 0)
        info.hasAlpha = i.png_color_type & 4 != 0 || i.png_has_trns != 0
        info.orientation = Int(i.orientation)
        info.orientationSource = i.orientation_from_xmp != 0 ? .xmp : .exif
        info.orientationUnusable = i.orientation_unusable == 0 ? nil : i.orientation_unusable == 2 ? .xmp : .exif
        return info
    }

    /// Names a YCbCr JPEG's subsampling from the luma component's factors relative to the chroma ones.
    static func jpegSubsampling(h: [Int32], v: [Int32]) -> String {
        guard h[1] == h[2], v[1] == v[2], h[1] > 0, v[1] > 0, h[0] % h[1] == 0, v[0] % v[1] == 0 else {
            return "YCbCr \(h[0])x\(v[0]),\(h[1])x\(v[1]),\(h[2])x\(v[2])"
        }
        switch (h[0] / h[1], v[0] / v[1]) {
        case (1, 1): return "4:4:4"
        case (2, 1): return "4:2:2"
        case (2, 2): return "4:2:0"
        case (1, 2): return "4:4:0"
        case (4, 1): return "4:1:1"
        case (4, 2): return "4:1:0"
        default: return "YCbCr \(h[0])x\(v[0]),\(h[1])x\(v[1]),\(h[2])x\(v[2])"
        }
    }
}

/// The EXIF orientation tag of TIFF-structured EXIF data (from its byte-order mark on, as in a PNG eXIf chunk
/// or after a JPEG APP1's "Exif\0\0"): 1…8, or 1 when absent, malformed or out of range.
public func exifOrientation(_ tiff: [UInt8]) -> Int {
    tiff.withUnsafeBufferPointer { Int(yc_exif_orientation($0.baseAddress, $0.count)) }
}

/// XMP's tiff:Orientation in an XMP packet (`yc_xmp_orientation`: the first property in TIFF's namespace, an
/// attribute or element, read as XML markup): 1…8, or 1 when absent or not one digit 1…8.
public func xmpOrientation(_ packet: [UInt8]) -> Int {
    packet.withUnsafeBufferPointer { Int(yc_xmp_orientation($0.baseAddress, $0.count)) }
}

/// Whether EXIF data (a TIFF structure) says Adobe RGB: InteroperabilityIndex "R03" in its Interoperability IFD.
public func exifSaysAdobeRGB(_ tiff: [UInt8]) -> Bool {
    tiff.withUnsafeBufferPointer { yc_exif_adobe_rgb($0.baseAddress, $0.count) != 0 }
}
