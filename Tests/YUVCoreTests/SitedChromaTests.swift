import TestSupport
import XCTest
import YUVCore

/// The JPEG direct path's left and top-left siting (`YCbCrSiting.swift`) against the plain scalar reference
/// (`SitedChromaReference`), on random planes of every sampling the driver takes, odd and even sizes, converted
/// band by band as the pipeline does (top-left reads the row above each band), with the fast rows on every CPU
/// tier this machine runs and with the reference rows.
final class SitedChromaTests: XCTestCase {
    /// (h, v) of luma; chroma is 1×1: 4:2:0, 4:4:4, 4:2:2, 4:4:0, 4:1:1, and a 3×1 one.
    let samplings = [(2, 2), (1, 1), (2, 1), (1, 2), (4, 1), (3, 1)]
    let widths = [1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 34, 65, 70]
    /// Up to five bands (16 rows each for 4:2:0 and 4:4:0, 8 for the others), ending odd and even.
    let heights = [1, 2, 3, 5, 9, 16, 17, 34, 37]

    /// Random source planes with padded strides at an unaligned offset, as a decoder band would hold them.
    struct Source {
        let width: Int, height: Int, hMax: Int, vMax: Int
        let offset: Int, yStride: Int, cStride: Int, chromaRows: Int
        let bytes: [UInt8]

        init(width: Int, height: Int, hMax: Int, vMax: Int, rng: inout SplitMix64) {
            (self.width, self.height, self.hMax, self.vMax) = (width, height, hMax, vMax)
            let cw = (width + hMax - 1) / hMax
            chromaRows = (height + vMax - 1) / vMax
            (offset, yStride, cStride) = (width % 7, width + 5, cw + 3)
            var b = (0..<(offset + yStride * height + 2 * cStride * chromaRows)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if width % 3 == 0 { b = b.map { $0 & 1 == 0 ? 0 : 255 } }   // extremes: the clamps and the largest sums
            bytes = b
        }

        /// Source luma at pixel (x, y).
        func luma(_ x: Int, _ y: Int) -> UInt8 { bytes[offset + y * yStride + x] }

        /// Source chroma (plane 0 Cb, 1 Cr) at sample column sx, row sy.
        func sample(_ plane: Int, _ sx: Int, _ sy: Int) -> UInt8 {
            bytes[offset + yStride * height + plane * cStride * chromaRows + sy * cStride + sx]
        }

        /// Runs `body` on each band of `bandRows` luma rows: luma, Cb and Cr at the band's first row, the Cb and
        /// Cr rows under the row above it (nil for the first band), the band's first row and row count.
        func bands(_ bandRows: Int, _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>,
                                             (cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>)?, Int, Int) -> Void) {
            bytes.withUnsafeBufferPointer { p in
                let y = p.baseAddress! + offset, cb = y + yStride * height, cr = cb + cStride * chromaRows
                for first in stride(from: 0, to: height, by: bandRows) {
                    let c = first / vMax, above = (first - 1) / vMax
                    body(y + first * yStride, cb + c * cStride, cr + c * cStride,
                         first > 0 ? (cb + above * cStride, cr + above * cStride) : nil, first, min(bandRows, height - first))
                }
            }
        }
    }

    func driver(_ s: Source, _ spec: ConversionSpec, _ kernels: KernelChoice, _ siting: ChromaLocation) -> YCbCrToYUV420 {
        YCbCrToYUV420(target: spec, width: s.width, height: s.height, components: 3, h: [s.hMax, 1, 1], v: [s.vMax, 1, 1],
                      kernels: kernels, siting: siting)
    }

    /// The whole 8-bit picture in `layout`, converted band by band.
    func convert(_ s: Source, _ spec: ConversionSpec, _ kernels: KernelChoice, _ siting: ChromaLocation,
                 _ layout: PixelLayout = .yuv420p) -> [UInt8] {
        let d = driver(s, spec, kernels, siting)
        var out = [UInt8](repeating: 0, count: PlaneGeometry(width: s.width, height: s.height).tightBytes)
        out.withUnsafeMutableBufferPointer { o in
            let t = PlaneTargets(picture: o.baseAddress!, width: s.width, height: s.height, layout: layout)
            s.bands(d.bandRows) { y, cb, cr, above, first, count in
                d.convert(y: y, yStride: s.yStride, cb: cb, cbStride: s.cStride, cr: cr, crStride: s.cStride,
                          firstRow: first, rowCount: count, above: above, lumaAbove: first > 0 ? y - s.yStride : nil, into: t)
            }
        }
        return out
    }

    func reference(_ s: Source, _ spec: ConversionSpec, _ siting: ChromaLocation) -> SitedChromaReference {
        SitedChromaReference(width: s.width, height: s.height, hRatio: s.hMax, vRatio: s.vMax, topLeft: siting == .topleft,
                             kr: spec.matrix.kr, kb: spec.matrix.kb, full: spec.range == .full)
    }

    func onEveryTier(_ body: (CPUTier) -> Void) {
        defer { _ = CPUTier.use(CPUTier.best) }
        for tier in CPUTier.supported {
            XCTAssertTrue(CPUTier.use(tier))
            body(tier)
        }
    }

    /// 8-bit: U and V are the reference's, Y is the centre-sited conversion's (siting never moves luma).
    func testSitedChromaEqualsTheScalarReference() {
        var rng = SplitMix64(seed: 1515)
        var checked = 0
        for (hMax, vMax) in samplings {
            for width in widths {
                for height in heights {
                    let s = Source(width: width, height: height, hMax: hMax, vMax: vMax, rng: &rng)
                    let n = width * height, c = ((width + 1) / 2) * ((height + 1) / 2)
                    for spec in ConversionSpec.all {
                        let centre = convert(s, spec, .reference, .center)
                        for siting in [ChromaLocation.left, .topleft] {
                            let want = reference(s, spec, siting).planes(luma: s.luma, s.sample)
                            func check(_ got: [UInt8], _ what: String) {
                                assertSamePlane(Array(got[n..<(n + c)]), want.u, "U \(what) \(spec) \(siting) \(hMax)x\(vMax) \(width)x\(height)")
                                assertSamePlane(Array(got[(n + c)...]), want.v, "V \(what) \(spec) \(siting) \(hMax)x\(vMax) \(width)x\(height)")
                                assertSamePlane(Array(got[..<n]), centre[..<n].map(Int.init), "Y \(what) \(spec) \(siting) \(width)x\(height)")
                            }
                            check(convert(s, spec, .reference, siting), "reference rows")
                            onEveryTier { tier in check(convert(s, spec, .fast, siting), "\(tier)") }
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, samplings.count * widths.count * heights.count * ConversionSpec.all.count * 2)
    }

    /// Every 8-bit layout carries the sited planes (NV12's interleaved row is written apart from the SIMD rows').
    func testEveryLayoutCarriesTheSitedPlanes() {
        var rng = SplitMix64(seed: 1616)
        for (w, h) in [(1, 1), (5, 3), (33, 17), (70, 33)] {
            for (hMax, vMax) in samplings {
                let s = Source(width: w, height: h, hMax: hMax, vMax: vMax, rng: &rng)
                let n = w * h
                for spec in ConversionSpec.all {
                    let y = Array(convert(s, spec, .fast, .center)[..<n])
                    for siting in [ChromaLocation.left, .topleft] {
                        let r = reference(s, spec, siting).planes(luma: s.luma, s.sample)
                        let (u, v) = (r.u.map(UInt8.init), r.v.map(UInt8.init))
                        let want: [PixelLayout: [UInt8]] = [.yuv420p: y + u + v, .yv12: y + v + u,
                                                            .nv12: y + zip(u, v).flatMap { [$0, $1] },
                                                            .nv21: y + zip(u, v).flatMap { [$1, $0] }]
                        for layout in PixelLayout.eightBitLayouts {
                            for kernels in [KernelChoice.fast, .reference] {
                                XCTAssertEqual(convert(s, spec, kernels, siting, layout), want[layout],
                                               "\(layout) \(kernels) \(spec) \(siting) \(hMax)x\(vMax) \(w)x\(h)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// 10-bit (`convertDeep`): the same sums with the 10-bit scaling, band by band.
    func testTenBitSitedChromaEqualsTheScalarReference() {
        var rng = SplitMix64(seed: 1717)
        for (hMax, vMax) in samplings {
            for width in [1, 2, 3, 9, 17, 34] {
                for height in [1, 2, 5, 17, 33] {
                    let s = Source(width: width, height: height, hMax: hMax, vMax: vMax, rng: &rng)
                    let n = width * height, cw = (width + 1) / 2, c = cw * ((height + 1) / 2)
                    for spec in ConversionSpec.all {
                        for siting in [ChromaLocation.left, .topleft] {
                            let d = driver(s, spec, .fast, siting)
                            var out = [UInt8](repeating: 0, count: 2 * (n + 2 * c))
                            out.withUnsafeMutableBytes { o in
                                let base = o.baseAddress!
                                s.bands(d.bandRows) { y, cb, cr, above, first, count in
                                    d.convertDeep(y: y, yStride: s.yStride, cb: cb, cbStride: s.cStride, cr: cr,
                                                  crStride: s.cStride, rowCount: count, above: above,
                                                  lumaAbove: first > 0 ? y - s.yStride : nil, layout: .yuv420p10le,
                                                  yOut: base + 2 * first * width, uOut: base + 2 * (n + first / 2 * cw),
                                                  vOut: base + 2 * (n + c + first / 2 * cw))
                                }
                            }
                            let words = stride(from: 0, to: out.count, by: 2).map { Int(out[$0]) | Int(out[$0 + 1]) << 8 }
                            let want = reference(s, spec, siting).planes(depth: 10, luma: s.luma, s.sample)
                            assertSamePlane(Array(words[n..<(n + c)]), want.u, "U \(spec) \(siting) \(hMax)x\(vMax) \(width)x\(height)")
                            assertSamePlane(Array(words[(n + c)...]), want.v, "V \(spec) \(siting) \(hMax)x\(vMax) \(width)x\(height)")
                        }
                    }
                }
            }
        }
    }
}
