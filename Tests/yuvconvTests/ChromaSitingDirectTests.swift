import Foundation
import TestSupport
import XCTest

/// `--chroma-loc left|topleft` on a JPEG, as a user runs it: the direct path (the per-image line and the
/// report's `path`), the Y4M tag of the siting, and planes that are the direct path's, not the centre's.
final class ChromaSitingDirectTests: CLITestCase {
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: work.appendingPathComponent(name))) }

    func testSitedJPEGStaysOnTheDirectPathAndIsTagged() throws {
        let jpg = fixture("jpeg/wuffs/peacock.default.jpeg")   // 100×75 4:2:0, no profile
        let (w, h) = (100, 75), frame = w * h + 2 * 50 * 38
        XCTAssertEqual(try run([jpg, "-o", "c.yuv", "-f", "yuv420p", "-q"]).status, 0)
        for (siting, tag) in [("left", "C420mpeg2"), ("topleft", "C420paldv")] {
            let r = try run([jpg, "-o", "\(siting).y4m", "--chroma-loc", siting, "--force"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("%); direct YCbCr, buffers"), r.stderr)
            let y4m = try bytes("\(siting).y4m")
            let header = String(decoding: y4m.prefix(while: { $0 != 10 }), as: UTF8.self)
            XCTAssertEqual(header, "YUV4MPEG2 W\(w) H\(h) F1:1 Ip A1:1 \(tag) XCOLORRANGE=FULL")
            // The frame is the direct path's raw planes with that siting: luma as centre siting's, chroma moved.
            XCTAssertEqual(try run([jpg, "-o", "\(siting).yuv", "-f", "yuv420p", "--chroma-loc", siting, "-q"]).status, 0)
            let raw = try bytes("\(siting).yuv"), centre = try bytes("c.yuv")
            XCTAssertEqual(Array(y4m.suffix(frame)), raw)
            XCTAssertEqual(raw.prefix(w * h), centre.prefix(w * h))
            XCTAssertNotEqual(raw.suffix(frame - w * h), centre.suffix(frame - w * h))
            // The report names the route; --jpeg-path rgb still takes the RGB route for the exact contract.
            let report = try run(["report", jpg, "--chroma-loc", siting, "--report", "json"])
            let line = String(decoding: report.stdout.split(separator: 10)[0], as: UTF8.self)
            XCTAssertTrue(line.contains("\"path\": \"direct YCbCr\"") && line.contains("\"chroma_location\": \"\(siting)\""), line)
            let rgb = try run(["report", jpg, "--chroma-loc", siting, "--jpeg-path", "rgb", "--report", "json"])
            XCTAssertTrue(String(decoding: rgb.stdout, as: UTF8.self).contains("\"path\": \"RGB\""))
        }
    }
}
