import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// What a program using the library may pass that the command never does: out-of-range options and a sink read
/// after a failure. Each was a trap (a release build's bare "Illegal instruction") or stale memory; each is now
/// an error with its reason, or a value taken at its nearest sense.
final class LibraryMisuseTests: XCTestCase {
    let photo = fixturesURL.appendingPathComponent("corpus/photos/kodim23.png").path

    func testOutOfRangeLimitsAreErrorsNotTraps() throws {
        // UInt64(-1) trapped in the decoder's and the stream's limits: a negative limit is 0, every picture refused.
        var options = DecodeOptions(maxPixels: -1)
        XCTAssertEqual(options.maxPixels, 0)
        XCTAssertThrowsError(try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: MemorySink(), options: options))
        options = DecodeOptions()
        options.maxPixels = -7
        XCTAssertEqual(options.maxPixels, 0)
        options = DecodeOptions()
        options.maxMemory = -5
        XCTAssertEqual(options.maxMemory, 1, "0 is the decoder's 'no limit': the nearest sense is 1 byte")
        // It trapped before the conversion began; now what is held whole (here, the memory sink's picture) is
        // refused with the reason, as under any limit too small for it.
        XCTAssertThrowsError(try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: MemorySink(), options: options)) {
            XCTAssertTrue("\($0)".contains("above the limit of 1 bytes"), "\($0)")
        }
    }

    func testSharpChromaToATenBitLayoutIsAnError() throws {
        var options = DecodeOptions()
        options.chromaFilter = .sharp
        for layout in [PixelLayout.p010, .yuv420p10le] {
            XCTAssertThrowsError(try convert(path: photo, spec: ConversionSpec(), layout: layout, into: MemorySink(),
                                             options: options)) { error in
                XCTAssertTrue((error as? FileError)?.reason.contains("sharp chroma writes 8-bit layouts") == true, "\(error)")
            }
        }
    }

    func testJPEGQualityOutOfRangeIsAnError() throws {
        let image = try convertFile(path: photo, spec: ConversionSpec(), layout: .yuv420p).image
        for q in [Int.max, 101, 0, -5] {
            XCTAssertThrowsError(try encodeJPEG(image, quality: q)) { error in
                XCTAssertEqual(error as? WriteError, .system("JPEG quality \(q) is not one of 1 to 100"))
            }
        }
        XCTAssertFalse(try encodeJPEG(image, quality: 1).isEmpty)
        // Planes TurboJPEG does not take: an error too (a precondition before).
        let nv12 = try convertFile(path: photo, spec: ConversionSpec(), layout: .nv12).image
        XCTAssertThrowsError(try encodeJPEG(nv12, quality: 90)) { error in
            XCTAssertEqual(error as? WriteError, .system("JPEG encoding takes yuv420p planes, not nv12"))
        }
        // Bytes that are not the planes (a public var, cut short after the picture was made): an error, not a read
        // past the buffer.
        var short = YUVImage(width: 15, height: 13, layout: .yuv420p)
        short.bytes.removeLast(100)
        XCTAssertThrowsError(try encodeJPEG(short, quality: 90)) { error in
            XCTAssertEqual(error as? WriteError, .system("the picture's bytes (207) are not its 15x13 yuv420p planes (307)"))
        }
        XCTAssertThrowsError(try convert(frame: short, layout: .nv12, into: MemorySink())) { error in
            XCTAssertEqual(error as? WriteError, .system("the picture's bytes (207) are not its 15x13 yuv420p planes (307)"))
        }
    }

    /// An alignment below 1 is 1 (FrameLayout's precondition trapped); a decoder's negative limits are 0.
    func testAlignmentAndDecoderLimitsBelowTheirRange() throws {
        let tight = MemorySink(), zero = MemorySink()
        _ = try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: tight)
        _ = try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: zero, alignment: 0, heightAlignment: -3)
        XCTAssertEqual(zero.image?.bytes, tight.image?.bytes)
        let source = try InputSource(path: photo)
        XCTAssertThrowsError(try ImageDecoder(source: source, maxPixels: -1, maxMemory: -1))
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: -5, inputBytes: 100), 1)
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: 0, inputBytes: 100), 1)
        // A limit of 0 or less on memory held whole refuses a progressive JPEG's coefficients (0 was "no limit":
        // the bound against decompression bombs switched off), whether as DecodeOptions or as the decoder's own.
        let progressive = fixturesURL.appendingPathComponent("corpus/jpeg/jpeg-decoder/reftest/non-interleaved-mcu.jpg").path
        XCTAssertNoThrow(try convert(path: progressive, spec: ConversionSpec(), layout: .nv12, into: MemorySink()))
        for limit in [0, -1] {
            var options = DecodeOptions()
            options.maxMemory = limit
            XCTAssertThrowsError(try convert(path: progressive, spec: ConversionSpec(), layout: .nv12, into: MemorySink(),
                                             options: options)) { error in
                XCTAssertTrue("\(error)".contains("held whole"), "\(limit): \(error)")
            }
            XCTAssertThrowsError(try ImageDecoder(source: try InputSource(path: progressive), maxMemory: limit), "\(limit)")
        }
        let small = PlaneGeometry(width: 3, height: 3)
        XCTAssertEqual(small.alignedBytes(alignment: 0, biPlanar: true), small.alignedBytes(alignment: 1, biPlanar: true))
    }

    /// TurboJPEG's bound (tjBufSize: 3 bytes a padded pixel and 2048) is no true bound: 8×8 blocks hill-climbed
    /// (by a reviewer) to cost the most, tiled with every other block column inverted, make a 512×512 file of
    /// 788,600 bytes at quality 100, 120 over it. Written into a buffer of the bound only, that file failed
    /// ("Buffer passed to JPEG library is too small"); it is made again in a buffer TurboJPEG grows.
    func testJPEGAboveTurboJPEGsBoundIsStillMade() throws {
        let yBlock: [UInt8] = [255, 0, 0, 0, 175, 255, 0, 0, 0, 255, 255, 255, 255, 0, 255, 0, 251, 108, 0, 226, 37, 255, 0, 0,
                               255, 0, 247, 165, 255, 0, 141, 255, 255, 255, 255, 245, 0, 140, 0, 0, 0, 0, 255, 255, 255, 255,
                               255, 255, 255, 0, 255, 228, 0, 0, 255, 255, 255, 0, 0, 0, 255, 0, 0, 230]
        let cBlock: [UInt8] = [255, 0, 0, 0, 255, 255, 148, 0, 0, 0, 0, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 243,
                               0, 255, 255, 0, 255, 0, 180, 255, 0, 255, 0, 255, 255, 255, 253, 255, 255, 255, 0, 2, 0, 0, 203, 0,
                               255, 0, 255, 221, 255, 0, 255, 0, 255, 255, 255, 0, 255, 0, 255, 0]
        /// `block` (8×8, rows reversed when `flipped`) over w×h, every other block column inverted.
        func tile(_ block: [UInt8], _ w: Int, _ h: Int, flipped: Bool = false) -> [UInt8] {
            var plane = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let v = block[(flipped ? 7 - y % 8 : y % 8) * 8 + x % 8]
                    plane[y * w + x] = (x / 8) % 2 == 1 ? 255 - v : v
                }
            }
            return plane
        }
        let image = YUVImage(width: 512, height: 512, layout: .yuv420p,
                             bytes: tile(yBlock, 512, 512) + tile(cBlock, 256, 256) + tile(cBlock, 256, 256, flipped: true))
        let jpeg = try encodeJPEG(image, quality: 100)
        XCTAssertGreaterThan(jpeg.count, 512 * 512 * 3 + 2048, "the picture no longer exceeds the bound: the test tests nothing")
        XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8])
    }

    /// From 2^31 padded pixels TurboJPEG's int bound wraps, and with TJFLAG_NOREALLOC it checks its writes
    /// against that, not the size it is given: a 46352×46352 quality-100 picture of the blocks above wrote past a
    /// 6.4 GB buffer (SIGSEGV, a reviewer's run). No reserved buffer there: TurboJPEG grows its own.
    func testNoReservedJPEGBufferWhereTurboJPEGsBoundWraps() {
        XCTAssertEqual(reservedJPEGBound(width: 4032, height: 3024), 4032 * 3024 * 3 + 2048)
        XCTAssertEqual(reservedJPEGBound(width: 1, height: 1), 16 * 16 * 3 + 2048)
        XCTAssertNil(reservedJPEGBound(width: 65500, height: 32800))
        XCTAssertNil(reservedJPEGBound(width: 46352, height: 46352))
        XCTAssertNotNil(reservedJPEGBound(width: 65500, height: 32767))
    }

    /// PNG output takes planar bands; another layout through a library caller's PNGSink is an error (a trap before).
    func testPNGSinkOfAnotherLayoutIsAnError() throws {
        for layout in [PixelLayout.nv12, .p010] {
            let out = try AtomicOutput(path: NSTemporaryDirectory() + "yuvconv-pngsink-\(getpid()).png", force: true)
            XCTAssertThrowsError(try convert(path: photo, spec: ConversionSpec(), layout: layout,
                                             into: PNGSink(output: out, spec: ConversionSpec()))) { error in
                XCTAssertTrue("\(error)".contains("PNG output converts from yuv420p or yuv420p10le bands"), "\(error)")
            }
        }
    }

    /// A failed conversion leaves no picture in the sink: its storage was reserved, not all written, and held
    /// whatever memory it was given (a truncated PNG's sink showed 768×512 of it).
    func testMemorySinkHasNoPictureAfterAFailure() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: photo))
        let cut = NSTemporaryDirectory() + "yuvconv-cut-\(getpid()).png"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        defer { try? FileManager.default.removeItem(atPath: cut) }
        let sink = MemorySink()
        XCTAssertNoThrow(try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: sink))
        XCTAssertNotNil(sink.image)
        XCTAssertThrowsError(try convert(path: cut, spec: ConversionSpec(), layout: .nv12, into: sink))
        XCTAssertNil(sink.image, "the failed conversion's storage, or the one before's picture")
    }
}

/// Objects a library caller may use past their end: each was a write into memory or a file not its own.
final class LibraryReuseTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws { work = try scratchFolder("yuvconv-reuse") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func picture(_ w: Int, _ h: Int) -> YUVImage {
        var image = YUVImage(width: w, height: h, layout: .yuv420p)
        for i in image.bytes.indices { image.bytes[i] = UInt8(truncatingIfNeeded: i * 7) }
        return image
    }

    /// After `abort` (and a device's `commit`) the output's descriptor number was kept: a write then went into
    /// whatever file had been opened since under that number, and `commit` named that file as the output.
    func testAnOutputIsDoneWithAfterCommitOrAbort() throws {
        let out = try AtomicOutput(path: work.appendingPathComponent("a.nv12").path, force: true)
        try out.write([1, 2, 3])
        out.abort()
        let victimPath = work.appendingPathComponent("victim.txt").path
        let victim = open(victimPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(victim) }
        XCTAssertThrowsError(try out.write([9, 9, 9])) { XCTAssertEqual($0 as? WriteError, AtomicOutput.afterTheEnd) }
        XCTAssertThrowsError(try out.commit()) { XCTAssertEqual($0 as? WriteError, AtomicOutput.afterTheEnd) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victimPath)).count, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("a.nv12").path))
        XCTAssertEqual(Glibc.write(victim, "ok", 2), 2, "the victim's descriptor was closed")
        // A device: commit closes it, and the output is done with.
        let device = try AtomicOutput(path: "/dev/null", force: false)
        try device.write([1, 2, 3])
        try device.commit()
        let second = open(victimPath, O_WRONLY | O_APPEND)
        defer { close(second) }
        XCTAssertThrowsError(try device.write([9])) { XCTAssertEqual($0 as? WriteError, AtomicOutput.afterTheEnd) }
        XCTAssertThrowsError(try device.commit())
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victimPath)), Data("ok".utf8))
    }

    /// Alignments past any use (`Int.max`) overflowed the padded sizes (SIGILL); sampling factors of 0 divided by
    /// zero in a Bool check. Both are answers now.
    func testAbsurdAlignmentsAndFactorsAreAnswers() throws {
        for (a, h) in [(Int.max, 1), (1, Int.max), (1 << 62, 1)] {
            XCTAssertThrowsError(try convert(frame: picture(4, 4), layout: .nv12, into: MemorySink(), alignment: a, heightAlignment: h)) {
                XCTAssertTrue("\($0)".contains("is above the largest"), "\($0)")
            }
        }
        let photo = fixturesURL.appendingPathComponent("corpus/pngsuite/basn2c08.png").path
        XCTAssertThrowsError(try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: MemorySink(), alignment: Int.max))
        XCTAssertFalse(YCbCrToYUV420.supports(components: 3, h: [2, 0, 0], v: [2, 0, 0]))
        XCTAssertFalse(YCbCrToYUV420.supports(components: 3, h: [2], v: [2]))
        XCTAssertTrue(YCbCrToYUV420.supports(components: 3, h: [2, 1, 1], v: [2, 1, 1]))
    }

    /// A caller's 10-bit frame with a sample above 1023 (which the readers refuse) came out mangled without a word:
    /// 1025 as 1 in P010.
    func testATenBitFrameAboveItsRangeIsRefused() throws {
        var frame = YUVImage(width: 2, height: 2, layout: .yuv420p10le)
        frame.bytes[0] = 0x01
        frame.bytes[1] = 0x04   // 1025
        XCTAssertThrowsError(try convert(frame: frame, layout: .p010, into: MemorySink())) {
            XCTAssertEqual($0 as? WriteError, .system("sample 0 is 1025, above 1023: not 10-bit yuv420p10le data"))
        }
    }

    /// A PNG sink sized its rows' buffer at its first band: a second, wider picture through it wrote past the buffer
    /// (glibc: "corrupted size vs. prev_size"). One picture a sink.
    func testAPNGSinkTakesOnePicture() throws {
        let out = try AtomicOutput(path: work.appendingPathComponent("p.png").path, force: true)
        let sink = PNGSink(output: out, spec: ConversionSpec())
        try convert(frame: picture(2, 2), layout: .yuv420p, into: sink)
        XCTAssertThrowsError(try convert(frame: picture(640, 64), layout: .yuv420p, into: sink)) {
            XCTAssertEqual($0 as? WriteError, .system("a PNGSink writes one picture: make another for the next"))
        }
    }

    /// A caller's own sink passing bands on to a memory sink begun for another picture, or with its rows moved:
    /// the bands were copied past the picture (SIGSEGV).
    func testMemorySinkTakesOnlyItsOwnRows() throws {
        final class Moving: BandSink {
            let inner = MemorySink()
            let shift: Int, small: Bool
            init(shift: Int, small: Bool) { (self.shift, self.small) = (shift, small) }
            func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
                try inner.begin(small ? FrameLayout(width: 2, height: 2, pixelLayout: .yuv420p) : frame, ledger: ledger)
            }
            func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
                try inner.consume(band, firstRow: firstRow + shift, rows: rows)
            }
            func end() throws(WriteError) { try inner.end() }
        }
        for (shift, small) in [(0, true), (1000, false)] {
            XCTAssertThrowsError(try convert(frame: picture(256, 64), layout: .yuv420p, into: Moving(shift: shift, small: small)), "\(shift) \(small)")
        }
        XCTAssertThrowsError(try MemorySink().consume(BandBuffer(frame: FrameLayout(width: 4, height: 4, pixelLayout: .yuv420p), rows: 2,
                                                                 ledger: Ledger()), firstRow: 0, rows: 2)) {
            XCTAssertEqual($0 as? WriteError, .system("a band before the sink's begin"))
        }
        // Its own rows, as before.
        let sink = MemorySink()
        try convert(frame: picture(17, 9), layout: .yuv420p, into: sink)
        XCTAssertEqual(sink.image?.bytes, picture(17, 9).bytes)
    }
}
