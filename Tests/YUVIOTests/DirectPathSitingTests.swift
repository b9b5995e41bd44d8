import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// `--chroma-loc left|topleft` on the JPEG direct path: the pipeline keeps the direct path, its chroma is the
/// plain scalar reference of the siting filter (`SitedChromaReference`) applied to TurboJPEG's own planes — as
/// stored, turned, in 8 and 10 bits, on every CPU tier and with the reference rows — and it stays within the
/// contract's 1.0 dB of the RGB route on every plane.
final class DirectPathSitingTests: XCTestCase {
    let sitings = [ChromaLocation.left, .topleft]

    /// The samples as stored (rocket.jpg's Adobe RGB profile would send it through RGB), as stored or upright.
    static func options(jpegPath: JPEGPath = .direct, orientation: OrientationMode = .ignore) -> DecodeOptions {
        var o = DecodeOptions(jpegPath: jpegPath, orientation: orientation)
        o.colourManagement = false
        return o
    }

    func convert(_ path: String, _ spec: ConversionSpec, _ siting: ChromaLocation, layout: PixelLayout = .yuv420p,
                 kernels: KernelChoice = .fast, options: DecodeOptions = DirectPathSitingTests.options())
        throws -> (report: ConversionReport, image: YUVImage) {
        let sink = MemorySink()
        let report = try YUVIO.convert(path: path, spec: spec, layout: layout, into: sink, kernels: kernels,
                                       options: options, siting: siting)
        return (report, sink.image!)
    }

    /// kodim23 compressed by TurboJPEG at q92 with `sampling`, cropped to `width`×`height` (767×511: odd both
    /// ways, eight bands of 64 rows), into a temporary file.
    func kodimJPEG(_ sampling: TJSAMP, width: Int = 767, height: Int = 511) throws -> String {
        try jpegOf(fixture("photos/kodim23.png"), sampling, width: width, height: height)
    }

    /// The PNG at `png` compressed by TurboJPEG at q92 with `sampling`, cropped to `width`×`height` (nil: whole),
    /// into a temporary file the caller removes.
    func jpegOf(_ png: String, _ sampling: TJSAMP, width: Int? = nil, height: Int? = nil) throws -> String {
        let d = try ImageDecoder(source: try InputSource(path: png, maxPixels: 1 << 30))
        let (w, h) = (d.info.width, d.info.height)
        let (width, height) = (width ?? w, height ?? h)
        var rgb = [UInt8](repeating: 0, count: 3 * w * h)
        try rgb.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress!, rowBytes: 3 * w, count: h) }
        let tj = try XCTUnwrap(tjInitCompress())
        defer { tjDestroy(tj) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        XCTAssertEqual(tjCompress2(tj, rgb, Int32(width), Int32(3 * w), Int32(height), Int32(TJPF_RGB.rawValue), &out, &size,
                                   Int32(sampling.rawValue), 92, 0), 0)
        defer { tjFree(out) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "yuvconv-siting-\(URL(fileURLWithPath: png).deletingPathExtension().lastPathComponent)-\(sampling.rawValue)-\(width)x\(height)-\(getpid()).jpg")
        try Data(bytes: out!, count: Int(size)).write(to: url)
        return url.path
    }

    /// The reference planes of TurboJPEG's planes of `path` (as stored), 8 or 10 bits; `sample` maps upright
    /// sample coordinates to stored ones (`turn`), for turned pictures.
    func reference(_ path: String, _ spec: ConversionSpec, _ siting: ChromaLocation, depth: Int = 8,
                   turn: Int = 1) throws -> (u: [Int], v: [Int]) {
        let t = try XCTUnwrap(try turboPlanesFull(path))
        let storedCW = (t.w + t.pw - 1) / t.pw, storedCH = (t.h + t.ph - 1) / t.ph
        let (w, h, hr, vr) = turn >= 5 ? (t.h, t.w, t.ph, t.pw) : (t.w, t.h, t.pw, t.ph)
        let r = SitedChromaReference(width: w, height: h, hRatio: hr, vRatio: vr, topLeft: siting == .topleft,
                                     kr: spec.matrix.kr, kb: spec.matrix.kb, full: spec.range == .full)
        let luma: (Int, Int) -> UInt8 = { x, y in
            let (sx, sy) = OrientationTests.storedPosition(x, y, width: t.w, height: t.h, turn)
            return t.y[sy * t.ys + sx]
        }
        return r.planes(depth: depth, luma: t.grey ? nil : luma) { plane, x, y in
            let (sx, sy) = OrientationTests.storedPosition(x, y, width: storedCW, height: storedCH, turn)
            return (plane == 0 ? t.cb : t.cr)[sy * t.cs + sx]
        }
    }

    func onEveryTier(_ body: (String) throws -> Void) rethrows {
        defer { _ = CPUTier.use(CPUTier.best) }
        for tier in CPUTier.supported {
            XCTAssertTrue(CPUTier.use(tier))
            try body("\(tier)")
        }
    }

    /// 4:2:0 (odd and even sizes, one band and eight), 4:4:4 (seven bands), 4:2:2, 4:4:0 and greyscale JPEGs:
    /// U and V are the reference's and Y is centre siting's, for every matrix and range, every tier and the
    /// reference rows.
    func testSitedPlanesOnRealFilesMatchTheScalarReference() throws {
        let made = try [TJSAMP_420, TJSAMP_422, TJSAMP_440, TJSAMP_444].map { try kodimJPEG($0) }
        defer { made.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let files = ["jpeg/wuffs/peacock.default.jpeg", "jpeg/wuffs/peacock.s1x1-444.jpeg", "jpeg/wuffs/peacock.grayscale.jpeg",
                     "jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg", "jpeg/wuffs/mona-lisa.21x32.q50.jpeg",
                     "jpeg/zune-image/non_interleaved_422_64x64.jpg", "jpeg/zune-image/non_interleaved_440_64x64.jpg",
                     "photos/rocket.jpg"].map(fixture) + made
        for path in files {
            let t = try XCTUnwrap(try turboPlanesFull(path))
            let specs = made.contains(path) ? [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited),
                                               ConversionSpec(matrix: .bt601, range: .full)] : ConversionSpec.all
            for spec in specs {
                let centre = try convert(path, spec, .center)
                for siting in sitings {
                    let want = t.grey ? nil : try reference(path, spec, siting)
                    func check(_ kernels: KernelChoice, _ what: String) throws {
                        let c = try convert(path, spec, siting, kernels: kernels)
                        XCTAssertEqual(c.report.path, "direct YCbCr", path)
                        XCTAssertEqual(c.report.chromaLocation, siting)
                        assertSamePlane(Array(c.image.yPlane), centre.image.yPlane.map(Int.init), "Y \(path) \(spec) \(siting) \(what)")
                        if let want {
                            assertSamePlane(c.image.uPlane, want.u, "U \(path) \(spec) \(siting) \(what)")
                            assertSamePlane(c.image.vPlane, want.v, "V \(path) \(spec) \(siting) \(what)")
                        } else {
                            XCTAssertTrue((c.image.uPlane + c.image.vPlane).allSatisfy { $0 == 128 }, "\(path) \(siting)")
                        }
                    }
                    try check(.reference, "reference rows")
                    try onEveryTier { try check(.fast, $0) }
                }
            }
        }
    }

    /// 10 bits (`convertDeep`), in bands: the same sums with the 10-bit scaling.
    func testTenBitSitedPlanesMatchTheScalarReference() throws {
        let made = try [TJSAMP_420, TJSAMP_422].map { try kodimJPEG($0) }
        defer { made.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        for path in made + [fixture("photos/rocket.jpg"), fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")] {
            for spec in [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited), ConversionSpec(matrix: .bt601, range: .full)] {
                for siting in sitings {
                    let c = try convert(path, spec, siting, layout: .yuv420p10le)
                    XCTAssertEqual(c.report.path, "direct YCbCr")
                    let want = try reference(path, spec, siting, depth: 10)
                    let (w, h) = (c.image.width, c.image.height), n = w * h, k = ((w + 1) / 2) * ((h + 1) / 2)
                    let bytes = c.image.bytes
                    let words = stride(from: 2 * n, to: bytes.count, by: 2).map { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 }
                    assertSamePlane(Array(words[..<k]), want.u, "U \(path) \(spec) \(siting)")
                    assertSamePlane(Array(words[k...]), want.v, "V \(path) \(spec) \(siting)")
                }
            }
        }
    }

    /// EXIF orientations: the siting is of the upright picture — the reference on the stored planes turned —
    /// in 8 and 10 bits (two bands: top-left's row above comes from the upright planes).
    func testTurnedPicturesAreSitedUpright() throws {
        for n in [2, 3, 5, 6, 8] {
            let path = fixture("jpeg/pillow/hopper_orientation_\(n).jpg")
            for spec in [ConversionSpec(matrix: .bt601, range: .full), ConversionSpec(matrix: .bt2020, range: .limited)] {
                for siting in sitings {
                    let c = try convert(path, spec, siting, options: Self.options(orientation: .auto))
                    XCTAssertEqual(c.report.path, "direct YCbCr")
                    XCTAssertEqual(c.report.orientation.exif, n)
                    let want = try reference(path, spec, siting, turn: n)
                    assertSamePlane(c.image.uPlane, want.u, "U orientation \(n) \(spec) \(siting)")
                    assertSamePlane(c.image.vPlane, want.v, "V orientation \(n) \(spec) \(siting)")
                    let deep = try convert(path, spec, siting, layout: .yuv420p10le, options: Self.options(orientation: .auto))
                    let want10 = try reference(path, spec, siting, depth: 10, turn: n)
                    let (w, h) = (deep.image.width, deep.image.height), k = ((w + 1) / 2) * ((h + 1) / 2)
                    let b = deep.image.bytes
                    let words = stride(from: 2 * w * h, to: b.count, by: 2).map { Int(b[$0]) | Int(b[$0 + 1]) << 8 }
                    assertSamePlane(Array(words[..<k]), want10.u, "U10 orientation \(n) \(spec) \(siting)")
                    assertSamePlane(Array(words[k...]), want10.v, "V10 orientation \(n) \(spec) \(siting)")
                }
            }
        }
    }

    /// The contract's rule for the direct path, per plane: PSNR against the exact conversion of the photo
    /// (same siting) never more than 1.0 dB below the RGB route's, for 4:2:0, 4:2:2 and 4:4:4 JPEGs.
    func testSitedDirectPathIsWithinOneDecibelOfTheRGBRoute() throws {
        let png = fixture("photos/kodim23.png")
        func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
            let mse = zip(a, b).reduce(0.0) { $0 + Double((Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1))) } / Double(a.count)
            return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
        }
        func planes(_ i: YUVImage) -> [[UInt8]] { [Array(i.yPlane), i.uPlane, i.vPlane] }
        for sampling in [TJSAMP_420, TJSAMP_422, TJSAMP_444] {
            let path = try kodimJPEG(sampling, width: 768, height: 512)
            defer { try? FileManager.default.removeItem(atPath: path) }
            for spec in [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited), ConversionSpec(matrix: .bt601, range: .full)] {
                for siting in sitings {
                    let exact = planes(try convert(png, spec, siting).image)
                    let direct = try convert(path, spec, siting)
                    let rgb = try convert(path, spec, siting, options: Self.options(jpegPath: .rgb))
                    XCTAssertEqual(direct.report.path, "direct YCbCr")
                    XCTAssertEqual(rgb.report.path, "RGB")
                    for (i, (d, r)) in zip(planes(direct.image), planes(rgb.image)).enumerated() {
                        let pd = psnr(d, exact[i]), pr = psnr(r, exact[i])
                        XCTAssertGreaterThanOrEqual(pd, pr - 1.0, "plane \(i) \(sampling) \(spec) \(siting): \(pd) vs RGB \(pr)")
                    }
                }
            }
        }
    }

    /// A test chart (FFmpeg's testsrc2: wide saturated bars, a rainbow stripe): a JPEG's quantised chroma there
    /// asks for colours outside 0…255, which the RGB route's decoder clamps and the sited sums did not — the
    /// direct path's Cr came out 1.24 dB behind the RGB route's (BT.2020, top-left; an acceptance check found
    /// it). Each sited sample whose RGB leaves the gamut is brought back (`YCbCrSiting.swift`): within 1.0 dB
    /// again, in 8 and 10 bits.
    func testSaturatedChartStaysWithinOneDecibelOfTheRGBRoute() throws {
        let png = fixturesURL.appendingPathComponent("synthetic/testsrc2-640x480.png").path
        let jpg = try jpegOf(png, TJSAMP_420)
        defer { try? FileManager.default.removeItem(atPath: jpg) }
        let (w, h) = (640, 480)
        func psnr(_ a: [Int], _ b: [Int], _ top: Double) -> Double {
            let mse = zip(a, b).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) } / Double(a.count)
            return mse == 0 ? .infinity : 10 * log10(top * top / mse)
        }
        func planes(_ i: YUVImage) -> [[Int]] {
            let b = i.bytes, deep = i.layout.bitDepth == 10
            let samples = deep ? stride(from: 0, to: b.count, by: 2).map { Int(b[$0]) | Int(b[$0 + 1]) << 8 } : b.map(Int.init)
            let n = w * h, c = (w / 2) * (h / 2)
            return [Array(samples[..<n]), Array(samples[n..<(n + c)]), Array(samples[(n + c)...])]
        }
        for spec in [ConversionSpec(matrix: .bt2020, range: .full), ConversionSpec(matrix: .bt2020, range: .limited), ConversionSpec()] {
            for siting in sitings {
                for layout in [PixelLayout.yuv420p, .yuv420p10le] {
                    let exact = planes(try convert(png, spec, siting, layout: layout).image)
                    let direct = planes(try convert(jpg, spec, siting, layout: layout).image)
                    let viaRGB = planes(try convert(jpg, spec, siting, layout: layout, options: Self.options(jpegPath: .rgb)).image)
                    let top = layout == .yuv420p ? 255.0 : 1023.0
                    for i in 1...2 {
                        let pd = psnr(direct[i], exact[i], top), pr = psnr(viaRGB[i], exact[i], top)
                        XCTAssertGreaterThanOrEqual(pd, pr - 1.0, "plane \(i) \(spec) \(siting) \(layout): \(pd) vs RGB \(pr)")
                    }
                }
            }
        }
    }
}
