import Foundation
import TestSupport
import XCTest

/// 10-bit outputs and inputs through the built tool: P010, yuv420p10le and 10-bit Y4M (the bytes against
/// yuvref.py are `GoldenTests`'; ffmpeg both ways is `make test-interop`).
final class TenBitTests: CLITestCase {
    let photo = fixture("photos/kodim23.png")

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: work.appendingPathComponent(name))) }

    /// 16-bit little-endian words.
    func words(_ b: [UInt8]) -> [Int] { stride(from: 0, to: b.count, by: 2).map { Int(b[$0]) | Int(b[$0 + 1]) << 8 } }

    /// P010 and yuv420p10le hold the same values (P010 shifted up 6 bits, chroma interleaved); the file is
    /// 3 bytes a pixel and the report says so.
    func testP010AndPlanarHoldTheSameSamples() throws {
        for range in ["full", "limited"] {
            XCTAssertEqual(try run([photo, "-o", "a.p010", "--range", range, "-q", "--force"]).status, 0)
            XCTAssertEqual(try run([photo, "-o", "a.yuv420p10le", "--range", range, "-q", "--force"]).status, 0)
            let p = words(try bytes("a.p010")), q = words(try bytes("a.yuv420p10le"))
            let (w, h) = (768, 512), n = w * h, cn = n / 4
            XCTAssertEqual(p.count, n + 2 * cn)
            XCTAssertEqual(p.count * 2, w * h * 3)
            XCTAssertTrue(p.allSatisfy { $0 & 0x3F == 0 }, "P010 keeps its value in the high 10 bits")
            XCTAssertTrue(q.allSatisfy { $0 <= 1023 })
            XCTAssertEqual(p[0..<n].map { $0 >> 6 }, Array(q[0..<n]))
            for i in 0..<cn {
                XCTAssertEqual(p[n + 2 * i] >> 6, q[n + i])
                XCTAssertEqual(p[n + 2 * i + 1] >> 6, q[n + cn + i])
            }
            if range == "limited" {
                XCTAssertTrue(q[0..<n].allSatisfy { (64...940).contains($0) })
            }
        }
        let report = try run(["report", photo, "--format", "p010", "--report", "json"])
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.stdout.split(separator: 10)[0])) as? [String: Any])
        XCTAssertEqual(line["yuv_bytes"] as? Int, 768 * 512 * 3)
        XCTAssertEqual(line["layout"] as? String, "p010")
        XCTAssertTrue((line["ffmpeg_rawvideo_input"] as? String ?? "").contains("-pix_fmt p010le"))
    }

    /// A Y4M's header has no matrix, primaries or transfer: the report gives ffmpeg the tags it lacks, as for raw
    /// planes (before, the column was empty for a Y4M, and ffmpeg read it as BT.601: 34.2 dB instead of 45.6).
    func testY4MReportSaysWhatFFmpegMustBeTold() throws {
        for (args, want) in [([String](), "-color_range pc -colorspace bt709 -color_primaries bt709 -color_trc iec61966-2-1 -chroma_sample_location center"),
                             (["--depth", "10", "--matrix", "bt2020", "--range", "limited", "--chroma-loc", "topleft"],
                              // An untagged photo stays sRGB's primaries (sRGB sources are not moved into BT.2020).
                              "-color_range tv -colorspace bt2020nc -color_primaries bt709 -color_trc iec61966-2-1 -chroma_sample_location topleft")] {
            for r in [try run([photo, "-o", "a.y4m", "--force", "--report", "json"] + args),
                      try run(["report", photo, "--format", "y4m", "--report", "json"] + args)] {
                XCTAssertEqual(r.status, 0, r.stderr)
                let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: 10)[0])) as? [String: Any])
                XCTAssertEqual(line["ffmpeg_rawvideo_input"] as? String, want, "\(args)")
            }
        }
    }

    /// `--depth 10` makes a C420p10 Y4M whose frame is the yuv420p10le bytes; it reads back as the same
    /// samples; and the 10-bit frame converts to any 8-bit layout by the range's rescale (limited: ÷4).
    func testTenBitY4MWritesAndReadsBack() throws {
        XCTAssertEqual(try run([photo, "-o", "a.y4m", "--depth", "10", "--range", "limited", "-q"]).status, 0)
        XCTAssertEqual(try run([photo, "-o", "a.yuv420p10le", "--range", "limited", "-q"]).status, 0)
        let y4m = try bytes("a.y4m"), raw = try bytes("a.yuv420p10le")
        let header = String(decoding: y4m.prefix(while: { $0 != 10 }), as: UTF8.self)
        XCTAssertEqual(header, "YUV4MPEG2 W768 H512 F1:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=LIMITED")
        XCTAssertEqual(Array(y4m.suffix(raw.count)), raw)
        // Read back: the same samples as P010, and 8-bit by ⌊v/4 + ½⌋ (limited range).
        XCTAssertEqual(try run(["a.y4m", "-o", "b.yuv420p10le", "-q"]).status, 0)
        XCTAssertEqual(try bytes("b.yuv420p10le"), raw)
        XCTAssertEqual(try run(["a.y4m", "-o", "b.yuv", "-q"]).status, 0)
        let eight = try bytes("b.yuv"), ten = words(raw)
        XCTAssertEqual(eight.count, ten.count)
        XCTAssertEqual(eight, ten.map { UInt8(min(($0 + 2) >> 2, 255)) })
        // 8-bit raw to 10-bit: limited ×4 exactly, full ⌊v·1023/255 + ½⌋ (luma) and about 512 (chroma).
        XCTAssertEqual(try run(["b.yuv", "--size", "768x512", "--range", "limited", "-o", "c.yuv420p10le", "-q"]).status, 0)
        XCTAssertEqual(words(try bytes("c.yuv420p10le")), eight.map { Int($0) * 4 })
        XCTAssertEqual(try run(["b.yuv", "--size", "768x512", "--range", "full", "-o", "d.p010", "-q"]).status, 0)
        let d = words(try bytes("d.p010")).map { $0 >> 6 }
        XCTAssertEqual(Array(d[0..<10]), eight[0..<10].map { (2 * Int($0) * 1023 + 255) / 510 })
    }

    /// Chroma siting in Y4M: the tag says it (C420jpeg, C420mpeg2, C420paldv), ffmpeg's reading of it, and a
    /// Y4M read back keeps its tag; the report names it by FFmpeg's name and H.273 code point.
    func testSitingIsTaggedInY4M() throws {
        for (siting, tag, cicp) in [("center", "C420jpeg", 1), ("left", "C420mpeg2", 0), ("topleft", "C420paldv", 2)] {
            XCTAssertEqual(try run([photo, "-o", "s.y4m", "--chroma-loc", siting, "-q", "--force"]).status, 0)
            let header = String(decoding: try bytes("s.y4m").prefix(while: { $0 != 10 }), as: UTF8.self)
            XCTAssertEqual(header, "YUV4MPEG2 W768 H512 F1:1 Ip A1:1 \(tag) XCOLORRANGE=FULL")
            XCTAssertEqual(try run(["s.y4m", "-o", "t.y4m", "-q", "--force"]).status, 0)
            XCTAssertEqual(try bytes("t.y4m"), try bytes("s.y4m"), "a Y4M read back keeps its siting")
            let r = try run(["report", photo, "--chroma-loc", siting, "--report", "json"])
            let line = String(decoding: r.stdout.split(separator: 10)[0], as: UTF8.self)
            XCTAssertTrue(line.contains("\"chroma_location\": \"\(siting)\"") && line.contains("\"cicp_chroma_location\": \(cicp)")
                          && line.contains("-chroma_sample_location \(siting)"), line)
            // ffmpeg's scaler ignores -chroma_sample_location: the filter that tells it where the samples sit.
            let filter = ["center": "", "left": "scale=in_h_chr_pos=0:in_v_chr_pos=128",
                          "topleft": "scale=in_h_chr_pos=0:in_v_chr_pos=0"][siting]!
            XCTAssertTrue(line.contains("\"ffmpeg_filter\": \"\(filter)\""), line)
            // A JPEG output is JFIF and centre-sited whatever was asked: `report` says what `convert` makes.
            for (f, matrix) in [("jpeg", "bt601"), ("png", "bt709")] {
                let made = try run([photo, "-o", "made.\(f)", "-f", f, "--chroma-loc", siting, "--force", "-q", "--report", "json",
                                    "--report-file", "made.json"])
                XCTAssertEqual(made.status, 0, made.stderr)
                let told = try run(["report", photo, "-f", f, "--chroma-loc", siting, "--report", "json"])
                let reported = String(decoding: told.stdout.split(separator: 10)[0], as: UTF8.self)
                let wrote = String(decoding: try bytes("made.json").split(separator: 10)[0], as: UTF8.self)
                for field in ["\"matrix\": \"\(matrix)\"", "\"chroma_location\": \"center\"", "\"ffmpeg_filter\": \"\""] {
                    XCTAssertTrue(reported.contains(field) && wrote.contains(field), "\(f) \(siting) \(field): \(reported)")
                }
            }
        }
        // Siting changes the chroma, never the luma; a JPEG with another siting keeps the direct path
        // (ChromaSitingDirectTests covers it).
        XCTAssertEqual(try run([photo, "-o", "c.nv12", "-q"]).status, 0)
        XCTAssertEqual(try run([photo, "-o", "l.nv12", "--chroma-loc", "left", "-q"]).status, 0)
        let c = try bytes("c.nv12"), l = try bytes("l.nv12")
        XCTAssertEqual(c.prefix(768 * 512), l.prefix(768 * 512))
        XCTAssertNotEqual(c.suffix(768 * 256), l.suffix(768 * 256))
        let jpg = try run([fixture("jpeg/wuffs/peacock.s2x2-420.jpeg"), "-o", "j.nv12", "--chroma-loc", "left"])
        XCTAssertTrue(jpg.stderr.contains("%); direct YCbCr, buffers"), jpg.stderr)
    }

    /// What 10 bits cannot go into, or does not fit, is a usage error naming the option; nothing is written.
    func testDepthRefusals() throws {
        for (args, message) in [([photo, "-o", "x.jpg", "--depth", "10"], "--depth 10 writes p010, yuv420p10le, y4m or png (16-bit); jpeg is 8-bit"),
                                ([photo, "-o", "x.nv12", "--depth", "10"], "nv12 is 8-bit"),
                                ([photo, "-o", "x.p010", "--depth", "8"], "--depth 8 does not fit p010"),
                                ([photo, "-o", "x.y4m", "--depth", "12"], "--depth")] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), [])
    }

    /// `--jpeg-path auto` (the default) sends a 4:4:4 JPEG through RGB, which converts it closer to the source (on a
    /// saturated photo the direct path fell 1.3 dB behind at q95 and 2.5 dB at q99 in Cb): the bytes are the RGB
    /// route's. A subsampled one stays direct; `--jpeg-path direct` still takes 4:4:4's planes.
    func testFourFourFourTakesTheRGBRouteByDefault() throws {
        let jpg = fixture("jpeg/wuffs/peacock.s1x1-444.jpeg"), sub = fixture("jpeg/wuffs/peacock.s2x2-420.jpeg")
        let auto = try run([jpg, "-o", "a.nv12"]), rgb = try run([jpg, "-o", "r.nv12", "--jpeg-path", "rgb"])
        XCTAssertTrue(auto.stderr.contains("%); RGB, buffers"), auto.stderr)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("a.nv12")),
                       try Data(contentsOf: work.appendingPathComponent("r.nv12")), rgb.stderr)
        XCTAssertTrue(try run([jpg, "-o", "d.nv12", "--jpeg-path", "direct"]).stderr.contains("%); direct YCbCr, buffers"))
        XCTAssertTrue(try run([sub, "-o", "s.nv12"]).stderr.contains("%); direct YCbCr, buffers"))
    }

    /// A JPEG goes to 10 bits on the direct path (its planes, 10-bit scaling; `DirectPathDeepTests` holds it
    /// within 1 dB of the RGB route), and through RGB when asked.
    func testJPEGToTenBitTakesTheDirectPath() throws {
        let jpg = fixture("photos/rocket.jpg")
        let direct = try run([jpg, "-o", "a.p010", "--color-management", "off", "--jpeg-path", "direct"])   // 4:4:4: asked for
        XCTAssertTrue(direct.stderr.contains("%); direct YCbCr, buffers"), direct.stderr)
        let viaRGB = try run([jpg, "-o", "b.p010", "--color-management", "off", "--jpeg-path", "rgb"])
        XCTAssertTrue(viaRGB.stderr.contains("%); RGB, buffers"), viaRGB.stderr)
        XCTAssertEqual(try bytes("a.p010").count, try bytes("b.p010").count)
    }

    /// YUV input drawn back as PNG or JPEG is tagged with --primaries when given (it was ignored, and the tag
    /// taken from the matrix: planes made with `--primaries p3` came back untagged, `--matrix bt2020 --primaries
    /// bt709` ones tagged BT.2020); a Y4M input's siting that is not the centre is named in the per-image line.
    func testYUVInputKeepsItsPrimariesAndSaysItsSiting() throws {
        func profile(_ name: String) throws -> String {
            let d = try bytes(name)
            guard let i = (0..<(d.count - 4)).first(where: { d[$0..<($0 + 4)] == [0x69, 0x43, 0x43, 0x50] }) else { return "none" }
            return String(decoding: d[(i + 4)...].prefix { $0 != 0 }, as: UTF8.self)
        }
        XCTAssertEqual(try run([photo, "-o", "p3.nv12", "--primaries", "p3", "-q"]).status, 0)
        let back = try run(["p3.nv12", "-s", "768x512", "--primaries", "p3", "-o", "p3.png"])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertFalse(back.stderr.contains("warning"), back.stderr)
        XCTAssertEqual(try profile("p3.png"), "Display P3")
        XCTAssertEqual(try run([photo, "-o", "w.y4m", "--matrix", "bt2020", "--primaries", "bt709", "-q"]).status, 0)
        XCTAssertEqual(try run(["w.y4m", "--matrix", "bt2020", "--primaries", "bt709", "-o", "w.png", "-q"]).status, 0)
        XCTAssertEqual(try profile("w.png"), "none", "sRGB: no profile")
        XCTAssertEqual(try run(["w.y4m", "--matrix", "bt2020", "-o", "w2.png", "-q"]).status, 0)
        XCTAssertEqual(try profile("w2.png"), "BT.2020", "without --primaries, the matrix's")
        // To raw planes --primaries changes nothing, and says so.
        XCTAssertTrue(try run(["p3.nv12", "-s", "768x512", "--primaries", "p3", "-o", "p3.nv21"]).stderr.contains("--primaries"))
        XCTAssertEqual(try run([photo, "-o", "left.y4m", "--chroma-loc", "left", "-q"]).status, 0)
        let sited = try run(["left.y4m", "-o", "left.nv12"])
        XCTAssertTrue(sited.stderr.contains("(bt709 full, left-sited chroma) -> left.nv12"), sited.stderr)
    }
}
