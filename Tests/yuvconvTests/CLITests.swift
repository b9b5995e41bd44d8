import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

final class CLITests: CLITestCase {
    func testHelpVersionAndUsageErrors() throws {
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(String(decoding: help.stdout, as: UTF8.self).contains("--matrix"))
        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(String(decoding: version.stdout, as: UTF8.self).hasPrefix("yuvconv "))
        for args in [["--bogus"], [], [fixture("photos/rocket.jpg")], [fixture("photos/rocket.jpg"), "-o", "x", "--matrix", "bt470"],
                     [fixture("photos/rocket.jpg"), "-o", "x", "--format", "nv16"], [fixture("photos/rocket.jpg"), "-o"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.hasPrefix("yuvconv: error: "), r.stderr)
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testOrientationOption() throws {
        let jpg = fixture("jpeg/pillow/orientation_rectangle.jpg")   // 2x1 stored, EXIF 8
        let auto = try run([jpg, "-o", "a.nv12"])
        XCTAssertEqual(auto.status, 0, auto.stderr)
        XCTAssertTrue(auto.stderr.contains(": 1x2 JPEG 4:2:0 -> nv12"), auto.stderr)
        XCTAssertTrue(auto.stderr.contains("turned 90° anticlockwise (EXIF 8)"), auto.stderr)
        let stored = try run([jpg, "-o", "b.nv12", "--orientation", "ignore"])
        XCTAssertEqual(stored.status, 0, stored.stderr)
        XCTAssertTrue(stored.stderr.contains(": 2x1 JPEG 4:2:0 -> nv12"), stored.stderr)
        XCTAssertFalse(stored.stderr.contains("EXIF"), stored.stderr)
        let bad = try run([jpg, "-o", "c.nv12", "--orientation", "sideways"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("sideways"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("c.nv12").path))
        let json = try run(["report", "--report", "json", jpg])
        let text = String(decoding: json.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("\"width\": 1, \"height\": 2"), text)
        XCTAssertTrue(text.contains("\"orientation\": 8"), text)
    }

    func testConvertsExactlyWithFormatFromOptionOrExtension() throws {
        let png = "pngsuite/basn2c08.png"
        let r1 = try runAsStored([fixture(png), "-o", "a.nv12"])
        XCTAssertEqual(r1.status, 0, r1.stderr)
        XCTAssertTrue(r1.stderr.contains("32x32 PNG RGB 8-bit -> nv12 (bt709 full): RGBA 4.0 KiB, nv12 1.5 KiB, saves 2.5 KiB (62.5%)"), r1.stderr)
        let a = try Data(contentsOf: work.appendingPathComponent("a.nv12"))
        XCTAssertEqual(Checksum.crc32Hex(a), try golden(png, "bt709 full", "nv12"))
        // Extension decides the layout: .yuv is yuv420p, .yv12 is yv12.
        XCTAssertEqual(try runAsStored([fixture(png), "-o", "b.yuv", "--matrix", "bt601", "--range", "limited", "-q"]).status, 0)
        XCTAssertEqual(Checksum.crc32Hex(try Data(contentsOf: work.appendingPathComponent("b.yuv"))),
                       try golden(png, "bt601 limited", "yuv420p"))
        XCTAssertEqual(try runAsStored(["convert", fixture(png), "-o", "c.yv12", "--matrix=bt2020", "-q"]).status, 0)
        XCTAssertEqual(Checksum.crc32Hex(try Data(contentsOf: work.appendingPathComponent("c.yv12"))),
                       try golden(png, "bt2020 full", "yv12"))
        // --format wins over the extension; i420 is yuv420p.
        XCTAssertEqual(try runAsStored([fixture(png), "-o", "d.nv12", "--format", "i420", "-q"]).status, 0)
        XCTAssertEqual(Checksum.crc32Hex(try Data(contentsOf: work.appendingPathComponent("d.nv12"))),
                       try golden(png, "bt709 full", "yuv420p"))
        XCTAssertEqual(try leftovers(), ["a.nv12", "b.yuv", "c.yv12", "d.nv12"])
    }

    func testStdinAndStdout() throws {
        let png = "pngsuite/basn6a16.png"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture(png)))
        let r = try runAsStored(["-", "-o", "-", "--format", "nv21", "--range", "limited"], stdin: bytes)
        XCTAssertEqual(r.status, 0, r.stderr)
        // (After the warning that its alpha, dropped, made pixels transparent.)
        XCTAssertTrue(r.stderr.contains("\n<stdin>: 32x32 PNG RGBA 16-bit"), r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("yuvconv: warning: <stdin>: its alpha makes some pixels transparent"), r.stderr)
        XCTAssertEqual(Checksum.crc32Hex(r.stdout), try golden(png, "bt709 limited", "nv21"))
        let bad = try runAsStored(["-", "-o", "-"], stdin: Data("not an image".utf8))
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("yuvconv: error: <stdin>: not a JPEG or PNG file"), bad.stderr)
        XCTAssertTrue(bad.stdout.isEmpty)
    }

    func testBadInputsLeaveNothingBehind() throws {
        let cases = ["jpeg/wuffs/peacock.default.truncated.jpeg", "jpeg/imagetestsuite/c52ffdd6a0346c4d09271f8ccbdfd5a3.jpg",
                     "pngsuite/xcsn0g01.png", "pngsuite/xs1n0g01.png", "png-extra/pillow/truncated_image.png",
                     "jpeg/jpeg-decoder/crashtest/max_size.jpg", "photos/README.txt", "missing.png"]
        for c in cases {
            let r = try run([fixture(c), "-o", "out.nv12"])
            XCTAssertEqual(r.status, 1, "\(c): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("yuvconv: error: \(fixture(c)): "), r.stderr)
            XCTAssertEqual(try leftovers(), [], c)
        }
    }

    /// A PNG that ends early says so; one whose ancillary chunk declares 1.9 GB (a fuzzing find) is skipped
    /// through, not buffered, and ends the same way.
    func testTruncatedPNGSaysSo() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: fixture("pngsuite/basn2c08.png")))
        let cut = work.appendingPathComponent("cut.png")
        try whole.prefix(whole.count / 2).write(to: cut)
        let big = fixturesURL.appendingPathComponent("fuzz-crashes/c-slow-unit-47a17df626690f1723b65c444a71091cc8c064d6").path
        for path in [cut.path, big] {
            let r = try run([path, "-o", "out.nv12"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertEqual(r.stderr, "yuvconv: error: \(path): the file ends before the image does (truncated PNG)\n")
        }
        // Every row there, the file cut after them (without IEND, or inside the last chunk's CRC): said so — "ends
        // before the image does" was not true of a picture that is all there.
        for drop in [12, 14] {
            let tail = work.appendingPathComponent("tail\(drop).png")
            try whole.prefix(whole.count - drop).write(to: tail)
            let r = try run([tail.path, "-o", "out.nv12"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("the file ends after the last row of the image, without the end of its data "
                                             + "or the IEND chunk that ends a PNG (truncated PNG)"), r.stderr)
        }
    }

    func testNeverOverwritesWithoutForceAndNeverTheInput() throws {
        let png = fixture("pngsuite/basn0g08.png")
        let out = work.appendingPathComponent("o.nv12")
        try Data("keep me".utf8).write(to: out)
        let r = try run([png, "-o", "o.nv12"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("o.nv12: already exists (use --force to overwrite)"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: out), Data("keep me".utf8))
        XCTAssertEqual(try run([png, "-o", "o.nv12", "--force", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: out).count, 32 * 32 * 3 / 2)
        // The input itself, even with --force (sniffing is by content, so the name does not protect it).
        let input = work.appendingPathComponent("in.nv12")
        try FileManager.default.copyItem(atPath: png, toPath: input.path)
        let before = try Data(contentsOf: input)
        let s = try run(["in.nv12", "-o", "in.nv12", "--force"])
        XCTAssertEqual(s.status, 1)
        XCTAssertTrue(s.stderr.contains("is the input file"), s.stderr)
        XCTAssertEqual(try Data(contentsOf: input), before)
        XCTAssertEqual(try leftovers(), ["in.nv12", "o.nv12"])
    }

    func testUnwritableFolder() throws {
        let r = try run([fixture("pngsuite/basn0g08.png"), "-o", "/nonexistent-dir/o.nv12"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("/nonexistent-dir/o.nv12: cannot create a file in /nonexistent-dir"), r.stderr)
    }
}

extension CLITests {
    /// A device or FIFO is written in place: `-o /dev/null` must never replace /dev/null with a file.
    func testDeviceOutputIsWrittenInPlace() throws {
        let r = try run([fixture("pngsuite/basn2c08.png"), "-o", "/dev/null", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let attrs = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeCharacterSpecial)
    }

    /// The JPEG paths: direct by default (and said so), RGB on request; both exact to their definitions
    /// elsewhere, here the option and the report.
    func testJPEGPathOption() throws {
        let jpg = fixture("jpeg/wuffs/peacock.s2x2-420.jpeg")
        let d = try run([jpg, "-o", "d.nv12"])
        XCTAssertEqual(d.status, 0, d.stderr)
        XCTAssertTrue(d.stderr.contains("direct YCbCr"), d.stderr)
        let r = try run([jpg, "-o", "r.nv12", "--jpeg-path", "rgb"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("; RGB,"), r.stderr)
        XCTAssertEqual(try run([jpg, "-o", "x.nv12", "--jpeg-path", "fast"]).status, 2)
    }
}

extension CLITests {
    /// Y4M: the header FFmpeg and mpv read (size, C420jpeg, XCOLORRANGE), one FRAME, then exactly the yuv420p
    /// planes — to a file (written at offsets) and to a pipe (written in order).
    func testY4MOutput() throws {
        let png = fixture("pngsuite/basn2c08.png")
        XCTAssertEqual(try runAsStored([png, "-o", "a.y4m", "-q"]).status, 0)
        let file = try Data(contentsOf: work.appendingPathComponent("a.y4m"))
        let header = "YUV4MPEG2 W32 H32 F1:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n"
        XCTAssertEqual(String(decoding: file.prefix(header.utf8.count), as: UTF8.self), header)
        XCTAssertEqual(Checksum.crc32Hex(file.dropFirst(header.utf8.count)), try golden("pngsuite/basn2c08.png", "bt709 full", "yuv420p"))
        let piped = try runAsStored([png, "-o", "-", "--format", "y4m", "--range", "limited", "-q"])
        XCTAssertTrue(String(decoding: piped.stdout.prefix(70), as: UTF8.self).contains("XCOLORRANGE=LIMITED\nFRAME\n"))
        XCTAssertEqual(Checksum.crc32Hex(piped.stdout.drop { $0 != 0x0A }.dropFirst().dropFirst(6)),
                       try golden("pngsuite/basn2c08.png", "bt709 limited", "yuv420p"))
        // Standard output by other names than its own (`/dev/./stdout`, a link to /dev/stdout), on a pipe:
        // /proc/self/fd/1's link names no file ("pipe:[…]"), so it is reopened, not followed.
        let plain = try runAsStored([png, "-o", "-", "-f", "nv12", "-q"]).stdout
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("so.nv12").path, withDestinationPath: "/dev/stdout")
        for name in ["/dev/./stdout", "so.nv12"] {
            let r = try runAsStored([png, "-o", name, "-f", "nv12", "-q"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(r.stdout, plain, name)
        }
        // A link to a file named "-" is that file (refused: it exists), never standard output; a descriptor
        // open for reading only (`-o /dev/stdin`) is refused before the work.
        try Data("keep".utf8).write(to: work.appendingPathComponent("-"))
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("l1").path, withDestinationPath: "-")
        let dash = try runAsStored([png, "-o", "l1", "-f", "nv12"])
        XCTAssertEqual(dash.status, 1, dash.stderr)
        XCTAssertTrue(dash.stdout.isEmpty)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("-")), Data("keep".utf8))
        let readOnly = try runAsStored([png, "-o", "/dev/stdin", "-f", "nv12", "-n"], stdin: Data())
        XCTAssertEqual(readOnly.status, 1, readOnly.stderr)
        XCTAssertTrue(String(decoding: readOnly.stdout, as: UTF8.self).contains("open for reading only"),
                      String(decoding: readOnly.stdout, as: UTF8.self))
    }
}

extension CLITests {
    /// A .png output is the yuv420p conversion through the documented inverse, with nearest chroma.
    func testPNGOutputIsTheInverseOfTheConversion() throws {
        let src = fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")
        XCTAssertEqual(try run([src, "-o", "c.png", "--matrix", "bt2020", "--range", "limited", "-q"]).status, 0)
        let planes = [UInt8](try run([src, "-o", "-", "--format", "yuv420p", "--matrix", "bt2020", "--range", "limited", "-q"]).stdout)
        let dec = try ImageDecoder(source: InputSource(path: work.appendingPathComponent("c.png").path))
        XCTAssertEqual(dec.info.sampling, "RGB 8-bit")
        let (w, h) = (33, 33), cw = 17, ch = 17
        let inv = YUVToRGB(spec: ConversionSpec(matrix: .bt2020, range: .limited))
        var row = [UInt8](repeating: 0, count: 3 * w)
        for y in 0..<h {
            try row.withUnsafeMutableBytes { try dec.readRows(into: $0.baseAddress!, rowBytes: 3 * w, count: 1) }
            for x in 0..<w {
                let c = (y / 2) * cw + x / 2
                let want = inv.rgb(y: planes[y * w + x], cb: planes[w * h + c], cr: planes[w * h + cw * ch + c])
                XCTAssertTrue((row[3 * x], row[3 * x + 1], row[3 * x + 2]) == want, "pixel \(x),\(y)")
            }
        }
    }
}

extension CLITests {
    /// A 10-bit conversion (`--depth 10`) or a 10-bit YUV input drawn as PNG: 16 bits a sample, each pixel the
    /// inverse of its 10-bit samples at once (one rounding; before, the samples were first brought to 8 bits and
    /// the PNG was 8-bit).
    func testTenBitPNGIsSixteenBitFromTheTenBitSamples() throws {
        let src = fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")
        let args = ["--matrix", "bt2020", "--range", "limited", "-q"]
        XCTAssertEqual(try run([src, "-o", "d.png", "--depth", "10"] + args).status, 0)
        let planes = try run([src, "-o", "d.yuv420p10le"] + args)
        XCTAssertEqual(planes.status, 0)
        XCTAssertEqual(try run(["d.yuv420p10le", "-s", "33x33", "-o", "r.png"] + args).status, 0)
        XCTAssertEqual(try run(["d.yuv420p10le", "-s", "33x33", "-o", "r.y4m", "--depth", "10"] + args).status, 0)
        XCTAssertEqual(try run(["r.y4m", "-o", "y.png", "--matrix", "bt2020", "-q"]).status, 0)
        let words: [Int] = try {
            let b = [UInt8](try Data(contentsOf: work.appendingPathComponent("d.yuv420p10le")))
            return stride(from: 0, to: b.count, by: 2).map { Int(b[$0]) | Int(b[$0 + 1]) << 8 }
        }()
        let (w, h) = (33, 33), cw = 17, ch = 17
        XCTAssertEqual(words.count, w * h + 2 * cw * ch)
        let inv = YUVToRGB(spec: ConversionSpec(matrix: .bt2020, range: .limited), inputDepth: 10, outputDepth: 16)
        for name in ["d.png", "r.png", "y.png"] {
            let dec = try ImageDecoder(source: InputSource(path: work.appendingPathComponent(name).path))
            XCTAssertEqual(dec.info.sampling, "RGB 16-bit", name)
            var row = [UInt16](repeating: 0, count: 3 * w)
            for y in 0..<h {
                try row.withUnsafeMutableBytes { try dec.readRows(into: $0.baseAddress!, rowBytes: 6 * w, count: 1) }
                for x in 0..<w {
                    let c = (y / 2) * cw + x / 2
                    let want = inv.rgb(words[y * w + x], words[w * h + c], words[w * h + cw * ch + c])
                    XCTAssertTrue((Int(row[3 * x]), Int(row[3 * x + 1]), Int(row[3 * x + 2])) == want, "\(name) pixel \(x),\(y)")
                }
            }
        }
        // Still refused where no 10 bits fit.
        XCTAssertEqual(try run([src, "-o", "d.jpg", "--depth", "10"]).status, 2)
    }
}

extension CLITests {
    /// A JPEG compressed from the planes: valid JFIF that decodes to within 38 dB of the source at q95
    /// (measured 41.0 dB on kodim23), ignoring --matrix (JFIF is BT.601 full range).
    func testJPEGOutput() throws {
        let png = fixture("photos/kodim23.png")
        let r = try run([png, "-o", "k.jpg", "--quality", "95", "--matrix", "bt2020"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("(bt601 full)"), r.stderr)
        func rows(_ path: String) throws -> [UInt8] {
            let d = try ImageDecoder(source: InputSource(path: path))
            let bpp = d.info.rowFormat.bytesPerPixel, w = d.info.width
            var out: [UInt8] = [], row = [UInt8](repeating: 0, count: w * bpp)
            for _ in 0..<d.info.height {
                try row.withUnsafeMutableBytes { try d.readRows(into: $0.baseAddress!, rowBytes: w * bpp, count: 1) }
                for x in 0..<w { out += row[(x * bpp)..<(x * bpp + 3)] }
            }
            return out
        }
        let a = try rows(png), b = try rows(work.appendingPathComponent("k.jpg").path)
        XCTAssertEqual(a.count, b.count)
        let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        XCTAssertGreaterThan(10 * log10(255 * 255 / mse), 38)
        XCTAssertEqual(try run([png, "-o", "x.jpg", "--quality", "0"]).status, 2)
    }
}

extension CLITests {
    /// Raw YUV and Y4M as input: repacked, round-tripped through Y4M, drawn as PNG, and a wrong size refused.
    func testRawAndY4MInput() throws {
        let src = fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")
        XCTAssertEqual(try run([src, "-o", "a.nv12", "-q"]).status, 0)
        XCTAssertEqual(try run(["a.nv12", "--size", "33x33", "-o", "a.y4m", "-q"]).status, 0)
        XCTAssertEqual(try run(["a.y4m", "-o", "b.nv12", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("a.nv12")), try Data(contentsOf: work.appendingPathComponent("b.nv12")))
        // Another layout: the same planes.
        XCTAssertEqual(try run(["a.nv12", "-s", "33x33", "-o", "c.yuv", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("c.yuv")), try run([src, "-o", "-", "--format", "yuv420p", "-q"]).stdout)
        // PNG from the raw planes equals PNG from the source's conversion.
        XCTAssertEqual(try run(["a.nv12", "-s", "33x33", "-o", "d.png", "-q"]).status, 0)
        XCTAssertEqual(try run([src, "-o", "e.png", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("d.png")), try Data(contentsOf: work.appendingPathComponent("e.png")))
        // Wrong size: a clear error, no output.
        let bad = try run(["a.nv12", "--size", "32x33", "-o", "f.png"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("a.nv12: is 1667 bytes, but 32x33 nv12 needs 1600"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("f.png").path))
        XCTAssertEqual(try run(["a.nv12", "-o", "g.png"]).status, 2, "raw input without --size")
        XCTAssertEqual(try run(["a.nv12", "--size", "100000x100000", "-o", "h.png"]).status, 1, "over --max-pixels")
    }

    /// A Y4M frame cut short is refused, naming both sizes; when its chroma rows are one byte short of an odd
    /// width's (FFmpeg 5.1's 10-bit Y4M of an odd width: 2w/2 bytes a row; `ffmpeg -f lavfi -i testsrc=s=101x67
    /// -pix_fmt yuv420p10le -strict -1 x.y4m` writes 20402-byte frames, not 20470), the message says so and what to
    /// do — also when more frames follow, where the first frame read holds the next one's header.
    func testOddWidthY4MWithShortChromaRowsIsExplained() throws {
        // 5×2, 10-bit: 10 luma samples and 2 × 3 chroma samples a frame (32 bytes); FFmpeg 5 writes chroma rows of
        // 5 bytes (30).
        let header = Data("YUV4MPEG2 W5 H2 F25:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=FULL\nFRAME\n".utf8)
        let frame = Data(repeating: 0, count: 30)
        for (body, said, hinted) in [(frame, "cut short (30 of 32 bytes)", true),
                                     (Data(repeating: 0, count: 28), "cut short (28 of 32 bytes)", false),
                                     (frame + Data("FRAME\n".utf8) + frame, "not 5x2 4:2:0 (the next frame's header starts 2 bytes early)", true)] {
            try (header + body).write(to: work.appendingPathComponent("odd.y4m"))
            let r = try run(["odd.y4m", "-o", "odd.png", "--force"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("odd.y4m: the Y4M frame is \(said)"), r.stderr)
            XCTAssertEqual(r.stderr.contains("one byte short of the odd width's 3 samples"), hinted, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("odd.png").path))
        }
        // 1 wide: one chroma sample a row, said in the singular ("1 samples"): 2 luma samples, 2 × 1 chroma (8 bytes); FFmpeg writes 6.
        try (Data("YUV4MPEG2 W1 H2 F25:1 Ip A1:1 C420p10 XYSCSS=420P10\nFRAME\n".utf8) + Data(repeating: 0, count: 6))
            .write(to: work.appendingPathComponent("one.y4m"))
        let one = try run(["one.y4m", "-o", "one.png"])
        XCTAssertTrue(one.stderr.contains("one byte short of the odd width's 1 sample, as"), one.stderr)
    }

    /// An interlaced Y4M (It, Ib, Im): copied into a Y4M it keeps its tag (It, Ib; and I?, unknown, stays so);
    /// converted to anything else it is a warning, since the woven frame is then read as one progressive picture.
    /// A tag Y4M does not define is refused.
    /// A Y4M's frame rate with a `+` before a number (`F+30:1`), as FFmpeg's `%d` reads it and as `W` and `H` are read,
    /// is kept, written plainly: it was written `F1:1`. A header without `F` is written `F1:1` with a warning, since
    /// FFmpeg plays such a stream at 25 frames a second: it went by in silence. Leading zeros are no digits of the value.
    func testY4MFrameRateAsFFmpegReadsIt() throws {
        let frame = Data(repeating: 128, count: 6 * 4 + 2 * 3 * 2)
        // Zero-padded past ten digits, as %d reads it too (it was "cannot be read", written F1:1).
        for (tags, header, warns) in [("F+30:+1 A+1:1", "F30:1 Ip A1:1", nil as String?),
                                      ("F00000000030:0000000000001 A01:1", "F30:1 Ip A1:1", nil),
                                      ("A1:1", "F1:1 Ip A1:1", "its Y4M header has no frame rate (F); the output says F1:1 (FFmpeg reads a stream without one at 25 frames a second: F25:1)")] {
            try (Data("YUV4MPEG2 W6 H4 \(tags) C420jpeg\nFRAME\n".utf8) + frame).write(to: work.appendingPathComponent("in.y4m"))
            let r = try run(["in.y4m", "-o", "out.y4m", "--force", "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let out = try Data(contentsOf: work.appendingPathComponent("out.y4m"))
            let line = String(decoding: out.prefix { $0 != 10 }, as: UTF8.self)
            XCTAssertTrue(line.contains(header), "\(tags): \(line)")
            if let warns { XCTAssertTrue(r.stderr.contains(warns), r.stderr) } else { XCTAssertEqual(r.stderr, "", tags) }
        }
    }

    func testInterlacedY4MInput() throws {
        let planes = Data((0..<48).map { (i: Int) -> UInt8 in UInt8(i * 5) })
        for tag in ["It", "Ib", "Im", "Ip", "I?"] {
            try (Data("YUV4MPEG2 W8 H4 F25:1 \(tag) A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n".utf8) + planes)
                .write(to: work.appendingPathComponent("i.y4m"))
            let png = try run(["i.y4m", "-o", "i.png", "-q", "--force"])
            XCTAssertEqual(png.status, 0, png.stderr)
            let warned = png.stderr.contains("warning: i.y4m: the Y4M stream is interlaced (\(tag)); its first frame is converted as one progressive picture")
            XCTAssertEqual(warned, tag == "It" || tag == "Ib" || tag == "Im", "\(tag): \(png.stderr)")
            let y4m = try run(["i.y4m", "-o", "o.y4m", "-q", "--force"])
            XCTAssertEqual(y4m.status, 0, y4m.stderr)
            let header = String(decoding: try Data(contentsOf: work.appendingPathComponent("o.y4m")).prefix(40), as: UTF8.self)
            // I? (unknown) stays unknown: writing Ip would claim what the input never said.
            XCTAssertTrue(header.contains(" \(tag == "It" || tag == "Ib" || tag == "I?" ? tag : "Ip") "), "\(tag): \(header)")
            XCTAssertEqual(y4m.stderr.contains("interlaced"), tag == "Im", "\(tag): \(y4m.stderr)")
        }
        // A header ended by CR LF reads as one ended by LF.
        try (Data("YUV4MPEG2 W8 H4 F25:1 C420jpeg It\r\nFRAME\r\n".utf8) + planes).write(to: work.appendingPathComponent("crlf.y4m"))
        let crlf = try run(["crlf.y4m", "-o", "crlf.y4m.y4m", "-q"])
        XCTAssertEqual(crlf.status, 0, crlf.stderr)
        XCTAssertTrue(String(decoding: try Data(contentsOf: work.appendingPathComponent("crlf.y4m.y4m")).prefix(40), as: UTF8.self).contains(" It "))
        try (Data("YUV4MPEG2 W8 H4 F25:1 Ix C420jpeg\nFRAME\n".utf8) + planes).write(to: work.appendingPathComponent("x.y4m"))
        let bad = try run(["x.y4m", "-o", "x.png"])
        XCTAssertEqual(bad.status, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("x.y4m: the Y4M header's interlacing tag Ix is not Ip, It, Ib, Im or I?"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("x.png").path))
    }
}

extension CLITests {
    /// --alpha against pixels computed here: flatten over a colour and premultiply (rounded half up, then the
    /// exact conversion), and keep (the A plane after the planes, the planes as with ignore).
    func testAlphaModes() throws {
        let png = fixture("pngsuite/basn6a08.png")
        let dec = try ImageDecoder(source: InputSource(path: png))
        XCTAssertEqual(dec.info.rowFormat, .rgba8)
        let (w, h) = (32, 32)
        var rgba = [UInt8](repeating: 0, count: 4 * w * h)
        try rgba.withUnsafeMutableBytes { try dec.readRows(into: $0.baseAddress!, rowBytes: 4 * w, count: h) }
        func expected(_ f: (Int, Int, Int) -> Int) -> [UInt8] {   // (sample, alpha, channel) → new sample
            var rgb = [UInt8](repeating: 0, count: 3 * w * h)
            for p in 0..<(w * h) { for c in 0..<3 { rgb[3 * p + c] = UInt8(f(Int(rgba[4 * p + c]), Int(rgba[4 * p + 3]), c)) } }
            return rgb.withUnsafeBytes {
                RGBToYUV420(spec: ConversionSpec(), source: .rgb8, kernels: .reference)
                    .convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .yuv420p).bytes
            }
        }
        let bg = [0x33, 0x66, 0x99]
        let flat = expected { v, a, c in (2 * (v * a + bg[c] * (255 - a)) + 255) / 510 }
        XCTAssertEqual([UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "--alpha", "flatten=#336699", "-q"]).stdout), flat)
        let pre = expected { v, a, _ in (2 * v * a + 255) / 510 }
        XCTAssertEqual([UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "--alpha", "premultiply", "-q"]).stdout), pre)
        let plain = [UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "-q"]).stdout)
        let kept = try runAsStored([png, "-o", "k.yuv", "--alpha", "keep"])
        XCTAssertTrue(kept.stderr.contains("-> yuv420p+A"), kept.stderr)
        let k = [UInt8](try Data(contentsOf: work.appendingPathComponent("k.yuv")))
        XCTAssertEqual(k.count, w * h * 5 / 2)
        XCTAssertEqual(Array(k.prefix(plain.count)), plain)
        XCTAssertEqual(Array(k.suffix(w * h)), (0..<(w * h)).map { rgba[4 * $0 + 3] })
        // An opaque source keeps a plane of 255; keep with a picture format is refused.
        let opaque = [UInt8](try runAsStored([fixture("pngsuite/basn2c08.png"), "-o", "-", "--alpha", "keep", "-q"]).stdout)
        XCTAssertEqual(Array(opaque.suffix(w * h)), [UInt8](repeating: 255, count: w * h))
        XCTAssertEqual(try runAsStored([png, "-o", "x.png", "--alpha", "keep"]).status, 2)
        XCTAssertEqual(try runAsStored([png, "-o", "x.nv12", "--alpha", "half"]).status, 2)
        // The A plane is 8-bit: a 10-bit layout with it would be a file no pixel format describes (it was written,
        // 69 bytes for 5×3); refused. The report names yuva420p for a planar layout with A.
        for tenBit in ["x.p010", "x.yuv420p10le"] {
            let refused = try runAsStored([png, "-o", tenBit, "--alpha", "keep"])
            XCTAssertEqual(refused.status, 2, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("--alpha keep writes an 8-bit A plane"), refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent(tenBit).path))
        }
        let json = try runAsStored([png, "-o", "j.yuv", "--alpha", "keep", "--report", "json", "-q"])
        XCTAssertTrue(String(decoding: json.stdout, as: UTF8.self).contains("-pix_fmt yuva420p"), json.stderr)
    }
}

extension CLITests {
    /// Every warning said under a file's name is one that file's report counts; `--alpha flatten` on an input
    /// without alpha is about the options, said as the batch and `report` say it, without the name (it was said
    /// under the name, beside `"warnings": 0`).
    func testWarningsUnderAFilesNameAreItsReportsWarnings() throws {
        let opaque = fixture("pngsuite/basn2c08.png")
        for mode in ["flatten", "premultiply"] {
            let r = try run([opaque, "-o", "\(mode).nv12", "--alpha", mode, "--report", "json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("yuvconv: warning: --alpha \(mode) applies to input with alpha (a PNG's alpha "
                                            + "channel or tRNS); this one has none, so it changes nothing"), r.stderr)
            let line = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let named = r.stderr.split(separator: "\n").filter { $0.hasPrefix("yuvconv: warning: \(opaque): ") }
            XCTAssertEqual(j["warnings"] as? Int, named.count, r.stderr)
        }
    }
}

extension CLITests {
    /// --alpha on 16-bit RGBA (PngSuite basn6a16): flatten and premultiply keep 16 bits (bg·257, ⌊·/65535 + ½⌋)
    /// until the conversion's one rounding; keep writes ⌊a/257 + ½⌋; ignore is the colour as stored.
    func testAlphaModesSixteenBit() throws {
        let png = fixture("pngsuite/basn6a16.png")
        let dec = try ImageDecoder(source: InputSource(path: png), alpha16: true)
        XCTAssertEqual(dec.info.rowFormat, .rgba16)
        let (w, h) = (32, 32)
        var rgba = [UInt16](repeating: 0, count: 4 * w * h)
        try rgba.withUnsafeMutableBytes { try dec.readRows(into: $0.baseAddress!, rowBytes: 8 * w, count: h) }
        XCTAssertTrue(rgba.enumerated().contains { $0.offset % 4 == 3 && $0.element != 0 && $0.element != 65535 },
                      "the fixture has partial alpha")
        func expected(_ f: (Int, Int, Int) -> Int) -> [UInt8] {   // (sample, alpha, channel) → new 16-bit sample
            var rgb = [UInt16](repeating: 0, count: 3 * w * h)
            for p in 0..<(w * h) { for c in 0..<3 { rgb[3 * p + c] = UInt16(f(Int(rgba[4 * p + c]), Int(rgba[4 * p + 3]), c)) } }
            return rgb.withUnsafeBytes {
                RGBToYUV420(spec: ConversionSpec(), source: .rgb16, kernels: .reference)
                    .convert(pixels: $0.baseAddress!, rowBytes: 6 * w, width: w, height: h, layout: .yuv420p).bytes
            }
        }
        let bg = [0x33 * 257, 0x66 * 257, 0x99 * 257]
        let flat = expected { v, a, c in (2 * (v * a + bg[c] * (65535 - a)) + 65535) / 131070 }
        XCTAssertEqual([UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "--alpha", "flatten=#336699", "-q"]).stdout), flat)
        let pre = expected { v, a, _ in (2 * v * a + 65535) / 131070 }
        XCTAssertEqual([UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "--alpha", "premultiply", "-q"]).stdout), pre)
        let plain = [UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "-q"]).stdout)
        XCTAssertEqual(plain, expected { v, _, _ in v })
        let k = [UInt8](try runAsStored([png, "-o", "-", "--format", "yuv420p", "--alpha", "keep", "-q"]).stdout)
        XCTAssertEqual(k.count, w * h * 5 / 2)
        XCTAssertEqual(Array(k.prefix(plain.count)), plain)
        XCTAssertEqual(Array(k.suffix(w * h)), (0..<(w * h)).map { UInt8((2 * Int(rgba[4 * $0 + 3]) + 257) / 514) })
    }
}

extension CLITests {
    /// Every output extension names its format for --format too: `-f yuv` (yuv420p, as `.yuv` is) and `-f jpe` were
    /// refused while `.yuv` and `.jpe` names were taken.
    func testExtensionNamesAreFormatNames() throws {
        let src = fixture("jpeg/jpeg-decoder/mozilla/jpg-size-33x33.jpg")
        XCTAssertEqual(try run([src, "-o", "a.out", "-f", "yuv", "-q"]).status, 0)
        XCTAssertEqual(try run([src, "-o", "b.yuv", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("a.out")),
                       try Data(contentsOf: work.appendingPathComponent("b.yuv")))
        XCTAssertEqual(try run([src, "-o", "c.out", "-f", "jpe", "-q"]).status, 0)
        XCTAssertEqual([UInt8](try Data(contentsOf: work.appendingPathComponent("c.out")).prefix(2)), [0xFF, 0xD8])
    }
}
