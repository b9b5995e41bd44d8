import Foundation
import TestSupport
import XCTest
import YUVCore

/// A CMYK JPEG with its own profile goes through it (LittleCMS, relative colorimetric, to the target RGB
/// space) as the decoder hands out rows; without colour management, the profile-less ink model.
final class CMYKProfileTests: CLITestCase {
    var input: String { fixturesURL.appendingPathComponent("colour/kodim23-cmyk.jpg").path }

    /// The bytes: those of LittleCMS's unoptimised transform, which equals its double-precision one on every
    /// sample of this file (`ColourManagementTests.testCMYKProfileIsWithinOneOfTheDoublePrecisionReference`).
    /// Pillow's default, LittleCMS's optimised 8-bit transform, is up to 4 off on 17% of its samples.
    func testTheEmbeddedProfileIsApplied() throws {
        let out = work.appendingPathComponent("o.nv12"), off = work.appendingPathComponent("off.nv12")
        let report = work.appendingPathComponent("r.json")
        let r = try run([input, "-o", out.path, "-q", "--report", "json", "--report-file", report.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Checksum.crc32Hex(try Data(contentsOf: out)), "271d83da")
        let json = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(json.contains("\"color_management\": \"yuvconv test CMYK (CMYK) → sRGB\""), json)
        XCTAssertEqual(try run([input, "-o", off.path, "-q", "--color-management", "off"]).status, 0)
        XCTAssertEqual(Checksum.crc32Hex(try Data(contentsOf: off)), "f5d4012b")
    }

    /// `--jpeg-path direct` asked for a JPEG that must go through RGB all the same (colour management, a CMYK
    /// sampling) draws a warning giving the file's reason, with `-q` too (it was dropped there, as no warning is),
    /// and from `report` as from a conversion; without the option, or for a JPEG that stays direct, nothing is said.
    func testAnExplicitDirectPathThatCannotBeTakenIsSaid() throws {
        let p3 = fixturesURL.appendingPathComponent("colour/kodim23-p3.jpg").path
        let plain = packageRoot.appendingPathComponent("Fixtures/corpus/jpeg/jpeg-decoder/mozilla/jpg-cmyk-1.jpg").path
        let direct = packageRoot.appendingPathComponent("Fixtures/corpus/jpeg/pillow/hopper.jpg").path
        let cases: [(String, [String], String?)] = [
            (p3, ["--jpeg-path", "direct"], "colour management (Display P3 → sRGB) works on RGB: decoded to RGB, not converted from its planes (--jpeg-path direct)"),
            (plain, ["--jpeg-path", "direct"], "its sampling (CMYK) has no direct path: decoded to RGB"),
            (p3, [], nil), (direct, ["--jpeg-path", "direct"], nil), (p3, ["--jpeg-path", "direct", "--color-management", "off"], nil)]
        for (input, options, said) in cases {
            for command in [[input, "-o", work.appendingPathComponent("o.nv12").path, "--force"],
                            [input, "-o", work.appendingPathComponent("o.nv12").path, "--force", "-q"], ["report", input]] {
                let r = try run(command + options)
                XCTAssertEqual(r.status, 0, r.stderr)
                if let said { XCTAssertTrue(r.stderr.contains("warning: \(input): \(said)"), "\(command): \(r.stderr)") }
                else { XCTAssertFalse(r.stderr.contains("--jpeg-path direct"), r.stderr) }
            }
            // Counted in the report as every warning is (it was said on the terminal only, "warnings": 0).
            let r = try run(["report", input, "--report", "json"] + options)
            let line = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            if let said {
                XCTAssertEqual(j["warnings"] as? Int, 1, line)
                XCTAssertTrue((j["first_warning"] as? String ?? "").contains(said), line)
            } else {
                XCTAssertFalse((j["first_warning"] as? String ?? "").contains("--jpeg-path direct"), line)
            }
        }
    }

    /// A CMYK JPEG without a profile converts as before, and says nothing about colour.
    func testWithoutAProfileTheInkModelIsUsed() throws {
        let plain = packageRoot.appendingPathComponent("Fixtures/corpus/jpeg/jpeg-decoder/mozilla/jpg-cmyk-1.jpg").path
        let out = work.appendingPathComponent("o.nv12"), off = work.appendingPathComponent("off.nv12")
        XCTAssertEqual(try run([plain, "-o", out.path, "-q"]).status, 0)
        XCTAssertEqual(try run([plain, "-o", off.path, "-q", "--color-management", "off"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: off))
    }

    /// A CMYK profile LittleCMS cannot read (its signature damaged): a warning naming it, and the colours
    /// converted as without colour management; the plan is never left to chance.
    func testAnUnreadableCMYKProfileIsAWarning() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        let marker = try XCTUnwrap(bytes.range(of: Data("ICC_PROFILE\u{0}".utf8)))
        let signature = marker.lowerBound + 14 + 36                      // 'acsp' in the profile's header
        XCTAssertEqual(bytes[signature..<(signature + 4)], Data("acsp".utf8))
        bytes.replaceSubrange(signature..<(signature + 4), with: Data("xxxx".utf8))
        let bad = work.appendingPathComponent("bad.jpg")
        try bytes.write(to: bad)
        let out = work.appendingPathComponent("o.nv12"), off = work.appendingPathComponent("off.nv12")
        let r = try run([bad.path, "-o", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("bad.jpg: the embedded ICC profile cannot be read"), r.stderr)
        XCTAssertEqual(try run([bad.path, "-o", off.path, "-q", "--color-management", "off"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: off))
    }
}
