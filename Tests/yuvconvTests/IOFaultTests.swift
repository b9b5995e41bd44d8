import Foundation
import TestSupport
import XCTest

/// Faults around the files: a full disk, a pipe closed early, an input cut short, an unwritable place.
/// Each gives a clear error, a non-zero exit and no partial output.
final class IOFaultTests: CLITestCase {
    /// A 64 KiB tmpfs: the output does not fit. Needs root (mount); CI and the developers' machines are.
    func testFullDisk() throws {
        let mnt = work.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mnt, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
        defer {
            let u = Process()
            u.executableURL = URL(fileURLWithPath: "/bin/umount")
            u.arguments = [mnt.path]
            try? u.run()
            u.waitUntilExit()
        }
        // Every output format says it the same way: the input's line, naming the output (a JPEG said only
        // "k.jpg: write failed: …", and YUV input named the output alone).
        for ext in ["nv12", "png", "jpg", "y4m"] {
            let out = mnt.appendingPathComponent("k.\(ext)").path
            let r = try run([fixture("photos/kodim23.png"), "-o", out])
            XCTAssertEqual(r.status, 1)
            XCTAssertTrue(r.stderr.contains("kodim23.png: cannot write \(out): "), r.stderr)
            XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mnt.path), [])
        }
        XCTAssertEqual(try run([fixture("photos/kodim23.png"), "-o", "k.yuv", "--format", "yuv420p", "-q"]).status, 0)
        let raw = try run(["k.yuv", "--size", "768x512", "-o", mnt.appendingPathComponent("k.jpg").path])
        XCTAssertEqual(raw.status, 1)
        XCTAssertTrue(raw.stderr.contains("k.yuv: cannot write \(mnt.appendingPathComponent("k.jpg").path): "), raw.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mnt.path), [])
        // In a batch the other files still convert (a small one fits).
        let b = try run(["convert", fixture("photos/kodim23.png"), fixture("pngsuite/basn2c08.png"), "-o", mnt.path + "/"])
        XCTAssertEqual(b.status, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mnt.path), ["basn2c08.nv12"])
    }

    /// `yuvconv … -o - | head -c 10`: a write error (EPIPE), exit 1, a message — not a silent SIGPIPE death.
    func testPipeClosedEarly() throws {
        let tool = Process()
        tool.executableURL = binary
        tool.arguments = [fixture("photos/kodim23.png"), "-o", "-"]
        let out = Pipe(), err = Pipe()
        tool.standardOutput = out
        tool.standardError = err
        try tool.run()
        _ = out.fileHandleForReading.readData(ofLength: 10)
        try out.fileHandleForReading.close()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        XCTAssertEqual(tool.terminationStatus, 1, message)
        XCTAssertTrue(message.contains("Broken pipe"), message)
    }

    /// The tool in the work folder with its standard output a pipe whose reading end is already closed (the
    /// first write is EPIPE): its status and standard error.
    func runIntoClosedPipe(_ args: [String]) throws -> (status: Int32, stderr: String) {
        let tool = Process()
        tool.executableURL = binary
        tool.arguments = args
        tool.currentDirectoryURL = work
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        tool.standardOutput = out
        tool.standardError = err
        try tool.run()
        try out.fileHandleForWriting.close()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        return (tool.terminationStatus, message)
    }

    /// Text into a pipe nobody reads (`yuvconv --man | head -1`, a report piped into `head`): status 1, no error
    /// line, a batch starting no more files — as a pipeline expects, never death by SIGPIPE; image data cut short
    /// says so (above).
    func testTextIntoAClosedPipeIsQuiet() throws {
        let png = fixture("pngsuite/basn2c08.png")
        let many = Array(repeating: [fixture("photos/kodim23.png"), png], count: 20).flatMap { $0 }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for (i, path) in many.enumerated() {
            try FileManager.default.copyItem(atPath: path, toPath: work.appendingPathComponent("in/\(i).png").path)
        }
        for args in [["--man"], ["--help"], ["--completion", "bash"], ["report", png, "--report", "json"],
                     ["report", "in/", "--report", "csv"], ["convert", "in/", "-o", "out/", "--report", "json"],
                     [png, "-o", "x.nv12", "--report", "json"], ["convert", "in/", "-o", "dry/", "-n"],
                     ["convert", "in/", "-o", "named/", "--report", "json", "--report-file", "/dev/stdout"]] {
            let (status, message) = try runIntoClosedPipe(args)
            XCTAssertEqual(status, 1, "\(args): \(message)")
            XCTAssertFalse(message.contains("error"), "\(args): \(message)")
        }
    }

    /// A batch whose report's reader went away starts no more files: of forty, not all made, and those made are
    /// whole (none left as a temporary file).
    func testBatchStopsWhenTheReportsReaderGoes() throws {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for i in 0..<40 {
            try FileManager.default.copyItem(atPath: fixture("photos/kodim23.png"), toPath: work.appendingPathComponent("in/\(i).png").path)
        }
        // The report named as standard output (`-`, /dev/stdout) alike: it was buffered to the end, all made.
        for (i, file) in ["-", "/dev/stdout"].enumerated() {
            let (status, message) = try runIntoClosedPipe(["convert", "in/", "-o", "named\(i)/", "--report", "json",
                                                           "--report-file", file, "-j", "1"])
            XCTAssertEqual(status, 1, message)
            XCTAssertFalse(message.contains("error"), message)
            let made = (try? FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("named\(i)").path)) ?? []
            XCTAssertLessThan(made.count, 40, file)
        }
        let dry = try runIntoClosedPipe(["convert", "in/", "-o", "dry/", "-n"])
        XCTAssertTrue(dry.stderr.contains("not decided (standard output's reader stopped reading)"), dry.stderr)
        let (status, message) = try runIntoClosedPipe(["convert", "in/", "-o", "out/", "--report", "json", "-j", "1"])
        XCTAssertEqual(status, 1, message)
        XCTAssertTrue(message.contains("not started (standard output's reader stopped reading)"), message)
        let made = (try? FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("out").path)) ?? []
        XCTAssertLessThan(made.count, 40)
        XCTAssertTrue(made.allSatisfy { $0.hasSuffix(".nv12") && !$0.hasPrefix(".") }, "\(made)")   // no temporary file left
    }

    /// Text on a full disk (`-n > /dev/full`, `--man > /dev/full`): an error with the reason, whatever the
    /// run's own status (a dry run that refused a file said nothing of its lost listing).
    func testTextOnAFullDiskSaysSo() throws {
        for args in [["--man"], ["convert", fixture("pngsuite/basn2c08.png"), "nothere.png", "-o", "o/", "-n"]] {
            let tool = Process()
            tool.executableURL = binary
            tool.arguments = args
            tool.currentDirectoryURL = work
            let err = Pipe()
            tool.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
            tool.standardError = err
            try tool.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            tool.waitUntilExit()
            XCTAssertEqual(tool.terminationStatus, 1, "\(args): \(message)")
            XCTAssertTrue(message.contains("<stdout>: write failed: No space left on device"), "\(args): \(message)")
        }
    }

    /// An input that ends early (half a PNG through a FIFO): a decode error, no output.
    func testInputCutShort() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/kodim23.png")))
        let fifo = work.appendingPathComponent("in.png").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: fifo) {
                h.write(whole.prefix(whole.count / 2))
                try? h.close()
            }
        }
        writer.start()
        let r = try run([fifo, "-o", "out.nv12"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("in.png: "), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out.nv12").path))
    }
}
