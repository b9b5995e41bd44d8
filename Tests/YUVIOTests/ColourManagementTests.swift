import CLCMS
import CShims
import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// Colour management: which sources are transformed, how precisely, and that everything else is untouched.
final class ColourManagementTests: XCTestCase {
    let p3 = fixturesURL.appendingPathComponent("colour/kodim23-p3.jpg").path
    let p3PNG = fixture("png-extra/image-png/broken_iccp.png")   // libpng reads its Display P3 iCCP
    let adobe = fixture("photos/rocket.jpg")                      // Adobe RGB (1998) ICC profile
    /// A crafted matrix/TRC profile whose curves (gamma −2.4) give infinite linear values.
    let negativeGamma = fixturesURL.appendingPathComponent("colour/negative-gamma.png").path

    func decoder(_ path: String, target: Primaries? = .bt709) throws -> ImageDecoder {
        try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), raw: false, colourTarget: target)
    }

    /// A temporary 8-bit PNG of `width`×`height` (colour type `colourType`: 0 grey, 2 RGB) holding `pixels`, with
    /// LittleCMS's profile `profile` in its iCCP chunk; the caller removes it.
    func profiledPNG(_ name: String, width: Int, height: Int, colourType: UInt8, pixels: [UInt8],
                     profile: cmsHPROFILE, bitDepth: UInt8 = 8) throws -> String {
        var size: UInt32 = 0
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, nil, &size), 0)
        var icc = [UInt8](repeating: 0, count: Int(size))
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, &icc, &size), 0)
        let rowBytes = pixels.count / height
        var raw: [UInt8] = []
        for y in 0..<height { raw += [0] + pixels[(y * rowBytes)..<((y + 1) * rowBytes)] }
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let file = pngSignature + pngChunk("IHDR", be32(width) + be32(height) + [bitDepth, colourType, 0, 0, 0])
            + pngChunk("iCCP", Array("\(name)\0\0".utf8) + zlibStored(icc)) + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
        let path = NSTemporaryDirectory() + "yuvconv-\(name)-\(getpid()).png"
        try Data(file).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every row of `d` through the stage's transform and through LittleCMS's double-precision one rounded half
    /// up, compared sample by sample (R, G, B): how many, how many equal, the largest difference, and how many
    /// the reference changed.
    func fastAgainstReference(_ d: ImageDecoder, target: Primaries) throws
        -> (samples: Int, equal: Int, worst: Int, changed: Int) {
        let format = d.info.rowFormat, w = d.info.width, rowBytes = w * format.bytesPerPixel
        let fast = try XCTUnwrap(try d.colourTransform(to: target, format: format))
        let reference = try XCTUnwrap(try d.colourTransform(to: target, format: format, reference: true))
        let a = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        let b = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { a.deallocate(); b.deallocate() }
        var samples = 0, equal = 0, worst = 0, changed = 0
        for _ in 0..<d.info.height {
            try d.readRows(into: a, rowBytes: rowBytes, count: 1)
            b.copyMemory(from: a, byteCount: rowBytes)
            let before = Array(UnsafeRawBufferPointer(start: a, count: rowBytes))
            fast.apply(a, rowBytes: rowBytes, width: w, count: 1)
            reference.apply(b, rowBytes: rowBytes, width: w, count: 1)
            for x in 0..<w {
                for c in 0..<3 {
                    let i = x * format.bytesPerPixel + c
                    let p = Int(a.load(fromByteOffset: i, as: UInt8.self)), q = Int(b.load(fromByteOffset: i, as: UInt8.self))
                    samples += 1
                    if p == q { equal += 1 }
                    if q != Int(before[i]) { changed += 1 }
                    worst = max(worst, abs(p - q))
                }
            }
        }
        return (samples, equal, worst, changed)
    }

    /// The stage's transform against LittleCMS's double-precision one rounded half up (the contract's
    /// precision): at least 99.9% of samples equal, none more than 1 off — on a P3 JPEG and PNG, an Adobe RGB
    /// JPEG, and each target.
    func testTransformIsWithinOneOfTheDoublePrecisionReference() throws {
        for (path, target) in [(p3, Primaries.bt709), (p3PNG, .bt709), (adobe, .bt709), (adobe, .p3), (p3, .bt2020)] {
            let d = try decoder(path, target: target)
            XCTAssertEqual(d.colourPlan.action, .transform, path)
            let (samples, equal, worst, changed) = try fastAgainstReference(d, target: target)
            print("colour precision: \(path) → \(target): \(equal) of \(samples) samples equal, worst \(worst)")
            XCTAssertLessThanOrEqual(worst, 1, "\(path) → \(target)")
            XCTAssertGreaterThanOrEqual(Double(equal) / Double(samples), 0.999, "\(path) → \(target): \(equal) of \(samples)")
            if path != p3PNG {   // a picture of neutral greys, which P3 and sRGB share
                XCTAssertGreaterThan(changed, samples / 10, "\(path) → \(target): the transform must change the picture")
            }
        }
    }

    /// A grey image with a grey profile (tools/make-grey-profile-fixtures.py): its samples go through the
    /// profile's tone curve as LittleCMS transforms the grey profile itself (grey in, sRGB out, double
    /// precision, rounded half up) — an independent route: the stage makes an RGB profile of it. Before, every
    /// grey profile was "not an RGB profile" and the samples were used as stored (linear grey 128 stayed 128,
    /// not sRGB's 188).
    func testGreyProfileOnGreyImageIsTransformedAsLittleCMSDoes() throws {
        for (name, gamma) in [("colour/grey-linear.png", 1.0), ("colour/grey-gamma18.jpg", 461.0 / 256)] {
            let path = fixturesURL.appendingPathComponent(name).path
            let d = try decoder(path)
            XCTAssertEqual(d.colourPlan.action, .transform, name)
            XCTAssertTrue(d.colourPlan.text.hasSuffix("→ sRGB"), d.colourPlan.text)
            // LittleCMS on the grey profile: what each grey level becomes.
            let curve = cmsBuildGamma(nil, gamma)
            let grey = cmsCreateGrayProfile(cmsD50_xyY(), curve), srgb = cmsCreate_sRGBProfile()
            defer { cmsFreeToneCurve(curve); cmsCloseProfile(grey); cmsCloseProfile(srgb) }
            let typeGreyDouble = UInt32((1 << 22) | (3 << 16) | (1 << 3)), typeRGBDouble = UInt32((1 << 22) | (4 << 16) | (3 << 3))
            let t = try XCTUnwrap(cmsCreateTransform(grey, typeGreyDouble, srgb, typeRGBDouble, UInt32(INTENT_RELATIVE_COLORIMETRIC),
                                                     UInt32(cmsFLAGS_NOOPTIMIZE)))
            defer { cmsDeleteTransform(t) }
            let expected: [Int] = (0..<256).map { v in
                var x = Double(v) / 255, out = [Double](repeating: 0, count: 3)
                cmsDoTransform(t, &x, &out, 1)
                return Int((out[0] * 255 + 0.5).rounded(.down))
            }
            let format = d.info.rowFormat, w = d.info.width, rowBytes = w * format.bytesPerPixel
            let fast = try XCTUnwrap(try d.colourTransform(to: .bt709, format: format))
            let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { row.deallocate() }
            var samples = 0, equal = 0, worst = 0, changed = 0
            for _ in 0..<d.info.height {
                try d.readRows(into: row, rowBytes: rowBytes, count: 1)
                let before = (0..<w).map { row.load(fromByteOffset: $0 * format.bytesPerPixel, as: UInt8.self) }
                fast.apply(row, rowBytes: rowBytes, width: w, count: 1)
                for x in 0..<w {
                    let want = expected[Int(before[x])]
                    if want != Int(before[x]) { changed += 1 }
                    for c in 0..<3 {
                        let got = Int(row.load(fromByteOffset: x * format.bytesPerPixel + c, as: UInt8.self))
                        samples += 1
                        if got == want { equal += 1 }
                        worst = max(worst, abs(got - want))
                    }
                }
            }
            print("colour precision: \(name) (grey profile) → sRGB: \(equal) of \(samples) samples equal, worst \(worst)")
            XCTAssertLessThanOrEqual(worst, 1, name)
            XCTAssertGreaterThanOrEqual(Double(equal) / Double(samples), 0.999, name)
            XCTAssertGreaterThan(changed, w * d.info.height / 2, "\(name): the profile changes most levels")
        }
    }

    /// A grey profile whose connection space is Lab reads its curve as L*, not as luminance: not the RGB twin
    /// the stage makes (which was up to 79 code values off LittleCMS), so it is named and not applied.
    func testGreyProfileThroughLabIsNamedNotApplied() throws {
        let curve = cmsBuildGamma(nil, 1.0)
        let grey = try XCTUnwrap(cmsCreateGrayProfile(cmsD50_xyY(), curve))
        defer { cmsFreeToneCurve(curve); cmsCloseProfile(grey) }
        cmsSetPCS(grey, cmsSigLabData)
        let path = try profiledPNG("lab-grey", width: 16, height: 16, colourType: 0, pixels: (0..<256).map { UInt8($0) },
                                   profile: grey)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let d = try decoder(path)
        XCTAssertEqual(d.colourPlan.action, .broken, d.colourPlan.text)
        XCTAssertTrue(d.colourPlan.text.contains("connects through Lab, not XYZ"), d.colourPlan.text)
    }

    /// A grey profile on a colour image says what it is, and the samples are used as stored.
    func testGreyProfileOnColourImageIsNamed() throws {
        // kodim23-p3.jpg's picture with the grey fixture's profile in place of its own.
        let p3 = try Data(contentsOf: URL(fileURLWithPath: self.p3))
        let grey = try Data(contentsOf: fixturesURL.appendingPathComponent("colour/grey-gamma18.jpg"))
        func app2(_ d: Data) -> Range<Int>? {
            var i = 2
            while i + 4 <= d.count, d[i] == 0xFF {
                let n = Int(d[i + 2]) << 8 | Int(d[i + 3])
                if d[i + 1] == 0xE2 { return i..<(i + 2 + n) }
                if d[i + 1] == 0xDA { break }
                i += 2 + n
            }
            return nil
        }
        /// `picture` with `profile`'s ICC segment in place of its own: the plan of it.
        func plan(_ picture: Data, withProfileOf profile: Data, _ name: String) throws -> (action: ColourAction, text: String, keptSRGB: Bool) {
            var mixed = picture
            mixed.replaceSubrange(try XCTUnwrap(app2(picture)), with: profile[try XCTUnwrap(app2(profile))])
            let path = NSTemporaryDirectory() + "yuvconv-\(name)-\(getpid()).jpg"
            try mixed.write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try decoder(path).colourPlan
        }
        let greyOnColour = try plan(p3, withProfileOf: grey, "grey-profile")
        XCTAssertEqual(greyOnColour.action, .broken)
        XCTAssertEqual(greyOnColour.text, "the embedded ICC profile is a grey one on a colour image; colours used as stored")
        // The reverse, an RGB profile (Display P3) on a grey JPEG: refused the same way, as libpng refuses it
        // on a grey PNG (it was applied: the grey moved by up to 9 code values).
        let colourOnGrey = try plan(grey, withProfileOf: p3, "rgb-profile-on-grey")
        XCTAssertEqual(colourOnGrey.action, .broken, colourOnGrey.text)
        XCTAssertEqual(colourOnGrey.text, "the embedded ICC profile is an RGB one on a grey image; colours used as stored")
    }

    /// The profile a P3 or BT.2020 PNG or JPEG output carries is the same bytes every time: LittleCMS stamped
    /// each new profile with the current time, so one picture written a second later had another SHA-256. The
    /// header's date is fixed (2000-01-01), its profile ID unset, and LittleCMS still reads it as that space.
    func testOutputProfilesAreTheSameBytesEveryTime() throws {
        for p in [Primaries.p3, .bt2020] {
            let (_, bytes) = try XCTUnwrap(p.outputProfile)
            XCTAssertEqual(Array(bytes[24..<36]), [0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0], "\(p)")
            XCTAssertEqual(Array(bytes[84..<100]), [UInt8](repeating: 0, count: 16), "\(p)")
            let t = yc_target(UInt32(p.target)), size = yc_colour_target_icc(t, nil, 0)
            var again = [UInt8](repeating: 0, count: size)
            XCTAssertEqual(yc_colour_target_icc(t, &again, size), size)
            XCTAssertEqual(again, bytes, "\(p): made again, the same bytes")
            let profile = try XCTUnwrap(bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
            XCTAssertNotEqual(cmsIsMatrixShaper(profile), 0)
            cmsCloseProfile(profile)
        }
    }

    /// A CMYK JPEG's profile (Adobe's inverted CMYK, through the decoder as it hands out rows) against LittleCMS's
    /// double-precision transform of the same samples rounded half up: at least 99.9% of RGB samples equal, none
    /// more than 1 off — the contract's precision. LittleCMS's optimised 8-bit pipeline, used before, was up to 5
    /// off on this kind of photo (a hostile tester's SWOP one) and equal on about 80% of samples.
    func testCMYKProfileIsWithinOneOfTheDoublePrecisionReference() throws {
        let path = fixturesURL.appendingPathComponent("colour/kodim23-cmyk.jpg").path
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The profile: its APP2 ICC_PROFILE segments in sequence order.
        let icc = jpegICCProfile(jpeg).profile
        XCTAssertFalse(icc.isEmpty)
        // The samples as libjpeg gives them (TurboJPEG's CMYK: the stored, inverted values).
        let tj = try XCTUnwrap(tjInitDecompress())
        defer { tjDestroy(tj) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, space: Int32 = 0
        XCTAssertEqual(tjDecompressHeader3(tj, jpeg, UInt(jpeg.count), &w, &h, &sub, &space), 0)
        var cmyk = [UInt8](repeating: 0, count: Int(w * h * 4))
        XCTAssertEqual(tjDecompress2(tj, jpeg, UInt(jpeg.count), &cmyk, w, 0, h, Int32(TJPF_CMYK.rawValue), 0), 0)
        let src = try XCTUnwrap(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        let srgb = try XCTUnwrap(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(src); cmsCloseProfile(srgb) }
        // lcms2.h's TYPE_CMYK_DBL and TYPE_RGB_DBL (function-like macros Swift does not import).
        let cmykDouble = UInt32((1 << 22) | (6 << 16) | (4 << 3)), rgbDouble = UInt32((1 << 22) | (4 << 16) | (3 << 3))
        let reference = try XCTUnwrap(cmsCreateTransform(src, cmykDouble, srgb, rgbDouble, UInt32(INTENT_RELATIVE_COLORIMETRIC),
                                                         UInt32(cmsFLAGS_NOOPTIMIZE)))
        defer { cmsDeleteTransform(reference) }
        // yuvconv's rows for the same file.
        let d = try decoder(path)
        XCTAssertEqual(d.colourPlan.action, .decoded, d.colourPlan.text)
        let format = d.info.rowFormat, rowBytes = Int(w) * format.bytesPerPixel
        var row = [UInt8](repeating: 0, count: rowBytes)
        var samples = 0, equal = 0, worst = 0
        for y in 0..<Int(h) {
            try row.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress!, rowBytes: rowBytes, count: 1) }
            var ink = [Double](repeating: 0, count: Int(w) * 4), rgb = [Double](repeating: 0, count: Int(w) * 3)
            for x in 0..<Int(w) * 4 { ink[x] = Double(255 - Int(cmyk[y * Int(w) * 4 + x])) / 255 * 100 }
            cmsDoTransform(reference, ink, &rgb, UInt32(w))
            for x in 0..<Int(w) {
                for c in 0..<3 {
                    let want = Int((min(max(rgb[3 * x + c], 0), 1) * 255 + 0.5).rounded(.down))
                    let got = Int(row[x * format.bytesPerPixel + c])
                    samples += 1
                    if got == want { equal += 1 }
                    worst = max(worst, abs(got - want))
                }
            }
        }
        print("CMYK precision: \(equal) of \(samples) samples equal, worst \(worst)")
        // The contract asks for 99.9% and 1 at most; the unoptimised transform gives every sample.
        XCTAssertEqual(equal, samples)
    }

    /// A CMYK profile's description is shown as an RGB one's is (`yc_colour_profile_name`): a typed backslash
    /// doubled, a control character as \xNN, other characters as themselves. The CMYK route read it with
    /// LittleCMS's ASCII reader and escaped nothing: a typed "\x1B" looked like ESC's escape (this fixture's
    /// version 2 profile keeps its description as ASCII, so the non-ASCII half is the RGB tests').
    func testCMYKProfileNameIsShownAsAnRGBOnesIs() throws {
        let cmyk = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/kodim23-cmyk.jpg")))
        let (icc, rest, scan) = jpegICCProfile(cmyk)
        let profile = try XCTUnwrap(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        defer { cmsCloseProfile(profile) }
        let mlu = try XCTUnwrap(cmsMLUalloc(nil, 1))
        defer { cmsMLUfree(mlu) }
        let text: [wchar_t] = "lit \\x1B real \u{1B} end".unicodeScalars.map { wchar_t($0.value) } + [0]
        XCTAssertNotEqual(cmsMLUsetWide(mlu, "en", "US", text), 0)
        XCTAssertNotEqual(cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu)), 0)
        var size: UInt32 = 0
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, nil, &size), 0)
        var saved = [UInt8](repeating: 0, count: Int(size))
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, &saved, &size), 0)
        // The new profile in APP2 segments of up to 65,000 bytes, after SOI; the other segments and the scan as they were.
        let chunks = stride(from: 0, to: saved.count, by: 65_000).map { Array(saved[$0..<min($0 + 65_000, saved.count)]) }
        var out: [UInt8] = [0xFF, 0xD8]
        for (k, chunk) in chunks.enumerated() {
            let body = Array("ICC_PROFILE\0".utf8) + [UInt8(k + 1), UInt8(chunks.count)] + chunk
            out += [0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        out += rest
        out += cmyk[scan...]
        let path = NSTemporaryDirectory() + "yuvconv-cmyk-name-\(getpid()).jpg"
        try Data(out).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plan = try decoder(path).colourPlan
        XCTAssertEqual(plan.action, .decoded, plan.text)
        XCTAssertTrue(plan.text.hasPrefix("lit \\\\x1B real \\x1B end (CMYK) → "), plan.text)
    }

    /// An RGB profile on a CMYK JPEG cannot read its samples (LittleCMS refuses such a transform): a warning,
    /// the samples as the decoder converts them without a profile. Before, the RGB profile was applied to
    /// those rows (up to 40 code values off `--color-management off`).
    func testRGBProfileOnCMYKImageIsNotApplied() throws {
        let cmyk = try Data(contentsOf: fixturesURL.appendingPathComponent("colour/kodim23-cmyk.jpg"))
        let p3 = try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc"))
        // Its APP2 ICC_PROFILE segment(s) replaced by one holding Display P3.
        var out = Data(cmyk.prefix(2)), i = 2, inserted = false
        while i + 4 <= cmyk.count, cmyk[i] == 0xFF, cmyk[i + 1] != 0xDA {
            let n = Int(cmyk[i + 2]) << 8 | Int(cmyk[i + 3])
            if cmyk[i + 1] == 0xE2 {
                if !inserted {
                    let body = Data("ICC_PROFILE\0".utf8) + Data([1, 1]) + p3
                    out += Data([0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]) + body
                    inserted = true
                }
            } else {
                out += cmyk[i..<(i + 2 + n)]
            }
            i += 2 + n
        }
        XCTAssertTrue(inserted)
        out += cmyk[i...]
        let path = NSTemporaryDirectory() + "yuvconv-cmyk-rgb-profile-\(getpid()).jpg"
        try out.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let d = try decoder(path)
        XCTAssertEqual(d.colourPlan.action, .broken, d.colourPlan.text)
        XCTAssertEqual(d.colourPlan.text, "the embedded ICC profile is not a CMYK one, on a CMYK image; colours used as stored")
    }

    /// A LUT profile is never taken as the target because a grid of colours changed by less than a code value:
    /// this one is sRGB through a 33³ table with one node moved, between the grid's points (found by a tester:
    /// "same as sRGB, nothing to do", up to 70 code values off LittleCMS there).
    func testLUTProfileIsNeverTakenAsTheTarget() throws {
        let n = 33, bump = (9, 14, 17)
        let srgb = cmsCreate_sRGBProfile(), xyz = cmsCreateXYZProfile()
        defer { cmsCloseProfile(srgb); cmsCloseProfile(xyz) }
        let rgbDouble = UInt32((1 << 22) | (4 << 16) | (3 << 3)), xyzDouble = UInt32((1 << 22) | (9 << 16) | (3 << 3))
        let toXYZ = try XCTUnwrap(cmsCreateTransform(srgb, rgbDouble, xyz, xyzDouble, UInt32(INTENT_RELATIVE_COLORIMETRIC),
                                                     UInt32(cmsFLAGS_NOOPTIMIZE)))
        defer { cmsDeleteTransform(toXYZ) }
        func encode(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        var table: [UInt16] = []
        for i in 0..<n {
            for j in 0..<n {
                for k in 0..<n {
                    var rgb = [encode(Double(i) / 32), encode(Double(j) / 32), encode(Double(k) / 32)], out = [0.0, 0, 0]
                    cmsDoTransform(toXYZ, &rgb, &out, 1)
                    var v = out.map { UInt16(max(0, min(65535, ($0 * 32768).rounded()))) }
                    if (i, j, k) == bump { v = [v[0] / 4, v[1] / 4, UInt16(min(65535, Int(v[2]) * 3))] }
                    table += v
                }
            }
        }
        var parameters = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = try XCTUnwrap(cmsBuildParametricToneCurve(nil, 4, &parameters))
        defer { cmsFreeToneCurve(curve) }
        let profile = try rgbLUTProfile(curve: curve, grid: n, table: table)
        defer { cmsCloseProfile(profile) }
        // 32×16 pixels around the moved node.
        let c = [bump.0, bump.1, bump.2].map { Int((encode(Double($0) / 32) * 255).rounded()) }
        var pixels: [UInt8] = []
        for y in 0..<16 {
            for x in 0..<32 {
                pixels += [c[0] + x % 8 - 4, c[1] + y % 8 - 4, c[2] + x / 8 - 2].map { UInt8(max(0, min(255, $0))) }
            }
        }
        let path = try profiledPNG("lut-near-srgb", width: 32, height: 16, colourType: 2, pixels: pixels, profile: profile)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let d = try decoder(path)
        XCTAssertEqual(d.colourPlan.action, .transform, d.colourPlan.text)
        let (samples, equal, worst, changed) = try fastAgainstReference(d, target: .bt709)
        XCTAssertLessThanOrEqual(worst, 1)
        XCTAssertGreaterThanOrEqual(Double(equal) / Double(samples), 0.999)
        XCTAssertGreaterThan(changed, 0, "the moved node changes some samples")
    }

    /// A profile whose curves are sRGB's at every 8-bit level with spikes between them: for 8-bit samples it is
    /// sRGB (nothing else is ever looked up), but a 16-bit PNG's samples fall between the levels, where the
    /// curves were never looked at — it was kept as sRGB, up to 149 codes from LittleCMS's transform. At
    /// 16 bits every level is checked: a curve that falls is a broken profile (a warning, samples as stored).
    func testSixteenBitSamplesHaveTheirCurvesCheckedAtEveryLevel() throws {
        func decode(_ x: Double) -> Double { x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4) }
        // 255·16 + 1 entries: 8-bit level v is entry 16·v exactly; the spikes lie halfway between.
        let n = 255 * 16 + 1
        var table = (0..<n).map { UInt16((decode(Double($0) / Double(n - 1)) * 65535).rounded()) }
        for i in table.indices where i % 16 == 8 { table[i] = UInt16(min(65535, Int(table[i]) + 19660)) }
        let curve = try XCTUnwrap(cmsBuildTabulatedToneCurve16(nil, UInt32(n), &table))
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = try XCTUnwrap(cmsCreateRGBProfile(&white, &primaries, &curves))
        defer { cmsCloseProfile(profile) }
        var pixels8: [UInt8] = [], pixels16: [UInt8] = []
        for i in 0..<64 {
            pixels8 += [UInt8(i * 4), UInt8(255 - i * 4), 128]
            for v in [i * 1024 + 128, 65535 - i * 1024, 32768] { pixels16 += [UInt8(v >> 8), UInt8(v & 255)] }
        }
        let eight = try profiledPNG("lookalike8", width: 64, height: 1, colourType: 2, pixels: pixels8, profile: profile)
        let sixteen = try profiledPNG("lookalike16", width: 64, height: 1, colourType: 2, pixels: pixels16, profile: profile,
                                      bitDepth: 16)
        defer { for p in [eight, sixteen] { try? FileManager.default.removeItem(atPath: p) } }
        let plan8 = try decoder(eight).colourPlan
        XCTAssertEqual(plan8.action, .none, plan8.text)
        let plan = try decoder(sixteen).colourPlan
        XCTAssertEqual(plan.action, .broken, plan.text)
        XCTAssertTrue(plan.text.contains("has a tone curve that falls"), plan.text)
        // A slow fall (0.8 down to 0.2 over a quarter of the range): broken at 8 bits, and at 16 bits too, where
        // each level's step is far below one 8-bit code (it passed there, and was transformed through).
        var slow = (0..<n).map { i -> UInt16 in
            let x = Double(i) / Double(n - 1)
            let y = x < 0.5 ? x * 1.6 : x < 0.75 ? 0.8 - (x - 0.5) * 2.4 : 0.2 + (x - 0.75) * 3.2
            return UInt16((y * 65535).rounded())
        }
        let falling = try XCTUnwrap(cmsBuildTabulatedToneCurve16(nil, UInt32(n), &slow))
        defer { cmsFreeToneCurve(falling) }
        var fallingCurves: [OpaquePointer?] = [falling, falling, falling]
        let fallingProfile = try XCTUnwrap(cmsCreateRGBProfile(&white, &primaries, &fallingCurves))
        defer { cmsCloseProfile(fallingProfile) }
        for (bits, pixels) in [(UInt8(8), pixels8), (16, pixels16)] {
            let path = try profiledPNG("falling\(bits)", width: 64, height: 1, colourType: 2, pixels: pixels, profile: fallingProfile,
                                       bitDepth: bits)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let p = try decoder(path).colourPlan
            XCTAssertEqual(p.action, .broken, "\(bits)-bit: \(p.text)")
        }
        // A fall by less than one 8-bit code a level, 47% of the range in all: [0, 40000, 20000, 65535]. Each
        // 8-bit level was held only to the one before it, and the profile was applied.
        // Parametric curves that leave 0…1, which LittleCMS clamps (the colours collapse onto a few values): Y = X + 2
        // (ICC's function type 2, LittleCMS's 3: (aX + b)^g + c), sRGB's lifted by ½ (ICC's 4, LittleCMS's 5: up to
        // 1.5), and one starting at −½. They were applied without a word (a hostile round's profiles).
        for (type, parameters): (Int32, [Double]) in [(3, [1.0, 1, 0, 2]), (5, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045, 0.5, 0.5]),
                                   (5, [2.4, 1 / 1.055, 0.055 / 1.055, 1, 0.04045, 0, -0.5])] {
            var ps = parameters
            let leaving = try XCTUnwrap(cmsBuildParametricToneCurve(nil, type, &ps))
            defer { cmsFreeToneCurve(leaving) }
            var leavingCurves: [OpaquePointer?] = [leaving, leaving, leaving]
            let leavingProfile = try XCTUnwrap(cmsCreateRGBProfile(&white, &primaries, &leavingCurves))
            defer { cmsCloseProfile(leavingProfile) }
            let path = try profiledPNG("leaving\(type)", width: 64, height: 1, colourType: 2, pixels: pixels8, profile: leavingProfile)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let p = try decoder(path).colourPlan
            XCTAssertEqual(p.action, .broken, "\(parameters): \(p.text)")
            XCTAssertTrue(p.text.contains("outside 0 to 1"), p.text)
        }
        var four: [UInt16] = [0, 40000, 20000, 65535]
        let gentle = try XCTUnwrap(cmsBuildTabulatedToneCurve16(nil, 4, &four))
        defer { cmsFreeToneCurve(gentle) }
        var gentleCurves: [OpaquePointer?] = [gentle, gentle, gentle]
        let gentleProfile = try XCTUnwrap(cmsCreateRGBProfile(&white, &primaries, &gentleCurves))
        defer { cmsCloseProfile(gentleProfile) }
        let gentlePath = try profiledPNG("gentle8", width: 64, height: 1, colourType: 2, pixels: pixels8, profile: gentleProfile)
        defer { try? FileManager.default.removeItem(atPath: gentlePath) }
        let g = try decoder(gentlePath).colourPlan
        XCTAssertEqual(g.action, .broken, g.text)
    }

    /// A profile that says it is sRGB and is within 1.5 code values of it (never more than one once rounded) is
    /// sRGB, written down imprecisely: not transformed, so the picture's bytes are those of an untagged one. Debian's
    /// sRGB.icc (colorants 3·10⁻⁴ off, a 1,024-entry curve: 1.4 code values at most) was transformed, and a JPEG
    /// carrying it left the direct path. The same numbers under another name, or further off, are transformed.
    func testAnImpreciseProfileNamedSRGBIsSRGB() throws {
        func decode(_ x: Double) -> Double { x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4) }
        var table = (0..<1024).map { Float(decode(Double($0) / 1023)) }
        let curve = try XCTUnwrap(cmsBuildTabulatedToneCurveFloat(nil, 1024, &table))
        defer { cmsFreeToneCurve(curve) }
        var pixels: [UInt8] = []
        for i in 0..<64 { pixels += [UInt8(i * 4), UInt8(255 - i * 4), UInt8((i * 37) & 255)] }
        // Named as the space — its description begins with it — not merely containing the letters.
        for (redX, description, same) in [(0.6406, "sRGB IEC61966-2.1", true), (0.6406, "sRGB2014", true),
                                          (0.6406, "Camera RGB", false), (0.6406, "e-sRGB", false),
                                          (0.6406, "NotAnsRGB", false), (0.6406, "Adobe RGB (1998) - not sRGB", false),
                                          (0.6412, "sRGB", false), (0.66, "sRGB IEC61966-2.1", false),
                                          (0.66, "Camera RGB  \t  ", false)] {
            var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
            var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: redX, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                            Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
            var curves: [OpaquePointer?] = [curve, curve, curve]
            let profile = try XCTUnwrap(cmsCreateRGBProfile(&white, &primaries, &curves))
            defer { cmsCloseProfile(profile) }
            let mlu = try XCTUnwrap(cmsMLUalloc(nil, 1))
            defer { cmsMLUfree(mlu) }
            XCTAssertNotEqual(cmsMLUsetASCII(mlu, "en", "US", description), 0)
            XCTAssertNotEqual(cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu)), 0)
            let path = try profiledPNG("named\(same)\(redX)", width: 64, height: 1, colourType: 2, pixels: pixels, profile: profile)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let plan = try decoder(path).colourPlan
            XCTAssertEqual(plan.action, same ? .none : .transform, "\(description), red x \(redX): \(plan.text)")
            if same { XCTAssertTrue(plan.text.contains("same as sRGB"), plan.text) }
            // Named as the target and transformed: said so, not "sRGB → sRGB", which read as nothing done.
            if !same && description.hasPrefix("sRGB") {
                XCTAssertEqual(plan.text, "\(description) (the embedded profile's name; its colours are not sRGB's) → sRGB")
            }
            // A description padded with blanks (Artifex's "A98 ICC Profile  ") is shown without them.
            if description.hasPrefix("Camera RGB ") { XCTAssertEqual(plan.text, "Camera RGB → sRGB") }
        }
    }

    /// A profile with the target's own primaries and another curve (BT.2020 or P3 primaries, gamma 1.7 or
    /// 2.4): in the file its colorants keep 16-bit fractions, so its matrix into the target is the identity
    /// within about 10⁻⁵, which LittleCMS drops, mapping each channel through its curves alone. The 8-bit rows
    /// must too: with the near-identity product they rounded 2 of the 256 grey levels down where the reference
    /// rounds up (128.50046 came out 128): 0.6% of this picture's samples (of a photo's: 0.6%), below the 99.9%.
    func testAProfileOfTheTargetsPrimariesIsMappedThroughItsCurvesAsLittleCMSDoes() throws {
        let bt2020 = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.708, y: 0.292, Y: 1), Green: cmsCIExyY(x: 0.170, y: 0.797, Y: 1),
                                     Blue: cmsCIExyY(x: 0.131, y: 0.046, Y: 1))
        let p3 = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1), Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
                                 Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        // Every grey level, then colours.
        var pixels: [UInt8] = []
        for v in 0..<256 { pixels += [UInt8(v), UInt8(v), UInt8(v)] }
        var random = SplitMix64(seed: 2020)
        for _ in 0..<256 { pixels += (0..<3).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        for (primaries, target) in [(bt2020, Primaries.bt2020), (p3, .p3)] {
            for gamma in [1.7, 2.4] {
                var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1), prims = primaries
                let curve = try XCTUnwrap(cmsBuildGamma(nil, gamma))
                defer { cmsFreeToneCurve(curve) }
                var curves: [OpaquePointer?] = [curve, curve, curve]
                let profile = try XCTUnwrap(cmsCreateRGBProfile(&white, &prims, &curves))
                defer { cmsCloseProfile(profile) }
                let path = try profiledPNG("own-primaries-\(target)-\(gamma)", width: 256, height: 2, colourType: 2,
                                           pixels: pixels, profile: profile)
                defer { try? FileManager.default.removeItem(atPath: path) }
                let d = try decoder(path, target: target)
                XCTAssertEqual(d.colourPlan.action, .transform, d.colourPlan.text)
                let (samples, equal, worst, _) = try fastAgainstReference(d, target: target)
                XCTAssertLessThanOrEqual(worst, 1, "\(target), gamma \(gamma)")
                XCTAssertGreaterThanOrEqual(Double(equal) / Double(samples), 0.999,
                                            "\(target), gamma \(gamma): \(samples - equal) of \(samples) samples off")
            }
        }
    }

    /// A profile with matrix/TRC tags and an A2B0 LUT that means something else (tools/make-lut-profile-fixture.py):
    /// LittleCMS uses the LUT, so the 8-bit rows must too — the fast path knows only matrix/TRC and must leave
    /// such a profile to LittleCMS. Before, it took the matrix: up to 76 code values off the reference.
    func testProfileWithALUTIsNotTakenAsItsMatrix() throws {
        let path = fixturesURL.appendingPathComponent("colour/lut-a2b0.png").path
        let d = try decoder(path)
        XCTAssertEqual(d.colourPlan.action, .transform)
        let rowBytes = d.info.width * d.info.rowFormat.bytesPerPixel
        let (_, _, worst, changed) = try fastAgainstReference(d, target: .bt709)
        XCTAssertLessThanOrEqual(worst, 1, "the 8-bit rows against LittleCMS's double-precision transform")
        XCTAssertGreaterThan(changed, rowBytes * d.info.height / 4, "the LUT changes the picture")
    }

    /// A LUT profile holding sRGB itself (sRGB's curve, then a table of its D50 matrix, which a grid interpolates
    /// exactly), described "sRGB LUT": transformed through its table (a LUT is never taken as the target), and
    /// said as any transform is — not "its colours are not sRGB's", which the colours do not bear out. The same
    /// table under matrix/TRC tags whose curves fall: LittleCMS takes the table and never reads those curves, so
    /// they are no reason to refuse the profile (both were, before: the wording from the name alone, and the
    /// curves judged though unused).
    func testALUTProfileIsJudgedByItsTable() throws {
        var params: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let srgbCurve = try XCTUnwrap(cmsBuildParametricToneCurve(nil, 4, &params))
        defer { cmsFreeToneCurve(srgbCurve) }
        // sRGB's colorants adapted to D50 (columns R, G, B of X, Y, Z), in units of 1/32768.
        let m: [[Double]] = [[0.4360747, 0.3850649, 0.1430804], [0.2225045, 0.7168786, 0.0606169],
                             [0.0139322, 0.0971045, 0.7141733]]
        var table: [UInt16] = []
        for r in 0...1 { for g in 0...1 { for b in 0...1 {
            for row in m { table.append(UInt16((32768 * (row[0] * Double(r) + row[1] * Double(g) + row[2] * Double(b))).rounded())) }
        } } }
        var pixels: [UInt8] = []
        for i in 0..<64 { pixels += [UInt8(i * 4), UInt8(255 - i * 4), UInt8((i * 37) & 255)] }
        var falling: [UInt16] = [65535, 0]
        let fallingCurve = try XCTUnwrap(cmsBuildTabulatedToneCurve16(nil, 2, &falling))
        defer { cmsFreeToneCurve(fallingCurve) }
        // Its table as A2B2 alone, which LittleCMS never reads for this transform: the falling curves are then
        // what it uses, and judged (a reviewer's profile passed unjudged and inverted the picture).
        for (description, fallingTRC, onlyA2B2) in [("sRGB LUT", false, false), ("LUT with falling curves", true, false),
                                                    ("A2B2 with falling curves", true, true)] {
            let profile = try rgbLUTProfile(curve: srgbCurve, grid: 2, table: table)
            if onlyA2B2 {
                let lut = try XCTUnwrap(cmsReadTag(profile, cmsSigAToB0Tag))
                XCTAssertNotEqual(cmsWriteTag(profile, cmsSigAToB2Tag, lut), 0)
                XCTAssertNotEqual(cmsWriteTag(profile, cmsSigAToB0Tag, nil), 0)
                XCTAssertEqual(cmsIsTag(profile, cmsSigAToB0Tag), 0)
            }
            defer { cmsCloseProfile(profile) }
            let mlu = try XCTUnwrap(cmsMLUalloc(nil, 1))
            defer { cmsMLUfree(mlu) }
            XCTAssertNotEqual(cmsMLUsetASCII(mlu, "en", "US", description), 0)
            XCTAssertNotEqual(cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu)), 0)
            if fallingTRC {
                for (c, tag) in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag].enumerated() {
                    var xyz = cmsCIEXYZ(X: m[0][c], Y: m[1][c], Z: m[2][c])
                    XCTAssertNotEqual(cmsWriteTag(profile, tag, &xyz), 0)
                }
                for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
                    XCTAssertNotEqual(cmsWriteTag(profile, tag, UnsafeRawPointer(fallingCurve)), 0)
                }
                XCTAssertNotEqual(cmsIsMatrixShaper(profile), 0, "matrix/TRC tags beside the table")
            }
            let path = try profiledPNG("lut\(fallingTRC)\(onlyA2B2)", width: 64, height: 1, colourType: 2, pixels: pixels, profile: profile)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let plan = try decoder(path).colourPlan
            if onlyA2B2 {
                XCTAssertEqual(plan.action, .broken, "\(description): \(plan.text)")
                XCTAssertTrue(plan.text.contains("has a tone curve that falls"), plan.text)
                continue
            }
            XCTAssertEqual(plan.action, .transform, "\(description): \(plan.text)")
            XCTAssertEqual(plan.text, "\(description) → sRGB")
        }
    }

    /// The same for 16-bit rows, in 16-bit units, on a 16-bit Display P3 PNG to sRGB and BT.2020. LittleCMS's
    /// optimised 16-bit transform misses this by up to 15 8-bit code values on dark colours (its matrix-shaper
    /// shortcut works in 1.14 fixed point); the stage's must not.
    func testSixteenBitTransformIsWithinOneOfTheDoublePrecisionReference() throws {
        let path = fixturesURL.appendingPathComponent("colour/kodim23-p3-16.png").path
        for target in [Primaries.bt709, .bt2020] {
            let d = try decoder(path, target: target)
            XCTAssertEqual(d.colourPlan.action, .transform, path)
            let format = d.info.rowFormat, w = d.info.width, rowBytes = w * format.bytesPerPixel
            XCTAssertEqual(format.bytesPerPixel, 6, "16-bit RGB rows")
            let fast = try XCTUnwrap(try d.colourTransform(to: target, format: format))
            let reference = try XCTUnwrap(try d.colourTransform(to: target, format: format, reference: true))
            let a = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            let b = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { a.deallocate(); b.deallocate() }
            var samples = 0, equal = 0, worst = 0
            for _ in 0..<d.info.height {
                try d.readRows(into: a, rowBytes: rowBytes, count: 1)
                b.copyMemory(from: a, byteCount: rowBytes)
                fast.apply(a, rowBytes: rowBytes, width: w, count: 1)
                reference.apply(b, rowBytes: rowBytes, width: w, count: 1)
                for i in 0..<(3 * w) {
                    let p = Int(a.load(fromByteOffset: 2 * i, as: UInt16.self)), q = Int(b.load(fromByteOffset: 2 * i, as: UInt16.self))
                    samples += 1
                    if p == q { equal += 1 }
                    worst = max(worst, abs(p - q))
                }
            }
            print("colour precision: \(path) → \(target) (16-bit): \(equal) of \(samples) samples equal, worst \(worst)")
            XCTAssertLessThanOrEqual(worst, 1, "\(path) → \(target)")
            XCTAssertGreaterThanOrEqual(Double(equal) / Double(samples), 0.999, "\(path) → \(target): \(equal) of \(samples)")
        }
    }

    /// Untagged and sRGB-tagged sources, and `--color-management off`, give the bytes of the conversion as
    /// stored; a P3 JPEG leaves the direct path and says what was done.
    func testWhatIsAndIsNotTransformed() throws {
        func convert(_ path: String, _ managed: Bool, layout: PixelLayout = .nv12) throws -> Conversion {
            var o = DecodeOptions()
            o.colourManagement = managed
            return try convertFile(path: path, spec: ConversionSpec(), layout: layout, options: o)
        }
        // Untagged, and sRGB profiles (IEC 61966-2.1 in a JPEG; a "known incorrect" sRGB iCCP in a PNG).
        for path in [fixture("photos/kodim23.png"), fixture("jpeg/pillow/flower2.jpg"), fixture("png-extra/pillow/icc_profile.png")]
            where FileManager.default.fileExists(atPath: path) {
            let on = try convert(path, true), off = try convert(path, false)
            XCTAssertEqual(on.image.bytes, off.image.bytes, path)
            XCTAssertNil(on.report.colour, path)
        }
        let managed = try convert(p3, true), asStored = try convert(p3, false)
        XCTAssertEqual(managed.report.colour, "Display P3 → sRGB")
        XCTAssertEqual(managed.report.path, "RGB")
        XCTAssertEqual(asStored.report.path, "direct YCbCr")
        XCTAssertNotEqual(managed.image.bytes, asStored.image.bytes)
        // Managed colours are more saturated than the P3 numbers read as sRGB: mean |Cr − 128| grows.
        func chroma(_ c: Conversion) -> Double {
            let v = c.image.vPlane
            return Double(v.reduce(0) { $0 + abs(Int($1) - 128) }) / Double(v.count)
        }
        XCTAssertGreaterThan(chroma(managed), chroma(asStored) * 1.05)
        // Adobe RGB from the EXIF hint alone would need a file without a profile; the profile wins here.
        XCTAssertEqual(try convert(adobe, true).report.colour, "Adobe RGB (1998) → sRGB")
    }

    /// To a target other than sRGB too (`--primaries p3`, BT.2020's default), sRGB sources — a PNG `sRGB`
    /// chunk, an sRGB ICC profile in a PNG and in a JPEG — are untouched, as an untagged one is: one picture,
    /// one output, the bytes of `--color-management off` (they were transformed, "sRGB → Display P3", while
    /// the same pixels untagged were not).
    func testSRGBSourcesAreUntouchedForEveryTarget() throws {
        let pixels = (0..<(24 * 16 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ ($0 / 7) &* 11) }
        let profiled = try profiledPNG("srgb-to-every-target", width: 24, height: 16, colourType: 2, pixels: pixels,
                                       profile: cmsCreate_sRGBProfile())
        defer { try? FileManager.default.removeItem(atPath: profiled) }
        // The same pixels with a PNG sRGB chunk instead of the profile, and with nothing.
        var raw: [UInt8] = []
        for y in 0..<16 { raw += [0] + pixels[(y * 72)..<((y + 1) * 72)] }
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let header = pngSignature + pngChunk("IHDR", be32(24) + be32(16) + [8, 2, 0, 0, 0])
        let body = pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
        let chunk = NSTemporaryDirectory() + "yuvconv-srgb-chunk-\(getpid()).png"
        let untagged = NSTemporaryDirectory() + "yuvconv-untagged-\(getpid()).png"
        try Data(header + pngChunk("sRGB", [0]) + body).write(to: URL(fileURLWithPath: chunk))
        try Data(header + body).write(to: URL(fileURLWithPath: untagged))
        defer { for p in [chunk, untagged] { try? FileManager.default.removeItem(atPath: p) } }
        var sources = [profiled, chunk, untagged]
        let jpeg = fixture("jpeg/pillow/flower2.jpg")   // IEC 61966-2.1
        if FileManager.default.fileExists(atPath: jpeg) { sources.append(jpeg) }
        for (spec, primaries) in [(ConversionSpec(), Primaries.p3), (ConversionSpec(matrix: .bt2020, range: .limited), nil)] {
            for path in sources {
                var managed = DecodeOptions(), off = DecodeOptions()
                (managed.primaries, off.primaries, off.colourManagement) = (primaries, primaries, false)
                let on = try convertFile(path: path, spec: spec, layout: .nv12, options: managed)
                let asStored = try convertFile(path: path, spec: spec, layout: .nv12, options: off)
                XCTAssertTrue(on.image.bytes == asStored.image.bytes, "\(path) to \(primaries ?? .bt2020)")
                XCTAssertEqual(on.report.path, asStored.report.path, path)
            }
        }
    }

    /// A JPEG output's profile: after SOI and JFIF's APP0, in numbered APP2 pieces of at most 65,519 bytes; an
    /// APP0 whose length does not cover its own field is not stepped over (the segments went inside it).
    func testOutputProfileSegments() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + [UInt8](repeating: 0x4A, count: 14) + [0xFF, 0xD9]
        let icc = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        let out = withProfile(jpeg, icc)
        XCTAssertEqual(out.count, jpeg.count + 2 * (4 + 14) + icc.count)
        XCTAssertEqual(Array(out[0..<20]), Array(jpeg[0..<20]))
        XCTAssertEqual(Array(out[20..<24]), [0xFF, 0xE2, 0xFF, 0xFF])   // 2 + 14 + 65,519
        XCTAssertEqual(Array(out[24..<38]), Array("ICC_PROFILE\0".utf8) + [1, 2])
        let second = 24 + 14 + 65_519
        XCTAssertEqual(Array(out[second..<(second + 4)]), [0xFF, 0xE2, UInt8((16 + 4_481) >> 8), UInt8((16 + 4_481) & 0xFF)])
        XCTAssertEqual(Array(out[(second + 4)..<(second + 18)]), Array("ICC_PROFILE\0".utf8) + [2, 2])
        XCTAssertEqual(Array(out[38..<(38 + 65_519)]) + Array(out[(second + 18)..<(second + 18 + 4_481)]), icc)
        XCTAssertEqual(Array(out.suffix(2)), [0xFF, 0xD9])
        var bad = jpeg
        (bad[4], bad[5]) = (0, 1)
        XCTAssertEqual(Array(withProfile(bad, [1, 2, 3])[2..<4]), [0xFF, 0xE2])
    }

    /// The converted picture against an independent route: the reference transform's rows, converted exactly.
    func testManagedConversionIsTheExactConversionOfTheTransformedRows() throws {
        let d = try decoder(p3PNG)
        let format = d.info.rowFormat, w = d.info.width, h = d.info.height, rowBytes = w * format.bytesPerPixel
        let t = try XCTUnwrap(try d.colourTransform(to: .bt709, format: format))
        var rows = [UInt8](repeating: 0, count: rowBytes * h)
        try rows.withUnsafeMutableBytes { buf in
            try d.readRows(into: buf.baseAddress!, rowBytes: rowBytes, count: h)
            t.apply(buf.baseAddress!, rowBytes: rowBytes, width: w, count: h)
        }
        let expected = rows.withUnsafeBytes {
            RGBToYUV420(spec: ConversionSpec(), source: format == .rgba16 ? .rgb16 : format, kernels: .reference)
                .convert(pixels: $0.baseAddress!, rowBytes: rowBytes, width: w, height: h, layout: .nv12)
        }
        let got = try convertFile(path: p3PNG, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual(got.image.bytes, expected.bytes)
    }

    /// The colour stage shares its bands with the decoding thread (`RGBRowsSource.help`): whichever thread
    /// transforms a band, the bytes are those of the transform done in turn. Forced: the decoding thread takes
    /// every band it hands on, so the stage always waits for it.
    func testColourStageBandsTransformedByEitherThreadGiveTheSameBytes() throws {
        defer { BandPipeline.helpAfterEveryBand = false }
        for path in [p3, p3PNG, adobe] {
            var inTurn = DecodeOptions()
            inTurn.pipelined = false
            let reference = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12, options: inTurn)
            XCTAssertNotNil(reference.report.colour, path)
            for helps in [false, true] {
                BandPipeline.helpAfterEveryBand = helps
                let got = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12)
                XCTAssertTrue(got.image.bytes == reference.image.bytes, "\(path), decoding thread takes every band: \(helps)")
            }
        }
    }

    /// EXIF's Adobe RGB hint: IFD0 → Exif IFD → Interoperability IFD → InteroperabilityIndex "R03", both byte
    /// orders; anything cut short, another index (R98, sRGB's) or a wrong type is not it.
    func testExifAdobeRGBHint() {
        // Little-endian: IFD0 at 8 (ExifIFD pointer → 26), Exif IFD at 26 (Interop pointer → 44), Interop IFD at
        // 44 (index, ASCII ×4, "R03\0" in the entry).
        let le: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0,
                           1, 0, 0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0,
                           1, 0, 0x05, 0xA0, 4, 0, 1, 0, 0, 0, 44, 0, 0, 0, 0, 0, 0, 0,
                           1, 0, 0x01, 0, 2, 0, 4, 0, 0, 0, 0x52, 0x30, 0x33, 0, 0, 0, 0, 0]
        XCTAssertTrue(exifSaysAdobeRGB(le))
        let be: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8,
                           0, 1, 0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0,
                           0, 1, 0xA0, 0x05, 0, 4, 0, 0, 0, 1, 0, 0, 0, 44, 0, 0, 0, 0,
                           0, 1, 0, 0x01, 0, 2, 0, 0, 0, 4, 0x52, 0x30, 0x33, 0, 0, 0, 0, 0]
        XCTAssertTrue(exifSaysAdobeRGB(be))
        var r98 = le; r98[55] = 0x39; r98[56] = 0x38
        XCTAssertFalse(exifSaysAdobeRGB(r98), "R98 is sRGB's index")
        var wrongType = le; wrongType[48] = 3
        XCTAssertFalse(exifSaysAdobeRGB(wrongType))
        for n in [0, 7, 20, 40, 52, 56] { XCTAssertFalse(exifSaysAdobeRGB(Array(le.prefix(n))), "cut at \(n)") }
        var far = le; far[18] = 0xF0
        XCTAssertFalse(exifSaysAdobeRGB(far), "Exif IFD past the end")
        // The Exif IFD with a ColorSpace (0xA001, SHORT) before the Interop pointer (now at 56): DCF's Adobe RGB
        // is R03 with ColorSpace 0xFFFF (uncalibrated; some cameras write 2); 1 says sRGB, whatever index a
        // converting tool left behind (a hostile tester's file: it was transformed as Adobe RGB).
        func withColorSpace(_ cs: UInt16) -> [UInt8] {
            Array(le[0..<26]) + [2, 0, 0x01, 0xA0, 3, 0, 1, 0, 0, 0, UInt8(cs & 255), UInt8(cs >> 8), 0, 0,
                                 0x05, 0xA0, 4, 0, 1, 0, 0, 0, 56, 0, 0, 0, 0, 0, 0, 0] + Array(le[44...])
        }
        XCTAssertTrue(exifSaysAdobeRGB(withColorSpace(0xFFFF)))
        XCTAssertTrue(exifSaysAdobeRGB(withColorSpace(2)))
        XCTAssertFalse(exifSaysAdobeRGB(withColorSpace(1)), "ColorSpace sRGB")
        // Each value where its count puts it, and all of it within the data (a reviewer's file with the index's
        // count 2^32 − 1 and "R03" at its offset was transformed as Adobe RGB; exiftool drops the tag).
        func indexAt62(count: UInt32) -> [UInt8] {
            let c = [UInt8(count & 255), UInt8(count >> 8 & 255), UInt8(count >> 16 & 255), UInt8(count >> 24)]
            return Array(le[0..<44]) + [1, 0, 0x01, 0, 2, 0] + c + [62, 0, 0, 0, 0, 0, 0, 0] + [0x52, 0x30, 0x33, 0]
        }
        XCTAssertTrue(exifSaysAdobeRGB(indexAt62(count: 5).dropLast() + [0, 0]), "five bytes at an offset")
        XCTAssertFalse(exifSaysAdobeRGB(indexAt62(count: 0xFFFF_FFFF)), "count 2^32 − 1, four bytes there")
        XCTAssertFalse(exifSaysAdobeRGB(indexAt62(count: 8)), "count 8, four bytes there")
        // ColorSpace with three values (six bytes: at an offset, 74 here): the first is read there, not the
        // offset's bytes in the entry.
        let spread = Array(le[0..<26]) + [2, 0, 0x01, 0xA0, 3, 0, 3, 0, 0, 0, 74, 0, 0, 0,
                                           0x05, 0xA0, 4, 0, 1, 0, 0, 0, 56, 0, 0, 0, 0, 0, 0, 0] + Array(le[44...])
        XCTAssertEqual(spread.count, 74)
        XCTAssertFalse(exifSaysAdobeRGB(spread + [1, 0, 1, 0, 1, 0]), "ColorSpace sRGB ×3 at its offset")
        XCTAssertTrue(exifSaysAdobeRGB(spread + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), "ColorSpace uncalibrated ×3 at its offset")
    }

    /// A profile that cannot be read is a warning, and the samples are used as stored.
    func testBrokenProfileIsAWarning() throws {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p3)))
        // Corrupt the profile's header inside its APP2 segment (the tag 'acsp' at offset 36 of the profile).
        let marker = [UInt8]("ICC_PROFILE".utf8)
        let at = try XCTUnwrap((0..<(jpeg.count - marker.count)).first { Array(jpeg[$0..<($0 + marker.count)]) == marker })
        for i in 0..<8 { jpeg[at + 14 + 36 + i] = 0 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-broken-icc-\(getpid()).jpg")
        try Data(jpeg).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let c = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual(c.report.warnings, 1)
        XCTAssertTrue(c.report.firstWarning.contains("colours used as stored"), c.report.firstWarning)
        XCTAssertNil(c.report.colour)
        XCTAssertEqual(c.report.path, "direct YCbCr")
        // A profile LittleCMS reads but whose curves give infinities (gamma −2.4): broken too, not transformed
        // into whatever a clamp makes of NaN — the bytes are the conversion as stored.
        let crafted = try convertFile(path: negativeGamma, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual(crafted.report.warnings, 1)
        XCTAssertTrue(crafted.report.firstWarning.contains("has a tone curve that falls, stays flat, or leaves the numbers (infinite, or outside 0 to 1); colours used as stored"), crafted.report.firstWarning)
        XCTAssertNil(crafted.report.colour)
        var off = DecodeOptions()
        off.colourManagement = false
        XCTAssertEqual(crafted.image.bytes, try convertFile(path: negativeGamma, spec: ConversionSpec(), layout: .nv12,
                                                            options: off).image.bytes)
    }

    /// Each of a PNG's gAMA and cHRM counts or not on its own, and so does an iCCP beside them. libpng kept one
    /// colour-space state for all three: a cHRM it rejected (blue on the line from red to green) dropped a good
    /// gAMA after it — not one before it — and a good Display P3 iCCP after it, while the warning said only the
    /// cHRM was ignored; a gAMA of 0 dropped a good cHRM. A chromaticity of no luminance (y = 0: an imaginary red)
    /// makes no colour space either (LittleCMS built one from it, and colours moved by ~69 code values).
    func testEachPNGColourChunkCountsOnItsOwn() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let w = 16, h = 8
        let pixels = (0..<(w * h * 3)).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
        var rows: [UInt8] = []
        for y in 0..<h { rows += [0] + pixels[(y * w * 3)..<((y + 1) * w * 3)] }
        let gama18 = pngChunk("gAMA", be32(55556)), gama0 = pngChunk("gAMA", be32(0)), gama1 = pngChunk("gAMA", be32(100000))
        let onALine = pngChunk("cHRM", [31270, 32900, 64000, 33000, 30000, 60000, 47000, 46500].flatMap(be32))
        let whiteOutside = pngChunk("cHRM", [10000, 80000, 64000, 33000, 30000, 60000, 15000, 6000].flatMap(be32))
        let noLight = pngChunk("cHRM", [31270, 32900, 64000, 0, 30000, 60000, 15000, 6000].flatMap(be32))
        // A triangle so small around the white that the profile's matrix is singular: it passed the chunk's own
        // tests and failed where the profile was built, taking the gAMA with it (a tester's fuzzing).
        let tiny = pngChunk("cHRM", [31270, 32900, 31200, 32800, 31300, 33000, 31400, 32800].flatMap(be32))
        let srgb = pngChunk("sRGB", [0]), palette = pngChunk("PLTE", (0..<48).map { UInt8($0) })
        let p3Chrm = pngChunk("cHRM", [31270, 32900, 68000, 32000, 26500, 69000, 15000, 6000].flatMap(be32))
        let icc = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        let iccp = pngChunk("iCCP", Array("P3".utf8) + [0, 0] + zlibStored(icc))
        let dir = FileManager.default.temporaryDirectory
        var made: [String] = []
        defer { for p in made { try? FileManager.default.removeItem(atPath: p) } }
        func convert(_ chunks: [UInt8]) throws -> (bytes: [UInt8], report: ConversionReport) {
            let file = pngSignature + pngChunk("IHDR", be32(w) + be32(h) + [8, 2, 0, 0, 0]) + chunks
                + pngChunk("IDAT", zlibStored(rows)) + pngChunk("IEND", [])
            let url = dir.appendingPathComponent("yuvconv-colour-chunks-\(made.count)-\(getpid()).png")
            try Data(file).write(to: url)
            made.append(url.path)
            let c = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            return (c.image.bytes, c.report)
        }
        let gamma = try convert(gama18), primaries = try convert(p3Chrm), profile = try convert(iccp), none = try convert([])
        XCTAssertEqual(gamma.report.colour, "PNG gAMA → sRGB")
        XCTAssertEqual(primaries.report.colour, "PNG cHRM → sRGB")
        XCTAssertEqual(profile.report.colour, "Display P3 → sRGB")
        for r in [gamma, primaries, profile, none] { XCTAssertEqual(r.report.warnings, 0, r.report.firstWarning) }
        XCTAssertNotEqual(gamma.bytes, none.bytes)
        let line = "cHRM chunk is ignored: its red, green and blue lie on one line, which makes no colour space; the "
            + "picture is read without it"
        let cases: [([UInt8], (bytes: [UInt8], report: ConversionReport), String)] = [
            (onALine + gama18, gamma, line), (gama18 + onALine, gamma, line), (onALine + iccp, profile, line),
            (iccp + onALine, profile, line),
            (gama0 + p3Chrm, primaries, "the PNG's gAMA chunk gives a gamma of 0, which is no usable curve"),
            (whiteOutside + gama18, gamma, "cHRM chunk is ignored: its white lies outside the triangle of its red, green and blue"),
            (gama18 + gama1, gamma, "the PNG has a second gAMA chunk; ignored (the first one is read)"),
            (noLight, none, "the PNG's cHRM chunk puts its red at x = 0.64, y = 0, which is no colour"),
            (tiny + gama18, gamma, "cHRM chunk is ignored: its red, green and blue lie too close together"),
            // sRGB and cICP as gAMA and cHRM: before the palette, once (an sRGB after PLTE was used).
            (p3Chrm + palette + srgb, primaries, "the PNG's sRGB chunk comes after its palette (PLTE)"),
            (srgb + srgb, none, "the PNG has a second sRGB chunk; ignored (the first one is read)"),
            (pngChunk("cHRM", [UInt8](repeating: 1, count: 31)) + gama18, gamma, "the PNG's cHRM chunk is 31 bytes long, not 32"),
        ]
        // A second gAMA after one that could not be used is ignored too (PNG allows one; libpng read no further).
        let twice = try convert(gama0 + gama18)
        XCTAssertEqual(twice.bytes, none.bytes)
        XCTAssertEqual(twice.report.warnings, 2, twice.report.firstWarning)
        // Without colour management the chunks are not used, and their flaws are not said.
        var off = DecodeOptions()
        off.colourManagement = false
        let quiet = dir.appendingPathComponent("yuvconv-colour-chunks-off-\(getpid()).png")
        try Data(pngSignature + pngChunk("IHDR", be32(w) + be32(h) + [8, 2, 0, 0, 0]) + gama0 + onALine + gama18
                 + pngChunk("IDAT", zlibStored(rows)) + pngChunk("IEND", [])).write(to: quiet)
        made.append(quiet.path)
        let unmanaged = try convertFile(path: quiet.path, spec: ConversionSpec(), layout: .nv12, options: off)
        XCTAssertEqual(unmanaged.report.warnings, 0, unmanaged.report.firstWarning)
        XCTAssertEqual(unmanaged.image.bytes, none.bytes)
        for (i, (chunks, like, said)) in cases.enumerated() {
            let got = try convert(chunks)
            XCTAssertEqual(got.bytes, like.bytes, "case \(i)")
            XCTAssertEqual(got.report.colour, like.report.colour, "case \(i)")
            XCTAssertEqual(got.report.warnings, 1, "case \(i)")
            XCTAssertTrue(got.report.firstWarning.contains(said), "case \(i): \(got.report.firstWarning)")
        }
    }

    /// With colour management off the colour chunks are not looked at: one after the image data, or one failing its
    /// CRC, draws no warning (each was said and counted under `--color-management off`); a late tRNS still is.
    func testColourChunksAreNotLookedAtWithColourManagementOff() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let rows: [UInt8] = (0..<4).flatMap { _ -> [UInt8] in [0] + [UInt8](repeating: 77, count: 12) }
        var badCRC = pngChunk("gAMA", be32(30000))
        badCRC[badCRC.count - 1] ^= 1
        let head = pngSignature + pngChunk("IHDR", be32(4) + be32(4) + [8, 2, 0, 0, 0])
        let idat = pngChunk("IDAT", zlibStored(rows)), end = pngChunk("IEND", [])
        let files: [(String, [UInt8], Int)] = [   // (name, bytes, warnings with colour management on)
            ("late-gama", head + idat + pngChunk("gAMA", be32(30000)) + end, 1),
            ("late-srgb-chrm", head + idat + pngChunk("sRGB", [0]) + pngChunk("cHRM", [UInt8](repeating: 0, count: 32)) + end, 1),
            ("crc-gama", head + badCRC + idat + end, 1),
            ("late-trns", head + idat + pngChunk("tRNS", [0, 1, 0, 2, 0, 3]) + end, 1)]
        for (name, bytes, managedWarnings) in files {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-off-\(name)-\(getpid()).png")
            try Data(bytes).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            var off = DecodeOptions()
            off.colourManagement = false
            let on = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            let unmanaged = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12, options: off)
            XCTAssertEqual(on.report.warnings, managedWarnings, "\(name): \(on.report.firstWarning)")
            XCTAssertEqual(unmanaged.report.warnings, name == "late-trns" ? 1 : 0, "\(name): \(unmanaged.report.firstWarning)")
        }
    }

    /// A PNG profile cut short of the size its header gives (or with a size field too large) is said as that, not
    /// as libpng's "unexpected zlib return code", which read as a fault of zlib's.
    func testACutPNGProfileIsSaidAsCut() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let icc = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        var larger = icc
        larger.replaceSubrange(0..<4, with: be32(icc.count + 4))
        let rows = (0..<4).flatMap { _ in [0] + [UInt8](repeating: 90, count: 12) }
        for (i, profile) in [Array(icc.prefix(300)), larger].enumerated() {
            let file = pngSignature + pngChunk("IHDR", be32(4) + be32(4) + [8, 2, 0, 0, 0])
                + pngChunk("iCCP", Array("P3".utf8) + [0, 0] + zlibStored(profile)) + pngChunk("IDAT", zlibStored(rows))
                + pngChunk("IEND", [])
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-cut-iccp-\(i)-\(getpid()).png")
            try Data(file).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let c = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertEqual(c.report.warnings, 1)
            XCTAssertTrue(c.report.firstWarning.contains(
                "the PNG's ICC profile was rejected: the profile ends before the size its header gives, or its "
                + "compressed data is damaged (libpng: iCCP: unexpected zlib return code); colours used as stored"), c.report.firstWarning)
        }
    }

    /// Every reason libpng gives for turning a PNG's profile away is said as a sentence, libpng's words after it;
    /// and a warning of libpng's that keeps the profile (a PCS illuminant other than D50, an undefined rendering
    /// intent) is never given as the reason when a later check rejects it — it was, because it came first.
    func testEveryRejectedPNGProfileIsSaidWhy() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let icc = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        func edited(_ at: Int, _ bytes: [UInt8], _ more: [(Int, [UInt8])] = []) -> [UInt8] {
            var p = icc
            for (i, b) in [(at, bytes)] + more { p.replaceSubrange(i..<(i + b.count), with: b) }
            return p
        }
        let rows: [UInt8] = (0..<4).flatMap { _ -> [UInt8] in [0] + [UInt8]((0..<4).flatMap { _ -> [UInt8] in [200, 30, 30] }) }
        func convert(_ iccp: [UInt8], _ i: Int, colourManagement: Bool = true) throws -> Conversion {
            let file = pngSignature + pngChunk("IHDR", be32(4) + be32(4) + [8, 2, 0, 0, 0]) + pngChunk("iCCP", iccp)
                + pngChunk("IDAT", zlibStored(rows)) + pngChunk("IEND", [])
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-iccp-why-\(i)-\(getpid()).png")
            try Data(file).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            var options = DecodeOptions()
            options.colourManagement = colourManagement
            return try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12, options: options)
        }
        let named = Array("P3".utf8) + [0, 0]
        let stored = try convert(named + zlibStored(icc), 100, colourManagement: false)
        let intact = try convert(named + zlibStored(icc), 101)
        XCTAssertNotEqual(intact.image.bytes, stored.image.bytes, "the profile moves these colours")
        let cases: [([UInt8], String)] = [
            ([0, 0] + zlibStored(icc), "its name is empty or longer than PNG's 79 characters (libpng: iCCP: bad keyword)"),
            (Array("P3".utf8) + [0, 1] + zlibStored(icc), "it names a compression method PNG does not define (libpng: iCCP:"),
            (named + zlibStored(edited(0, be32(200_000_000))), "its header gives a size over the 8 MiB yuvconv reads in a PNG chunk"),
            (named + zlibStored(edited(36, Array("xxxx".utf8))), "it does not have an ICC profile's 'acsp' signature"),
            // A name that quotes a harmless warning's words is no reason: libpng's own words after the name are.
            (Array("PCS illuminant is not D50".utf8) + [0, 0] + zlibStored(edited(36, Array("xxxx".utf8))),
             "it does not have an ICC profile's 'acsp' signature"),
            (named + zlibStored(edited(0, be32(64))), "its header gives a size smaller than a profile's 132-byte header"),
            (named + zlibStored(edited(12, Array("link".utf8))), "it is a device link, which describes no picture's colours"),
            (named + zlibStored(edited(16, Array("GRAY".utf8))), "it is a grey profile on a colour picture (libpng: iCCP:"),
            // The harmless warning first, the real flaw after it.
            (named + zlibStored(edited(68, [UInt8](repeating: 0, count: 12), [(16, Array("GRAY".utf8))])),
             "it is a grey profile on a colour picture (libpng: iCCP:"),
            (named + zlibStored(edited(64, be32(9), [(12, Array("link".utf8))])), "it is a device link"),
        ]
        for (i, (iccp, said)) in cases.enumerated() {
            let c = try convert(iccp, i)
            XCTAssertEqual(c.report.warnings, 1, "case \(i)")
            XCTAssertTrue(c.report.firstWarning.hasPrefix("the PNG's ICC profile was rejected: " + said.prefix(20)),
                          "case \(i): \(c.report.firstWarning)")
            XCTAssertTrue(c.report.firstWarning.contains(said) && c.report.firstWarning.hasSuffix("; colours used as stored"),
                          "case \(i): \(c.report.firstWarning)")
            XCTAssertEqual(c.image.bytes, stored.image.bytes, "case \(i)")
        }
        // A name of control bytes (each shown as \x01, four times its length) or not UTF-8 (Latin-1 é, \xE9): the
        // whole of libpng's words are said (they were cut before the reason, which was lost), and é as \xE9.
        for (i, name) in [[UInt8](repeating: 1, count: 79), Array("caf".utf8) + [0xE9]].enumerated() {
            let c = try convert(name + [0, 0] + zlibStored(edited(36, Array("xxxx".utf8))), 300 + i)
            XCTAssertTrue(c.report.firstWarning.hasSuffix("'xxxx': invalid signature); colours used as stored"), c.report.firstWarning)
            if i == 1 { XCTAssertTrue(c.report.firstWarning.contains("profile 'caf\\xE9'"), c.report.firstWarning) }
        }
        // A first iCCP failing its CRC, then one libpng rejects: the second's reason (the first's damage was said as
        // "compressed data is damaged", and the reason that counts never).
        var damaged = pngChunk("iCCP", named + zlibStored(icc))
        damaged[damaged.count - 1] ^= 1
        let twice = pngSignature + pngChunk("IHDR", be32(4) + be32(4) + [8, 2, 0, 0, 0]) + damaged
            + pngChunk("iCCP", named + zlibStored(edited(36, Array("xxxx".utf8)))) + pngChunk("IDAT", zlibStored(rows)) + pngChunk("IEND", [])
        let twiceURL = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-iccp-twice-\(getpid()).png")
        try Data(twice).write(to: twiceURL)
        defer { try? FileManager.default.removeItem(at: twiceURL) }
        let second = try convertFile(path: twiceURL.path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertTrue(second.report.firstWarning.hasPrefix("the PNG's ICC profile was rejected: it does not have an ICC profile's 'acsp'"),
                      second.report.firstWarning)
        XCTAssertEqual(second.image.bytes, stored.image.bytes)
        // A flaw libpng lets pass keeps the profile (an undefined intent, bytes after the compressed profile): the
        // intact profile's colours, and nothing said.
        for (i, iccp) in [named + zlibStored(edited(64, be32(9))), named + zlibStored(icc) + Array("junk".utf8)].enumerated() {
            let kept = try convert(iccp, 200 + i)
            XCTAssertEqual(kept.report.warnings, 0, kept.report.firstWarning)
            XCTAssertEqual(kept.image.bytes, intact.image.bytes)
        }
    }

    /// A profile whose header or a tag claims more bytes than it has is damaged in a JPEG as in a PNG (libpng
    /// refuses it there; a JPEG's was used as if whole): a warning, and the conversion as stored. An APP2
    /// ICC_PROFILE segment cut before its sequence number and count is no piece: beside a whole profile it is
    /// ignored, as libjpeg-turbo ignores it; alone it is said as an incomplete profile (it was not said).
    func testAProfileThatClaimsMoreThanItHasIsDamagedInAJPEG() throws {
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p3)))
        let marker = [UInt8]("ICC_PROFILE".utf8)
        let at = try XCTUnwrap((0..<(jpeg.count - marker.count)).first { Array(jpeg[$0..<($0 + marker.count)]) == marker })
        let profile = at + 14   // the profile's first byte
        func be32(_ i: Int) -> Int { Int(jpeg[i]) << 24 | Int(jpeg[i + 1]) << 16 | Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]) }
        XCTAssertEqual(jpeg[at - 3], 0xE2, "one APP2 segment")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-claims-icc-\(getpid()).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        var off = DecodeOptions()
        off.colourManagement = false
        let stored = try convertFile(path: p3, spec: ConversionSpec(), layout: .nv12, options: off).image.bytes
        // The header's size, and the first tag's size, set to 4 GB.
        let firstTagSize = profile + 132 + 8
        XCTAssertGreaterThan(be32(profile + 128), 0)
        for (field, said) in [(profile, "its header gives 4294967295 bytes, it has "), (firstTagSize, "tag 1 lies outside it")] {
            var bad = jpeg
            for k in 0..<4 { bad[field + k] = 0xFF }
            try Data(bad).write(to: url)
            let c = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertNil(c.report.colour, said)
            XCTAssertTrue(c.report.firstWarning.contains("the embedded ICC profile is damaged (\(said)"), c.report.firstWarning)
            XCTAssertEqual(c.image.bytes, stored, said)
        }
        // A segment "ICC_PROFILE\0" and one byte more: a piece without its place in the sequence.
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/pillow/hopper.jpg"))))
        XCTAssertNil(try convertFile(path: fixture("jpeg/pillow/hopper.jpg"), spec: ConversionSpec(), layout: .nv12).report.colour)
        for extra in [[UInt8](), [1]] {
            let segment: [UInt8] = [0xFF, 0xE2, 0, UInt8(2 + 12 + extra.count)] + marker + [0] + extra
            try Data(Array(plain[0..<2]) + segment + Array(plain[2...])).write(to: url)
            let alone = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertNil(alone.report.colour)
            XCTAssertTrue(alone.report.firstWarning.contains("the embedded ICC profile is incomplete"), alone.report.firstWarning)
            try Data(Array(jpeg[0..<2]) + segment + Array(jpeg[2...])).write(to: url)
            let beside = try convertFile(path: url.path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertEqual(beside.report.colour, "Display P3 → sRGB", beside.report.firstWarning)
            XCTAssertEqual(beside.report.warnings, 0)
        }
    }
}
