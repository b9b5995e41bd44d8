import XCTest
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
}
