import CShims
import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// EXIF orientation (`--orientation auto`, the default): the output is the upright picture.
final class OrientationTests: XCTestCase {
    let spec601 = ConversionSpec(matrix: .bt601, range: .full)

    /// The stored planes of `image` turned by `o`, computed here with plain index arithmetic.
    static func turned(_ plane: [UInt8], width w: Int, height h: Int, _ o: Int) -> [UInt8] {
        let (ow, oh) = o >= 5 ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            for x in 0..<ow {
                let (sx, sy) = storedPosition(x, y, width: w, height: h, o)
                out[y * ow + x] = plane[sy * w + sx]
            }
        }
        return out
    }

    /// Where upright position (x, y) of a picture stored `width`×`height` with orientation `o` is stored.
    static func storedPosition(_ x: Int, _ y: Int, width w: Int, height h: Int, _ o: Int) -> (Int, Int) {
        switch o {
        case 2: return (w - 1 - x, y)
        case 3: return (w - 1 - x, h - 1 - y)
        case 4: return (x, h - 1 - y)
        case 5: return (y, x)
        case 6: return (y, h - 1 - x)
        case 7: return (w - 1 - y, h - 1 - x)
        case 8: return (w - 1 - y, x)
        default: return (x, y)
        }
    }

    /// PNG (RGB route): exif-N.png converted with the orientation applied is byte for byte the conversion
    /// of upright-N.png, which Pillow's exif_transpose made (tools/make-orientation-fixtures.py): 7×5, odd
    /// both ways, so 2×2 blocks are regrouped by every turn — only turning RGB first gets this right.
    func testPNGOrientationsEqualTheUprightPicture() throws {
        let dir = fixturesURL.appendingPathComponent("synthetic/orientation")
        for n in 1...8 {
            for spec in [ConversionSpec(), ConversionSpec(matrix: .bt2020, range: .limited)] {
                let c = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: spec, layout: .nv12)
                let u = try convertFile(path: dir.appendingPathComponent("upright-\(n).png").path, spec: spec, layout: .nv12)
                XCTAssertEqual(c.info.orientation, n)
                XCTAssertEqual(c.report.orientation.exif, n)
                XCTAssertEqual(c.image.width, n >= 5 ? 5 : 7, "orientation \(n)")
                XCTAssertEqual(c.image.bytes, u.image.bytes, "orientation \(n) \(spec)")
                // Ignored: the stored picture, as yuvref converts it.
                let stored = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: spec,
                                             layout: .nv12, options: DecodeOptions(orientation: .ignore))
                let reference = try convertFile(path: dir.appendingPathComponent("exif-1.png").path, spec: spec, layout: .nv12)
                XCTAssertEqual(stored.image.bytes, reference.image.bytes)
                XCTAssertTrue(stored.report.orientation.isIdentity)
            }
        }
    }

    /// JPEG direct path: with bt601 full on a 4:2:0 JPEG of even size every plane is the decoder's plane
    /// turned, exactly (2×2 chroma blocks map onto 2×2 blocks).
    func testJPEGDirectPathTurnsTheDecoderPlanes() throws {
        for n in [2, 3, 5, 6, 8] {
            let path = fixture("jpeg/pillow/hopper_orientation_\(n).jpg")
            let up = try convertFile(path: path, spec: spec601, layout: .yuv420p)
            let st = try convertFile(path: path, spec: spec601, layout: .yuv420p, options: DecodeOptions(orientation: .ignore))
            XCTAssertEqual(up.report.path, "direct YCbCr")
            XCTAssertEqual(up.info.orientation, n)
            let (w, h) = (st.image.width, st.image.height), cw = (w + 1) / 2, ch = (h + 1) / 2
            XCTAssertEqual(Array(up.image.yPlane), Self.turned(Array(st.image.yPlane), width: w, height: h, n), "Y \(n)")
            XCTAssertEqual(up.image.uPlane, Self.turned(st.image.uPlane, width: cw, height: ch, n), "U \(n)")
            XCTAssertEqual(up.image.vPlane, Self.turned(st.image.vPlane, width: cw, height: ch, n), "V \(n)")
        }
    }

    /// A JPEG's bytes with an EXIF APP1 holding orientation `n` put after its SOI.
    static func withOrientation(_ jpeg: [UInt8], _ n: Int) -> [UInt8] {
        let tiff: [UInt8] = Array("Exif\0\0MM\0*".utf8) + [0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                                                              0, UInt8(n), 0, 0, 0, 0, 0, 0]
        let length = tiff.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + tiff + Array(jpeg[2...])
    }

    /// An odd-sized 4:2:0 JPEG (227×149) turned by each orientation: a turn that reverses an odd axis would put
    /// the decoder's chroma a luma pixel off the upright picture's grid (its samples cover columns 0–1, 2–3, …
    /// from the stored edge), so the default path must come as close to the RGB route as the unturned picture
    /// does. Before, orientations 2, 3, 4, 6, 7 and 8 fell 7–9 dB short in chroma, on the direct path.
    func testOddSizedJPEGTurnsKeepTheChromaGrid() throws {
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/libjpeg-turbo/testimgfst100.jpg"))))
        func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
            let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
            return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-odd-turns-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var unturned = (u: 0.0, v: 0.0)
        for n in 1...8 {
            let path = dir.appendingPathComponent("o\(n).jpg").path
            try Data(Self.withOrientation(source, n)).write(to: URL(fileURLWithPath: path))
            let d = try convertFile(path: path, spec: ConversionSpec(), layout: .yuv420p)
            let r = try convertFile(path: path, spec: ConversionSpec(), layout: .yuv420p, options: DecodeOptions(jpegPath: .rgb))
            XCTAssertEqual(d.info.orientation, n)
            XCTAssertEqual(d.image.width, n >= 5 ? 149 : 227)
            let (u, v) = (psnr(d.image.uPlane, r.image.uPlane), psnr(d.image.vPlane, r.image.vPlane))
            if n == 1 { unturned = (u, v) }
            XCTAssertGreaterThanOrEqual(u, unturned.u - 1, "orientation \(n): U \(u) dB from the RGB route, unturned \(unturned.u)")
            XCTAssertGreaterThanOrEqual(v, unturned.v - 1, "orientation \(n): V \(v) dB from the RGB route, unturned \(unturned.v)")
        }
    }

    /// The corpus's hopper set: every orientation comes out close to the unrotated hopper.jpg (they are
    /// separate encodings, so not equal); the stored one, not turned, is far from it.
    func testHopperSetComesOutUpright() throws {
        let base = fixturesURL.appendingPathComponent("corpus/jpeg/pillow")
        let reference = try convertFile(path: base.appendingPathComponent("hopper.jpg").path, spec: ConversionSpec(), layout: .nv12)
        func psnr(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Double {
            let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
            return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
        }
        for n in [2, 3, 5, 6, 8] {
            let path = base.appendingPathComponent("hopper_orientation_\(n).jpg").path
            for jpegPath in JPEGPath.allCases {
                let c = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12, options: DecodeOptions(jpegPath: jpegPath))
                XCTAssertEqual(c.image.width, reference.image.width)
                XCTAssertGreaterThanOrEqual(psnr(c.image.yPlane, reference.image.yPlane), 25, "orientation \(n) \(jpegPath)")
                let raw = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12,
                                          options: DecodeOptions(jpegPath: jpegPath, orientation: .ignore))
                XCTAssertLessThan(psnr(raw.image.yPlane, reference.image.yPlane), 20, "orientation \(n) \(jpegPath) stored")
            }
        }
        // 2×1 stored with orientation 8: a 1×2 picture.
        let r = try convertFile(path: base.appendingPathComponent("orientation_rectangle.jpg").path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual([r.image.width, r.image.height], [1, 2])
    }

    /// The parser never reads past its data; it takes the first value of any integer type (Exif's SHORT, and the
    /// LONG, signed, BYTE and several-valued tags writers also make, as Pillow, ImageMagick and exiftool read
    /// them: those were dropped without a word, the picture left unturned), and nothing else.
    func testExifParserOnMalformedData() {
        XCTAssertEqual(exifOrientation([]), 1)
        XCTAssertEqual(exifOrientation(Array("II*\0".utf8)), 1)
        // Little-endian, IFD at 8, one entry: 0x0112 SHORT ×1 = 6.
        let le: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        XCTAssertEqual(exifOrientation(le), 6)
        let be: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0]
        XCTAssertEqual(exifOrientation(be), 8)
        XCTAssertEqual(exifOrientation(Array(le.prefix(20))), 1, "entry cut short")
        var bad = le; bad[18] = 9
        XCTAssertEqual(exifOrientation(bad), 1, "out of range")
        var two = le; two[14] = 2
        XCTAssertEqual(exifOrientation(two), 6, "SHORT ×2, in the entry: the first")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [4, 0, 1, 0, 0, 0, 6, 0, 0, 0]), 6, "LONG")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [8, 0, 1, 0, 0, 0, 6, 0, 0, 0]), 6, "SSHORT")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [1, 0, 1, 0, 0, 0, 6, 0, 0, 0]), 6, "BYTE")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [9, 0, 1, 0, 0, 0, 0xFA, 0xFF, 0xFF, 0xFF]), 1, "SLONG −6")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [2, 0, 2, 0, 0, 0, 0x36, 0, 0, 0]), 1, "ASCII \"6\"")
        // SHORT ×3 (six bytes): at the offset in the entry, 22 here.
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 3, 0, 0, 0, 22, 0, 0, 0, 7, 0, 1, 0, 1, 0]), 7, "SHORT ×3")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 3, 0, 0, 0, 21, 0, 0, 0, 7]), 1, "its values past the end")
        // All of a tag's values must be within the data, not only its first (exiftool, Pillow and ImageMagick drop
        // the tag; a reviewer's files were turned): SHORT ×3 with one value there, and ×(2^32 − 1) with one.
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 3, 0, 0, 0, 22, 0, 0, 0, 6, 0]), 1, "SHORT ×3, one value there")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 0xFF, 0xFF, 0xFF, 0xFF, 22, 0, 0, 0, 6, 0]), 1,
                       "SHORT ×(2^32 − 1), one value there")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 22, 0, 0, 0, 6, 0]), 1,
                       "BYTE ×(2^32 − 1), two there")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 3, 0, 0, 0, 22, 0, 0, 0, 6, 0, 1, 0, 1, 0]), 6,
                       "SHORT ×3, all there")
        XCTAssertEqual(exifOrientation(Array(le[0..<12]) + [3, 0, 0, 0, 0, 0, 6, 0, 0, 0]), 1, "no value")
        var far = le; far[4] = 0xF0
        XCTAssertEqual(exifOrientation(far), 1, "IFD offset past the end")
        var many = le; many[8] = 0xFF; many[9] = 0xFF
        XCTAssertEqual(exifOrientation(many), 6, "found before the entry count runs out of data")
    }

    /// An orientation tag that holds no orientation (9, or a text) is said when orientations are applied (not with
    /// `--orientation ignore`, where every picture is as stored), and the picture converted as stored.
    func testAnOrientationTagWithoutAnOrientationIsAWarning() throws {
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/pillow/hopper.jpg"))))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-orientation-9-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (n, warned) in [(9, true), (6, false)] {
            try Data(Self.withOrientation(source, n)).write(to: URL(fileURLWithPath: path))
            let d = try ImageDecoder(source: try InputSource(path: path, maxPixels: 1 << 30), raw: false)
            XCTAssertEqual(d.info.orientation, n == 9 ? 1 : 6)
            XCTAssertEqual(d.info.orientationUnusable, warned ? .exif : nil)
            for (mode, said) in [(OrientationMode.auto, warned), (.ignore, false)] {
                let r = try convertFile(path: path, spec: ConversionSpec(), layout: .nv12,
                                        options: DecodeOptions(orientation: mode))
                XCTAssertEqual(r.report.firstWarning.contains("the orientation tag holds no orientation from 1 to 8"), said,
                               "\(n) \(mode): \(r.report.firstWarning)")
            }
        }
    }

    /// The XMP parser takes an integer 1…8 as the whole value, in either quote or as an element, and nothing inside a
    /// comment: 0 when there is no property, −1 when it holds no orientation.
    func testXMPParserTakesOnlyAWholeValue() {
        func x(_ text: String) -> Int { xmpOrientation(Array(text.utf8)) }
        XCTAssertEqual(x("<d tiff:Orientation=\"6\"/>"), 6)
        XCTAssertEqual(x("<d tiff:Orientation = '3'/>"), 3)
        XCTAssertEqual(x("<tiff:Orientation> 8 </tiff:Orientation>"), 8)
        XCTAssertEqual(x("<d tiff:Orientation=\"6x\"/>"), -1, "not a whole value")
        XCTAssertEqual(x("<d tiff:Orientation=\"66\"/>"), -1, "two digits")
        XCTAssertEqual(x("<tiff:Orientation>6x</tiff:Orientation>"), -1, "not a whole element")
        XCTAssertEqual(x("<!-- tiff:Orientation=\"6\" --><d/>"), 0, "in a comment")
        XCTAssertEqual(x("<!-- c --><d tiff:Orientation=\"5\"/>"), 5, "after a comment")
        XCTAssertEqual(x("<!-- tiff:Orientation=\"6\""), 0, "an unclosed comment")
        XCTAssertEqual(x("tiff:Orientation=\"6"), 0, "cut short")
        // An integer as XML Schema's integer type allows one; a value that is there but holds no
        // orientation is −1, said as EXIF's is (before, 1 and nothing said).
        XCTAssertEqual(x("<d tiff:Orientation=\" 6\"/>"), 6, "spaces around it")
        XCTAssertEqual(x("<d tiff:Orientation=\"06\"/>"), 6, "a leading zero")
        XCTAssertEqual(x("<tiff:Orientation>0003</tiff:Orientation>"), 3, "leading zeros in text")
        XCTAssertEqual(x("<d tiff:Orientation=\"+6\"/>"), 6, "a leading plus")
        XCTAssertEqual(x("<tiff:Orientation>6 7</tiff:Orientation>"), -1, "two values (more below, testXMPParserReadsTheMarkup)")
    }

    /// The XMP parser reads the markup, not the bytes: the property's name only where a property's name can be, in
    /// TIFF's namespace; the first one found decides.
    func testXMPParserReadsTheMarkup() {
        func x(_ text: String) -> Int { xmpOrientation(Array(text.utf8)) }
        let ns = "xmlns:t=\"http://ns.adobe.com/tiff/1.0/\""
        // What a byte search found (each turned the picture before).
        XCTAssertEqual(x("<d dc:title=\"how to set tiff:Orientation='3'\"/>"), 0, "inside another attribute's value")
        XCTAssertEqual(x("<d><![CDATA[<tiff:Orientation>3</tiff:Orientation>]]></d>"), 0, "in a CDATA section")
        XCTAssertEqual(x("<d>&lt;tiff:Orientation>3&lt;/tiff:Orientation></d>"), 0, "escaped in text")
        XCTAssertEqual(x("<d xmlns:mytiff=\"urn:x\" mytiff:Orientation=\"3\"/>"), 0, "a prefix ending in tiff")
        XCTAssertEqual(x("<d tiff:Orientation=\"9\"/><e tiff:Orientation=\"6\"/>"), -1, "the first, malformed, decides")
        XCTAssertEqual(x("<d tiff:Orientation=\"9\" tiff:Orientation=\"6\"/>"), -1, "the first in a tag decides")
        // Namespaces: any prefix bound to TIFF's, declared before or in the same tag; `tiff` unless bound elsewhere.
        XCTAssertEqual(x("<d \(ns) t:Orientation=\"6\"/>"), 6)
        XCTAssertEqual(x("<d t:Orientation=\"6\" \(ns)/>"), 6, "declared later in the same tag")
        XCTAssertEqual(x("<d \(ns)><t:Orientation>7</t:Orientation></d>"), 7)
        XCTAssertEqual(x("<d t:Orientation=\"6\"/><e \(ns)/>"), 0, "declared after it")
        XCTAssertEqual(x("<d xmlns:tiff=\"urn:other\" tiff:Orientation=\"6\"/>"), 0, "tiff bound to another URI")
        XCTAssertEqual(x("<d xmlns:tiff=\"urn:other\"><tiff:Orientation>6</tiff:Orientation></d>"), 0)
        XCTAssertEqual(x("<d xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\" tiff:Orientation=\"6\"/>"), 6)
        // Values hold '>' and the other quote; tags close themselves; markup cut short says nothing.
        XCTAssertEqual(x("<d a=\"x > y\" b='say \"tiff:Orientation=\"3\"' tiff:Orientation=\"4\"/>"), 4)
        XCTAssertEqual(x("<d a=\"it's > tiff:Orientation='3'\"/><e tiff:Orientation='2'/>"), 2)
        XCTAssertEqual(x("<d/><e/><f tiff:Orientation='5'/>"), 5, "self-closing tags")
        // A character reference is the character, as an XML reader decodes it (a hostile round's "&#54;").
        XCTAssertEqual(x("<d tiff:Orientation=\"&#54;\"/>"), 6, "decimal")
        XCTAssertEqual(x("<d tiff:Orientation='&#x37;'/>"), 7, "hexadecimal")
        XCTAssertEqual(x("<d tiff:Orientation='&#0000056;'/>"), 8, "leading zeros")
        // Leading zeros past the length a reference may have are still no digits (exiftool reads 6; refused before).
        XCTAssertEqual(x("<d tiff:Orientation='&#000000000054;'/>"), 6, "many leading zeros")
        XCTAssertEqual(x("<d tiff:Orientation='&#x000000000036;'/>"), 6, "many leading zeros, hexadecimal")
        XCTAssertEqual(x("<d tiff:Orientation='&#" + String(repeating: "0", count: 5000) + "55;'/>"), 7)
        XCTAssertEqual(x("<d><tiff:Orientation> &#51; </tiff:Orientation></d>"), 3, "in text")
        XCTAssertEqual(x("<d><tiff:Orientation>33</tiff:Orientation></d>"), -1, "two digits in text")
        // Values that hold no orientation: −1 (said), for integers and references alike.
        for bad in ["&#57;", "&#x;", "&#;", "&#X36;", "&#x3G;", "&#54", "&54;", "&#4294967350;", "&#x1000000036;",
                    "0", "9", "", "-6", "++6", "+", "6.0", "000", "18"] {
            XCTAssertEqual(x("<d tiff:Orientation='\(bad)'/>"), -1, bad)
        }
        XCTAssertEqual(x("<tiff:Orientation/><e tiff:Orientation='5'/>"), -1, "an empty element decides")
        XCTAssertEqual(x("<d a=\"x <e tiff:Orientation='5'/>"), 0, "an unterminated value")
        XCTAssertEqual(x("<d tiff:Orientation=\"6\""), 0, "an unterminated tag")
        XCTAssertEqual(x("<d><![CDATA[ x <e tiff:Orientation='5'/>"), 0, "an unterminated CDATA section")
        XCTAssertEqual(x("<tiff:Orientation>6"), 0, "an element cut short")
        // An element's value is its whole text as an XML reader joins it (a hostile round: "6<![CDATA[1]]>" and
        // "6<b>3</b>" turned the picture by the 6 alone): CDATA is text, comments are not, a child is no value.
        let elements: [(String, Int, String)] = [
            ("6<![CDATA[1]]>", -1, "text 61"),
            ("6<b>3</b>", -1, "a child element"),
            ("6<b/>", -1, "an empty child element"),
            ("<![CDATA[6]]>", 6, "text 6, in a CDATA section"),
            (" <![CDATA[ 6]]> ", 6, "spaces around it"),
            ("6<!-- 1 -->", 6, "a comment is not text"),
            ("6<!-- x -->1", -1, "text 61 around a comment"),
            ("6<?pi 1?> ", 6, "nor is a processing instruction"),
            ("6<![CDATA[1", 0, "an unterminated CDATA section"),
            // References are decoded where they stand, whole (a review: one split by a CDATA section, a comment or
            // a processing instruction turned the picture; a digit beside one was no value).
            ("&#<![CDATA[54]]>;", -1, "a reference split by a CDATA section"),
            ("&<![CDATA[#54;]]>", -1, "a reference's start before a CDATA section"),
            ("&#5<!-- x -->4;", -1, "a reference split by a comment"),
            ("&#5<?pi?>4;", -1, "a reference split by a processing instruction"),
            ("0&#54;", 6, "a zero and a reference: 06"),
            ("&#48;6", 6, "a reference to 0 and a digit: 06"),
            ("&#32;6", 6, "a reference to a space and a digit"),
            ("&amp;#54;", -1, "an escaped ampersand: the text &#54;, no reference"),
            ("&lt;6", -1, "an entity: <6"),
        ]
        for (text, want, what) in elements {
            XCTAssertEqual(x("<tiff:Orientation>" + text + "</tiff:Orientation>"), want, what)
        }
        XCTAssertEqual(x("<tiff:Orientation>" + String(repeating: " ", count: 200) + "5"
            + String(repeating: " ", count: 200) + "</tiff:Orientation>"), 5, "long spaces")
        XCTAssertEqual(x("<tiff:Orientation>" + String(repeating: "0", count: 100) + "</tiff:Orientation>"), -1, "zeros: 0")
        // Leading zeros, any number of them, as in an attribute (a 64-byte buffer refused 70 zeros and a 6).
        XCTAssertEqual(x("<tiff:Orientation> +" + String(repeating: "0", count: 100) + "6 </tiff:Orientation>"), 6)
        XCTAssertEqual(x("<d tiff:Orientation='+" + String(repeating: "0", count: 100) + "6'/>"), 6)
        XCTAssertEqual(x("<d tiff:Orientation='0&#54;'/>"), 6, "an attribute's references decoded where they stand")
        XCTAssertEqual(x("<d tiff:Orientation='&amp;#54;'/>"), -1, "the text &#54;")
        XCTAssertEqual(x("<tiff:Orientation>0<![CDATA[0]]>0<!-- -->7</tiff:Orientation>"), 7)
        XCTAssertEqual(x("<tiff:Orientation>+</tiff:Orientation>"), -1, "a sign alone")
        XCTAssertEqual(x("<tiff:Orientation>0 6</tiff:Orientation>"), -1, "two values")
        XCTAssertEqual(x("<tiff:Orientation> 06 </tiff:Orientation>"), 6)
        XCTAssertEqual(x("<tiff:Orientation>+0</tiff:Orientation>"), -1, "zero")
        XCTAssertEqual(x("<tiff:Orientation>" + String(repeating: "1", count: 100) + "</tiff:Orientation>"), -1,
                       "text too long to be a value")
        // A CDATA section's text is literal: no character reference in it (it turned the picture by 6; a review).
        XCTAssertEqual(x("<tiff:Orientation><![CDATA[&#54;]]></tiff:Orientation>"), -1)
        XCTAssertEqual(x("<tiff:Orientation>&#54;</tiff:Orientation>"), 6, "outside one, a reference")
        // What a packet wraps its properties in is skipped.
        XCTAssertEqual(x("<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?><x:xmpmeta xmlns:x='adobe:ns:meta/'>"
            + "<rdf:Description tiff:Orientation='8'/></x:xmpmeta><?xpacket end='w'?>"), 8)
        XCTAssertEqual(x("<?pi tiff:Orientation='3'?><!DOCTYPE x [<!ENTITY e \"<d tiff:Orientation='3'/>\">]>"
            + "<d tiff:Orientation='5'/>"), 5)
    }

    /// Pillow's 2×1 `orientation_rectangle.jpg` in three parts, its Exif APP1 segments left out: SOI, the other
    /// segments before the scan, and the rest, for a test to put its own metadata between the first two.
    static func rectangleWithoutExif() throws -> (head: [UInt8], rest: [UInt8], tail: [UInt8]) {
        let jpgPath = fixturesURL.appendingPathComponent("corpus/jpeg/pillow/orientation_rectangle.jpg").path
        let jpg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpgPath)))
        var rest = [UInt8](), at = 2
        while at + 4 <= jpg.count, jpg[at] == 0xFF, jpg[at + 1] != 0xDA {
            let length = Int(jpg[at + 2]) << 8 | Int(jpg[at + 3])
            let segment = Array(jpg[at..<(at + 2 + length)])
            if !(jpg[at + 1] == 0xE1 && segment.count > 10 && Array(segment[4..<10]) == Array("Exif\0\0".utf8)) { rest += segment }
            at += 2 + length
        }
        return (Array(jpg[0..<2]), rest, Array(jpg[at...]))
    }

    /// An EXIF orientation of 1 is an orientation: XMP's (here 6) is not used over it, as Pillow and exiftool
    /// read it.
    func testEXIFOneWinsOverXMP() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-exif1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (head, rest, tail) = try Self.rectangleWithoutExif()
        // Little-endian TIFF, one entry: 0x0112 SHORT ×1 = 1.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        let exif = Array("Exif\0\0".utf8) + tiff
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            + Array("<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>".utf8)
        func app1(_ body: [UInt8]) -> [UInt8] { [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body }
        let path = work.appendingPathComponent("exif1-xmp6.jpg")
        try Data(head + app1(exif) + app1(xmp) + rest + tail).write(to: path)
        let c = try convertFile(path: path.path, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual(c.report.orientation.exif, 1)
        XCTAssertEqual(c.report.info.orientationSource, .exif)
        XCTAssertEqual([c.image.width, c.image.height], [2, 1], "stored 2×1, not turned")
    }

    /// An EXIF orientation tag whose values run past the EXIF data is dropped, as Pillow and exiftool drop it, with a
    /// warning that says so; XMP's orientation then applies, as Pillow's exif_transpose applies it (the tag was taken
    /// as one holding no orientation, and XMP was not asked).
    func testAnEXIFTagWhoseValuesRunPastTheDataIsDropped() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-exif-past-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (head, rest, tail) = try Self.rectangleWithoutExif()
        // Little-endian TIFF, one entry: 0x0112 SHORT ×(2^32 − 1) at offset 22, where one value (6) is.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 0xFF, 0xFF, 0xFF, 0xFF, 22, 0, 0, 0, 6, 0]
        let dropped = "an orientation tag's values run past its end (that tag is dropped, as Pillow and exiftool drop it)"
        XCTAssertEqual(String(cString: try XCTUnwrap(yc_exif_damage(tiff, tiff.count))), dropped)
        // Of any type (a RATIONAL ×65535), and a later orientation entry is then the tag (Pillow and exiftool: 3).
        let le: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]
        let rational = le + [1, 0, 0x12, 0x01, 5, 0, 0xFF, 0xFF, 0, 0, 22, 0, 0, 0, 6, 0]
        XCTAssertEqual(String(cString: try XCTUnwrap(yc_exif_damage(rational, rational.count))), dropped)
        XCTAssertEqual(exifOrientation(rational), 1)
        // A whole number in a RATIONAL, SRATIONAL, FLOAT or DOUBLE, or an IFD-typed (LONG) value, is that number
        // (Pillow and exiftool apply 6/1 and 6.0; they were as stored); 13/2 and a text hold none.
        func entry(_ type: UInt8, _ count: UInt8, _ field: [UInt8], _ data: [UInt8] = []) -> [UInt8] {
            le + [1, 0, 0x12, 0x01, type, 0, count, 0, 0, 0] + field + [0, 0, 0, 0] + data
        }
        XCTAssertEqual(exifOrientation(entry(5, 1, [26, 0, 0, 0], [6, 0, 0, 0, 1, 0, 0, 0])), 6, "RATIONAL 6/1")
        XCTAssertEqual(exifOrientation(entry(5, 1, [26, 0, 0, 0], [12, 0, 0, 0, 2, 0, 0, 0])), 6, "RATIONAL 12/2")
        XCTAssertEqual(exifOrientation(entry(5, 1, [26, 0, 0, 0], [13, 0, 0, 0, 2, 0, 0, 0])), 1, "RATIONAL 13/2")
        XCTAssertEqual(exifOrientation(entry(5, 1, [26, 0, 0, 0], [6, 0, 0, 0, 0, 0, 0, 0])), 1, "RATIONAL 6/0")
        XCTAssertEqual(exifOrientation(entry(10, 1, [26, 0, 0, 0], [0xFA, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])), 6,
                       "SRATIONAL −6/−1")
        XCTAssertEqual(exifOrientation(entry(11, 1, [0, 0, 0xC0, 0x40])), 6, "FLOAT 6.0")
        XCTAssertEqual(exifOrientation(entry(11, 1, [0, 0, 0xD0, 0x40])), 1, "FLOAT 6.5")
        XCTAssertEqual(exifOrientation(entry(12, 1, [26, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0x18, 0x40])), 6, "DOUBLE 6.0")
        XCTAssertEqual(exifOrientation(entry(13, 1, [6, 0, 0, 0])), 6, "IFD-typed 6")
        XCTAssertEqual(exifOrientation(entry(7, 1, [6, 0, 0, 0])), 1, "UNDEFINED")
        // An entry with no value or of a type TIFF does not define holds nothing: skipped (Pillow skips it), and a
        // later one read; said as damage. Alone, nothing: XMP may apply.
        let empty = "an orientation tag has no value, or a type TIFF does not define (that tag is skipped, as Pillow skips it)"
        for (type, count) in [(99, 1), (0, 1), (3, 0)] as [(UInt8, UInt8)] {
            let then3 = le + [2, 0, 0x12, 0x01, type, 0, count, 0, 0, 0, 6, 0, 0, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0]
            XCTAssertEqual(exifOrientation(then3), 3, "type \(type) ×\(count), then SHORT 3")
            XCTAssertEqual(String(cString: try XCTUnwrap(yc_exif_damage(then3, then3.count))), empty)
            XCTAssertEqual(yc_exif_orientation_tag(entry(type, count, [6, 0, 0, 0]), 22), 0, "type \(type) ×\(count) alone: none")
        }
        let twice = le + [2, 0, 0x12, 0x01, 3, 0, 0xFF, 0xFF, 0xFF, 0xFF, 34, 0, 0, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0]
        XCTAssertEqual(exifOrientation(twice), 3, "the entry after a dropped one")
        XCTAssertEqual(String(cString: try XCTUnwrap(yc_exif_damage(twice, twice.count))), dropped)
        let exif = Array("Exif\0\0".utf8) + tiff
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            + Array("<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>".utf8)
        func app1(_ body: [UInt8]) -> [UInt8] { [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body }
        for (withXMP, size) in [(true, [1, 2]), (false, [2, 1])] {
            let path = work.appendingPathComponent("past-\(withXMP).jpg")
            try Data(head + app1(exif) + (withXMP ? app1(xmp) : []) + rest + tail).write(to: path)
            let c = try convertFile(path: path.path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertEqual([c.image.width, c.image.height], size, "XMP \(withXMP): stored 2×1")
            if withXMP { XCTAssertEqual(c.report.info.orientationSource, .xmp) }
            XCTAssertTrue(c.report.firstWarning.contains("an orientation tag's values run past its end (that tag is dropped"),
                          c.report.firstWarning)
            XCTAssertFalse(c.report.firstWarning.contains("holds no orientation"), c.report.firstWarning)
        }
    }

    /// XMP's tiff:Orientation (Pillow and exiftool apply it) when there is no EXIF orientation: a PNG whose
    /// eXIf chunk is replaced by an XMP iTXt, and a JPEG whose Exif APP1 is replaced by an XMP APP1, convert
    /// exactly as their EXIF twins; the attribute and the element forms both count.
    func testXMPOrientationWhenThereIsNoEXIF() throws {
        let dir = fixturesURL.appendingPathComponent("synthetic/orientation")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-xmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        func xmp(_ n: Int, element: Bool) -> [UInt8] {
            let inner = element ? "<tiff:Orientation>\(n)</tiff:Orientation>" : ""
            let attr = element ? "" : " tiff:Orientation=\"\(n)\""
            return Array(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
                + "<rdf:Description xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\"\(attr)>\(inner)</rdf:Description>"
                + "</rdf:RDF></x:xmpmeta>").utf8)
        }
        for n in [3, 6, 8] {
            // PNG: chunks walked; eXIf dropped; the XMP iTXt put right after IHDR.
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("exif-\(n).png")))
            var out = Array(png[0..<8]), at = 8
            while at + 12 <= png.count {
                let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
                let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
                let chunk = Array(png[at..<(at + 12 + length)])
                if type != "eXIf" { out += chunk }
                if type == "IHDR" {
                    let body = Array("iTXt".utf8) + Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp(n, element: n == 8)
                    let len = UInt32(body.count - 4)
                    out += [UInt8(len >> 24), UInt8(len >> 16 & 255), UInt8(len >> 8 & 255), UInt8(len & 255)] + body
                    let crc = Checksum.crc32(body)
                    out += [UInt8(crc >> 24), UInt8(crc >> 16 & 255), UInt8(crc >> 8 & 255), UInt8(crc & 255)]
                }
                at += 12 + length
            }
            let xmpPNG = work.appendingPathComponent("xmp-\(n).png")
            try Data(out).write(to: xmpPNG)
            let a = try convertFile(path: xmpPNG.path, spec: ConversionSpec(), layout: .nv12)
            let b = try convertFile(path: dir.appendingPathComponent("exif-\(n).png").path, spec: ConversionSpec(), layout: .nv12)
            XCTAssertEqual(a.report.orientation.exif, n)
            XCTAssertEqual(a.image.bytes, b.image.bytes, "PNG, XMP orientation \(n)")
            // The per-image line and the text report name where it was read.
            XCTAssertEqual(a.report.info.orientationSource, .xmp)
            XCTAssertEqual(a.report.orientationText, "\(Orientation(exif: n)) (XMP \(n))")
            XCTAssertEqual(b.report.orientationText, "\(Orientation(exif: n)) (EXIF \(n))")
        }
        // JPEG: the Exif APP1 of orientation_rectangle.jpg (EXIF 8) swapped for an XMP APP1 saying 8.
        let jpgPath = fixturesURL.appendingPathComponent("corpus/jpeg/pillow/orientation_rectangle.jpg").path
        let jpg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpgPath)))
        var out = Array(jpg[0..<2]), at = 2
        while at + 4 <= jpg.count, jpg[at] == 0xFF, jpg[at + 1] != 0xDA {
            let length = Int(jpg[at + 2]) << 8 | Int(jpg[at + 3])
            let segment = Array(jpg[at..<(at + 2 + length)])
            if !(jpg[at + 1] == 0xE1 && segment.count > 10 && Array(segment[4..<10]) == Array("Exif\0\0".utf8)) { out += segment }
            at += 2 + length
        }
        let body = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmp(8, element: false)
        out += [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body + Array(jpg[at...])
        let xmpJPG = work.appendingPathComponent("xmp.jpg")
        try Data(out).write(to: xmpJPG)
        let a = try convertFile(path: xmpJPG.path, spec: ConversionSpec(), layout: .nv12)
        let b = try convertFile(path: jpgPath, spec: ConversionSpec(), layout: .nv12)
        XCTAssertEqual(a.report.orientation.exif, 8)
        XCTAssertEqual(a.image.bytes, b.image.bytes, "JPEG, XMP orientation 8")
        XCTAssertEqual(a.report.orientationText, "turned 90° anticlockwise (XMP 8)")
        XCTAssertEqual(b.report.orientationText, "turned 90° anticlockwise (EXIF 8)")
    }

    /// A JPEG without EXIF whose XMP tiff:Orientation holds no orientation is said as EXIF's is (before: converted
    /// as stored without a word); its first APP1 XMP packet decides, with the property or without, as a PNG's first
    /// XMP iTXt does (each format allows one standard packet).
    func testJPEGXMPOrientationUnusableOrInASecondPacket() throws {
        let jpgPath = fixturesURL.appendingPathComponent("corpus/jpeg/pillow/orientation_rectangle.jpg").path
        let jpg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpgPath)))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-xmp2-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: work) }
        // orientation_rectangle.jpg without its Exif APP1, with these XMP APP1 segments after the others.
        func with(_ packets: [String]) throws -> Conversion {
            var out = Array(jpg[0..<2]), at = 2
            while at + 4 <= jpg.count, jpg[at] == 0xFF, jpg[at + 1] != 0xDA {
                let length = Int(jpg[at + 2]) << 8 | Int(jpg[at + 3])
                let segment = Array(jpg[at..<(at + 2 + length)])
                if !(jpg[at + 1] == 0xE1 && segment.count > 10 && Array(segment[4..<10]) == Array("Exif\0\0".utf8)) { out += segment }
                at += 2 + length
            }
            for packet in packets {
                let body = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8)
                out += [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body
            }
            try Data(out + Array(jpg[at...])).write(to: work)
            return try convertFile(path: work.path, spec: ConversionSpec(), layout: .nv12)
        }
        let plain = "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:Description dc:format='image/jpeg'/></x:xmpmeta>"
        for bad in ["9", "0", "six"] {
            let c = try with(["<rdf:Description tiff:Orientation='\(bad)'/>"])
            XCTAssertEqual(c.report.orientation, .identity, bad)
            XCTAssertEqual(c.report.firstWarning, "XMP: tiff:Orientation holds no orientation from 1 to 8: the picture is converted as stored", bad)
        }
        let second = try with([plain, "<rdf:Description tiff:Orientation='6'/>"])
        XCTAssertEqual(second.report.orientation, .identity, "the first packet decides")
        XCTAssertEqual(second.report.firstWarning, "")
        let first = try with(["<rdf:Description tiff:Orientation=' 06'/>", "<rdf:Description tiff:Orientation='3'/>"])
        XCTAssertEqual(first.report.orientation.exif, 6, "the first packet decides")
        XCTAssertEqual(first.report.orientationText, "turned 90° clockwise (XMP 6)")
        XCTAssertEqual(try with([plain]).report.firstWarning, "", "no property: nothing to say")
        // An empty first packet (the prefix alone) is the first packet too, as an empty XMP iTXt is a PNG's.
        XCTAssertEqual(try with(["", "<rdf:Description tiff:Orientation='6'/>"]).report.orientation, .identity)
    }

    /// An Exif or XMP APP1 after a JPEG's first scan (between progressive scans, or before the end marker) comes
    /// after the orientation and colour space were decided: said once, as a PNG's eXIf or XMP after its image data
    /// is, and the picture converted as stored, on both JPEG routes. Before, it went by in silence.
    func testJPEGExifOrXMPAfterTheFirstScanIsSaid() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-late-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        func app1(_ body: [UInt8]) -> [UInt8] { [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body }
        let exif = app1(Array(Self.withOrientation([0xFF, 0xD8], 6)[6...]))
        let xmp = app1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            + Array("<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Orientation='6'/>".utf8))
        let noOrientation = app1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array("<x:xmpmeta/>".utf8))
        let baseline = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/libjpeg-turbo/testorig.jpg"))))
        let progressive = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg"))))
        // `late` put before the end marker, or before the second scan of the progressive file.
        func variants(_ late: [UInt8]) -> [(String, [UInt8])] {
            let end = baseline.count - 2
            var second = 0, scans = 0
            for i in 0..<(progressive.count - 1) where progressive[i] == 0xFF && progressive[i + 1] == 0xDA {
                scans += 1
                if scans == 2 { second = i; break }
            }
            return [("before the end marker", Array(baseline[..<end]) + late + Array(baseline[end...])),
                    ("between progressive scans", Array(progressive[..<second]) + late + Array(progressive[second...]))]
        }
        var made = 0
        func convert(_ bytes: [UInt8], _ path: JPEGPath) throws -> Conversion {
            made += 1
            let url = work.appendingPathComponent("late-\(made).jpg")
            try Data(bytes).write(to: url)
            return try convertFile(path: url.path, spec: spec601, layout: .nv12, options: DecodeOptions(jpegPath: path))
        }
        for path in [JPEGPath.direct, .rgb] {
            for (late, says) in [(exif, "an Exif segment after the first scan is not read"),
                                 (xmp, "an XMP orientation after the first scan comes too late")] {
                for ((place, bytes), (_, plain)) in zip(variants(late), variants([])) {
                    let c = try convert(bytes, path), stored = try convert(plain, path)
                    XCTAssertEqual(c.report.orientation, .identity, "\(place), \(path)")
                    XCTAssertEqual(c.image.bytes, stored.image.bytes, "\(place), \(path)")
                    XCTAssertEqual(c.report.warnings, 1, "\(place), \(path)")
                    XCTAssertTrue(c.report.firstWarning.contains(says), "\(place), \(path): \(c.report.firstWarning)")
                    // Said once, however many come.
                    XCTAssertEqual(try convert(Array(bytes[..<(bytes.count - 2)]) + late + [0xFF, 0xD9], path).report.warnings,
                                   1, "twice, \(place), \(path)")
                }
            }
            // Nothing to say of a late packet without an orientation; a late Exif after one in the header is a
            // second Exif segment, as it is there.
            for (_, bytes) in variants(noOrientation) {
                XCTAssertEqual(try convert(bytes, path).report.warnings, 0)
            }
            // An ICC profile piece (APP2) too: the colours were decided with the header.
            let p3 = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
            let icc = Array("ICC_PROFILE".utf8) + [0, 1, 1] + p3
            for (place, bytes) in variants([0xFF, 0xE2, UInt8((icc.count + 2) >> 8), UInt8((icc.count + 2) & 255)] + icc) {
                let c = try convert(bytes, path)
                XCTAssertEqual(c.report.warnings, 1, "\(place), \(path)")
                XCTAssertTrue(c.report.firstWarning.contains("an ICC profile piece after the first scan is not read"),
                              "\(place), \(path): \(c.report.firstWarning)")
            }
            // An XMP orientation in the header decides, and the late Exif's warning says the picture is converted as
            // if it were not there: it said "as stored" of a picture turned by the XMP (a reviewer's find).
            let xmp3 = app1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
                + Array("<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Orientation='3'/>".utf8))
            let end = baseline.count - 2
            let turned = try convert(Array(baseline[..<2]) + xmp3 + Array(baseline[2..<end]) + exif + Array(baseline[end...]), path)
            XCTAssertEqual(turned.report.orientation.exif, 3, "\(path)")
            XCTAssertTrue(turned.report.firstWarning.contains("converted as if the segment were not there"), turned.report.firstWarning)
            XCTAssertFalse(turned.report.firstWarning.contains("as stored"), turned.report.firstWarning)
            for (place, bytes) in variants(exif) {
                let withHeaderExif = Self.withOrientation(bytes, 3)
                let c = try convert(withHeaderExif, path)
                XCTAssertEqual(c.report.orientation.exif, 3, "\(place), \(path)")
                XCTAssertTrue(c.report.firstWarning.contains("a second Exif segment (APP1), ignored (the first one is used)"),
                              "\(place), \(path): \(c.report.firstWarning)")
            }
        }
    }

    /// A second Exif segment is said whatever its length: one shorter than XMP's 29-byte prefix (a valid 28-byte
    /// Exif segment, orientation 6 after a first saying 1) went unread, in silence.
    func testASecondExifSegmentShorterThanTheXMPPrefixIsSaid() throws {
        let baseline = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/libjpeg-turbo/testorig.jpg"))))
        let short: [UInt8] = Array("Exif\0\0II*\0".utf8) + [8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        XCTAssertEqual(short.count, 28)
        let first = Self.withOrientation(baseline, 1)
        let at = 4 + (Int(first[4]) << 8 | Int(first[5]))   // after the first APP1
        let bytes = Array(first[..<at]) + [0xFF, 0xE1, 0, UInt8(short.count + 2)] + short + Array(first[at...])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-exif2-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        for path in [JPEGPath.direct, .rgb] {
            let c = try convertFile(path: url.path, spec: spec601, layout: .nv12, options: DecodeOptions(jpegPath: path))
            XCTAssertEqual(c.report.orientation, .identity, "the first decides, \(path)")
            XCTAssertEqual(c.report.warnings, 1, "\(path)")
            XCTAssertTrue(c.report.firstWarning.contains("a second Exif segment (APP1), ignored (the first one is used)"),
                          "\(path): \(c.report.firstWarning)")
        }
        // Alone, the short segment is an Exif segment like any other: its orientation applies.
        let alone = Array(baseline[..<2]) + [0xFF, 0xE1, 0, UInt8(short.count + 2)] + short + Array(baseline[2...])
        try Data(alone).write(to: url)
        XCTAssertEqual(try convertFile(path: url.path, spec: spec601, layout: .nv12).report.orientation.exif, 6)
    }

    /// A PNG's compressed XMP iTXt (flag 1) is inflated and read as an uncompressed one, up to a packet of 1 MiB (a
    /// longer one is ignored, with a warning); an XMP orientation after the image data comes too late: a warning,
    /// and the picture as stored. On both PNG routes (the image data read by yuvconv, and by libpng).
    func testPNGXMPCompressedOrAfterTheImageData() throws {
        let dir = fixturesURL.appendingPathComponent("synthetic/orientation")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-xmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("exif-6.png")))
        let packet = Array(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:Description "
            + "xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\" tiff:Orientation=\"6\"/></x:xmpmeta>").utf8)
        func itxt(_ packet: [UInt8], compressed: Bool) -> [UInt8] {
            pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, compressed ? 1 : 0, 0, 0, 0]
                + (compressed ? zlibStored(packet) : packet))
        }
        // The fixture without its eXIf: `early` right after IHDR, `late` right before IEND.
        var made = 0
        func convert(early: [UInt8] = [], late: [UInt8] = []) throws -> Conversion {
            var out = pngSignature
            for c in pngChunks(png) where c.type != "eXIf" {
                if c.type == "IEND" { out += late }
                out += png[c.at..<(c.at + 12 + c.length)]
                if c.type == "IHDR" { out += early }
            }
            made += 1
            let path = work.appendingPathComponent("variant-\(made).png").path
            try Data(out).write(to: URL(fileURLWithPath: path))
            return try convertFile(path: path, spec: ConversionSpec(), layout: .nv12)
        }
        let upright = try convertFile(path: dir.appendingPathComponent("exif-6.png").path, spec: ConversionSpec(),
                                      layout: .nv12).image.bytes
        let stored = try convert()
        XCTAssertEqual(stored.report.orientation.exif, 1)
        XCTAssertEqual(stored.report.warnings, 0)
        defer { unsetenv("YUVCONV_PNG_LIBPNG") }
        for route in ["yuvconv's reader", "libpng"] {
            if route == "libpng" { setenv("YUVCONV_PNG_LIBPNG", "1", 1) }
            let compressed = try convert(early: itxt(packet, compressed: true))
            XCTAssertEqual(compressed.image.bytes, upright, "compressed, \(route)")
            XCTAssertEqual(compressed.report.warnings, 0, compressed.report.firstWarning)
            // XMP pads its packets with spaces: one of exactly 1 MiB is read, a byte more is not.
            let padded = packet + [UInt8](repeating: 32, count: (1 << 20) - packet.count)
            XCTAssertEqual(try convert(early: itxt(padded, compressed: true)).image.bytes, upright, "1 MiB, \(route)")
            let over = try convert(early: itxt(padded + [32], compressed: true))
            XCTAssertEqual(over.image.bytes, stored.image.bytes, "past 1 MiB, \(route)")
            XCTAssertEqual(over.report.warnings, 1)
            XCTAssertTrue(over.report.firstWarning.contains("inflates past 1 MiB: ignored"), over.report.firstWarning)
            for late in [itxt(packet, compressed: false), itxt(packet, compressed: true)] {
                let c = try convert(late: late)
                XCTAssertEqual(c.image.bytes, stored.image.bytes, "after the image data, \(route)")
                XCTAssertEqual(c.report.warnings, 1)
                XCTAssertTrue(c.report.firstWarning.contains("XMP orientation after the image data comes too late"),
                              c.report.firstWarning)
            }
            // Nothing to say of a late packet without an orientation, or after a packet that came in time.
            XCTAssertEqual(try convert(late: itxt(Array("<x:xmpmeta/>".utf8), compressed: false)).report.warnings, 0)
            let twice = try convert(early: itxt(packet, compressed: false), late: itxt(packet, compressed: false))
            XCTAssertEqual(twice.image.bytes, upright)
            XCTAssertEqual(twice.report.warnings, 0, twice.report.firstWarning)
            // A damaged XMP packet — a compression flag other than 0 and 1, a header cut short, no end to its
            // language tag — was dropped with its orientation unsaid; it is a warning, as a damaged eXIf is.
            let flagTwo = pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 2, 0, 0, 0] + packet)
            for (chunk, says) in [(flagTwo, "compression flag is neither 0 nor 1"),
                                  (pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0]), "header is cut short"),
                                  (pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0] + Array("en".utf8)),
                                   "has no end")] {
                let c = try convert(early: chunk)
                XCTAssertEqual(c.image.bytes, stored.image.bytes, "\(says), \(route)")
                XCTAssertEqual(c.report.warnings, 1, "\(says), \(route)")
                XCTAssertTrue(c.report.firstWarning.contains(says), c.report.firstWarning)
            }
            // A damaged packet is not the first packet: a good one after it is still read.
            let methodOne = pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 1, 1, 0, 0] + zlibStored(packet))
            for damaged in [flagTwo, methodOne] {
                let thenGood = try convert(early: damaged + itxt(packet, compressed: false))
                XCTAssertEqual(thenGood.image.bytes, upright, "a damaged packet, then a good one, \(route)")
                XCTAssertEqual(thenGood.report.warnings, 1, thenGood.report.firstWarning)
            }
            // A tRNS after the image data (out of place: not read) is said, as a late colour chunk is.
            let lateTRNS = try convert(late: pngChunk("tRNS", [0, 0, 0, 0, 0, 0]))
            XCTAssertTrue(lateTRNS.report.firstWarning.contains("tRNS after the image data: not read"),
                          lateTRNS.report.firstWarning)
        }
    }
}
