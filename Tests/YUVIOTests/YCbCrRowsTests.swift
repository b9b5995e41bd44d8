import CSIMD
import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// A 4:2:0 JPEG on the RGB route is decoded to its planes, and its RGB rows are made by yuvconv's rows
/// (`yc_ycc420_rgbx`, on the colour or conversion stage's thread): they must be libjpeg's own, byte for byte —
/// TurboJPEG's RGB decode (fancy upsampling, its YCbCr tables) is the reference — at every size (odd, narrow,
/// one row), read in any counts of rows, on every CPU tier, and through the pipeline in bands.
final class YCbCrRowsTests: XCTestCase {
    /// Pseudo-random RGB, smooth gradients with noise and hard edges, compressed by TurboJPEG at 4:2:0.
    func jpeg(width: Int, height: Int, quality: Int32 = 85, progressive: Bool = false, seed: UInt64) throws -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var rgb = [UInt8](repeating: 0, count: 3 * width * height)
        for y in 0..<height {
            for x in 0..<width {
                let edge = (x / 5 + y / 3) % 2 == 0 ? 0 : 90
                for c in 0..<3 {
                    let base = (x * (c + 3) + y * (7 - c) + edge) % 256
                    rgb[3 * (y * width + x) + c] = UInt8(clamping: base + Int(rng.next() % 61) - 30)
                }
            }
        }
        let tj = try XCTUnwrap(tjInitCompress())
        defer { tjDestroy(tj) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let flags = progressive ? Int32(TJFLAG_PROGRESSIVE) : 0
        XCTAssertEqual(tjCompress2(tj, rgb, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &out, &size,
                                   Int32(TJSAMP_420.rawValue), quality, flags), 0)
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// TurboJPEG's RGBX rows of a JPEG (libjpeg's default decode: fancy upsampling).
    func turboRGBX(_ jpeg: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let tj = try XCTUnwrap(tjInitDecompress())
        defer { tjDestroy(tj) }
        var rgbx = [UInt8](repeating: 0, count: 4 * width * height)
        XCTAssertEqual(tjDecompress2(tj, jpeg, UInt(jpeg.count), &rgbx, Int32(width), 0, Int32(height),
                                     Int32(TJPF_RGBX.rawValue), 0), 0)
        for i in stride(from: 3, to: rgbx.count, by: 4) { rgbx[i] = 255 }   // yuvconv's filler
        return rgbx
    }

    func temporary(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-ycc-\(name)-\(getpid()).jpg")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// The decoder's RGB rows (read 16, 16, 1, 15, 7, 33, … rows at a time: whole iMCU rows and others) are
    /// TurboJPEG's; asked for planes, from five pixels wide it reads them as planes (`isYCC420`), narrower pictures
    /// through libjpeg's own upsampling (it repeats a chroma row of two samples or fewer instead of interpolating
    /// it); not asked, through libjpeg.
    func testDecoderRowsAreLibjpegs() throws {
        let sizes = [(5, 1), (5, 2), (6, 3), (7, 7), (9, 16), (16, 16), (17, 33), (33, 17), (64, 31), (129, 65),
                     (200, 201), (1001, 77), (3, 9), (4, 4), (2, 40)]
        for (i, (w, h)) in sizes.enumerated() {
            for progressive in [false, true] {
                let bytes = try jpeg(width: w, height: h, quality: i % 2 == 0 ? 90 : 60, progressive: progressive,
                                     seed: UInt64(i))
                let path = try temporary(bytes, "\(w)x\(h)")
                defer { try? FileManager.default.removeItem(atPath: path) }
                let plain = try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), raw: false)
                XCTAssertFalse(plain.isYCC420)
                let d = try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), raw: false,
                                         planesForRGB: true)
                // Not on the baseline tier, where libjpeg's own SSE2 rows cost less (yc_jpeg.c).
                XCTAssertEqual(d.isYCC420, w > 4 && CPUTier.current != .baseline, "\(w)x\(h)")
                var rows = [UInt8](repeating: 0, count: 4 * w * h)
                var done = 0, step = 0
                let counts = [16, 16, 1, 15, 16, 7, 33]
                while done < h {
                    let n = min(counts[step % counts.count], h - done)
                    try rows.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress! + 4 * w * done, rowBytes: 4 * w, count: n) }
                    done += n
                    step += 1
                }
                try d.finish()
                XCTAssertEqual(rows, try turboRGBX(bytes, width: w, height: h), "\(w)x\(h) progressive \(progressive)")
            }
        }
    }

    /// The planes a band of 16, 32, 48 or 64 rows reads (`readYCC420`, whole iMCU rows straight into the band and
    /// the shared ones through the decoder's window), made RGB by `yc_ycc420_rgbx`: TurboJPEG's rows.
    func testPlanesInBandsMakeLibjpegsRows() throws {
        let tier = CPUTier.current
        defer { _ = CPUTier.use(tier) }
        guard CPUTier.best != .baseline, CPUTier.use(.best) else { throw XCTSkip("planes are read from the AVX2 tier up") }
        for (i, (w, h)) in [(37, 150), (200, 97), (1001, 130)].enumerated() {
            for band in [16, 32, 48, 64] {
                let bytes = try jpeg(width: w, height: h, quality: 80, progressive: i == 1, seed: UInt64(100 + i))
                let path = try temporary(bytes, "bands-\(w)x\(h)")
                defer { try? FileManager.default.removeItem(atPath: path) }
                let d = try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), raw: false,
                                         planesForRGB: true)
                XCTAssertTrue(d.isYCC420)
                let yStride = (w + 63) & ~63, cStride = ((w + 1) / 2 + 63) & ~63, chromaRows = band / 2 + 3
                var y = [UInt8](repeating: 0, count: yStride * band)
                var cb = [UInt8](repeating: 0, count: cStride * chromaRows), cr = cb
                var rows = [UInt8](repeating: 0, count: 4 * w * h)
                for first in stride(from: 0, to: h, by: band) {
                    let n = min(band, h - first)
                    try y.withUnsafeMutableBytes { yb in
                        try cb.withUnsafeMutableBytes { bb in
                            try cr.withUnsafeMutableBytes { rb in
                                try d.readYCC420(y: yb, yStride: yStride, cb: bb, cr: rb, cStride: cStride, count: n)
                            }
                        }
                    }
                    rows.withUnsafeMutableBufferPointer { out in
                        yc_ycc420_rgbx(y, yStride, cb, cr, cStride, UInt32(w), UInt32(first), UInt32(n),
                                       out.baseAddress! + 4 * w * first, 4 * w)
                    }
                }
                try d.finish()
                XCTAssertEqual(rows, try turboRGBX(bytes, width: w, height: h), "\(w)x\(h) in bands of \(band)")
            }
        }
    }

    /// libjpeg's upsampling and tables, written out one pixel at a time (the scalar reference of the rows).
    static func reference(y: [UInt8], cb: [UInt8], cr: [UInt8], width: Int, height: Int) -> [UInt8] {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var out = [UInt8](repeating: 255, count: 4 * width * height)
        for r in 0..<height {
            let cy = r / 2, cn = r % 2 == 1 ? min(cy + 1, ch - 1) : max(cy - 1, 0)
            for x in 0..<width {
                let cx = x / 2, cs = x % 2 == 1 ? min(cx + 1, cw - 1) : max(cx - 1, 0)
                func up(_ p: [UInt8]) -> Int {
                    let this = 3 * Int(p[cy * cw + cx]) + Int(p[cn * cw + cx])
                    let other = 3 * Int(p[cy * cw + cs]) + Int(p[cn * cw + cs])
                    return (3 * this + other + (x % 2 == 1 ? 7 : 8)) >> 4
                }
                let l = Int(y[r * width + x]), b = up(cb) - 128, c = up(cr) - 128
                let rgb = [l + ((91881 * c + 32768) >> 16), l + ((-22554 * b - 46802 * c + 32768) >> 16),
                           l + ((116130 * b + 32768) >> 16)]
                for k in 0..<3 { out[4 * (r * width + x) + k] = UInt8(max(0, min(255, rgb[k]))) }
            }
        }
        return out
    }

    /// Random planes (saturated values included, which the clamps cut), every band start and length, every
    /// tier: the rows equal the scalar reference.
    func testRowsOnEveryTierEqualTheReference() throws {
        var rng = SplitMix64(seed: 42)
        for width in [5, 6, 7, 15, 16, 17, 31, 32, 33, 47, 511, 513, 600] {
            let height = 1 + Int(rng.next() % 40)
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            func random(_ n: Int) -> [UInt8] {
                (0..<n).map { _ in rng.next() % 4 == 0 ? (rng.next() % 2 == 0 ? 0 : 255) : UInt8(truncatingIfNeeded: rng.next()) }
            }
            let y = random(width * height), cb = random(cw * ch), cr = random(cw * ch)
            let expected = Self.reference(y: y, cb: cb, cr: cr, width: width, height: height)
            for tier in CPUTier.supported {
                for first in [0, 1, height / 2, height - 1] where first < height {
                    let count = height - first
                    // The band's chroma rows ⌊first/2⌋ − 1 … ⌊last/2⌋ + 1, the picture's edges repeated.
                    let c0 = first / 2 - 1, c1 = (first + count - 1) / 2 + 1
                    var bcb = [UInt8](), bcr = [UInt8]()
                    for c in c0...c1 {
                        let s = max(0, min(ch - 1, c))
                        bcb += cb[(s * cw)..<(s * cw + cw)]
                        bcr += cr[(s * cw)..<(s * cw + cw)]
                    }
                    var out = [UInt8](repeating: 0, count: 4 * width * count)
                    let rc = yc_ycc420_rgbx_on(Int32(tier.rawValue), Array(y[(first * width)...]), width, bcb, bcr, cw,
                                               UInt32(width), UInt32(first), UInt32(count), &out, 4 * width)
                    XCTAssertEqual(rc, 0)
                    XCTAssertEqual(out, Array(expected[(4 * first * width)...]), "\(width)x\(height) from row \(first), \(tier)")
                }
            }
        }
    }

    /// Through the pipeline (bands of whole iMCU rows, the planes made RGB on a worker), in turn on one thread (a
    /// batch's job: libjpeg's RGB) and with sharp chroma (libjpeg's RGB too): the same planes as the same RGB rows
    /// converted from a PNG.
    func testPipelineConvertsLibjpegsRows() throws {
        for (w, h) in [(301, 203), (64, 517), (1001, 77)] {
            let bytes = try jpeg(width: w, height: h, seed: UInt64(w))
            let path = try temporary(bytes, "pipeline-\(w)x\(h)")
            let png = path + ".png"
            defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: png) }
            let rgbx = try turboRGBX(bytes, width: w, height: h)
            var rgb = [UInt8]()
            rgb.reserveCapacity(3 * w * h)
            for i in 0..<(w * h) { rgb += rgbx[(4 * i)..<(4 * i + 3)] }
            try writePNG(png, width: w, height: h, pixels: rgb)
            for (filter, pipelined) in [(ChromaFilter.box, true), (.box, false), (.sharp, true)] {
                var options = DecodeOptions(jpegPath: .rgb, orientation: .ignore)
                options.colourManagement = false
                options.chromaFilter = filter
                options.pipelined = pipelined
                let spec = ConversionSpec(matrix: .bt709, range: .limited)
                func planes(_ input: String) throws -> [UInt8] {
                    let sink = MemorySink()
                    _ = try YUVIO.convert(path: input, spec: spec, layout: .yuv420p, into: sink, options: options)
                    return sink.image!.bytes
                }
                XCTAssertEqual(try planes(path), try planes(png), "\(w)x\(h) \(filter), pipelined \(pipelined)")
            }
        }
    }

    /// A colour-managed 4:2:0 photo: the same bytes whichever thread makes its RGB rows — the colour stage's
    /// worker, or the decoding thread when that stage is behind — as through libjpeg's RGB (a batch's job).
    func testColourManagedRowsAreTheSameOnEitherThread() throws {
        defer { RGBRowsSource.decoderMakesRGB = nil }
        for name in ["coffee-p3.jpg", "kodim23-p3.jpg"] {
            let path = fixturesURL.appendingPathComponent("colour/" + name).path
            func planes(pipelined: Bool, decoderMakes: Bool?) throws -> [UInt8] {
                RGBRowsSource.decoderMakesRGB = decoderMakes
                var options = DecodeOptions(orientation: .ignore)
                options.pipelined = pipelined
                let sink = MemorySink()
                let report = try YUVIO.convert(path: path, spec: ConversionSpec(), layout: .nv12, into: sink, options: options)
                XCTAssertNotNil(report.colour, name)
                return sink.image!.bytes
            }
            let libjpeg = try planes(pipelined: false, decoderMakes: nil)
            XCTAssertEqual(try planes(pipelined: true, decoderMakes: nil), libjpeg, name)
            XCTAssertEqual(try planes(pipelined: true, decoderMakes: true), libjpeg, name)
            XCTAssertEqual(try planes(pipelined: true, decoderMakes: false), libjpeg, name)
        }
    }
}
