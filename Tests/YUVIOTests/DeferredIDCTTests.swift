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
    /// with the ring as sized or of one iMCU row (most blocks find it full and run at once) — gives the bytes of
    /// the conversion in turn on one thread, which queues nothing. The counts show, conversion by conversion,
    /// that blocks were queued and each was run once (a block run twice writes the same bytes, so only the count
    /// tells), and that the decoding thread shared some. On x86-64 a CPU without AVX2 queues none (yc_jpeg_idct.c).
    func testDeferredInverseDCTGivesTheBytesOfTheInlineDecode() throws {
        #if arch(x86_64)
        let queues = CPUTier.best.rawValue >= CPUTier.avx2.rawValue
        #else
        let queues = true   // 64-bit ARM (other CPUs do not build yuvconv's rows)
        #endif
        defer { (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.idctRingRows) = (false, nil) }
        let samplings = [TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY, TJSAMP_440, TJSAMP_411]
        let specs = [ConversionSpec(matrix: .bt601, range: .full), ConversionSpec(matrix: .bt709, range: .limited)]
        let shared = ImageDecoder.idctCounts.shared
        for sampling in samplings {
            for flags in [Int32(0), Int32(TJFLAG_PROGRESSIVE)] {
                for (w, h) in [(1, 1), (37, 19), (333, 97), (130, 300), (2100, 70)] {
                    let path = try makeNoisyJPEG(width: w, height: h, sampling: sampling, seed: UInt64(w * 31 + h), flags: flags)
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    for spec in specs {
                        (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.idctRingRows) = (false, nil)
                        let counted = ImageDecoder.idctCounts
                        let inTurn = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions(jpegPath: .direct, pipelined: false))
                        XCTAssertEqual(ImageDecoder.idctCounts.queued, counted.queued, "one thread queues nothing")
                        for (helps, ringRows) in [(false, nil), (true, nil), (false, 1), (true, 1)] as [(Bool, Int?)] {
                            (BandPipeline.helpAfterEveryBand, JPEGPlanesSource.idctRingRows) = (helps, ringRows)
                            let before = ImageDecoder.idctCounts
                            let threaded = try convertFile(path: path, spec: spec, layout: .yuv420p, options: DecodeOptions(jpegPath: .direct))
                            let after = ImageDecoder.idctCounts
                            let what = "\(w)x\(h) sampling \(sampling.rawValue) flags \(flags) \(spec) helps \(helps) ring \(ringRows ?? 0)"
                            XCTAssertEqual(threaded.report.path, "direct YCbCr", what)
                            XCTAssertEqual(Array(threaded.image.yPlane), Array(inTurn.image.yPlane), what)
                            XCTAssertEqual(threaded.image.uPlane, inTurn.image.uPlane, what)
                            XCTAssertEqual(threaded.image.vPlane, inTurn.image.vPlane, what)
                            XCTAssertEqual(after.queued > before.queued, queues, "blocks queued: \(what)")
                            XCTAssertEqual(after.run - before.run, after.queued - before.queued, "each queued block run once: \(what)")
                        }
                    }
                }
            }
        }
        XCTAssertEqual(ImageDecoder.idctCounts.shared > shared, queues, "the decoding thread shared the ring")
    }
}
