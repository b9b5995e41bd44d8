// `swift build` (no tests) builds this target too, and only test builds can import XCTest: there the file is empty.
#if canImport(XCTest)
import Foundation
import XCTest

/// Runs the built `yuvconv` binary (`make test` builds it first) as a user would, each test in a fresh
/// temporary work folder: the base class of the CLI tests.
open class CLITestCase: XCTestCase {
    public struct Result {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
    }

    /// The built tool: YUVCONV_BIN (the sanitizer builds set it), else .build/release/yuvconv.
    public var binary: URL {
        if let p = ProcessInfo.processInfo.environment["YUVCONV_BIN"] {
            return p.hasPrefix("/") ? URL(fileURLWithPath: p) : packageRoot.appendingPathComponent(p)
        }
        return packageRoot.appendingPathComponent(".build/release/yuvconv")
    }

    public var work: URL!

    override open func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path),
                      "build the tool first (make test does): \(binary.path)")
        work = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    /// The tool with these arguments in the work folder; `stdin` is written to a pipe that is then closed.
    @discardableResult
    public func run(_ args: [String], stdin: Data? = nil) throws -> Result {
        try launch(binary, args, stdin: .data(stdin ?? Data()))
    }

    /// RFC 4180 rows (CRLF between them, quoted fields with "" for a quote); a final empty line is no row.
    public func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { field.append("\""); chars = chars.dropFirst() } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" { quoted = true
            } else if c == "," { row.append(field); field = ""
            } else if c == "\r\n" || c == "\n" { row.append(field); rows.append(row); row = []; field = ""
            } else { field.append(c) }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }

    /// The tool with these arguments and `--color-management off`: the samples as stored, as `yuvref.py`
    /// converts them (PngSuite's pictures carry gAMA 1.0, which colour management would apply).
    @discardableResult
    public func runAsStored(_ args: [String], stdin: Data? = nil) throws -> Result {
        try run(args + ["--color-management", "off"], stdin: stdin)
    }

    public enum Input {
        /// A pipe holding these bytes, then closed.
        case data(Data)
        /// `/dev/null`.
        case null
    }

    /// Any program in the work folder, its output and errors collected, its environment this process's
    /// with `environment` added.
    private static let pipeSignalIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

    public func launch(_ executable: URL, _ args: [String], environment: [String: String] = [:],
                       stdin: Input) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        p.currentDirectoryURL = work
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        switch stdin {
        case .data: p.standardInput = input
        case .null: p.standardInput = FileHandle.nullDevice
        }
        try p.run()
        if case .data(let bytes) = stdin {
            // A run refused before it reads standard input may exit first: the write then fails with EPIPE
            // (SIGPIPE ignored, once, so it does not end the test process), which is no failure of the test.
            _ = Self.pipeSignalIgnored
            try? input.fileHandleForWriting.write(contentsOf: bytes)
            try? input.fileHandleForWriting.close()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: o, stderr: String(decoding: e, as: UTF8.self))
    }

    /// Every option name `--help` lists: the names (-x, --name) before column 27 of its option lines
    /// ("  -o, --output PATH", "      --matrix M"), where their help starts.
    public func helpOptionNames() throws -> Set<String> {
        let help = String(decoding: try run(["--help"]).stdout, as: UTF8.self)
        return Set(help.split(separator: "\n").flatMap { line -> [String] in
            guard line.hasPrefix("  -") || line.hasPrefix("      --") else { return [] }
            return line.prefix(27).split(whereSeparator: { $0 == " " || $0 == "," }).filter { $0.hasPrefix("-") }.map(String.init)
        })
    }

    /// The golden CRC of a corpus fixture (`Fixtures/golden/images.tsv`) for "matrix range" and a layout.
    public func golden(_ path: String, _ spec: String, _ layout: String) throws -> String {
        let text = try String(contentsOf: fixturesURL.appendingPathComponent("golden/images.tsv"), encoding: .utf8)
        let key = "corpus/\(path)\t\(spec.replacingOccurrences(of: " ", with: "\t"))\t\(layout)\t"
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix(key) })
        return String(line.split(separator: "\t")[4])
    }

    /// Files in the work folder, temporary files included.
    public func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
    }
}
#endif
