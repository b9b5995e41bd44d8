import CTurboJPEG
import Foundation
import TestSupport
import XCTest
import YUVCore
@testable import YUVIO

/// The direct path's inverse DCT on the converting thread (yc_jpeg_idct.c): libjpeg's own method on each block,
/// only later and elsewhere, so the bytes are those of the decode that runs it in line.
final class DeferredIDCTTests: XCTestCase {
    /// Every sampling, baseline and progressive, one band and many, odd edges: a threaded conversion — its
    /// converting thread running the queued blocks, or (forced) the decoding thread sharing them after every band,
    /// with the ring as sized or of one iMCU row (most blocks find it full and run at once; bands wrap around its
    /// end) — gives the bytes of the conversion in turn on one thread, which queues nothing. The counts show the
    /// queue and the sharing were used.
    func testDeferredInverseDCTGivesTheBytesOfTheInlineDecode() throws {
        defer { (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.idctRingRows) = (false, nil) }
        let samplings = [TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY, TJSAMP_440, TJSAMP_411]
        let specs = [ConversionSpec(matrix: .bt601, range: .full), ConversionSpec(matrix: .bt709, range: .limited)]
        let before = ImageDecoder.idctCounts
        for sampling in samplings {
            for flags in [Int32(0), Int32(TJFLAG_PROGRESSIVE)] {
                for (w, h) in [(1, 1), (37, 19), (333, 97), (130, 300), (2100, 70)] {
                    let path = try makeNoisyJPEG(width: w, height: h, sampling: sampling, seed: UInt64(w * 31 + h), flags: flags)
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    for spec in specs {
                        BandPipeline.helpAfterEveryBand = false
                        let inTurn = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions(jpegPath: .direct, pipelined: false))
                        for (helps, ringRows) in [(false, nil), (true, nil), (false, 1), (true, 1)] as [(Bool, Int?)] {
                            (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.idctRingRows) = (helps, ringRows)
                            let threaded = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions(jpegPath: .direct))
                            let what = "\(w)x\(h) sampling \(sampling.rawValue) flags \(flags) \(spec) helps \(helps) ring \(ringRows ?? 0)"
                            XCTAssertEqual(threaded.report.path, "direct YCbCr", what)
                            XCTAssertEqual(Array(threaded.image.yPlane), Array(inTurn.image.yPlane), what)
                            XCTAssertEqual(threaded.image.uPlane, inTurn.image.uPlane, what)
                            XCTAssertEqual(threaded.image.vPlane, inTurn.image.vPlane, what)
                        }
                    }
                }
            }
        }
        let after = ImageDecoder.idctCounts
        XCTAssertGreaterThan(after.queued, before.queued, "no block's inverse DCT was deferred")
        XCTAssertGreaterThan(after.shared, before.shared, "the decoding thread shared no queue")
    }
}
