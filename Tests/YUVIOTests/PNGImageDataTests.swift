import Foundation
import TestSupport
import XCTest
import YUVIO

/// The PNG image data yuvconv reads itself (Sources/CShims/yc_png_idat.c: non-interlaced 8-bit RGB, RGBA, grey,
/// grey+alpha and palette images): files written here with every filter type on every row position, the zlib stream cut into
/// chunks of every size around the reader's buffer, decoded row band by row band, must give back exactly the
/// pixels written; and the checks libpng makes still fail the same files.
final class PNGImageDataTests: XCTestCase {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("png-idat-\(getpid())")

    override func setUpWithError() throws { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    /// PNG §9's filter `type` applied to `row` (bytes), `prev` the row above, `bpp` bytes a pixel.
    func filtered(_ type: Int, _ row: [UInt8], _ prev: [UInt8], _ bpp: Int) -> [UInt8] {
        func a(_ i: Int) -> Int { i >= bpp ? Int(row[i - bpp]) : 0 }
        func c(_ i: Int) -> Int { i >= bpp ? Int(prev[i - bpp]) : 0 }
        return row.indices.map { i in
            let x = Int(row[i]), b = Int(prev[i])
            let predictor: Int
            switch type {
            case 1: predictor = a(i)
            case 2: predictor = b
            case 3: predictor = (a(i) + b) / 2
            case 4:
                let p = a(i) + b - c(i), pa = abs(p - a(i)), pb = abs(p - b), pc = abs(p - c(i))
                predictor = pa <= pb && pa <= pc ? a(i) : pb <= pc ? b : c(i)
            default: predictor = 0
            }
            return UInt8(truncatingIfNeeded: x - predictor)
        }
    }

    /// A PNG of `rows` (packed bytes), colour type `colourType`, bit depth `depth`; row y filtered with
    /// type (y + shift) % 5; the zlib stream (level 9) in IDAT chunks of `chunk` bytes.
    func png(width: Int, rows: [[UInt8]], colourType: UInt8, depth: UInt8, bpp: Int, shift: Int, chunk: Int,
             palette: [UInt8] = []) throws -> [UInt8] {
        var raw: [UInt8] = []
        var prev = [UInt8](repeating: 0, count: rows[0].count)
        for (y, row) in rows.enumerated() {
            let type = (y + shift) % 5
            raw += [UInt8(type)] + filtered(type, row, prev, bpp)
            prev = row
        }
        let z = try deflated(raw)
        var file = pngSignature + pngChunk("IHDR", be32(width) + be32(rows.count) + [depth, colourType, 0, 0, 0])
        if !palette.isEmpty { file += pngChunk("PLTE", palette) }
        var at = 0
        repeat {
            let n = min(chunk, z.count - at)
            file += pngChunk("IDAT", Array(z[at..<(at + n)]))
            at += n
        } while at < z.count
        return file + pngChunk("tEXt", Array("Comment\0after".utf8)) + pngChunk("IEND", [])
    }

    /// zlib-compressed bytes (Foundation has no zlib on Linux: python3's, which the tests' tools use too),
    /// each input compressed once.
    var compressed: [[UInt8]: [UInt8]] = [:]
    func deflated(_ raw: [UInt8]) throws -> [UInt8] {
        if let z = compressed[raw] { return z }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), 9))"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(raw))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        compressed[raw] = Array(out)
        return Array(out)
    }

    /// The decoder's rows, read in bands of `band` rows into rows `pad` bytes longer than a row (the padding
    /// must stay untouched and the row above must be found across it), returned without the padding.
    func decode(_ file: [UInt8], name: String, band: Int, pad: Int = 0) throws -> (rows: [UInt8], rowBytes: Int) {
        let url = work.appendingPathComponent(name)
        try Data(file).write(to: url)
        let decoder = try ImageDecoder(source: InputSource(path: url.path))
        let rowBytes = decoder.info.width * decoder.info.rowFormat.bytesPerPixel, stride = rowBytes + pad
        var rows = [UInt8](repeating: 0xA5, count: stride * decoder.info.height)
        var y = 0
        while y < decoder.info.height {
            let n = min(band, decoder.info.height - y)
            try rows.withUnsafeMutableBytes { try decoder.readRows(into: $0.baseAddress! + y * stride, rowBytes: stride, count: n) }
            y += n
        }
        try decoder.finish()
        for r in 0..<decoder.info.height {
            XCTAssertTrue(rows[(r * stride + rowBytes)..<((r + 1) * stride)].allSatisfy { $0 == 0xA5 }, "padding of row \(r)")
        }
        return ((0..<decoder.info.height).flatMap { rows[($0 * stride)..<($0 * stride + rowBytes)] }, rowBytes)
    }

    func testEveryFilterEveryLayoutEveryChunking() throws {
        var rng = SplitMix64(seed: 0x1DA7)
        let (w, h) = (37, 23)
        let chunks = [1, 7, 4096, 65537]
        for shift in 0..<5 {
            // RGB and RGBA, 8-bit: smooth rows with noise, so every filter's predictor matters.
            for channels in [3, 4] {
                let rows = (0..<h).map { y in (0..<(w * channels)).map { i in UInt8(truncatingIfNeeded: (i * 3 + y * 5) + Int.random(in: 0...40, using: &rng)) } }
                for chunk in chunks {
                    let file = try png(width: w, rows: rows, colourType: channels == 3 ? 2 : 6, depth: 8, bpp: channels, shift: shift, chunk: chunk)
                    let got = try decode(file, name: "c\(channels).png", band: 1 + shift * 2)
                    XCTAssertEqual(got.rows, rows.flatMap { $0 }, "\(channels) channels, chunk \(chunk), shift \(shift), \(rng)")
                }
            }
            // Grey and grey+alpha, 8-bit: each grey copied to R, G and B (alpha kept).
            for bytes in [1, 2] {
                var rows: [[UInt8]] = []
                for y in 0..<h {
                    rows.append((0..<(w * bytes)).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i * 5 + y * 3 + Int.random(in: 0...30, using: &rng)) })
                }
                var want: [UInt8] = []
                for row in rows {
                    for x in 0..<w {
                        let g = row[bytes * x]
                        want += bytes == 1 ? [g, g, g] : [g, g, g, row[2 * x + 1]]
                    }
                }
                for chunk in chunks {
                    let file = try png(width: w, rows: rows, colourType: bytes == 1 ? 0 : 4, depth: 8, bpp: bytes, shift: shift, chunk: chunk)
                    let got = try decode(file, name: "g\(bytes).png", band: 4, pad: 3)
                    XCTAssertEqual(got.rows, want, "grey \(bytes) bytes, chunk \(chunk), shift \(shift), \(rng)")
                }
            }
            // Palettes of 1, 2, 4 and 8 bits: indices packed high bits first, looked up to R,G,B.
            for depth in [1, 2, 4, 8] {
                let colours = 1 << depth
                let palette = (0..<colours).flatMap { [UInt8(truncatingIfNeeded: $0 * 37), UInt8(truncatingIfNeeded: $0 * 91), UInt8(truncatingIfNeeded: 255 - $0)] }
                let indices = (0..<h).map { _ in (0..<w).map { _ in Int.random(in: 0..<colours, using: &rng) } }
                let packed = indices.map { row -> [UInt8] in
                    var bytes = [UInt8](repeating: 0, count: (w * depth + 7) / 8)
                    for (x, i) in row.enumerated() { bytes[x * depth / 8] |= UInt8(i << (8 - depth - (x * depth) % 8)) }
                    return bytes
                }
                for chunk in chunks {
                    let file = try png(width: w, rows: packed, colourType: 3, depth: UInt8(depth), bpp: 1, shift: shift, chunk: chunk, palette: palette)
                    let got = try decode(file, name: "p\(depth).png", band: 3)
                    let want = indices.flatMap { $0.flatMap { Array(palette[(3 * $0)..<(3 * $0 + 3)]) } }
                    XCTAssertEqual(got.rows, want, "\(depth)-bit palette, chunk \(chunk), shift \(shift), \(rng)")
                }
            }
        }
    }

    /// A picture whose compressed data is larger than the reader's 64 KiB buffer, in IDAT chunks smaller and
    /// larger than it, read into padded rows in bands of odd sizes.
    func testLargerThanTheReadBuffer() throws {
        var rng = SplitMix64(seed: 0xB16)
        let (w, h) = (301, 157)
        let rows = (0..<h).map { _ in (0..<(w * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        for chunk in [4096, 65535, 65537, 1 << 20] {
            let file = try png(width: w, rows: rows, colourType: 6, depth: 8, bpp: 4, shift: 2, chunk: chunk)
            XCTAssertGreaterThan(file.count, 2 * 65536)
            let got = try decode(file, name: "large.png", band: 5, pad: 13)
            XCTAssertEqual(got.rows, rows.flatMap { $0 }, "chunk \(chunk), \(rng)")
        }
    }

    func testDamagedImageDataIsRefused() throws {
        let rows = (0..<9).map { y in (0..<(9 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + y) } }
        let good = try png(width: 9, rows: rows, colourType: 2, depth: 8, bpp: 3, shift: 0, chunk: 50)
        XCTAssertNoThrow(try decode(good, name: "good.png", band: 4))
        func refused(_ file: [UInt8], _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try decode(file, name: "bad.png", band: 4), line: line) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)", line: line)
            }
        }
        // A filter type past 4, with the checksums made right.
        var raw: [UInt8] = []
        for row in rows { raw += [7] + row }
        refused(pngSignature + pngChunk("IHDR", be32(9) + be32(9) + [8, 2, 0, 0, 0]) + pngChunk("IDAT", try deflated(raw)) + pngChunk("IEND", []),
                "bad adaptive filter value")
        // The data cut short.
        let short = Array(raw.prefix(raw.count - 10)).map { $0 == 7 ? 0 : $0 }
        refused(pngSignature + pngChunk("IHDR", be32(9) + be32(9) + [8, 2, 0, 0, 0]) + pngChunk("IDAT", try deflated(short)) + pngChunk("IEND", []),
                "Not enough image data")
        // A wrong Adler-32 with every CRC right; a flipped data byte with the CRC left alone.
        var z = try deflated(rows.flatMap { [0] + $0 })
        z[z.count - 1] ^= 1
        refused(pngSignature + pngChunk("IHDR", be32(9) + be32(9) + [8, 2, 0, 0, 0]) + pngChunk("IDAT", z) + pngChunk("IEND", []),
                "incorrect data check")
        var flipped = good
        flipped[60] ^= 0x20
        refused(flipped, "CRC error")
        // A zlib header that does not check; a file that ends inside the image data.
        z = try deflated(rows.flatMap { [0] + $0 })
        z[1] ^= 1
        refused(pngSignature + pngChunk("IHDR", be32(9) + be32(9) + [8, 2, 0, 0, 0]) + pngChunk("IDAT", z) + pngChunk("IEND", []),
                "incorrect header check")
        refused(Array(good.prefix(good.count - 70)), "truncated PNG")
    }
}
