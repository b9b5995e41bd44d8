import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The limit on pictures held whole counts what a conversion holds together: the decoder's coefficients (a
/// progressive JPEG) and every buffer checked after them (a turned picture, an encoder's picture) — each alone
/// under the limit is not enough (a hostile round's progressive 4:4:4 photo turned by EXIF peaked at twice it).
final class WholeBudgetTests: XCTestCase {
    func testWholeBuffersCountTogether() throws {
        let path = fixturesURL.appendingPathComponent("synthetic/progressive-rocket.jpg").path
        func decoder() throws -> ImageDecoder {
            try ImageDecoder(source: InputSource(path: path), maxMemory: 1 << 20)
        }
        // 160x107 at 4:2:0: 20x14 luma blocks and 10x7 of each chroma, padded to the sampling, 128 bytes a block.
        let coefficients = (20 * 14 + 2 * 10 * 7) * 128
        let d = try decoder()
        XCTAssertEqual(d.wholeBudget, 1 << 20)
        try d.checkWhole((1 << 20) - coefficients, for: "the first")   // exactly at the limit with the decoder's
        XCTAssertThrowsError(try d.checkWhole(1, for: "the second")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "the second needs 1.1 MiB held whole with what is held already, above the limit of 1 MiB for this file")
        }
        XCTAssertThrowsError(try decoder().checkWhole((1 << 20) - coefficients + 1, for: "one byte more"))
        // Sizes to a tenth of a MiB, the need rounded up and the limit to the nearest (`--max-memory 1.4M`);
        // where the two would read alike, in bytes.
        let limit = (3 << 19) - 1   // a byte below 1.5 MiB: 1.5 to the nearest tenth
        let near = try ImageDecoder(source: InputSource(path: path), maxMemory: limit)
        XCTAssertThrowsError(try near.checkWhole(limit - coefficients + 1, for: "a byte over")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "a byte over needs 1572864 bytes held whole with what is held already, above the limit of 1572863 bytes for this file")
        }
        let far = try ImageDecoder(source: InputSource(path: path), maxMemory: 1_468_006)   // 1.4M
        XCTAssertThrowsError(try far.checkWhole(3 << 19, for: "1.5 MiB")) { error in
            XCTAssertEqual((error as? DecodeError)?.reason,
                           "1.5 MiB needs 1.6 MiB held whole with what is held already, above the limit of 1.4 MiB for this file")
        }
        // The default: 128 bytes a byte of the file, at least 256 MiB.
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: 3132), 256 << 20)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: 4 << 20), 512 << 20)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: nil, inputBytes: Int.max), Int.max)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: 5 << 20, inputBytes: 1 << 30), 5 << 20)
    }

    /// An interlaced PNG's buffers count the picture libpng holds as it holds it: a palette's indices, a byte a
    /// pixel — not the RGB rows the conversion gets (a 4096x4096 palette PNG said 51 MiB of buffers beside a
    /// 30 MiB peak, and `--max-memory` refused it at 16 MiB) — whether the picture is turned or not.
    func testAnInterlacedPNGsBuffersAreWhatLibpngHolds() throws {
        let (w, h) = (96, 64)
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        func png(palette: Bool, interlaced: Bool, turned: Bool) throws -> String {
            let channels = palette ? 1 : 3
            func pixel(_ x: Int, _ y: Int) -> [UInt8] {
                palette ? [UInt8((x + y) % 3)] : [UInt8(x * 2), UInt8(y * 3), 90]
            }
            var raw: [UInt8] = []
            let passes = interlaced ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
                                    : [(0, 0, 1, 1)]
            for (x0, y0, dx, dy) in passes where x0 < w && y0 < h {
                for y in stride(from: y0, to: h, by: dy) {
                    raw.append(0)
                    for x in stride(from: x0, to: w, by: dx) { raw += pixel(x, y) }
                }
            }
            if !interlaced { XCTAssertEqual(raw.count, h * (1 + w * channels)) }
            // An eXIf chunk saying "rotate 90°" (orientation 6), big-endian TIFF.
            let exif: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 1, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
            let file = pngSignature + pngChunk("IHDR", be32(w) + be32(h) + [8, palette ? 3 : 2, 0, 0, interlaced ? 1 : 0])
                + (palette ? pngChunk("PLTE", [200, 30, 30, 30, 200, 30, 30, 30, 200]) : [])
                + (turned ? pngChunk("eXIf", exif) : [])
                + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("yuvconv-adam7-\(palette)-\(interlaced)-\(turned)-\(getpid()).png")
            try Data(file).write(to: url)
            return url.path
        }
        for palette in [true, false] {
            for turned in [false, true] {
                let plain = try png(palette: palette, interlaced: false, turned: turned)
                let adam7 = try png(palette: palette, interlaced: true, turned: turned)
                defer { [plain, adam7].forEach { try? FileManager.default.removeItem(atPath: $0) } }
                let a = try convertFile(path: plain, spec: ConversionSpec(), layout: .nv12)
                let b = try convertFile(path: adam7, spec: ConversionSpec(), layout: .nv12)
                XCTAssertEqual(a.image.bytes, b.image.bytes, "palette \(palette), turned \(turned)")
                XCTAssertEqual(!a.report.orientation.isIdentity, turned)
                XCTAssertEqual(b.report.ledgerPeakBytes - a.report.ledgerPeakBytes, w * h * (palette ? 1 : 3),
                               "palette \(palette), turned \(turned)")
            }
        }
    }

    /// A turned picture's stored copy is let go once it is turned, before the output's planes are held: what the
    /// output holds is checked beside the upright picture alone. It was checked beside both, and a 12 MP JPEG
    /// turned by EXIF to a JPEG was refused as needing 51.6 MiB while it used 35.2 (a hostile round). Here a
    /// 1024×768 4:2:0 JPEG turned to a JPEG's planes: about 2.3 MiB at once, where the three together are 3.4.
    func testATurnedPicturesStoredCopyIsNotCountedWithTheOutput() throws {
        let (w, h) = (1024, 768)
        var bytes = [UInt8](repeating: 128, count: w * h * 3 / 2)
        for i in 0..<(w * h) { bytes[i] = UInt8(truncatingIfNeeded: i * 7 + i / w) }
        let jpeg = try encodeJPEG(YUVImage(width: w, height: h, layout: .yuv420p, bytes: bytes), quality: 90)
        let dir = try scratchFolder("yuvconv-turned-budget")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("turned.jpg").path
        try Data(OrientationTests.withOrientation(jpeg, 6)).write(to: URL(fileURLWithPath: path))
        func run(_ limit: Int) throws(FileError) -> YUVImage {
            var options = DecodeOptions()
            options.maxMemory = limit
            let sink = MemorySink(fitting: .jpeg)
            _ = try convert(path: path, spec: ConversionSpec(matrix: .bt601, range: .full), layout: .yuv420p, into: sink,
                            options: options)
            return sink.image!
        }
        let up = try run(3 << 20)
        XCTAssertEqual([up.width, up.height], [h, w], "turned")
        XCTAssertThrowsError(try run(2 << 20)) { error in
            XCTAssertTrue("\(error)".contains("turning the picture needs 2.3 MiB held whole"), "\(error)")
        }
    }

    /// The same for a progressive JPEG, which counts the output's planes from its header, before its scans are
    /// read: once turned, they are counted again after the turn, beside its coefficients and the upright picture,
    /// not beside both copies. 1024×768 4:2:0: coefficients 2.25 MiB (18,432 blocks), each copy 1.125 MiB; P010
    /// planes 2.25 MiB, which after the turn are held with the coefficients and the upright copy (5.625 MiB), where
    /// all four together are 6.75 MiB and the turn itself 4.5 MiB.
    func testATurnedProgressiveJPEGsOutputIsCountedAfterTheTurn() throws {
        let stored = try makeNoisyJPEG(width: 1024, height: 768, sampling: TJSAMP_420, seed: 7,
                                       flags: Int32(TJFLAG_PROGRESSIVE))
        defer { try? FileManager.default.removeItem(atPath: stored) }
        let path = stored.replacingOccurrences(of: ".jpg", with: "-turned.jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(OrientationTests.withOrientation(Array(try Data(contentsOf: URL(fileURLWithPath: stored))), 6))
            .write(to: URL(fileURLWithPath: path))
        func run(_ limit: Int, _ layout: PixelLayout = .p010, orientation: OrientationMode = .auto,
                 metrics: Bool = false) throws(FileError) -> YUVImage {
            var options = DecodeOptions()
            options.maxMemory = limit
            options.orientation = orientation
            let sink = MemorySink()
            _ = try convert(path: path, spec: ConversionSpec(matrix: .bt601, range: .full), layout: layout,
                            into: sink, options: options, metrics: metrics)
            return sink.image!
        }
        let up = try run(5_950_000)
        XCTAssertEqual([up.width, up.height], [768, 1024], "turned")
        // Unturned, nothing is counted twice either way: the output's planes beside the coefficients from the header.
        XCTAssertNoThrow(try run(5_950_000, orientation: .ignore))
        // What is held after the turn is all counted, and it is that count that refuses here (the turn needs less).
        XCTAssertThrowsError(try run(5_700_000)) { error in
            XCTAssertTrue("\(error)".contains("holding the picture for the encoder needs 5.7 MiB held whole"), "\(error)")
        }
        // Measured (--metrics), the stored copy is kept to the end: the output's planes stay counted from the header,
        // so the turn, which comes before the pixels are converted, refuses what cannot fit (they were let go there,
        // and the refusal came only after the turn). 8-bit planes (1.125 MiB), all four 5.625 MiB.
        XCTAssertThrowsError(try run(5_500_000, .yuv420p, metrics: true)) { error in
            XCTAssertTrue("\(error)".contains("turning the picture needs 5.7 MiB held whole"), "\(error)")
        }
        XCTAssertNoThrow(try run(5_950_000, .yuv420p, metrics: true))
    }
}
