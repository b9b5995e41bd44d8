#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTurboJPEG
import YUVCore

/// Compresses a yuv420p picture straight from its planes (`tjCompressFromYUVPlanes`): no RGB round trip.
/// A JPEG is JFIF — BT.601, full range — by definition, so the picture must be converted to that first.
/// `primaries`: the space of its RGB; other than sRGB, the JPEG carries the profile (`withProfile`).
public func encodeJPEG(_ image: YUVImage, quality: Int, primaries: Primaries = .bt709) throws(WriteError) -> [UInt8] {
    var file: [UInt8] = []
    try encodeJPEG(image, quality: quality, primaries: primaries) { (part: UnsafeRawBufferPointer) throws(WriteError) in
        // Every growth asked of the system first: a Swift array refused stops the process (SIGABRT under
        // `ulimit -v`, a hostile round), a file fails instead.
        let need = file.count + part.count
        guard Ledger.ifAvailable(need, { file.reserveCapacity(need) }) != nil else {
            throw .outOfMemory(Ledger.outOfMemoryUnderALimit(need, for: "the JPEG file"))
        }
        file += part
    }
    return file
}

/// The same, the file handed to `write` in parts as it is (its bytes up to where a profile goes, the profile's
/// segments, the rest) rather than copied into one array: a 96 MP picture's JPEG was held three times over —
/// TurboJPEG's buffer as it grew by reallocation, the array copied out of it, and the array with the profile —
/// 315 MB at peak against 137 MB of planes. TurboJPEG writes into a buffer of its own bound (`tjBufSize`'s
/// 3 bytes a pixel), reserved, not touched: memory follows the bytes it writes (address space, which `ulimit -v`
/// limits, is taken for the bound). A file above the bound — blocks made to cost the most, at quality 100 —
/// is made again in a buffer TurboJPEG grows, as every file was before.
public func encodeJPEG(_ image: YUVImage, quality: Int, primaries: Primaries = .bt709,
                       write: (UnsafeRawBufferPointer) throws(WriteError) -> Void) throws(WriteError) {
    // The planes TurboJPEG takes: another layout is an error, not a trap, as is a quality out of range
    // (TurboJPEG's own word for it is "Invalid argument"; Int32(quality) trapped past 2^31).
    guard image.layout == .yuv420p else {
        throw .system("JPEG encoding takes yuv420p planes, not \(image.layout.rawValue)")
    }
    guard (1...100).contains(quality) else { throw .system("JPEG quality \(quality) is not one of 1 to 100") }
    // TurboJPEG reads the planes by their geometry alone.
    if let why = image.planesProblem { throw .system(why) }
    let g = image.geometry
    // JPEG's own limit (libjpeg's 65500 a side), as every output format's is decided: Int32(width) trapped
    // beyond 2^31 for a library caller.
    if let why = OutputFormat.jpeg.sizeProblem(width: g.width, height: g.height) { throw .unfit(why) }
    guard let tj = tjInitCompress() else { throw .system("TurboJPEG: cannot start the compressor") }
    defer { tjDestroy(tj) }
    // TurboJPEG reads the luma of a 4:2:0 picture as an even number of columns and rows (whole chroma
    // samples): of an odd width, each row's last sample and then the next row's first; of an odd height, a row
    // past the plane (the U plane's first bytes). The last block then held another row's pixels or chroma, and
    // after quantisation the picture's own last row and column were off by up to 15 at q90 (a flat 15×13 came out
    // 214,45,104 at its corner for 200,30,90). So an odd-sized picture's luma goes in padded to even, its last
    // column and row repeated, as libjpeg pads an edge from RGB (`paddedJPEGLumaBytes` more, counted with the
    // picture held for the encoder).
    let padded = try paddedLuma(image)
    defer { free(padded) }
    var strides: [Int32] = [Int32(padded == nil ? g.width : evenSide(g.width)), Int32(g.chromaWidth), Int32(g.chromaWidth)]
    /// One compression into `buffer` (`size` its capacity) or, with nil, into one TurboJPEG grows.
    func compress(_ buffer: inout UnsafeMutablePointer<UInt8>?, _ size: inout UInt, flags: Int32) -> Int32 {
        image.bytes.withUnsafeBufferPointer { buf in
            let base = buf.baseAddress!
            var planes: [UnsafePointer<UInt8>?] = [padded.map { UnsafePointer($0) } ?? base, base + g.pixels,
                                                   base + g.pixels + g.chromaWidth * g.chromaHeight]
            return tjCompressFromYUVPlanes(tj, &planes, Int32(g.width), &strides, Int32(g.height), Int32(TJSAMP_420.rawValue),
                                           &buffer, &size, Int32(quality), flags)
        }
    }
    func failure() -> WriteError {
        let why = String(cString: tjGetErrorStr2(tj))
        // Memory refused (an address-space limit): the conversion's reason, as for its own buffers.
        if why.contains("Insufficient memory") { return .outOfMemory("the JPEG encoder ran out of memory (TurboJPEG: \(why))") }
        return .system("TurboJPEG: " + why)
    }
    // TurboJPEG's own bound, tjBufSize (3 bytes a padded pixel and 2048 for 4:2:0), is what it checks its
    // writes against with TJFLAG_NOREALLOC, whatever size it is given — and its int product wraps from 2^31
    // padded pixels (a 65500×32800 JPEG): it would then take the buffer for 2^64 bytes and write past it. So the
    // reserved buffer is used only where tjBufSize is that bound exactly, in 64 bits; elsewhere, and for a file
    // above the bound (blocks made to cost the most, at quality 100: it is no true bound), TurboJPEG grows its
    // own buffer, as for every file before.
    let bound = reservedJPEGBound(width: g.width, height: g.height)
    var reserved = bound.flatMap { bound in Ledger.ifAvailable(bound, { malloc(bound) }) ?? nil }
    defer { free(reserved) }
    var out: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    var grown: UnsafeMutablePointer<UInt8>?
    defer { if let grown { tjFree(grown) } }
    if let buffer = reserved, let bound {
        out = buffer.assumingMemoryBound(to: UInt8.self)
        size = UInt(bound)
        if compress(&out, &size, flags: TJFLAG_NOREALLOC) != 0 {
            guard String(cString: tjGetErrorStr2(tj)).contains("too small") else { throw failure() }
            // Its pages, written up to the bound, given back before the file is made again.
            free(reserved)
            reserved = nil
            out = nil
        }
    }
    if out == nil {
        size = 0
        guard compress(&grown, &size, flags: 0) == 0, let made = grown else { throw failure() }
        out = made
    }
    guard let out else { throw failure() }
    let jpeg = UnsafeRawBufferPointer(start: out, count: Int(size))
    guard let icc = primaries.outputProfile?.bytes, let at = profileInsertion(jpeg), !icc.isEmpty,
          let segments = profileSegments(icc) else {
        return try write(jpeg)
    }
    try write(UnsafeRawBufferPointer(rebasing: jpeg[..<at]))
    let failure: WriteError? = segments.withUnsafeBytes { s in
        do throws(WriteError) { try write(s) } catch { return error }
        return nil
    }
    if let failure { throw failure }
    try write(UnsafeRawBufferPointer(rebasing: jpeg[at...]))
}

/// The bytes of the padded luma plane `encodeJPEG` makes for a width×height picture: an odd side's plane rounded
/// up to even both ways (TurboJPEG reads whole chroma samples' worth), 0 when both sides are even.
public func paddedJPEGLumaBytes(width: Int, height: Int) -> Int {
    width & 1 == 0 && height & 1 == 0 ? 0 : evenSide(width) * evenSide(height)
}

/// `n` rounded up to even: a side of the padded luma plane (its width is also its stride).
func evenSide(_ n: Int) -> Int { n + (n & 1) }

/// The luma plane of a yuv420p `image` with an odd side, padded to even sides by repeating its last column and
/// row (malloc'ed: the caller frees it); nil when both sides are even.
func paddedLuma(_ image: YUVImage) throws(WriteError) -> UnsafeMutablePointer<UInt8>? {
    let w = image.width, h = image.height, n = paddedJPEGLumaBytes(width: w, height: h)
    guard n > 0 else { return nil }
    guard let raw = Ledger.ifAvailable(n, { malloc(n) }) ?? nil else {
        throw .outOfMemory(Ledger.outOfMemoryUnderALimit(n, for: "the JPEG encoder's padded luma plane"))
    }
    let out = raw.assumingMemoryBound(to: UInt8.self), pw = evenSide(w)
    image.bytes.withUnsafeBufferPointer { b in
        for y in 0..<h {
            let row = out + y * pw
            row.update(from: b.baseAddress! + y * w, count: w)
            if pw > w { row[w] = row[w - 1] }
        }
        if h & 1 == 1 { (out + h * pw).update(from: out + (h - 1) * pw, count: pw) }
    }
    return out
}

/// The buffer a 4:2:0 JPEG of width×height (at most 65500 a side) is written into with TJFLAG_NOREALLOC:
/// tjBufSize's 3 bytes a padded pixel and 2048, when TurboJPEG's own int arithmetic gives that too; nil from
/// 2^31 padded pixels, where its product wraps and it would check its writes against about 2^64 bytes.
func reservedJPEGBound(width: Int, height: Int) -> Int? {
    let bound = ((width + 15) & ~15) * ((height + 15) & ~15) * 3 + 2048   // below 2^34: both sides at most 65500
    return UInt64(tjBufSize(Int32(width), Int32(height), Int32(TJSAMP_420.rawValue))) == UInt64(bound) ? bound : nil
}

/// Where a profile's segments go in `jpeg`: after its SOI and JFIF APP0, where readers look for them; nil when
/// the file is too short to have an SOI.
func profileInsertion(_ jpeg: UnsafeRawBufferPointer) -> Int? {
    var at = 2
    // An APP0 whose length does not cover its own length field (2) is no segment to step over: after SOI then.
    if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
        let length = Int(jpeg[4]) << 8 | Int(jpeg[5])   // the segment's bytes after its marker, itself included
        if length >= 2 { at = 4 + length }
    }
    return jpeg.count >= 2 && at <= jpeg.count ? at : nil
}

/// `icc` as APP2 `ICC_PROFILE` segments (at most 65,519 bytes of it each, numbered from 1); nil when it would
/// take more than 255.
func profileSegments(_ icc: [UInt8]) -> [UInt8]? {
    let piece = 65_519, count = (icc.count + piece - 1) / piece
    guard count <= 255 else { return nil }
    var segments: [UInt8] = []
    for i in 0..<count {
        let part = icc[(i * piece)..<min(icc.count, (i + 1) * piece)]
        let length = 2 + 12 + 2 + part.count
        segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8)
            + [UInt8(i + 1), UInt8(count)] + part
    }
    return segments
}

/// `jpeg` with `icc` in APP2 `ICC_PROFILE` segments after its SOI and JFIF APP0 (`profileInsertion`,
/// `profileSegments`): what `encodeJPEG` writes, as one array.
func withProfile(_ jpeg: [UInt8], _ icc: [UInt8]) -> [UInt8] {
    guard !icc.isEmpty, let at = jpeg.withUnsafeBytes(profileInsertion), let segments = profileSegments(icc) else { return jpeg }
    var file: [UInt8] = []
    file.reserveCapacity(jpeg.count + segments.count)   // one array the size of the file, no temporary copies
    file += jpeg[..<at]
    file += segments
    file += jpeg[at...]
    return file
}
