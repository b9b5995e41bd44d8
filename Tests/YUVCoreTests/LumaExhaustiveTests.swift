import Foundation
import TestSupport
import XCTest
import YUVCore

/// Every luma value over all 2^24 RGB triples, for each matrix and range:
/// the reference equals yuvref.py (golden fingerprints), and the fast rows equal the reference.
final class LumaExhaustiveTests: XCTestCase {
    static let rgb: [UInt8] = {
        var a = [UInt8](repeating: 0, count: 3 << 24)
        var i = 0
        for r in 0..<256 { for g in 0..<256 { for b in 0..<256 {
            a[i] = UInt8(r); a[i + 1] = UInt8(g); a[i + 2] = UInt8(b); i += 3
        } } }
        return a
    }()

    static let rgba: [UInt8] = {
        var a = [UInt8](repeating: 0, count: 4 << 24)
        for p in 0..<(1 << 24) {
            a[4 * p] = rgb[3 * p]; a[4 * p + 1] = rgb[3 * p + 1]; a[4 * p + 2] = rgb[3 * p + 2]
            a[4 * p + 3] = UInt8(truncatingIfNeeded: p &* 37)  // alpha must not matter
        }
        return a
    }()

    func golden() throws -> [String: String] {
        let text = try String(contentsOf: fixturesURL.appendingPathComponent("golden/exhaustive-luma.tsv"), encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t").map(String.init)
            out["\(f[0]) \(f[1])"] = f[2]
        }
        return out
    }

    func testReferenceMatchesYuvrefAndFastRowsMatchReference() throws {
        let gold = try golden()
        XCTAssertEqual(gold.count, 6)
        let n = 1 << 24
        for spec in ConversionSpec.all {
            var reference = [UInt8](repeating: 0, count: n)
            Self.rgb.withUnsafeBufferPointer { src in
                reference.withUnsafeMutableBufferPointer { dst in
                    RowKernels.yRowReference(src.baseAddress!, dst.baseAddress!, n, bytesPerPixel: 3, spec: spec)
                }
            }
            XCTAssertEqual(Checksum.crc32Hex(reference), gold["\(spec.matrix.rawValue) \(spec.range.rawValue)"],
                           "reference luma differs from yuvref.py for \(spec)")
            let k = KernelConstants(spec)
            var fast = [UInt8](repeating: 0, count: n)
            Self.rgb.withUnsafeBufferPointer { src in
                fast.withUnsafeMutableBufferPointer { RowKernels.rgbToYRow(src.baseAddress!, $0.baseAddress!, n, k.y) }
            }
            XCTAssertTrue(fast == reference, "RGB luma row differs from the reference for \(spec): "
                          + "first at \(String(describing: zip(fast, reference).enumerated().first { $0.1.0 != $0.1.1 }))")
            var fastA = [UInt8](repeating: 0, count: n)
            Self.rgba.withUnsafeBufferPointer { src in
                fastA.withUnsafeMutableBufferPointer { RowKernels.rgbaToYRow(src.baseAddress!, $0.baseAddress!, n, k.y) }
            }
            XCTAssertTrue(fastA == reference, "RGBA luma row differs from the reference for \(spec)")
        }
    }
}
