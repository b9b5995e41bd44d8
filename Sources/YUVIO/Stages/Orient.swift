import YUVCore

/// The orientation stage for RGB rows: the decoder's rows, all of them, turned upright. Returns the upright
/// picture (rows of the decoder's pixel size, `turn.size` wide) from `ledger`; the stored picture is held
/// alongside it while it is turned, then given back.
func decodeUpright(_ decoder: ImageDecoder, turn: Orientation, ledger: Ledger) throws(DecodeError)
    -> (pointer: UnsafeMutableRawPointer, bytes: Int) {
    let (w, h) = (decoder.info.width, decoder.info.height), bpp = decoder.info.rowFormat.bytesPerPixel
    let up = turn.size(width: w, height: h)
    let storedBytes = w * bpp * h, bytes = up.width * bpp * up.height
    try decoder.checkWhole(storedBytes + bytes, for: "turning the picture")
    // Both allocated before the decode: one refused, that file fails (the process goes on).
    guard let stored = ledger.allocateIfAvailable(storedBytes) else {
        throw .decoder(Ledger.outOfMemoryUnderALimit(storedBytes + bytes, for: "turning the picture"))
    }
    defer {
        ledger.deallocate(stored, bytes: storedBytes)
        decoder.releaseWhole(storedBytes)   // what the output holds is checked after this (`runPipeline`)
    }
    guard let upright = ledger.allocateIfAvailable(bytes) else {
        throw .decoder(Ledger.outOfMemoryUnderALimit(storedBytes + bytes, for: "turning the picture"))
    }
    do throws(DecodeError) { try decoder.readRows(into: stored, rowBytes: w * bpp, count: h) } catch {
        ledger.deallocate(upright, bytes: bytes)
        throw error
    }
    turn.apply(stored, srcRowBytes: w * bpp, width: w, height: h, bytesPerPixel: bpp, to: upright,
               dstRowBytes: up.width * bpp)
    return (upright, bytes)
}
