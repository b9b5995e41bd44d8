import XCTest
import YUVIO

/// How messages and reports show a file name: every shown name stands for one name.
final class PathDisplayTests: XCTestCase {
    func testEscapesAreUnambiguous() {
        // A name holding a line feed, and one holding the four characters \x0A: they once showed alike.
        XCTAssertEqual(displayPath("a\n.jpg"), "a\\x0A.jpg")
        XCTAssertEqual(displayPath("a\\x0A.jpg"), "a\\\\x0A.jpg")
        XCTAssertEqual(displayPath("back\\slash.jpg"), "back\\\\slash.jpg")
        // A byte that is not UTF-8, a terminal's escape, and plain names untouched.
        XCTAssertEqual(displayPath(PathBytes.decode(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))), "caf\\xE9.jpg")
        XCTAssertEqual(displayPath("x\u{1B}[2J.jpg"), "x\\x1B[2J.jpg")
        XCTAssertEqual(displayPath("photo één.jpg"), "photo één.jpg")
        XCTAssertEqual(displayPath("-"), "<stdin>")
        // U+0085 (NEL, the bytes C2 85) and the lone byte 0x85: two names, two texts (both showed as \x85).
        XCTAssertEqual(displayPath("\u{85}a.png"), "\\u{85}a.png")
        XCTAssertEqual(displayPath(PathBytes.decode([0x85] + Array("a.png".utf8))), "\\x85a.png")
        XCTAssertEqual(displayPath("del\u{7F}.png"), "del\\x7F.png")
    }
}
