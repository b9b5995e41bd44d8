import Foundation
import TestSupport
import XCTest

/// Outputs are labelled with the RGB space their numbers are in. An sRGB or untagged source is not transformed
/// (the contract), so with `--primaries p3` or `--matrix bt2020` (BT.2020's primaries by default) its numbers stay
/// sRGB's: they were labelled as the target — a PNG with BT.2020's profile, `color_primaries: bt2020` and
/// ffmpeg's `-color_primaries bt2020` — which every colour-managed viewer showed more saturated than the source
/// (22 dB from it). A source transformed into the target, or already in it, carries the target's label; with
/// `--color-management off` the user's --primaries says what the numbers are.
final class PrimariesLabelTests: CLITestCase {
    /// The iCCP profile's name in a PNG, "none" without one.
    func profile(_ name: String) throws -> String {
        let d = [UInt8](try Data(contentsOf: work.appendingPathComponent(name)))
        guard let i = (0..<(d.count - 4)).first(where: { d[$0..<($0 + 4)] == [0x69, 0x43, 0x43, 0x50] }) else { return "none" }
        return String(decoding: d[(i + 4)...].prefix { $0 != 0 }, as: UTF8.self)
    }

    func primaries(_ r: Result) throws -> (String, Int, String) {
        let line = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first!
        let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return (j["color_primaries"] as! String, j["cicp_primaries"] as! Int, j["ffmpeg_rawvideo_input"] as! String)
    }

    func testNumbersKeptAsSRGBAreLabelledSRGB() throws {
        let srgb = fixture("photos/kodim23.png")   // a PNG sRGB chunk
        let p3 = fixturesURL.appendingPathComponent("colour/kodim23-p3.jpg").path
        // --matrix bt2020: its primaries by default, not moved into, not claimed.
        var r = try run([srgb, "-o", "a.png", "--matrix", "bt2020", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try profile("a.png"), "none")
        r = try run([srgb, "-o", "a.nv12", "--matrix", "bt2020", "--report", "json"])
        let (name, cicp, ffmpeg) = try primaries(r)
        XCTAssertEqual(name, "bt709")
        XCTAssertEqual(cicp, 1)
        XCTAssertTrue(ffmpeg.contains("-colorspace bt2020nc -color_primaries bt709"), ffmpeg)
        XCTAssertFalse(r.stderr.contains("warning"), "the matrix's default primaries draw no warning: \(r.stderr)")
        // --primaries p3 asked for: the same, and said.
        r = try run([srgb, "-o", "b.png", "--primaries", "p3"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: \(srgb): its colours are sRGB's"), r.stderr)
        XCTAssertEqual(try profile("b.png"), "none")
        // A warning: with -q too, and from `report` as from `convert`.
        XCTAssertTrue(try run([srgb, "-o", "b2.png", "--primaries", "p3", "-q"]).stderr.contains("its colours are sRGB's"))
        XCTAssertTrue(try run(["report", srgb, "--primaries", "p3"]).stderr.contains("its colours are sRGB's"))
        // Counted as every warning is, in the report as on the terminal (it was said there with "warnings": 0),
        // and said once.
        for command in [[srgb, "-o", "b3.nv12", "--primaries", "p3", "--report", "json"],
                        ["report", srgb, "--primaries", "p3", "--report", "json"]] {
            r = try run(command)
            let line = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            XCTAssertEqual(j["warnings"] as? Int, 1, line)
            XCTAssertTrue((j["first_warning"] as? String ?? "").hasPrefix("its colours are sRGB's"), line)
            XCTAssertEqual(r.stderr.components(separatedBy: "its colours are sRGB's").count, 2, r.stderr)
        }
        // A Display P3 photo to P3 is in the target: labelled P3; to BT.2020, transformed and labelled so.
        XCTAssertEqual(try run([p3, "-o", "c.png", "--primaries", "p3", "-q"]).status, 0)
        XCTAssertEqual(try profile("c.png"), "Display P3")
        r = try run([p3, "-o", "c.nv12", "--matrix", "bt2020", "--report", "json", "-q"])
        XCTAssertEqual(try primaries(r).0, "bt2020")
        // Colour management off: the user says what the numbers are.
        r = try run([srgb, "-o", "d.nv12", "--primaries", "p3", "--color-management", "off", "--report", "json", "-q"])
        XCTAssertEqual(try primaries(r).0, "smpte432")
    }
}
