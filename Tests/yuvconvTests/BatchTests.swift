import Foundation
import TestSupport
import XCTest
import YUVCore

/// Many files at once: corrupt files in the middle, shards, names, --update, --fail-fast, unwritable
/// folders, and an interrupt mid-run — nothing partial or temporary left anywhere.
final class BatchTests: CLITestCase {
    /// Every file below the work folder (temporary files included), relative.
    func tree(_ dir: URL? = nil) -> [String] {
        let root = dir ?? work!
        let e = FileManager.default.enumerator(atPath: root.path)
        var out: [String] = []
        while let p = e?.nextObject() as? String { out.append(p) }
        return out.sorted()
    }

    func makeInputs(_ names: [(String, String)]) throws {
        for (fixtureName, target) in names {
            let dst = work.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture(fixtureName), toPath: dst.path)
        }
    }

    func testCorruptFilesInTheMiddleAndIdenticalBytes() throws {
        try makeInputs([("pngsuite/basn2c08.png", "in/a.png"), ("pngsuite/xcsn0g01.png", "in/b.png"),
                        ("photos/rocket.jpg", "in/c.jpg"), ("jpeg/wuffs/peacock.default.truncated.jpeg", "in/d.jpg"),
                        ("pngsuite/basn0g16.png", "in/e.png")])
        for jobs in ["1", "2"] {
            let r = try run(["convert", "in/", "-o", "out\(jobs)/", "-j", jobs])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("3 converted, 0 skipped"), r.stderr)
            XCTAssertTrue(r.stderr.contains("2 failed"), r.stderr)
            XCTAssertTrue(r.stderr.contains("  failed: in/b.png: "), r.stderr)
            XCTAssertTrue(r.stderr.contains("  failed: in/d.jpg: "), r.stderr)
            XCTAssertEqual(tree(work.appendingPathComponent("out\(jobs)")), ["a.nv12", "c.nv12", "e.nv12"])
            for name in ["a", "c", "e"] {
                let single = try run([tree().first { $0.hasPrefix("in/\(name).") }!, "-o", "-", "-q"]).stdout
                XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("out\(jobs)/\(name).nv12")), single)
            }
        }
        // Existing outputs are skipped; --force redoes them.
        let again = try run(["convert", "in/", "-o", "out1/", "-q"])
        XCTAssertTrue(again.stderr.contains("0 converted, 3 skipped"), again.stderr)
        XCTAssertTrue(try run(["convert", "in/", "-o", "out1/", "-q", "--force"]).stderr.contains("3 converted"))
    }

    /// Two folders whose names are one in NFC and in NFD are two folders: their files' clash is said as a clash,
    /// with a template that tells them apart, not as one file "given twice" (Swift's `==` takes the names as one).
    func testNamesInNFCAndNFDAreTwoFiles() throws {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: fixture("pngsuite/basn2c08.png")))
        for (folder, extra) in [("nf/\u{E9}", 0), ("nf/e\u{301}", 1)] {
            let dir = work.path + "/" + folder
            XCTAssertEqual((work.path + "/nf").withCString { mkdir($0, 0o755) } == 0 || errno == EEXIST, true)
            XCTAssertEqual(dir.withCString { mkdir($0, 0o755) }, 0, folder)
            let f = try XCTUnwrap((dir + "/a.png").withCString { fopen($0, "wb") })
            XCTAssertEqual(fwrite([UInt8](bytes) + [UInt8](repeating: 0, count: extra), 1, bytes.count + extra, f), bytes.count + extra)
            fclose(f)
        }
        let dry = try run(["convert", "nf/", "-r", "-o", "out/", "--dry-run"])
        XCTAssertEqual(dry.status, 2, dry.stderr)
        XCTAssertFalse(dry.stderr.contains("given twice"), dry.stderr)
        XCTAssertTrue(dry.stderr.contains("would both write out/a.nv12 (change --name, e.g. '{dir}/{stem}.{ext}')"), dry.stderr)
        let named = try run(["convert", "nf/", "-r", "-o", "out/", "--name", "{dir}/{stem}.{ext}", "-q"])
        XCTAssertEqual(named.status, 0, named.stderr)
        for folder in ["out/\u{E9}", "out/e\u{301}"] {
            XCTAssertEqual((work.path + "/" + folder + "/a.nv12").withCString { access($0, F_OK) }, 0, folder)
        }
    }

    func testUpdateFailFastAndDuplicates() throws {
        try makeInputs([("pngsuite/basn2c08.png", "in/a.png"), ("pngsuite/basn0g08.png", "in/b.png"),
                        ("pngsuite/xcsn0g01.png", "in/c.png"), ("pngsuite/basn6a08.png", "in/z.png")])
        XCTAssertEqual(try run(["convert", "in", "-o", "out/", "--update", "-q", "-j", "1"]).status, 1)
        // Give a.png other content: --update redoes only it (the damaged c.png fails again).
        try FileManager.default.removeItem(at: work.appendingPathComponent("in/a.png"))
        try makeInputs([("pngsuite/basn2c16.png", "in/a.png")])
        let u = try run(["convert", "in", "-o", "out/", "--update", "-q", "-j", "1"])
        XCTAssertTrue(u.stderr.contains("1 converted, 2 kept (up to date)"), u.stderr)
        // --fail-fast stops after the first failure (one job: in order).
        let f = try run(["convert", "in", "-o", "ff/", "--fail-fast", "-j", "1", "-q"])
        XCTAssertEqual(f.status, 1)
        XCTAssertTrue(f.stderr.contains("1 not started"), f.stderr)
        // Two inputs onto one output: a usage error before anything runs.
        try makeInputs([("pngsuite/basn2c08.png", "other/a.png")])
        let d = try run(["convert", "in/a.png", "other/a.png", "-o", "dup/"])
        XCTAssertEqual(d.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("dup").path))
        // {dir} mirrors the tree and keeps them apart.
        let m = try run(["convert", "in", "other", "-r", "-o", "m/", "--name", "{dir}/{stem}.{format}", "-q"])
        XCTAssertEqual(m.status, 1)
        let mirrored = tree(work.appendingPathComponent("m"))
        XCTAssertTrue(mirrored.contains("in/a.nv12") && mirrored.contains("other/a.nv12"), "\(mirrored)")
    }

    func testShardsTogetherEqualTheWhole() throws {
        var pairs: [(String, String)] = []
        for (i, n) in ["basn0g01", "basn0g08", "basn2c08", "basn3p08", "basn6a08", "basi0g08", "basi2c16"].enumerated() {
            pairs.append(("pngsuite/\(n).png", "in/\(i).png"))
        }
        try makeInputs(pairs)
        var union: [String] = []
        for k in 1...3 {
            let r = try run(["convert", "in", "-o", "out/", "--shard", "\(k)/3", "-q", "--report", "json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let files = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
                let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return o?["file"] as? String
            }
            union += files
        }
        XCTAssertEqual(union.sorted(), (0..<7).map { "in/\($0).png" })
        XCTAssertEqual(tree(work.appendingPathComponent("out")).count, 7)
        XCTAssertEqual(try run(["convert", "in", "-o", "x/", "--shard", "4/3"]).status, 2)
        // A field left empty is a typo (a CI matrix's `$K//$N`), not 1/3: refused, as 1/3/5 is.
        for typo in ["1//3", "1/3/", "1/3//", "/1/3", "1/3/5"] {
            let r = try run(["convert", "in", "-o", "x/", "--shard", typo, "-n"])
            XCTAssertEqual(r.status, 2, "--shard \(typo): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--shard takes K/N"), r.stderr)
        }
    }

    /// A folder reached both by its own path and through a link is listed under its own path, whichever the
    /// file system lists first: the same tree on two machines must give the same list, or shards of it miss
    /// one file and count another twice. Two trees, the link's name before and after the folder's: with the
    /// first way met winning, one of them lists the file through the link.
    func testFolderReachedThroughALinkKeepsItsOwnPath() throws {
        for (real, link) in [("z", "a"), ("a", "z")] {
            let top = "t\(real)"
            try makeInputs([("pngsuite/basn2c08.png", "\(top)/\(real)/x.png"), ("pngsuite/basn0g08.png", "\(top)/m.png")])
            try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("\(top)/\(link)").path,
                                                       withDestinationPath: real)
            let r = try run(["report", top, "-r", "--report", "csv", "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let files = parseCSV(String(decoding: r.stdout, as: UTF8.self)).dropFirst().map { $0[0] }.filter { !$0.hasPrefix("TOTAL") }
            XCTAssertEqual(files.sorted(), ["\(top)/\(real)/x.png", "\(top)/m.png"].sorted(), "link \(link) to \(real)")
            XCTAssertTrue(r.stderr.isEmpty || r.stderr.contains("\(top)/\(link) (a folder walked already, reached again through a link or a mount)"),
                          r.stderr)
        }
        // One folder at two real paths (a bind mount; root only), made in either order: the first in byte order.
        for order in [["z", "a"], ["a", "z"]] {
            let top = "m" + order.joined()
            for n in order {
                try FileManager.default.createDirectory(at: work.appendingPathComponent("\(top)/\(n)"), withIntermediateDirectories: true)
            }
            try makeInputs([("pngsuite/basn2c08.png", "\(top)/a/x.png")])
            let mounted = try launch(URL(fileURLWithPath: "/bin/mount"), ["--bind", "\(top)/a", "\(top)/z"], stdin: .null)
            guard mounted.status == 0 else { continue }   // not root: nothing to check
            defer { _ = try? launch(URL(fileURLWithPath: "/bin/umount"), ["\(top)/z"], stdin: .null) }
            let r = try run(["report", top, "-r", "--report", "csv", "-q"])
            let files = parseCSV(String(decoding: r.stdout, as: UTF8.self)).dropFirst().map { $0[0] }.filter { !$0.hasPrefix("TOTAL") }
            XCTAssertEqual(files, ["\(top)/a/x.png"], "made as \(order)")
        }
    }

    func testFilesFromNulSeparatedStdin() throws {
        try makeInputs([("pngsuite/basn2c08.png", "in/a b.png"), ("pngsuite/basn0g08.png", "in/c.png")])
        let r = try run(["convert", "--files-from", "-", "-0", "-o", "out/", "-q"], stdin: Data("in/a b.png\0in/c.png\0".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(tree(work.appendingPathComponent("out")), ["a b.nv12", "c.nv12"])
    }

    func testUnwritableOutputFolder() throws {
        try makeInputs([("pngsuite/basn2c08.png", "in/a.png"), ("pngsuite/basn0g08.png", "in/b.png")])
        let r = try run(["convert", "in", "-o", "/proc/yuvconv-cannot/"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("2 failed"), r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot make the folder /proc/yuvconv-cannot: No such file or directory"), r.stderr)
    }

    /// SIGINT mid-run: no new files, nothing partial or temporary, a summary, exit 130. SIGHUP (a closed terminal
    /// or SSH session) the same, exit 129, with --update's manifest of what finished written: it once ended the
    /// run on the spot, and the next run redid every file.
    func testInterruptMidBatch() throws {
        var pairs: [(String, String)] = []
        for i in 0..<200 { pairs.append(("photos/kodim23.png", "in/\(String(format: "%03d", i)).png")) }
        try makeInputs(pairs)
        for (sig, status, extra) in [(SIGINT, Int32(130), [String]()), (SIGHUP, 129, ["--update"])] {
            let outDir = work.appendingPathComponent("out")
            try? FileManager.default.removeItem(at: outDir)
            let p = Process()
            p.executableURL = binary
            p.arguments = ["convert", "in", "-o", "out/", "-j", "2", "-q"] + extra
            p.currentDirectoryURL = work
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            // Wait for the first outputs, then interrupt.
            let deadline = Date().addingTimeInterval(20)
            while tree(outDir).filter({ $0.hasSuffix(".nv12") && !$0.hasPrefix(".") }).count < 3 && Date() < deadline {
                usleep(10_000)
            }
            kill(p.processIdentifier, sig)
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, status, text)
            XCTAssertTrue(text.contains("not started (interrupted)"), text)
            let files = tree(outDir).filter { $0 != ".yuvconv-manifest" }
            XCTAssertFalse(files.contains { $0.contains("yuvconv-") }, "temporary files left: \(files)")
            XCTAssertGreaterThan(files.count, 0)
            XCTAssertLessThan(files.count, 200)
            let whole = 768 * 512 * 3 / 2
            for f in files {
                XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: outDir.appendingPathComponent(f).path)[.size] as? Int, whole, f)
            }
            if sig == SIGHUP {
                let manifest = try String(contentsOf: outDir.appendingPathComponent(".yuvconv-manifest"), encoding: .utf8)
                for f in files { XCTAssertTrue(manifest.contains(f), "\(f) not in the manifest") }
            }
        }
    }
}
