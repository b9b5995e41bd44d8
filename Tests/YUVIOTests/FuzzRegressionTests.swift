import Foundation
import TestSupport
import XCTest
import YUVCore
import YUVIO

/// Every fuzzing find (Fixtures/fuzz-crashes) converts or fails with a reason — never crashes.
final class FuzzRegressionTests: XCTestCase {
    func testFuzzFindsNeverCrash() throws {
        let dir = fixturesURL.appendingPathComponent("fuzz-crashes")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasSuffix(".md") }
        for f in files {
            for path in JPEGPath.allCases {
                do {
                    _ = try convertFile(path: dir.appendingPathComponent(f).path, spec: ConversionSpec(), layout: .nv12,
                                        options: DecodeOptions(maxPixels: 1 << 24, jpegPath: path))
                } catch {
                    XCTAssertFalse(error.reason.isEmpty, f)
                }
            }
        }
    }
}
