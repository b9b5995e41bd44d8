import CLCMS
import CShims
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The colour fast path (matrix/TRC profiles, `yc_colour_rows_body.h`) over every 8-bit RGB input there is:
/// 2^24 pixels, as RGB and as RGBA rows whose width leaves a tail for the scalar loop, on every CPU tier this
/// machine runs. Every tier must give the same bytes, and those bytes are pinned by CRC (the CRCs were taken
/// from the fast path as it stood when its output was last checked against LittleCMS's double-precision
/// transform: `ColourManagementTests`), so a change to its tables or rows that moves one pixel fails here.
final class ColourRowsTests: XCTestCase {
    /// Every RGB triple once, `width` pixels a row, `step` bytes a pixel (alpha 0x5A, which must survive).
    func everyInput(width: Int, step: Int) -> [UInt8] {
        let total = 1 << 24, rows = (total + width - 1) / width
        var bytes = [UInt8](repeating: 0, count: rows * width * step)
        for i in 0..<(rows * width) {
            let v = i % total
            bytes[i * step] = UInt8(v >> 16); bytes[i * step + 1] = UInt8((v >> 8) & 255); bytes[i * step + 2] = UInt8(v & 255)
            if step == 4 { bytes[i * step + 3] = 0x5A }
        }
        return bytes
    }

    func crcs(profile: [UInt8], target: yc_target) throws -> [String] {
        var out: [String] = []
        for (rows, step, width) in [(YC_ROWS_RGB8, 3, 4099), (YC_ROWS_RGBA8, 4, 4097)] {
            var colour = yc_colour()
            let transformed: [CPUTier: UInt32] = try profile.withUnsafeBufferPointer { icc in
                colour.icc = icc.baseAddress
                colour.icc_length = icc.count
                var seen: [CPUTier: UInt32] = [:]
                let input = everyInput(width: width, step: step)
                for tier in CPUTier.supported {
                    XCTAssertTrue(CPUTier.use(tier))
                    defer { _ = CPUTier.use(CPUTier.best) }
                    let t = try XCTUnwrap(yc_colour_transform_create(&colour, target, rows, 0))
                    defer { yc_colour_transform_free(t) }
                    var bytes = input
                    bytes.withUnsafeMutableBytes { b in
                        yc_colour_transform_apply(t, b.baseAddress, width * step, UInt32(width), UInt32(b.count / (width * step)))
                    }
                    if step == 4 {
                        XCTAssertTrue(stride(from: 3, to: bytes.count, by: 4).allSatisfy { bytes[$0] == 0x5A }, "alpha, tier \(tier)")
                    }
                    seen[tier] = Checksum.crc32(bytes)
                }
                return seen
            }
            XCTAssertEqual(Set(transformed.values).count, 1, "tiers disagree: \(transformed)")
            out.append(String(format: "%08x", transformed[CPUTier.supported[0]]!))
        }
        return out
    }

    /// A profile whose colorants make a row of the fast path's matrix all negative (Display P3's, with rXYZ,
    /// gXYZ and bXYZ replaced by sRGB's times a matrix whose first row is −0.2): on a black pixel that row's sum is
    /// −0.0, which `l < 0` does not clamp and whose bits index far past the table (a heap read out of bounds in the
    /// scalar tail). Every pixel of a black row must come out alike, on every tier, vector steps and tail.
    func testNegativeZeroIsClampedLikeZeroOnEveryTier() throws {
        var icc = try [UInt8](Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        func be32(_ at: Int) -> Int { icc[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        // sRGB's colorants (D50) times N = [[-0.2, -0.2, -0.2], [0.6, 1, 0.1], [0.6, 0.2, 1.2]], column by column.
        let srgb: [[Double]] = [[0.4361, 0.2225, 0.0139], [0.3851, 0.7169, 0.0971], [0.1431, 0.0606, 0.7141]]
        let n: [[Double]] = [[-0.2, -0.2, -0.2], [0.6, 1, 0.1], [0.6, 0.2, 1.2]]
        var patched = 0
        for i in 0..<be32(128) {
            let entry = 132 + 12 * i, signature = String(decoding: icc[entry..<(entry + 4)], as: UTF8.self)
            guard let column = ["rXYZ", "gXYZ", "bXYZ"].firstIndex(of: signature) else { continue }
            let at = be32(entry + 4) + 8
            for k in 0..<3 {   // X, Y, Z of colorant `column`: row k of sRGB's matrix times column `column` of N
                let v = (0..<3).reduce(0.0) { $0 + srgb[$1][k] * n[$1][column] }
                let fixed = UInt32(bitPattern: Int32((v * 65536).rounded()))
                for b in 0..<4 { icc[at + 4 * k + b] = UInt8(truncatingIfNeeded: fixed >> (24 - 8 * b)) }
            }
            patched += 1
        }
        XCTAssertEqual(patched, 3)
        let width = 37   // vector steps, then a scalar tail on every tier: 4 × 8 + 5 (AVX2, AVX-512), 9 × 4 + 1 (SSE2)
        var colour = yc_colour()
        try icc.withUnsafeBufferPointer { p in
            colour.icc = p.baseAddress
            colour.icc_length = p.count
            for tier in CPUTier.supported {
                XCTAssertTrue(CPUTier.use(tier))
                defer { _ = CPUTier.use(CPUTier.best) }
                let t = try XCTUnwrap(yc_colour_transform_create(&colour, YC_TARGET_SRGB, YC_ROWS_RGB8, 0))
                defer { yc_colour_transform_free(t) }
                var row = [UInt8](repeating: 0, count: 3 * width)
                row.withUnsafeMutableBytes { yc_colour_transform_apply(t, $0.baseAddress, 3 * width, UInt32(width), 1) }
                let first = Array(row[0..<3])
                XCTAssertEqual(first, [0, 0, 0], "tier \(tier)")
                for x in 1..<width { XCTAssertEqual(Array(row[(3 * x)..<(3 * x + 3)]), first, "pixel \(x), tier \(tier)") }
            }
        }
    }

    func testEveryInputOnEveryTier() throws {
        let p3 = try [UInt8](Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        let got = [try crcs(profile: p3, target: YC_TARGET_SRGB), try crcs(profile: p3, target: YC_TARGET_BT2020)]
        print("colour rows: tiers \(CPUTier.supported), CRCs \(got)")
        XCTAssertEqual(got, [["66b4dbb6", "fc8e5232"], ["5af83747", "f16ad178"]])
    }

    /// ICC bytes of an RGB profile built on a LUT (curves, then a 9³ table to XYZ that bends the colours), which
    /// the fast path cannot take: its 8-bit rows go through LittleCMS and the table of colours seen.
    func lutProfile() throws -> [UInt8] {
        let curve = try XCTUnwrap(cmsBuildGamma(nil, 2.2))
        defer { cmsFreeToneCurve(curve) }
        let n = 9
        var table: [UInt16] = []
        for i in 0..<n {
            for j in 0..<n {
                for k in 0..<n {
                    let r = Double(i) / 8, g = Double(j) / 8, b = Double(k) / 8
                    let xyz = [0.44 * r + 0.36 * g * g + 0.15 * b, 0.22 * r + 0.70 * g + 0.06 * b * r, 0.01 * r + 0.10 * g + 0.72 * b]
                    table += xyz.map { UInt16(max(0, min(65535, ($0 * 32768).rounded()))) }
                }
            }
        }
        let profile = try rgbLUTProfile(curve: curve, grid: n, table: table)
        defer { cmsCloseProfile(profile) }
        var size: UInt32 = 0
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, nil, &size), 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        XCTAssertNotEqual(cmsSaveProfileToMem(profile, &bytes, &size), 0)
        return bytes
    }

    /// `width` × `height` colours of `bytes` bytes (little-endian in a UInt32) that repeat in a row and across
    /// rows, take one another's slot in the table of colours (`yc_colour.c`'s hash: alternating in a row), and
    /// never repeat.
    func lookupColours(width: Int, height: Int, bytes: Int) -> [UInt32] {
        let mask: UInt32 = bytes == 4 ? 0xFFFF_FFFF : 0xFF_FFFF
        func slot(_ c: UInt32) -> UInt32 { (c &* 0x9E37_79B1) >> 16 }
        var rng = SplitMix64(seed: 53)
        var bySlot: [UInt32: UInt32] = [:], pairs: [(UInt32, UInt32)] = []
        while pairs.count < 64 {
            let c = UInt32(truncatingIfNeeded: rng.next()) & mask
            if let other = bySlot[slot(c)], other != c { pairs.append((other, c)); bySlot[slot(c)] = nil } else { bySlot[slot(c)] = c }
        }
        let palette = (0..<500).map { _ in UInt32(truncatingIfNeeded: rng.next()) & mask }
        var colours: [UInt32] = []
        for y in 0..<height {
            for x in 0..<width {
                switch (x / 50 + y) % 3 {
                case 0: colours.append(palette[Int(rng.next() % 500)])
                case 1: let p = pairs[(x / 7 + y) % pairs.count]; colours.append(x % 2 == 0 ? p.0 : p.1)
                default: colours.append(UInt32(truncatingIfNeeded: rng.next()) & mask)
                }
            }
        }
        return colours
    }

    /// 8-bit rows through LittleCMS are looked up in a table of the colours already transformed (a slot a
    /// colour, by hash; repeats in a row wait for the first one's result). The bytes must be LittleCMS's for
    /// every pixel, as without the table (`lookupColours`), alpha untouched, in bands of any height.
    func testColoursLookedUpAreLittleCMSsOwn() throws {
        let icc = try lutProfile()
        let width = 1021, height = 40
        let colours = lookupColours(width: width, height: height, bytes: 3)
        var colour = yc_colour()
        try icc.withUnsafeBufferPointer { p in
            colour.icc = p.baseAddress
            colour.icc_length = p.count
            for (rows, step) in [(YC_ROWS_RGB8, 3), (YC_ROWS_RGBA8, 4)] {
                var input = [UInt8](repeating: 0, count: width * height * step)
                for (i, c) in colours.enumerated() {
                    for k in 0..<3 { input[i * step + k] = UInt8(truncatingIfNeeded: c >> (8 * k)) }
                    if step == 4 { input[i * step + 3] = UInt8(truncatingIfNeeded: i &* 37) }
                }
                let t = try XCTUnwrap(yc_colour_transform_create(&colour, YC_TARGET_SRGB, rows, 0))
                defer { yc_colour_transform_free(t) }
                var plain = input
                plain.withUnsafeMutableBytes { yc_colour_transform_apply_plain(t, $0.baseAddress, width * step, UInt32(width), UInt32(height)) }
                XCTAssertGreaterThan(zip(plain, input).filter { $0 != $1 }.count, width * height, "the profile changes colours")
                for band in [height, 1, 7] {
                    var looked = input
                    looked.withUnsafeMutableBytes { b in
                        for y in stride(from: 0, to: height, by: band) {
                            yc_colour_transform_apply(t, b.baseAddress! + y * width * step, width * step, UInt32(width), UInt32(min(band, height - y)))
                        }
                    }
                    let differ = (0..<(width * height)).filter { looked[($0 * step)..<($0 * step + step)] != plain[($0 * step)..<($0 * step + step)] }
                    XCTAssertTrue(differ.isEmpty, "\(differ.count) pixels differ (first \(differ.prefix(3))), \(step) bytes a pixel, bands of \(band)")
                }
            }
        }
    }

    /// A CMYK JPEG's rows are looked up the same way, the table kept from row to row: LittleCMS's bytes.
    func testCMYKColoursLookedUpAreLittleCMSsOwn() throws {
        let jpeg = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/kodim23-cmyk.jpg")))
        let icc = jpegICCProfile(jpeg).profile
        let width = 1021, height = 40
        let colours = lookupColours(width: width, height: height, bytes: 4)
        var input = [UInt8](repeating: 0, count: width * height * 4)
        for (i, c) in colours.enumerated() { for k in 0..<4 { input[i * 4 + k] = UInt8(truncatingIfNeeded: c >> (8 * k)) } }
        var colour = yc_colour()
        try icc.withUnsafeBufferPointer { p in
            colour.icc = p.baseAddress
            colour.icc_length = p.count
            var text = [CChar](repeating: 0, count: 256)
            func rows(plain: Bool) throws -> [UInt8] {
                let t = try XCTUnwrap(yc_colour_cmyk_create(&colour, YC_TARGET_SRGB, &text, text.count))
                defer { yc_colour_cmyk_free(t) }
                yc_colour_cmyk_plain(t, plain ? 1 : 0)
                var out = [UInt8](repeating: 0, count: input.count)
                input.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        for y in 0..<height {
                            yc_colour_cmyk_apply(t, src.baseAddress! + y * width * 4, dst.baseAddress! + y * width * 4, UInt32(width))
                        }
                    }
                }
                return out
            }
            let plain = try rows(plain: true), looked = try rows(plain: false)
            XCTAssertEqual(Set(plain).count > 200, true, "the transform makes many values")
            let differ = (0..<(width * height)).filter { looked[($0 * 4)..<($0 * 4 + 4)] != plain[($0 * 4)..<($0 * 4 + 4)] }
            XCTAssertTrue(differ.isEmpty, "\(differ.count) pixels differ (first \(differ.prefix(3)))")
        }
    }
}
