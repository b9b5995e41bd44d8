import Foundation
import TestSupport
import XCTest
import YUVCore

/// One binary, every CPU tier: the same bytes whichever rows run (`YUVCONV_CPU` pins them), and a pin the
/// CPU cannot honour is refused before anything is written.
final class CPUTierTests: CLITestCase {
    /// JPEGs of every sampling the fixtures have (4:2:0, 4:2:2, 4:4:4, grey, progressive, arithmetic), PNGs
    /// with and without alpha, grey, palette and 16-bit.
    var inputs: [URL] {
        let root = packageRoot.appendingPathComponent("Fixtures/corpus")
        let jpeg = ["jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgint.jpg",
                    "jpeg/libjpeg-turbo/testimggray.jpg", "jpeg/libjpeg-turbo/testimgari.jpg",
                    "jpeg/pillow/hopper.jpg", "jpeg/pillow/flower.jpg", "jpeg/pillow/pil_sample_rgb.jpg",
                    "photos/rocket.jpg"]
        let png = ["photos/kodim23.png", "pngsuite/basn2c08.png", "pngsuite/basn6a08.png", "pngsuite/basn0g16.png",
                   "pngsuite/basn3p08.png", "pngsuite/basn6a16.png", "pngsuite/s39n3p04.png"]
        // Display P3 photos (colour management's fast path, yc_colour_rows, runs on the tier too), and a
        // progressive JPEG.
        let colour = ["colour/kodim23-p3.jpg", "colour/coffee-p3.jpg", "synthetic/progressive-rocket.jpg"].map { fixturesURL.appendingPathComponent($0) }
        return ((jpeg + png).map { root.appendingPathComponent($0) } + colour)
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    func testEveryTierGivesTheSameBytes() throws {
        let tiers = CPUTier.supported
        print("CPUTierTests: tiers this machine runs: \(tiers.map(\.description).joined(separator: ", "))")
        XCTAssertEqual(inputs.count, 18, "fixtures missing")
        let cases: [[String]] = [["--matrix", "bt709", "--range", "full", "--pix-fmt", "nv12"],
                                 ["--matrix", "bt601", "--range", "limited", "--pix-fmt", "yuv420p"],
                                 ["--matrix", "bt2020", "--range", "limited", "--pix-fmt", "nv21"],
                                 ["--matrix", "bt709", "--range", "limited", "--pix-fmt", "nv12", "--jpeg-path", "rgb"]]
        var compared = 0
        for input in inputs {
            for (n, options) in cases.enumerated() {
                var first: Data?
                for tier in tiers {
                    let out = work.appendingPathComponent("\(input.deletingPathExtension().lastPathComponent)-\(n)-\(tier).yuv")
                    let r = try launch(binary, [input.path, "-o", out.path, "-q"] + options,
                                       environment: ["YUVCONV_CPU": tier.description], stdin: .null)
                    XCTAssertEqual(r.status, 0, "\(input.lastPathComponent) \(options) \(tier): \(r.stderr)")
                    let bytes = try Data(contentsOf: out)
                    if let first {
                        XCTAssertTrue(bytes == first, "\(input.lastPathComponent) \(options): \(tier) differs from \(tiers[0])")
                        compared += 1
                    } else {
                        first = bytes
                    }
                }
            }
        }
        XCTAssertEqual(compared, inputs.count * cases.count * (tiers.count - 1))
    }

    func testVersionNamesTheTierInUse() throws {
        for tier in CPUTier.supported {
            let r = try launch(binary, ["--version"], environment: ["YUVCONV_CPU": tier.description], stdin: .null)
            XCTAssertEqual(r.status, 0)
            XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("kernels: \(tier) "), r.stderr)
        }
        let r = try launch(binary, ["--version"], environment: [:], stdin: .null)
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("kernels: \(CPUTier.best) "))
    }

    func testAnUnknownTierIsRefusedAndNothingIsWritten() throws {
        let input = inputs[0], out = work.appendingPathComponent("o.nv12")
        let r = try launch(binary, [input.path, "-o", out.path], environment: ["YUVCONV_CPU": "avx9000"], stdin: .null)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("YUVCONV_CPU=avx9000"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// A tier above this CPU's: refused, not run (it would die of SIGILL). Only a CPU without AVX-512 VNNI
    /// has such a tier to ask for; one with it runs every tier, and prints so.
    func testATierTheCPULacksIsRefused() throws {
        guard let above = CPUTier(rawValue: CPUTier.best.rawValue + 1) else {
            throw XCTSkip("this CPU runs every tier: no tier above it to refuse")
        }
        XCTAssertFalse(CPUTier.use(above))
        let out = work.appendingPathComponent("o.nv12")
        let r = try launch(binary, [inputs[0].path, "-o", out.path], environment: ["YUVCONV_CPU": above.description],
                           stdin: .null)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("cannot run"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }
}
