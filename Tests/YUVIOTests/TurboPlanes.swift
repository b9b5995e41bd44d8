import CTurboJPEG
import Foundation
import TestSupport

/// TurboJPEG planes at their native sampling, with the grid sizes to map pixels to samples.
func turboPlanesFull(_ path: String) throws -> (w: Int, h: Int, samp: Int32, grey: Bool, y: [UInt8], ys: Int, cb: [UInt8], cr: [UInt8],
                                                cs: Int, pw: Int, ph: Int, cw: Int, ch: Int)? {
    let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    guard let tj = tjInitDecompress() else { return nil }
    defer { tjDestroy(tj) }
    var w: Int32 = 0, h: Int32 = 0, samp: Int32 = 0, cs: Int32 = 0
    guard tjDecompressHeader3(tj, data, UInt(data.count), &w, &h, &samp, &cs) == 0, w > 0, h > 0,
          (0...5).contains(samp) else { return nil }
    let comps = samp == TJSAMP_GRAY.rawValue ? 1 : 3
    var planes: [[UInt8]] = [], strides: [Int32] = []
    for c in 0..<comps {
        let pw = tjPlaneWidth(Int32(c), w, samp), ph = tjPlaneHeight(Int32(c), h, samp)
        planes.append([UInt8](repeating: 0, count: Int(pw * ph)))
        strides.append(pw)
    }
    let rc: Int32 = planes.withUnsafeMutableBufferPointer { pl in
        var ptrs: [UnsafeMutablePointer<UInt8>?] = (0..<comps).map { c in pl[c].withUnsafeMutableBufferPointer { $0.baseAddress } }
        return tjDecompressToYUVPlanes(tj, data, UInt(data.count), &ptrs, w, &strides, h, 0)
    }
    guard rc == 0 || tjGetErrorCode(tj) == TJERR_WARNING.rawValue else { return nil }
    // Samples per pixel: the MCU block sizes (luma block over chroma block).
    let blockW: [Int32] = [8, 16, 16, 8, 8, 32, 8], blockH: [Int32] = [8, 8, 16, 8, 16, 8, 8]
    let bw = Int(blockW[Int(samp)]) / 8, bh = Int(blockH[Int(samp)]) / 8
    if comps == 1 { return (Int(w), Int(h), samp, true, planes[0], Int(strides[0]), [], [], 0, 1, 1, 1, 1) }
    return (Int(w), Int(h), samp, false, planes[0], Int(strides[0]), planes[1], planes[2], Int(strides[1]), bw, bh, 1, 1)
}

/// A JPEG of a seeded noisy gradient, `width`×`height`, compressed by TurboJPEG with `sampling` at quality 90
/// (`flags`: TJFLAG_PROGRESSIVE, say), in the temporary folder.
func makeNoisyJPEG(width: Int, height: Int, sampling: TJSAMP, seed: UInt64, flags: Int32 = 0) throws -> String {
    var rng = SplitMix64(seed: seed)
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let i = 3 * (y * width + x)
            rgb[i] = UInt8((x * 255 / max(width - 1, 1) + Int(rng.next() % 40)) % 256)
            rgb[i + 1] = UInt8((y * 255 / max(height - 1, 1) + Int(rng.next() % 40)) % 256)
            rgb[i + 2] = UInt8(rng.next() % 256)
        }
    }
    guard let tj = tjInitCompress() else { throw CocoaError(.featureUnsupported) }
    defer { tjDestroy(tj) }
    var out: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    guard tjCompress2(tj, rgb, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &out, &size,
                      Int32(sampling.rawValue), 90, flags) == 0, let out else { throw CocoaError(.fileWriteUnknown) }
    defer { tjFree(out) }
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("yuvconv-noisy-\(width)x\(height)-\(sampling.rawValue)-\(flags)-\(getpid()).jpg")
    try Data(bytes: out, count: Int(size)).write(to: url)
    return url.path
}
