import CTurboJPEG
import Foundation
import XCTest
import YUVCore
@testable import YUVIO

/// Library messages a user can meet (libjpeg's and libpng's, as hostile testers met them) become sentences
/// that say what is wrong with the file, the library's own words kept in parentheses: never the bare message.
final class LibraryMessagesTests: XCTestCase {
    func testEveryMessageTestersMetIsASentence() {
        let met: [(library: String, message: String, says: String)] = [
            ("libjpeg", "Bogus sampling factors", "sampling factors are invalid"),
            ("libjpeg", "Invalid component ID 3 in SOS", "names a component the image does not have"),
            ("libjpeg", "Quantization table 0x03 was not defined", "quantization table it never defines"),
            ("libjpeg", "Huffman table 0x01 was not defined", "Huffman table it never defines"),
            ("libjpeg", "Invalid progressive parameters Ss=0 Se=63 Ah=0 Al=0", "progressive JPEG's scan header is invalid"),
            ("libjpeg", "Unsupported JPEG data precision 0", "sample precision of 0 bits, which no JPEG has"),
            ("libjpeg", "Unsupported JPEG data precision 12", "a 12-bit JPEG"),
            ("libjpeg", "Bogus DHT index 37", "Huffman table has an impossible number"),
            ("libjpeg", "Bogus DQT index 9", "quantization table has an impossible number"),
            ("libjpeg", "Bogus DAC index 37", "arithmetic-coding table (DAC) is invalid"),
            ("libjpeg", "Bogus DAC value 0x99", "arithmetic-coding table (DAC) is invalid"),
            ("libjpeg", "Arithmetic table 0x02 was not defined", "arithmetic-coding table it never defines"),
            ("libjpeg", "Bogus JPEG colorspace", "a JPEG header holds an impossible colour space"),
            ("libpng", "IHDR: invalid", "header (IHDR) has the wrong length"),
            ("libpng", "PLTE: invalid", "palette (PLTE) has an impossible length"),
            ("libpng", "PLTE: duplicate", "two palettes"),
            ("libpng", "ABCD: unhandled critical chunk", "a chunk libpng does not know (ABCD)"),
            ("libjpeg", "Unsupported marker type 0xf7", "a JPEG-LS file (lossless, SOF55)"),
            ("libjpeg", "Insufficient memory (case 4)", "ran out of memory decoding the JPEG (an address-space limit"),
            ("libjpeg", "Backing store not supported", "memory limit (the JPEGMEM environment variable)"),
            ("libjpeg", "Empty input file", "the file is empty"),
        ]
        for m in met {
            let said = LibraryMessages.explain(m.message, library: m.library)
            XCTAssertTrue(said.contains(m.says), "\(m.message) → \(said)")
            XCTAssertTrue(said.hasSuffix("(\(m.library): \(m.message))"), said)
            XCTAssertTrue(said.first!.isLowercase, said)
        }
        // Warnings libpng words as its own "ignored" reached users raw.
        let warned = [("PLTE: ignored in grayscale PNG", "the grey PNG holds a palette (PLTE), which only colour PNGs use; ignored"),
                      ("cICP: not 4 bytes long, ignored", "the PNG's cICP chunk could not be used (not 4 bytes long); ignored"),
                      ("Invalid SOS parameters for sequential JPEG", "are ignored, as every decoder does")]
        for (message, says) in warned {
            let said = LibraryMessages.explainWarning(message, library: message.hasPrefix("Invalid") ? "libjpeg" : "libpng",
                                                      fileBytes: 1000)
            XCTAssertTrue(said.contains(says), "\(message) → \(said)")
        }
    }

    /// Every error whose words are libjpeg's gets a sentence, the table's or a general one — never the bare
    /// message. Two files a fuzzer made reached users raw: a baseline JPEG with its scan twice ("Didn't expect
    /// more than one scan") and one whose chroma sampling does not divide luma's ("Fractional sampling not
    /// implemented yet"); and any message the table has not met yet gets the general sentence.
    func testLibjpegErrorsAreSentencesEvenWhenTheTableLacksThem() throws {
        let general = LibraryMessages.explain("Some new libjpeg error 42", library: "libjpeg", fromLibrary: true)
        XCTAssertTrue(general.hasPrefix("libjpeg-turbo cannot decode this JPEG: the file is damaged"), general)
        XCTAssertTrue(general.hasSuffix("(libjpeg: Some new libjpeg error 42)"), general)
        XCTAssertEqual(LibraryMessages.explain("a sentence of yuvconv's", library: "libjpeg"), "a sentence of yuvconv's")

        // A 16x16 baseline 4:2:0 JPEG and its segments.
        let tj = try XCTUnwrap(tjInitCompress())
        defer { tjDestroy(tj) }
        let rgb = (0..<(16 * 16 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        XCTAssertEqual(tjCompress2(tj, rgb, 16, 0, 16, Int32(TJPF_RGB.rawValue), &out, &size, Int32(TJSAMP_420.rawValue), 90, 0), 0)
        let jpeg = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        tjFree(out)
        let sos = try XCTUnwrap((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let sof = try XCTUnwrap((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        let scan = Array(jpeg[sos..<(jpeg.count - 2)])
        var fractional = jpeg
        fractional[sof + 2 + 2 + 6 + 3 + 1] = 0x31   // Cb sampled 3x1 against luma's 2x2
        for (name, bytes, says) in [("two-scans", Array(jpeg[..<(jpeg.count - 2)]) + scan + [0xFF, 0xD9], "second scan"),
                                    ("fractional", fractional, "not a whole fraction")] {
            let path = NSTemporaryDirectory() + "yuvconv-\(name)-\(getpid()).jpg"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            for path_ in [JPEGPath.direct, .rgb] {
                do {
                    _ = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12, options: DecodeOptions(jpegPath: path_))
                    XCTFail("\(name): converted")
                } catch {
                    let text = "\(error)"
                    XCTAssertTrue(text.contains(says) && text.contains("(libjpeg: "), "\(name), \(path_): \(text)")
                }
            }
        }
    }

    /// Warning kinds, the decoder's rule in Swift: decimal numbers are wildcards, a marker is part of the kind, the
    /// eight restart markers are one; a "0x" inside a decimal number ("640x480") is no hexadecimal number, as the
    /// decoder reads it.
    func testWarningKindsFollowTheDecodersRule() {
        func same(_ a: String, _ b: String) -> Bool { WarningKind(text: a).sameKind(as: WarningKind(text: b)) }
        XCTAssertTrue(same("12 bytes before marker 0xdb", "3 bytes before marker 0xdb"))
        XCTAssertFalse(same("12 bytes before marker 0xdb", "12 bytes before marker 0xc4"))
        XCTAssertTrue(same("6 bytes left before marker 0xd0", "1 bytes left before marker 0xd7"))
        XCTAssertFalse(same("6 bytes left before marker 0xd7", "6 bytes left before marker 0xd8"))
        XCTAssertFalse(same("6 bytes left before marker 0xd0", "6 bytes left before marker 0xd9"))
        XCTAssertTrue(same("a 640x480 picture", "a 640x360 picture"))
        XCTAssertFalse(same("at 0x0123456789abcdef01", "at 0x0123456789abcdef02"))
    }
}
