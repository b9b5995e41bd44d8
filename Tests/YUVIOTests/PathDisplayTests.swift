import XCTest
import YUVIO

/// How messages and reports show a file name: every shown name stands for one name.
final class PathDisplayTests: XCTestCase {
    /// A signal that ends a batch while an output is being named (its temporary name refused, so that the
    /// handlers can remove every name made) is said as an interrupted decode is, on the input's line — not as
    /// "cannot write …: cannot name the file: Interrupted system call" (a hostile round's signal race).
    func testInterruptWhileNamingIsSaidAsAnInterrupt() {
        XCTAssertEqual(FileError(input: "sb/j12.jpg", writing: "so/j12.nv12", .interrupted).description,
                       "sb/j12.jpg: interrupted before it was finished (nothing written)")
        XCTAssertEqual(FileError(input: "a.jpg", writing: "a.nv12", .system("No space left on device")).description,
                       "a.jpg: cannot write a.nv12: No space left on device")
    }

    /// A file's error is one line whatever it quotes from the file: a Y4M header split by tabs showed its raw
    /// tabs (a hostile round), a decoder's text could end a line. Tabs, newlines and every other control are
    /// `\xNN` in the reason, in messages and reports alike.
    func testAFileErrorQuotesTheFileOnOneLine() {
        let e = FileError(path: "t.y4m", .decoder("its header starts \"YUV4MPEG2\tW3\", not\n\u{1B}[2J\r"))
        XCTAssertEqual(e.reason, "its header starts \"YUV4MPEG2\\x09W3\", not\\x0A\\x1B[2J\\x0D")
        XCTAssertEqual(e.description, "t.y4m: " + e.reason)
        XCTAssertEqual(FileError(path: "a", reason: "plain words").reason, "plain words")
    }

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

    /// Names as file systems that do not tell case apart compare them (`caseFolded`): `σ` and `ς` are one name on
    /// exFAT (both `Σ` in its table), which Unicode's lower case kept apart — two outputs so named passed the
    /// plan, and with --force one was written over the other; `ß` and `ss` stay two.
    func testCaseFoldingIsUpperThenLowerCaseOfEachLetter() {
        XCTAssertEqual(caseFolded("ΣσςÉéKk.PNG"), "σσσéékk.png")
        XCTAssertEqual(caseFolded("\u{212A}elvin"), "kelvin")
        XCTAssertNotEqual(caseFolded("ß.png"), caseFolded("ss.png"))
        XCTAssertEqual(caseFolded("İ"), "İ", "a letter whose lower case is two is kept")
        XCTAssertEqual(caseFolded("Ab\u{0}\u{7F}/Z"), "ab\u{0}\u{7F}/z")
    }
}
