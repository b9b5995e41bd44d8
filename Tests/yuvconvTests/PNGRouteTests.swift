import Foundation
import TestSupport
import XCTest

/// The PNG image data yuvconv reads itself (yc_png_idat.c) against libpng's own reading of the same files
/// (`YUVCONV_PNG_LIBPNG=1`): the same exit status, bytes and messages on every PNG of the corpus and on damaged
/// variants of real files. A wrong Adler-32 or a zlib error after the last row's data, which libpng alone only
/// warns about or never reads, is an error on both routes (libpng's route inflates the data a second time as it
/// is read: `yc_png_verify_begin`).
final class PNGRouteTests: CLITestCase {
    func both(_ file: String) throws -> (own: Result, libpng: Result) {
        let args = [file, "-o", "-", "--format", "nv12", "-q"]
        return (try launch(binary, args, stdin: .null),
                try launch(binary, args, environment: ["YUVCONV_PNG_LIBPNG": "1"], stdin: .null))
    }

    /// One batch over `files` (a file per line in list.txt), one file at a time, into `out`: the messages of
    /// each file (sorted lines, the output folder's name taken out) and each output's bytes.
    func batch(_ files: [String], into out: String, libpng: Bool) throws -> (lines: [String], outputs: [String: Data]) {
        try files.joined(separator: "\n").write(to: work.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        // Messages to a file: a pipe nobody reads until the process ends would fill and stop it.
        let r = try launch(URL(fileURLWithPath: "/bin/sh"),
                           ["-c", "\"$0\" --files-from list.txt -o \(out)/ --name '{dir}/{stem}.nv12' -j 1 -q 2> \(out).txt", binary.path],
                           environment: libpng ? ["YUVCONV_PNG_LIBPNG": "1"] : [:], stdin: .null)
        let stderr = try String(contentsOf: work.appendingPathComponent("\(out).txt"), encoding: .utf8)
        XCTAssertTrue(r.status == 0 || r.status == 1, stderr)
        var outputs: [String: Data] = [:]
        let root = work.appendingPathComponent(out)
        for case let name as String in FileManager.default.enumerator(atPath: root.path) ?? FileManager.default.enumerator(atPath: "/")! {
            var isDir: ObjCBool = false
            let path = root.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                outputs[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        let lines = stderr.split(separator: "\n").map { $0.replacingOccurrences(of: out + "/", with: "") }
            .filter { !$0.contains(" converted") }.sorted()
        return (lines, outputs)
    }

    /// Chunks libpng drops with a benign error, on both routes: a tRNS before a suggested PLTE (an RGB picture's),
    /// which libpng cancels — taken as there, it asked for alpha never added and the file failed "unexpected row
    /// layout after transformations" — and a suggested PLTE of 300 entries ("PLTE: invalid" reached users bare): each
    /// a sentence, the picture read as without it. An eXIf past the chunk limit is said once (libpng says it twice),
    /// and only when something reads it.
    func testChunksLibpngDropsAreSaidAndReadWithout() throws {
        var pixels: [UInt8] = []
        for y in 0..<5 { for x in 0..<7 { pixels += [UInt8(x * 37), UInt8(y * 50), UInt8((x * y * 7) & 255)] } }
        try writePNG(work.appendingPathComponent("plain.png").path, width: 7, height: 5, pixels: pixels)
        let plain = [UInt8](try Data(contentsOf: work.appendingPathComponent("plain.png")))
        let ihdrEnd = pngChunks(plain)[0].at + 12 + pngChunks(plain)[0].length
        func with(_ chunks: [UInt8], _ name: String) throws -> String {
            try Data(Array(plain[0..<ihdrEnd]) + chunks + Array(plain[ihdrEnd...])).write(to: work.appendingPathComponent(name))
            return name
        }
        let reference = try both("plain.png").own.stdout
        let trns = pngChunk("tRNS", [0, 1, 0, 2, 0, 3]), plte = pngChunk("PLTE", Array(0..<48))
        for (file, says) in [(try with(trns + plte, "trns-plte.png"), "the PNG's tRNS chunk comes before its PLTE chunk"),
                             (try with(pngChunk("PLTE", [UInt8](repeating: 9, count: 900)), "plte300.png"),
                              "the PNG's suggested palette (PLTE, which an RGB or grey picture does not need) has an impossible length: ignored")] {
            let (own, libpng) = try both(file)
            for (route, r) in [("own", own), ("libpng", libpng)] {
                XCTAssertEqual(r.status, 0, "\(file), \(route): \(r.stderr)")
                XCTAssertEqual(r.stdout, reference, "\(file), \(route)")
                XCTAssertTrue(r.stderr.contains(says), "\(file), \(route): \(r.stderr)")
            }
        }
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let big = try with(pngChunk("eXIf", tiff + [UInt8](repeating: 0, count: 9 << 20)), "exif-big.png")
        for env in [[String: String](), ["YUVCONV_PNG_LIBPNG": "1"]] {
            let r = try launch(binary, [big, "-o", "-", "--format", "nv12"], environment: env, stdin: .null)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("eXIf: chunk data is too large)\n"), "said once: \(r.stderr)")
            let ignored = try launch(binary, [big, "-o", "-", "--format", "nv12", "--orientation", "ignore",
                                              "--color-management", "off", "-q"], environment: env, stdin: .null)
            XCTAssertEqual(ignored.stderr, "", "nothing reads it")
        }
        // The same chunks after the image data, where yuvconv's own reader reads the headers: said as libpng's route
        // says them (the own reader said the eXIf under `--orientation ignore --color-management off`, and two
        // oversized chunks of one name "(2 times)" where libpng's route said them once; a reviewer's find).
        let iend = plain.count - 12
        func after(_ chunks: [UInt8], _ name: String) throws -> String {
            try Data(Array(plain[..<iend]) + chunks + Array(plain[iend...])).write(to: work.appendingPathComponent(name))
            return name
        }
        let late = try after(pngChunk("eXIf", tiff + [UInt8](repeating: 0, count: 9 << 20)), "exif-big-late.png")
        let zz = pngChunk("zzZz", [UInt8](repeating: 1, count: 9 << 20))
        let twice = try after(zz + zz, "unknown-big-twice.png")
        for (file, args) in [(late, ["--orientation", "ignore", "--color-management", "off"]), (late, []), (twice, [])] {
            var said: [String] = []
            for env in [[String: String](), ["YUVCONV_PNG_LIBPNG": "1"]] {
                let r = try launch(binary, [file, "-o", "-", "--format", "nv12", "-q"] + args, environment: env, stdin: .null)
                XCTAssertEqual(r.status, 0, r.stderr)
                said.append(r.stderr.split(separator: "\n").filter { !$0.contains(" converted") }.joined(separator: "\n"))
            }
            XCTAssertEqual(said[0], said[1], "\(file) \(args): both routes say the same")
            if !args.isEmpty { XCTAssertEqual(said[0], "", "nothing reads it") }
            if file == twice { XCTAssertFalse(said[0].contains("times"), said[0]) }
        }
    }

    /// Image data whose zlib stream ends rows short of the picture, with a wrong Adler-32 or a right one: zlib checks
    /// the checksum as the stream ends, before libpng finds rows missing, and yuvconv's reader now does so too (the
    /// two routes said "fails its checksum" and "ends before the picture does" of one file; a PNG tester's find).
    func testAStreamEndingShortIsJudgedAlikeOnBothRoutes() throws {
        var raw: [UInt8] = []
        for y in 0..<6 { raw += [0] + (0..<8).map { UInt8(($0 + y) % 4) } }   // 6 of 8 rows, filter 0
        for wrong in [false, true] {
            var stream = zlibStored(raw)
            if wrong { stream[stream.count - 1] ^= 1 }   // the Adler-32's last byte
            let png = pngSignature + pngChunk("IHDR", [0, 0, 0, 8, 0, 0, 0, 8, 8, 3, 0, 0, 0]) + pngChunk("PLTE", Array(0..<12))
                + pngChunk("IDAT", stream) + pngChunk("IEND", [])
            try Data(png).write(to: work.appendingPathComponent("short.png"))
            let (own, libpng) = try both("short.png")
            XCTAssertEqual(own.status, 1)
            XCTAssertEqual(own.stderr, libpng.stderr, "wrong Adler-32: \(wrong)")
            XCTAssertTrue(own.stderr.contains(wrong ? "fails its checksum" : "ends before the picture does"), own.stderr)
        }
    }

    /// PNG allows one iCCP. libpng keeps the last of several without a word (and a profile whose chunk fails its
    /// CRC); a second eXIf or cICP is ignored with a warning and the first used, and so is a second iCCP after an
    /// intact one: the colours are the first profile's (the same bytes as the file without the second chunk, not
    /// those of the second profile alone), and the warning says so — only when colour management reads profiles.
    func testSecondICCPChunkIsIgnoredAndSaid() throws {
        var pixels: [UInt8] = []
        for y in 0..<8 { for x in 0..<16 { pixels += [UInt8(x * 16), UInt8(255 - y * 32), UInt8((x * y * 7) & 255)] } }
        try writePNG(work.appendingPathComponent("plain.png").path, width: 16, height: 8, pixels: pixels)
        let plain = [UInt8](try Data(contentsOf: work.appendingPathComponent("plain.png")))
        let ihdrEnd = pngChunks(plain)[0].at + 12 + pngChunks(plain)[0].length
        let head = Array(plain[0..<ihdrEnd]), tail = Array(plain[ihdrEnd...])
        let p3 = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/DisplayP3.icc")))
        let first = pngChunk("iCCP", Array("P3".utf8) + [0, 0] + zlibStored(p3))
        // The second: the LUT-based (A2B0) profile of another fixture, chunk as it is stored there.
        let lutFile = [UInt8](try Data(contentsOf: fixturesURL.appendingPathComponent("colour/lut-a2b0.png")))
        let lut = try XCTUnwrap(pngChunks(lutFile).first { $0.type == "iCCP" })
        let second = Array(lutFile[lut.at..<(lut.at + 12 + lut.length)])
        try Data(head + first + tail).write(to: work.appendingPathComponent("first.png"))
        try Data(head + second + tail).write(to: work.appendingPathComponent("second.png"))
        try Data(head + first + second + tail).write(to: work.appendingPathComponent("both.png"))
        for name in ["first", "second"] {
            let r = try run(["\(name).png", "-o", "\(name).nv12"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertFalse(r.stderr.contains("warning"), r.stderr)
        }
        let r = try run(["both.png", "-o", "both.nv12"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("both.png: iCCP: a second iCCP chunk, ignored (a PNG has one: the first is read)"), r.stderr)
        let bytes = { (name: String) in try Data(contentsOf: self.work.appendingPathComponent("\(name).nv12")) }
        XCTAssertEqual(try bytes("both"), try bytes("first"))
        XCTAssertNotEqual(try bytes("first"), try bytes("second"), "the two profiles must give different colours")
        // Without colour management no profile is used, and nothing is said.
        let off = try run(["both.png", "-o", "off.nv12", "--color-management", "off"])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertFalse(off.stderr.contains("iCCP"), off.stderr)
        // A chunk that fails its CRC is damaged (libpng kept its profile): alone, a broken profile and the samples
        // as stored; before an intact one, it does not shut that one out.
        var damaged = first
        damaged[damaged.count - 1] ^= 1
        try Data(head + damaged + tail).write(to: work.appendingPathComponent("damaged.png"))
        try Data(head + damaged + second + tail).write(to: work.appendingPathComponent("damaged-second.png"))
        // A chunk libpng turns away without taking its profile (an iCCP too short to hold one) leaves the damaged
        // profile in place: it stays broken until an intact one replaces it.
        let short = pngChunk("iCCP", Array("x".utf8) + [0, 0])
        try Data(head + damaged + short + tail).write(to: work.appendingPathComponent("damaged-short.png"))
        try Data(head + damaged + short + second + tail).write(to: work.appendingPathComponent("damaged-short-second.png"))
        XCTAssertEqual(try run(["plain.png", "-o", "plain.nv12"]).status, 0)
        // (file, whose colours it must have, whether the damaged profile is said to be broken)
        for (name, like, broken) in [("damaged", "plain", true), ("damaged-second", "second", false),
                                     ("damaged-short", "plain", true), ("damaged-short-second", "second", false)] {
            let r = try run(["\(name).png", "-o", "\(name).nv12"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr.contains("the PNG's ICC profile was rejected: its chunk fails its checksum (iCCP: CRC error); colours used as stored"),
                           broken, "\(name): \(r.stderr)")
            XCTAssertEqual(try bytes(name), try bytes(like), name)
            // A damaged one before another is ignored, and said (before an intact one it drew no word; a colour
            // reviewer's file).
            XCTAssertEqual(r.stderr.contains("iCCP: an iCCP chunk that is damaged (its checksum fails, or its profile cannot be used), "
                                             + "ignored; the next one is read"), name != "damaged", "\(name): \(r.stderr)")
        }
    }

    /// A broken iCCP beside a gAMA of 1.0: libpng drops a gAMA that comes after a profile it rejects and keeps one
    /// before it, so the order of the two chunks decided between "used as stored" and a gamma transform. A
    /// rejected profile is a broken one whatever the order: the samples as stored, and the warning says so.
    func testRejectedProfileIsBrokenWhateverTheChunkOrder() throws {
        var pixels: [UInt8] = []
        for y in 0..<8 { for x in 0..<16 { pixels += [UInt8(x * 16), UInt8(y * 32), UInt8(128)] } }
        try writePNG(work.appendingPathComponent("plain.png").path, width: 16, height: 8, pixels: pixels)
        let plain = [UInt8](try Data(contentsOf: work.appendingPathComponent("plain.png")))
        let chunks = pngChunks(plain)
        let ihdrEnd = chunks[0].at + 12 + chunks[0].length
        let gama = pngChunk("gAMA", [0x00, 0x01, 0x86, 0xA0])   // 1.0: linear, far from sRGB
        // A profile whose tag count is 0xFFFFFFFF, compressed: libpng rejects it ("tag count too large").
        var profile = [UInt8](repeating: 0, count: 132)
        profile[0...3] = [0, 0, 0, 132]
        profile[8...11] = [2, 0x10, 0, 0]
        profile.replaceSubrange(12..<24, with: Array("mntrRGB XYZ ".utf8))
        profile.replaceSubrange(36..<40, with: Array("acsp".utf8))
        profile[128...131] = [0xFF, 0xFF, 0xFF, 0xFF]
        let iccp = pngChunk("iCCP", Array("x".utf8) + [0, 0] + zlibStored(profile))
        let head = Array(plain[0..<ihdrEnd]), tail = Array(plain[ihdrEnd...])
        try Data(head + iccp + gama + tail).write(to: work.appendingPathComponent("a.png"))
        try Data(head + gama + iccp + tail).write(to: work.appendingPathComponent("b.png"))
        XCTAssertEqual(try run(["plain.png", "-o", "plain.nv12", "-q"]).status, 0)
        for name in ["a", "b"] {
            let r = try run(["\(name).png", "-o", "\(name).nv12"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("the PNG's ICC profile was rejected: its tag table is longer than the profile (libpng: iCCP:"),
                          r.stderr)
            XCTAssertTrue(r.stderr.contains("colours used as stored"), r.stderr)
            XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("\(name).nv12")),
                           try Data(contentsOf: work.appendingPathComponent("plain.nv12")), name)
        }
        // Compressed data that is no zlib stream: libpng's "too short" named the chunk, not the damage.
        try Data(head + pngChunk("iCCP", Array("x".utf8) + [0, 0, 0x78, 0x9C] + Array("garbage".utf8)) + tail)
            .write(to: work.appendingPathComponent("z.png"))
        let z = try run(["z.png", "-o", "z.nv12"])
        XCTAssertEqual(z.status, 0, z.stderr)
        XCTAssertTrue(z.stderr.contains("rejected: its compressed data is damaged, or the profile is shorter than its header (libpng: iCCP: too short); "
                                        + "colours used as stored"), z.stderr)
    }

    func testCorpusGivesLibpngsOutcomes() throws {
        let root = fixturesURL.appendingPathComponent("corpus")
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".png") }.sorted().map { root.appendingPathComponent($0).path }
        XCTAssertGreaterThanOrEqual(files.count, 300)
        let own = try batch(files, into: "own", libpng: false), libpng = try batch(files, into: "libpng", libpng: true)
        XCTAssertGreaterThan(own.outputs.count, 200)
        XCTAssertEqual(own.outputs.count, libpng.outputs.count)
        for (name, bytes) in own.outputs { XCTAssertEqual(bytes, libpng.outputs[name], name) }
        XCTAssertEqual(own.lines, libpng.lines)
    }

    /// The file with every complete chunk's CRC made right.
    func fixed(_ f: [UInt8]) -> [UInt8] {
        var f = f
        for c in pngChunks(f) where c.at + 12 + c.length <= f.count {
            let v = crc32Bitwise(f[(c.at + 4)..<(c.at + 8 + c.length)])
            for i in 0..<4 { f[c.at + 8 + c.length + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * i)) }
        }
        return f
    }

    func testDamagedFilesGiveLibpngsOutcomes() throws {
        var rng = SplitMix64(seed: 0x5EED_0D47)
        let bases = ["photos/kodim23.png", "pngsuite/basn2c08.png", "pngsuite/basn6a08.png", "pngsuite/basn3p01.png",
                     "pngsuite/basn3p02.png", "pngsuite/basn3p04.png", "pngsuite/basn3p08.png", "pngsuite/f04n2c08.png",
                     "pngsuite/tbrn2c08.png", "pngsuite/basn0g08.png", "pngsuite/basn4a08.png", "pngsuite/basn2c16.png",
                     "pngsuite/basn6a16.png", "pngsuite/basn0g16.png", "pngsuite/basn4a16.png"]
        var compared = 0
        var described: [String: String] = [:]
        try FileManager.default.createDirectory(at: work.appendingPathComponent("variants"), withIntermediateDirectories: true)
        for base in bases {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: fixture(base))))
            let idats = pngChunks(original).filter { $0.type == "IDAT" }
            let afterIDAT = idats.last!.at + 12 + idats.last!.length
            for k in 0..<30 {
                var f = original
                switch k % 6 {
                case 0:   // bytes flipped inside the image data, CRCs made right: zlib and the Adler-32 decide
                    let c = idats[Int.random(in: 0..<idats.count, using: &rng)]
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        f[c.at + 8 + Int.random(in: 0..<max(c.length, 1), using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                    }
                    f = fixed(f)
                case 1:   // cut anywhere
                    f = Array(f.prefix(Int.random(in: 8..<f.count, using: &rng)))
                case 2:   // the Adler-32 changed, CRCs made right
                    f[afterIDAT - 5 - Int.random(in: 0..<4, using: &rng)] ^= 0x55
                    f = fixed(f)
                case 3:   // junk after the zlib stream, in the last IDAT
                    let junk = (0..<Int.random(in: 1...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    let last = idats.last!
                    let body = Array(f[(last.at + 8)..<(last.at + 8 + last.length)]) + junk
                    f = Array(f[..<last.at]) + pngChunk("IDAT", body) + Array(f[afterIDAT...])
                case 4:   // a chunk after the image data
                    let types = ["IDAT", "PLTE", "IHDR", "tEXt", "ABCD", "abcD", "gAMA", "IEND", "IDA\u{1}"]
                    let type = types[Int.random(in: 0..<types.count, using: &rng)]
                    let body = (0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    var c = pngChunk("tEXt", body)
                    c.replaceSubrange(4..<8, with: Array(type.utf8))
                    if Bool.random(using: &rng) { c = fixed(pngSignature + c).suffix(c.count).map { $0 } }
                    f = Array(f[..<afterIDAT]) + c + Array(f[afterIDAT...])
                default:  // a bad CRC on any chunk
                    let all = pngChunks(f)
                    let c = all[Int.random(in: 0..<all.count, using: &rng)]
                    f[c.at + 8 + c.length] ^= 1
                }
                let name = "v\(compared)"
                try Data(f).write(to: work.appendingPathComponent("variants/\(name).png"))
                described[name] = "\(base) variant \(k)"
                compared += 1
            }
        }
        let files = (0..<compared).map { work.appendingPathComponent("variants/v\($0).png").path }
        let own = try batch(files, into: "own", libpng: false), libpng = try batch(files, into: "libpng", libpng: true)
        // Per file: its message lines (the file named in each) and its output.
        func lines(_ all: [String], _ name: String) -> [String] { all.filter { $0.contains("/\(name).png:") } }
        for name in described.keys.sorted() {
            let o = lines(own.lines, name), l = lines(libpng.lines, name)
            let what = "\(described[name]!): \(o) | \(l), \(rng)"
            let ownFailed = o.contains { $0.contains("error:") }, libpngFailed = l.contains { $0.contains("error:") }
            XCTAssertEqual(ownFailed, libpngFailed, what)
            XCTAssertEqual(own.outputs["variants/\(name).nv12"], libpng.outputs["variants/\(name).nv12"], what)
            if ownFailed && o.joined().contains("Not enough image data") && l.joined().contains("incorrect data check") {
                continue   // a trailer cut short: both refuse it, each in its words
            }
            XCTAssertEqual(o, l, what)
        }
        XCTAssertEqual(compared, bases.count * 30)
        print("PNGRouteTests: \(compared) damaged files, the same outcome on both routes")
    }


    /// 16-bit images without tRNS are read here too (yc_png_idat_begin16): every 16-bit PNG of the corpus gives
    /// libpng's bytes and messages, grey, grey+alpha, RGB and RGBA, alpha dropped or kept, into 8- and 10-bit
    /// layouts; interlaced and tRNS-keyed ones stay with libpng on both.
    func testSixteenBitImagesAlikeOnBothRoutes() throws {
        let root = packageRoot.appendingPathComponent("Fixtures/corpus/pngsuite")
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix("16.png") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 30)
        // Alpha dropped (R,G,B rows) and kept (R,G,B,A rows: every alpha mode but `ignore` reads the same rows).
        let cases: [[String]] = [["--format", "nv12"], ["--format", "yuv420p10le", "--alpha", "premultiply"]]
        var compared = 0
        for file in files {
            for (n, options) in cases.enumerated() {
                let args = [root.appendingPathComponent(file).path, "-o", "-", "-q"] + options
                let own = try launch(binary, args, stdin: .null)
                let libpng = try launch(binary, args, environment: ["YUVCONV_PNG_LIBPNG": "1"], stdin: .null)
                XCTAssertEqual(own.status, libpng.status, "\(file) \(n)")
                XCTAssertEqual(own.stderr, libpng.stderr, "\(file) \(n)")
                XCTAssertTrue(own.stdout == libpng.stdout, "\(file) \(options): bytes differ")
                XCTAssertFalse(own.stdout.isEmpty, "\(file) \(n)")
                compared += 1
            }
        }
        XCTAssertEqual(compared, files.count * cases.count)
    }

    /// Image data in an IDAT chunk after the zlib stream has ended is skipped on both routes (as libpng skips it)
    /// and said once, as data left in the stream's last chunk already was ("Extra compressed data"): it was
    /// skipped without a word. An empty IDAT there is nothing to say.
    func testImageDataAfterTheStreamIsSaid() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        for (name, ihdr, rowBytes) in [("rgb8", [UInt8](arrayLiteral: 8, 2, 0, 0, 0), 12), ("rgb16", [16, 2, 0, 0, 0], 24),
                                       ("grey1", [1, 0, 0, 0, 0], 1)] {
            var raw: [UInt8] = []
            for y in 0..<4 { raw.append(0); for x in 0..<rowBytes { raw.append(UInt8((x * 9 + y * 5) & 255)) } }
            let head = pngSignature + pngChunk("IHDR", be32(4) + be32(4) + ihdr) + pngChunk("IDAT", zlibStored(raw))
            for (variant, extra) in [("plain", [UInt8]()), ("after", pngChunk("IDAT", Array("garbage!".utf8))),
                                     ("empty", pngChunk("IDAT", []))] {
                try Data(head + extra + pngChunk("IEND", [])).write(to: work.appendingPathComponent("\(name)-\(variant).png"))
            }
            for (route, env) in [("own", [String: String]()), ("libpng", ["YUVCONV_PNG_LIBPNG": "1"])] {
                var out: [String: Data] = [:]
                for variant in ["plain", "after", "empty"] {
                    let r = try launch(binary, ["\(name)-\(variant).png", "-o", "-"], environment: env, stdin: .null)
                    XCTAssertEqual(r.status, 0, "\(name) \(variant) \(route): \(r.stderr)")
                    XCTAssertEqual(r.stderr.contains("warning: \(name)-\(variant).png: IDAT: image data after the end of the "
                                                     + "compressed stream, ignored"), variant == "after", "\(route): \(r.stderr)")
                    out[variant] = r.stdout
                }
                XCTAssertEqual(out["after"], out["plain"], "\(name) \(route)")
                XCTAssertEqual(out["empty"], out["plain"], "\(name) \(route)")
            }
        }
    }

    /// Image data broken off by another chunk before the picture is whole (a PNG's IDAT chunks follow each other)
    /// is refused on both routes naming that chunk — one PNG does not define (`ZZZZ`, which libpng turns away only
    /// as not enough image data) and one it does (`tEXt`) — while data merely cut short, with IEND next, says
    /// only that; no output either way.
    func testImageDataBrokenOffByAChunkNamesIt() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        var raw: [UInt8] = []
        for y in 0..<8 { raw.append(0); for x in 0..<24 { raw.append(UInt8((x * 9 + y * 5) & 255)) } }
        let z = zlibStored(raw), half = z.count / 2
        let head = pngSignature + pngChunk("IHDR", be32(8) + be32(8) + [8, 2, 0, 0, 0]) + pngChunk("IDAT", Array(z[..<half]))
        for (name, between) in [("ZZZZ", pngChunk("ZZZZ", Array("hello".utf8))), ("tEXt", pngChunk("tEXt", Array("a\0b".utf8))),
                                ("", [UInt8]())] {
            let file = "broken-\(name.isEmpty ? "short" : name).png"
            try Data(head + between + (name.isEmpty ? [] : pngChunk("IDAT", Array(z[half...]))) + pngChunk("IEND", []))
                .write(to: work.appendingPathComponent(file))
            for (route, env) in [("own", [String: String]()), ("libpng", ["YUVCONV_PNG_LIBPNG": "1"])] {
                let r = try launch(binary, [file, "-o", "out.nv12"], environment: env, stdin: .null)
                XCTAssertEqual(r.status, 1, "\(file) \(route): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\(file): the PNG's image data ends before the picture does"), "\(route): \(r.stderr)")
                XCTAssertEqual(r.stderr.contains("broken off by a chunk \(name) ("), !name.isEmpty, "\(file) \(route): \(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out.nv12").path), "\(file) \(route)")
            }
        }
    }

    /// A wrong Adler-32 is an error on both routes wherever its bytes lie. libpng makes one more inflate call after
    /// the last row's data and skips the rest, so a checksum in an IDAT chunk of its own was only a warning, and
    /// one cut over several chunks (as fixed-size IDAT writers cut it) was never compared: exit 0 without a word,
    /// the damaged samples converted. Every image libpng reads (16-bit, interlaced, 1-bit grey) and an 8-bit one
    /// on both routes; the same files with the right checksum convert.
    func testLateBadChecksumIsRefusedOnBothRoutes() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        // (IHDR's depth, colour type, interlace; bytes a row without the filter byte; rows)
        let kinds: [(name: String, ihdr: [UInt8], rowBytes: Int, rows: Int)] = [
            ("rgb8", [8, 2, 0, 0, 0], 12, 4), ("rgb16", [16, 2, 0, 0, 0], 24, 4), ("grey1", [1, 0, 0, 0, 0], 1, 4)]
        var checked = 0
        for kind in kinds {
            var raw: [UInt8] = []
            for y in 0..<kind.rows {
                raw.append(0)
                for x in 0..<kind.rowBytes { raw.append(UInt8((x * 9 + y * 5) & 255)) }
            }
            let good = zlibStored(raw)
            var bad = good
            bad[bad.count - 1] ^= 1
            let head = pngSignature + pngChunk("IHDR", be32(4) + be32(kind.rows) + kind.ihdr)
            for (damaged, z) in [(false, good), (true, bad)] {
                // The checksum in an IDAT of its own, and one byte an IDAT.
                let own = pngChunk("IDAT", Array(z.dropLast(4))) + pngChunk("IDAT", Array(z.suffix(4)))
                var cut = pngChunk("IDAT", Array(z.dropLast(4)))
                for byte in z.suffix(4) { cut += pngChunk("IDAT", [byte]) }
                // Half the checksum in image data that resumes after another chunk: not the image's (both routes
                // stop at the first chunk that is not IDAT), so the data ends early, whether or not it is right.
                // libpng refuses it itself; the second inflate, fed every IDAT, must not finish the stream there
                // (it is marked ended short at the first other chunk).
                let resumed = pngChunk("IDAT", Array(z.dropLast(2))) + pngChunk("tEXt", Array("a\0b".utf8))
                    + pngChunk("IDAT", Array(z.suffix(2)))
                for (layout, idat) in [("own", own), ("cut", cut), ("resumed", resumed)] {
                    let name = "\(kind.name)-\(layout)-\(damaged ? "bad" : "good")"
                    try Data(head + idat + pngChunk("IEND", [])).write(to: work.appendingPathComponent("\(name).png"))
                    let (ownRoute, libpng) = try both("\(name).png")
                    for (route, r) in [("own", ownRoute), ("libpng", libpng)] {
                        if layout == "resumed" {
                            XCTAssertEqual(r.status, 1, "\(name) \(route): \(r.stderr)")
                            XCTAssertTrue(r.stderr.contains("\(name).png: the PNG's image data ends before the picture does"),
                                          "\(name) \(route): \(r.stderr)")
                        } else if damaged {
                            XCTAssertEqual(r.status, 1, "\(name) \(route): \(r.stderr)")
                            XCTAssertTrue(r.stderr.contains("\(name).png: the PNG's compressed image data fails its checksum"),
                                          "\(name) \(route): \(r.stderr)")
                            XCTAssertFalse(r.stderr.contains("warning"), "said once, as an error: \(r.stderr)")
                        } else {
                            XCTAssertEqual(r.status, 0, "\(name) \(route): \(r.stderr)")
                            XCTAssertEqual(r.stderr, "", "\(name) \(route)")
                        }
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 36)
    }
}
