import TestSupport
import XCTest
import YUVCore

/// `--chroma-filter sharp` (`SharpYUV420`): deterministic, the same in any band size as in one band, every
/// size from 1×1, and better than the box where it is meant to be — the RGB a player rebuilds with bilinear
/// chroma.
final class SharpChromaTests: XCTestCase {
    /// Red shapes on blue, edges anti-aliased (4×4 samples a pixel): the worst case for 4:2:0.
    static func saturatedEdges(width w: Int, height h: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 3 * w * h)
        for y in 0..<h {
            for x in 0..<w {
                var inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                        let disc = (px - 0.3 * Double(w)) * (px - 0.3 * Double(w)) + (py - 0.5 * Double(h)) * (py - 0.5 * Double(h))
                            < 0.09 * Double(h * h)
                        let bar = px >= 0.6 * Double(w) && px < 0.6 * Double(w) + 3.5 && py > 4 && py < Double(h) - 4
                        let stroke = abs((py - 0.2 * Double(h)) - 0.7 * (px - 0.7 * Double(w))) < 1.2 && px > 0.65 * Double(w)
                        if disc || bar || stroke { inside += 1 }
                    }
                }
                let red = (255 * inside + 8) / 16
                out[3 * (y * w + x)] = UInt8(red)
                out[3 * (y * w + x) + 2] = UInt8(255 - red)
            }
        }
        return out
    }

    /// The RGB round trip a player makes (centre-sited chroma, bilinear, edges repeated; the exact inverse in
    /// `Double`, rounded and clamped) against the source, as PSNR — written here independently of the code.
    static func bilinearPSNR(_ image: YUVImage, _ rgb: [UInt8], _ spec: ConversionSpec) -> Double {
        let (w, h) = (image.width, image.height), cw = (w + 1) / 2, ch = (h + 1) / 2
        let y = Array(image.yPlane), u = image.uPlane, v = image.vPlane
        let s = Double(ColorMatrix.scale), kr = Double(spec.matrix.kr) / s, kb = Double(spec.matrix.kb) / s
        let kg = 1 - kr - kb, full = spec.range == .full
        func up(_ plane: [UInt8], _ x: Int, _ yy: Int) -> Double {
            func axis(_ p: Int, _ n: Int) -> (Int, Int, Double) {
                let pos = Double(p) / 2 - 0.25, i0 = Int((pos).rounded(.down)), f = pos - Double(i0)
                return (min(max(i0, 0), n - 1), min(max(i0 + 1, 0), n - 1), f)
            }
            let (x0, x1, fx) = axis(x, cw), (y0, y1, fy) = axis(yy, ch)
            func at(_ i: Int, _ j: Int) -> Double { Double(plane[j * cw + i]) }
            return (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1))
        }
        var sum = 0.0
        for yy in 0..<h {
            for x in 0..<w {
                let yl = full ? Double(y[yy * w + x]) : (Double(y[yy * w + x]) - 16) * 255 / 219
                let cb = (up(u, x, yy) - 128) * (full ? 1 : 255.0 / 224), cr = (up(v, x, yy) - 128) * (full ? 1 : 255.0 / 224)
                let r = yl + 2 * (1 - kr) * cr, b = yl + 2 * (1 - kb) * cb, g = (yl - kr * r - kb * b) / kg
                for (c, value) in [r, g, b].enumerated() {
                    let q = min(max((value + 0.5).rounded(.down), 0), 255), d = q - Double(rgb[3 * (yy * w + x) + c])
                    sum += d * d
                }
            }
        }
        let mse = sum / Double(3 * w * h)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    func sharp(_ rgb: [UInt8], _ w: Int, _ h: Int, _ spec: ConversionSpec = ConversionSpec(), layout: PixelLayout = .nv12,
               bandRows: Int = 64) -> YUVImage {
        rgb.withUnsafeBytes {
            SharpYUV420.convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: layout, spec: spec,
                                source: .rgb8, bandRows: bandRows)
        }
    }

    func box(_ rgb: [UInt8], _ w: Int, _ h: Int, _ spec: ConversionSpec = ConversionSpec()) -> YUVImage {
        rgb.withUnsafeBytes {
            RGBToYUV420(spec: spec, source: .rgb8).convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h,
                                                           layout: .nv12)
        }
    }

    /// The bytes pinned: CRC-32s of sharp chroma on noise and on saturated edges, every matrix and range, as
    /// the 16-bit arithmetic (SharpYUV420's doc) defines them — the rows may be rewritten, the output changes
    /// only with a deliberate change of the arithmetic and of this list — on
    /// every CPU tier the machine runs (the rows are C, one copy per tier; the process's tier is switched here,
    /// and the suite runs its tests one at a time).
    func testGoldenBytes() {
        var rng = SplitMix64(seed: 2024)
        let (w, h) = (203, 77)
        let noise = randomBytes(3 * w * h, &rng), edges = Self.saturatedEdges(width: w, height: h)
        defer { CPUTier.use(CPUTier.best) }
        for tier in CPUTier.supported {
            XCTAssertTrue(CPUTier.use(tier))
            var got: [String] = []
            for spec in ConversionSpec.all {
                for (name, rgb) in [("noise", noise), ("edges", edges)] {
                    got.append("\(spec) \(name) \(Checksum.crc32Hex(sharp(rgb, w, h, spec, bandRows: 22).bytes))")
                }
            }
            XCTAssertEqual(got, Self.golden, "\(tier) now:\n" + got.joined(separator: "\n"))
        }
    }

    static let golden: [String] = [
        "bt601 full noise 14fbd25a",
        "bt601 full edges 6a5970fd",
        "bt601 limited noise 47a17083",
        "bt601 limited edges 5f96927b",
        "bt709 full noise 49c46f27",
        "bt709 full edges b1eadb63",
        "bt709 limited noise 40bd1814",
        "bt709 limited edges 3c0666c1",
        "bt2020 full noise e86f2e97",
        "bt2020 full edges 3ff30ef0",
        "bt2020 limited noise 1003a758",
        "bt2020 limited edges 691cb5ee",
    ]

    /// Streamed in bands of any even size (the pipeline's are up to 64 rows; a very wide picture's are 2), the
    /// bytes are those of the whole picture solved at once; and the same every time.
    func testBandsEqualOneBand() {
        var rng = SplitMix64(seed: 16)
        for (w, h) in [(37, 29), (33, 17), (20, 64), (9, 101)] {
            let noise = randomBytes(3 * w * h, &rng), edges = Self.saturatedEdges(width: w, height: h)
            for rgb in [noise, edges] {
                let whole = sharp(rgb, w, h, bandRows: h + h % 2)
                XCTAssertEqual(sharp(rgb, w, h, bandRows: h + h % 2).bytes, whole.bytes, "\(w)x\(h) twice")
                for band in [2, 4, 6, 10, 12, 22, 64] {
                    XCTAssertEqual(sharp(rgb, w, h, bandRows: band).bytes, whole.bytes, "\(w)x\(h) in bands of \(band) (\(rng))")
                }
            }
        }
    }

    /// Every 8-bit layout holds the same planes; RGBA rows (any alpha) and 16-bit rows of 8-bit values (v·257)
    /// give the RGB rows' bytes. 203 wide: the rows' whole vectors of 32 pairs and their scalar tails, an odd
    /// last column.
    func testLayoutsAndSixteenBitRows() {
        var rng = SplitMix64(seed: 17)
        let (w, h) = (203, 23)
        let rgb = randomBytes(3 * w * h, &rng), alpha = randomBytes(w * h, &rng)
        var rgba: [UInt8] = []
        for i in 0..<w * h { rgba += [rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], alpha[i]] }
        for spec in ConversionSpec.all {
            let nv12 = sharp(rgb, w, h, spec)
            let fromRGBA = rgba.withUnsafeBytes {
                SharpYUV420.convert(pixels: $0.baseAddress!, rowBytes: 4 * w, width: w, height: h, layout: .nv12, spec: spec,
                                    source: .rgba8, bandRows: 10)
            }
            XCTAssertEqual(fromRGBA.bytes, nv12.bytes, "\(spec) from RGBA rows")
            for layout in PixelLayout.eightBitLayouts {
                let other = sharp(rgb, w, h, spec, layout: layout, bandRows: 8)
                XCTAssertEqual(Array(other.yPlane), Array(nv12.yPlane), "\(spec) \(layout) Y")
                XCTAssertEqual(other.uPlane, nv12.uPlane, "\(spec) \(layout) U")
                XCTAssertEqual(other.vPlane, nv12.vPlane, "\(spec) \(layout) V")
            }
            let wide = rgb.flatMap { v -> [UInt8] in
                let word = UInt16(v) * 257
                return withUnsafeBytes(of: word) { Array($0) }
            }
            let sixteen = wide.withUnsafeBytes {
                SharpYUV420.convert(pixels: $0.baseAddress!, rowBytes: 6 * w, width: w, height: h, layout: .nv12, spec: spec,
                                    source: .rgb16, bandRows: 6)
            }
            XCTAssertEqual(sixteen.bytes, nv12.bytes, "\(spec) from 16-bit rows")
        }
    }

    /// Odd and tiny sizes: every plane the right size, flat colour as the box makes it (within one code value:
    /// there is nothing to sharpen), and a picture no worse than the box in the round trip.
    func testOddSizes() {
        var rng = SplitMix64(seed: 18)
        for (w, h) in [(1, 1), (3, 5), (33, 17), (1, 7), (7, 1), (2, 2), (5, 2)] {
            for spec in ConversionSpec.all {
                let colour = randomBytes(3, &rng)
                let flat = (0..<(w * h)).flatMap { _ in colour }
                let s = sharp(flat, w, h, spec), b = box(flat, w, h, spec)
                XCTAssertEqual(s.bytes.count, w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2))
                for (x, y) in zip(s.bytes, b.bytes) {
                    XCTAssertLessThanOrEqual(abs(Int(x) - Int(y)), 1, "\(w)x\(h) \(spec) flat \(colour) (\(rng))")
                }
                let rgb = randomBytes(3 * w * h, &rng)
                XCTAssertEqual(sharp(rgb, w, h, spec, bandRows: 2).bytes, sharp(rgb, w, h, spec).bytes, "\(w)x\(h) \(spec)")
            }
        }
    }

    /// Flat corners of the RGB cube (the saturated colours whose chroma sits at the edge of its range): never
    /// further from the source than the box through a bilinear player; and flat yellow under BT.2020 full
    /// range comes back exactly, as the passes make it — its box chroma, Cb −127.5, sits where a rounding of the
    /// rebuilt blue decides whether they move it to −128 (exact) or leave it to be written as code 1.
    func testFlatSaturatedColours() {
        let (w, h) = (16, 16)
        for spec in ConversionSpec.all {
            for corner in 0..<8 {
                let colour: [UInt8] = [corner & 1 == 0 ? 0 : 255, corner & 2 == 0 ? 0 : 255, corner & 4 == 0 ? 0 : 255]
                let flat = (0..<(w * h)).flatMap { _ in colour }
                let s = Self.bilinearPSNR(sharp(flat, w, h, spec), flat, spec)
                let b = Self.bilinearPSNR(box(flat, w, h, spec), flat, spec)
                XCTAssertGreaterThanOrEqual(s, b, "\(spec) \(colour): sharp \(s) dB, box \(b) dB")
            }
        }
        let yellow = (0..<(w * h)).flatMap { _ -> [UInt8] in [255, 255, 0] }
        let spec = ConversionSpec(matrix: .bt2020, range: .full)
        XCTAssertEqual(Self.bilinearPSNR(sharp(yellow, w, h, spec), yellow, spec), .infinity)
    }

    /// The quality stage's bilinear round trip (`QualityAccumulator`, fed row by row as a conversion streams)
    /// is the one written out above, on odd and even sizes, box or sharp, every range.
    func testAccumulatorsBilinearRoundTripIsThePlayersOne() {
        var rng = SplitMix64(seed: 19)
        for (w, h) in [(1, 1), (2, 1), (1, 2), (3, 5), (8, 6), (33, 17), (40, 31)] {
            let rgb = randomBytes(3 * w * h, &rng)
            for spec in [ConversionSpec(), ConversionSpec(matrix: .bt601, range: .limited)] {
                for image in [box(rgb, w, h, spec), sharp(rgb, w, h, spec)] {
                    var acc = QualityAccumulator(width: w, height: h, spec: spec)
                    let y = Array(image.yPlane), u = image.uPlane, v = image.vPlane, cw = (w + 1) / 2
                    for r in 0..<h {
                        rgb.withUnsafeBytes { p in
                            acc.add(row: p.baseAddress! + 3 * w * r, format: .rgb8, y: Array(y[(r * w)...]),
                                    u: Array(u[(r / 2 * cw)...]), v: Array(v[(r / 2 * cw)...]))
                        }
                    }
                    let measured = acc.result().psnrRGBBilinear!, want = Self.bilinearPSNR(image, rgb, spec)
                    if want.isInfinite { XCTAssertTrue(measured.isInfinite) } else {
                        XCTAssertEqual(measured, want, accuracy: 1e-9, "\(w)x\(h) \(spec) (\(rng))")
                    }
                }
            }
        }
    }

    /// Where it matters most — saturated red on blue — sharp comes back clearly closer through a bilinear
    /// player, with every matrix and range.
    func testBeatsBoxOnSaturatedEdges() {
        let (w, h) = (97, 61)
        let rgb = Self.saturatedEdges(width: w, height: h)
        for spec in ConversionSpec.all {
            let b = Self.bilinearPSNR(box(rgb, w, h, spec), rgb, spec), s = Self.bilinearPSNR(sharp(rgb, w, h, spec), rgb, spec)
            XCTAssertGreaterThan(s, b + 0.5, "\(spec): sharp \(s) dB, box \(b) dB")
            print("saturated edges \(spec): box \(b) dB, sharp \(s) dB")
        }
    }
}
