import CTurboJPEG
import YUVCore

/// Compresses a yuv420p picture straight from its planes (`tjCompressFromYUVPlanes`): no RGB round trip.
/// A JPEG is JFIF — BT.601, full range — by definition, so the picture must be converted to that first.
public func encodeJPEG(_ image: YUVImage, quality: Int) throws(WriteError) -> [UInt8] {
    precondition(image.layout == .yuv420p)
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
    guard rc == 0, let out else { throw .system("TurboJPEG: " + String(cString: tjGetErrorStr2(tj))) }
    return Array(UnsafeBufferPointer(start: out, count: Int(size)))
}
