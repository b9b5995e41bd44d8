import YUVCore

/// The orientation stage for RGB rows: the decoder's rows, all of them, turned upright. Returns the upright
/// picture (rows of the decoder's pixel size, `turn.size` wide) from `ledger`; the stored picture is held
/// alongside it while it is turned, then given back.
func decodeUpright(_ decoder: ImageDecoder, turn: Orientation, ledger: Ledger) throws(DecodeError)
    -> (pointer: UnsafeMutableRawPointer, bytes: Int) {
    let (w, h) = (decoder.info.width, decoder.info.height), bpp = decoder.info.rowFormat.bytesPerPixel
    let up = turn.size(width: w, height: h)
    let storedBytes = w * bpp * h
    guard Ledger.available(storedBytes + up.width * bpp * up.height) else {
        throw .decoder(Ledger.outOfMemory(storedBytes + up.width * bpp * up.height, for: "turning the picture"))
    }
    let stored = ledger.allocate(storedBytes)
    defer { ledger.deallocate(stored, bytes: storedBytes) }
    try decoder.readRows(into: stored, rowBytes: w * bpp, count: h)
    let bytes = up.width * bpp * up.height
    let upright = ledger.allocate(bytes)
    turn.apply(stored, srcRowBytes: w * bpp, width: w, height: h, bytesPerPixel: bpp, to: upright,
               dstRowBytes: up.width * bpp)
    return (upright, bytes)
}
