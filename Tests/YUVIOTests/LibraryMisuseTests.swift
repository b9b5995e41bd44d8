import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

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
        XCTAssertEqual(options.maxMemory, 0)
        // It trapped before the conversion began; now the conversion runs (a PNG streams, holding nothing whole).
        XCTAssertNoThrow(try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: MemorySink(), options: options))
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
    }

    /// An alignment below 1 is 1 (FrameLayout's precondition trapped); a decoder's negative limits are 0.
    func testAlignmentAndDecoderLimitsBelowTheirRange() throws {
        let tight = MemorySink(), zero = MemorySink()
        _ = try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: tight)
        _ = try convert(path: photo, spec: ConversionSpec(), layout: .nv12, into: zero, alignment: 0, heightAlignment: -3)
        XCTAssertEqual(zero.image?.bytes, tight.image?.bytes)
        let source = try InputSource(path: photo)
        XCTAssertThrowsError(try ImageDecoder(source: source, maxPixels: -1, maxMemory: -1))
        XCTAssertEqual(ImageDecoder.wholeBudget(maxMemory: -5, inputBytes: 100), 0)
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
