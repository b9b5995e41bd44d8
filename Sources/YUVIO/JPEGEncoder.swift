import CTurboJPEG
import YUVCore

/// Compresses a yuv420p picture straight from its planes (`tjCompressFromYUVPlanes`): no RGB round trip.
/// A JPEG is JFIF — BT.601, full range — by definition, so the picture must be converted to that first.
/// `primaries`: the space of its RGB; other than sRGB, the JPEG carries the profile (`withProfile`).
public func encodeJPEG(_ image: YUVImage, quality: Int, primaries: Primaries = .bt709) throws(WriteError) -> [UInt8] {
    // The planes TurboJPEG takes: another layout is an error, not a trap, as is a quality out of range
    // (TurboJPEG's own word for it is "Invalid argument"; Int32(quality) trapped past 2^31).
    guard image.layout == .yuv420p else {
        throw .system("JPEG encoding takes yuv420p planes, not \(image.layout.rawValue)")
    }
    guard (1...100).contains(quality) else { throw .system("JPEG quality \(quality) is not one of 1 to 100") }
    guard let tj = tjInitCompress() else { throw .system("TurboJPEG: cannot start the compressor") }
    defer { tjDestroy(tj) }
    let g = image.geometry
    var out: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    var strides: [Int32] = [Int32(g.width), Int32(g.chromaWidth), Int32(g.chromaWidth)]
    let rc: Int32 = image.bytes.withUnsafeBufferPointer { buf in
        let base = buf.baseAddress!
        var planes: [UnsafePointer<UInt8>?] = [base, base + g.pixels, base + g.pixels + g.chromaWidth * g.chromaHeight]
        return tjCompressFromYUVPlanes(tj, &planes, Int32(g.width), &strides, Int32(g.height), Int32(TJSAMP_420.rawValue),
                                       &out, &size, Int32(quality), 0)
    }
    defer { if let out { tjFree(out) } }
    guard rc == 0, let out else {
        let why = String(cString: tjGetErrorStr2(tj))
        // Memory refused (an address-space limit): the conversion's reason, as for its own buffers.
        if why.contains("Insufficient memory") { throw .outOfMemory("the JPEG encoder ran out of memory (TurboJPEG: \(why))") }
        throw .system("TurboJPEG: " + why)
    }
    // The copies out of TurboJPEG's buffer (and with a profile, the file with its segments) asked for first: a
    // Swift array refused stops the process (SIGABRT under `ulimit -v`, a hostile round), a file fails instead.
    let profile = primaries.outputProfile?.bytes
    let need = Int(size) + (profile.map { Int(size) + $0.count + 4096 } ?? 0)
    guard let made = Ledger.ifAvailable(need, {
        let jpeg = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        return profile.map { withProfile(jpeg, $0) } ?? jpeg
    }) else {
        throw .outOfMemory(Ledger.outOfMemory(need, for: "the JPEG file"))
    }
    return made
}

/// `jpeg` with `icc` in APP2 `ICC_PROFILE` segments (at most 65,519 bytes of it each, numbered from 1) after
/// its SOI and JFIF APP0, where readers look for them.
func withProfile(_ jpeg: [UInt8], _ icc: [UInt8]) -> [UInt8] {
    var at = 2
    // An APP0 whose length does not cover its own length field (2) is no segment to step over: after SOI then.
    if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
        let length = Int(jpeg[4]) << 8 | Int(jpeg[5])   // the segment's bytes after its marker, itself included
        if length >= 2 { at = 4 + length }
    }
    guard jpeg.count >= 2, at <= jpeg.count, !icc.isEmpty else { return jpeg }
    let piece = 65_519, count = (icc.count + piece - 1) / piece
    guard count <= 255 else { return jpeg }
    var segments: [UInt8] = []
    for i in 0..<count {
        let part = icc[(i * piece)..<min(icc.count, (i + 1) * piece)]
        let length = 2 + 12 + 2 + part.count
        segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8)
            + [UInt8(i + 1), UInt8(count)] + part
    }
    var file: [UInt8] = []
    file.reserveCapacity(jpeg.count + segments.count)   // one array the size of the file, no temporary copies
    file += jpeg[..<at]
    file += segments
    file += jpeg[at...]
    return file
}
