import Foundation
import TestSupport
import XCTest

/// `--chroma-filter box|sharp` through the built tool.
final class ChromaFilterTests: CLITestCase {
    let photo = fixture("photos/kodim23.png")

    func bytes(_ name: String) throws -> Data { try Data(contentsOf: work.appendingPathComponent(name)) }

    /// `--chroma-filter box` is the default, byte for byte, in every format; sharp is something else, the same
    /// twice, and the same with the scalar reference rows.
    func testBoxIsTheDefaultAndSharpIsDeterministic() throws {
        for out in ["a.nv12", "a.yuv", "a.y4m", "a.png"] {
            XCTAssertEqual(try run([photo, "-o", "default-" + out, "-q"]).status, 0)
            XCTAssertEqual(try run([photo, "-o", "box-" + out, "--chroma-filter", "box", "-q"]).status, 0)
            XCTAssertEqual(try bytes("box-" + out), try bytes("default-" + out), out)
        }
        XCTAssertEqual(try run([photo, "-o", "s1.nv12", "--chroma-filter", "sharp", "-q"]).status, 0)
        XCTAssertEqual(try run([photo, "-o", "s2.nv12", "--chroma-filter=sharp", "-q"]).status, 0)
        let reference = try launch(binary, [photo, "-o", "s3.nv12", "--chroma-filter", "sharp", "-q"],
                                   environment: ["YUV_FORCE_REFERENCE": "1"], stdin: .null)
        XCTAssertEqual(reference.status, 0)
        XCTAssertNotEqual(try bytes("s1.nv12"), try bytes("default-a.nv12"))
        XCTAssertEqual(try bytes("s1.nv12"), try bytes("s2.nv12"))
        XCTAssertEqual(try bytes("s1.nv12"), try bytes("s3.nv12"))
        let line = try run([photo, "-o", "s4.nv12", "--chroma-filter", "sharp"]).stderr
        XCTAssertTrue(line.contains("RGB, sharp chroma, buffers"), line)
    }

    /// 10-bit outputs refuse it (exit 2, naming the option); an unknown filter is a usage error too.
    func testRefusals() throws {
        for args in [["-o", "a.p010"], ["-o", "a.yuv420p10le"], ["-o", "a.y4m", "--depth", "10"],
                     ["-o", "a.nv12", "--format", "p010"]] {
            let r = try run([photo, "--chroma-filter", "sharp"] + args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains("--chroma-filter sharp"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent(args[1]).path))
        }
        let report = try run(["report", photo, "--format", "p010", "--chroma-filter", "sharp"])
        XCTAssertEqual(report.status, 2)
        XCTAssertTrue(report.stderr.contains("--chroma-filter sharp"), report.stderr)
        let batch = try run([photo, fixture("photos/rocket.jpg"), "-o", "out/", "--name", "{stem}.p010", "--chroma-filter", "sharp"])
        XCTAssertEqual(batch.status, 2, batch.stderr)
        let unknown = try run([photo, "-o", "a.nv12", "--chroma-filter", "blur"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown chroma filter 'blur' (box, sharp)"), unknown.stderr)
        // A named FIFO, whose kind its first bytes tell, is refused before its writer is let in, with --size too
        // (a tester's: with --size it was taken for raw YUV unread, the option ignored with a warning, and a PNG
        // written into it read as raw planes). No writer here: the refusal comes without one.
        XCTAssertEqual(mkfifo(work.appendingPathComponent("ff").path, 0o600), 0)
        for size in [[], ["-s", "64x64"], ["-s", "64x64", "--pix-fmt", "nv12"]] {
            let fifo = try run(["ff", "-o", "f.p010", "--chroma-filter", "sharp"] + size)
            XCTAssertEqual(fifo.status, 2, "\(size): \(fifo.stderr)")
            XCTAssertTrue(fifo.stderr.contains("--chroma-filter sharp writes 8-bit layouts"), fifo.stderr)
            // Its dry run says the same (it listed the run as converting, exit 0), and no warning calls it a JPEG or
            // PNG that ignores --size: its kind is not known.
            let dry = try run(["ff", "-o", "f.p010", "--chroma-filter", "sharp", "-n"] + size)
            XCTAssertEqual(dry.status, 2, "\(size): \(dry.stderr)")
            XCTAssertFalse(fifo.stderr.contains("ignores it"), fifo.stderr)
        }
        // A dry run of a FIFO run that would go ahead predicts the raw route its name or --size asks for, and makes
        // that route's checks, with the run's exit status (a reviewer: it listed these as converting, exit 0).
        XCTAssertEqual(mkfifo(work.appendingPathComponent("in.nv12").path, 0o600), 0)
        for (args, says) in [(["in.nv12", "-o", "out.i420"], "raw YUV needs --size"),
                             (["ff", "-s", "16x16", "-o", "out.nv12", "--report", "json"], "--report and --metrics measure")] {
            let dry = try run(args + ["-n"])
            XCTAssertEqual(dry.status, 2, "\(args): \(dry.stderr)")
            XCTAssertTrue(dry.stderr.contains(says), "\(args): \(dry.stderr)")
        }
        try Data().write(to: work.appendingPathComponent("there.nv12"))
        let there = try run(["ff", "-s", "64x64", "-o", "there.nv12"])
        XCTAssertEqual(there.status, 1, there.stderr)
        XCTAssertFalse(there.stderr.contains("--size applies to raw YUV input"), there.stderr)
        // Box is fine at 10 bits.
        XCTAssertEqual(try run([photo, "-o", "b.p010", "--chroma-filter", "box", "-q"]).status, 0)
    }

    /// The report says which filter made the planes and measures the round trip a player makes: bilinear
    /// RGB PSNR well above the box's with sharp (the nearest-chroma figure is not what sharp aims at).
    func testReportShowsTheBilinearGain() throws {
        func measure(_ filter: String) throws -> [String: Any] {
            let r = try run(["report", photo, "--metrics", "--report", "json", "--chroma-filter", filter])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: 10)[0])) as? [String: Any])
        }
        let box = try measure("box"), sharp = try measure("sharp")
        XCTAssertEqual(box["chroma_filter"] as? String, "box")
        XCTAssertEqual(sharp["chroma_filter"] as? String, "sharp")
        let b = try XCTUnwrap(box["psnr_rgb_bilinear_db"] as? Double), s = try XCTUnwrap(sharp["psnr_rgb_bilinear_db"] as? Double)
        XCTAssertGreaterThan(s, b + 2, "sharp \(s) dB, box \(b) dB")
        XCTAssertEqual(box["psnr_rgb_db"] as? Double ?? 0, 42.2, accuracy: 0.05, "the nearest round trip keeps its meaning")
        // The gain per image in one run: a sharp conversion measures the box's planes of the same RGB too (two
        // runs were needed). The same figure as the box run's own, to the digit.
        XCTAssertEqual(sharp["psnr_rgb_bilinear_box_db"] as? Double, b)
        XCTAssertEqual(try XCTUnwrap(sharp["sharp_gain_db"] as? Double), s - b, accuracy: 0.0002)
        XCTAssertTrue(box["psnr_rgb_bilinear_box_db"] is NSNull && box["sharp_gain_db"] is NSNull, "\(box)")
        let text = try run(["report", photo, "--metrics", "--chroma-filter", "sharp"])
        // The gain JSON gives, rounded (kodim23: 3.6399, so +3.6; the shown 48.6 less 44.9 would say +3.7).
        let gain = try XCTUnwrap(sharp["sharp_gain_db"] as? Double)
        XCTAssertTrue(String(decoding: text.stdout, as: UTF8.self).contains(String(format: "(box %.1f: sharp chroma +%.1f dB)", b, gain)),
                      String(decoding: text.stdout, as: UTF8.self))
        // Read once (standard input): not measured, said as null.
        let piped = try run(["report", "-", "--metrics", "--report", "json", "--chroma-filter", "sharp"],
                            stdin: try Data(contentsOf: URL(fileURLWithPath: photo)))
        let once = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(piped.stdout.split(separator: 10)[0])) as? [String: Any])
        XCTAssertTrue(once["psnr_rgb_bilinear_box_db"] is NSNull, "\(once)")
    }

    /// `--update` converts again when the filter changes, and not when box is named (it is the default).
    func testUpdateTellsTheFiltersApart() throws {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: work.appendingPathComponent("in/k.png").path)
        XCTAssertEqual(try run(["convert", "in/", "-o", "out/", "--update", "-q"]).status, 0)
        let box = try bytes("out/k.nv12")
        let same = try run(["convert", "in/", "-o", "out/", "--update", "--chroma-filter", "box", "--dry-run"])
        XCTAssertTrue(same.stdout.count > 0 && String(decoding: same.stdout, as: UTF8.self).hasPrefix("skip"),
                      String(decoding: same.stdout, as: UTF8.self))
        XCTAssertEqual(try run(["convert", "in/", "-o", "out/", "--update", "--chroma-filter", "sharp", "-q"]).status, 0)
        XCTAssertNotEqual(try bytes("out/k.nv12"), box)
        let again = try run(["convert", "in/", "-o", "out/", "--update", "--chroma-filter", "sharp", "--dry-run"])
        XCTAssertTrue(String(decoding: again.stdout, as: UTF8.self).hasPrefix("skip"), String(decoding: again.stdout, as: UTF8.self))
        // Kept with its figures, a sharp output's line has no comparison with the box (the manifest does not keep
        // it): said, not a silent null (a reviewer's run).
        XCTAssertEqual(try run(["convert", "in/", "-o", "m/", "--update", "--chroma-filter", "sharp", "--metrics",
                                "--report", "json", "-q"]).status, 0)
        let kept = try run(["convert", "in/", "-o", "m/", "--update", "--chroma-filter", "sharp", "--metrics", "--report", "json"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(kept.stderr.contains("1 sharp-chroma output kept as up to date has no comparison with the box filter"),
                      kept.stderr)
    }

    /// YUV input keeps its chroma: the option is ignored there, with a warning.
    func testIgnoredForYUVInput() throws {
        XCTAssertEqual(try run([photo, "-o", "a.nv12", "-q"]).status, 0)
        let r = try run(["a.nv12", "-s", "768x512", "-o", "b.yuv", "--chroma-filter", "sharp"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("--chroma-filter makes chroma from RGB"), r.stderr)
    }
}
