import Dispatch
import Synchronization

/// The sample layouts a source row can have.
public enum SourceFormat: Sendable, Equatable {
    /// R,G,B bytes.
    case rgb8
    /// R,G,B,A bytes (alpha ignored).
    case rgba8
    /// R,G,B 16-bit samples in native endianness (0…65535).
    case rgb16
    /// R,G,B,A 16-bit samples: what a decoder hands out when a 16-bit picture's alpha is wanted. The I/O layer
    /// reduces such rows to `rgb16` (applying the alpha mode) before a driver sees them.
    case rgba16

    /// R, G, B of pixel `x` of a row in this format, as stored (0…255, or 0…65535 for 16-bit).
    @inline(__always)
    public func samples(_ row: UnsafeRawPointer, _ x: Int) -> (r: Int, g: Int, b: Int) {
        switch self {
        case .rgb8, .rgba8:
            let p = row.assumingMemoryBound(to: UInt8.self) + x * bytesPerPixel
            return (Int(p[0]), Int(p[1]), Int(p[2]))
        case .rgb16, .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self) + x * (bytesPerPixel / 2)
            return (Int(p[0]), Int(p[1]), Int(p[2]))
        }
    }

    public var bytesPerPixel: Int {
        switch self {
        case .rgb8: return 3
        case .rgba8: return 4
        case .rgb16: return 6
        case .rgba16: return 8
        }
    }
}

/// Whether the drivers use the fast rows or the scalar references. `YUV_FORCE_REFERENCE=1` in the
/// environment selects the references (read by the I/O layer, which has the environment; the core has none).
public enum KernelChoice: Sendable {
    case fast, reference
}

/// The planar driver, libyuv's `ARGBToNV12` shape: it walks the source two rows at a time —
/// UV row (→ merge for bi-planar layouts) → Y row ×2, or for 4-byte pixels one fused SIMD pass that
/// makes both Y rows and the UV row from the same loads — writing straight into a `YUVImage`.
/// Rows can arrive in bands (a decoder's output), so the whole RGB picture is never needed at once.
public struct RGBToYUV420: Sendable {
    public let spec: ConversionSpec
    public let source: SourceFormat
    public let kernels: KernelChoice

    public init(spec: ConversionSpec, source: SourceFormat, kernels: KernelChoice = .fast) {
        precondition(source != .rgba16, "16-bit RGBA rows are reduced to rgb16 before conversion")
        self.spec = spec
        self.source = source
        self.kernels = kernels
    }

    /// Converts `rowCount` source rows starting at picture row `firstRow` (even), `rowBytes` apart,
    /// into `image`. A band must hold an even number of rows unless it ends the picture. Preconditions: `image`'s
    /// bytes are its planes (`planesProblem` is nil: `bytes` is a public var, and a shorter array was written past),
    /// and the rows are the picture's.
    public func convert(band: UnsafeRawPointer, rowBytes: Int, firstRow: Int, rowCount: Int, into image: inout YUVImage) {
        let (w, h, layout) = (image.width, image.height, image.layout)
        if let why = image.planesProblem { preconditionFailure(why) }
        precondition(firstRow >= 0 && rowCount >= 0 && firstRow <= h - rowCount, "rows \(firstRow)..<\(firstRow + rowCount) of a picture of \(h)")
        image.bytes.withUnsafeMutableBufferPointer { out in
            convert(band: band, rowBytes: rowBytes, firstRow: firstRow, rowCount: rowCount,
                    output: out.baseAddress!, width: w, height: h, layout: layout)
        }
    }

    /// The same into a raw buffer of `PlaneGeometry(width:height:).tightBytes` bytes in `layout`.
    /// Bands that cover different rows may run concurrently on one buffer.
    public func convert(band: UnsafeRawPointer, rowBytes: Int, firstRow: Int, rowCount: Int,
                        output base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, layout: PixelLayout) {
        convert(band: band, rowBytes: rowBytes, firstRow: firstRow, rowCount: rowCount,
                into: PlaneTargets(picture: base, width: width, height: height, layout: layout))
    }

    /// The same into any `PlaneTargets` (a whole picture, or a band buffer).
    public func convert(band: UnsafeRawPointer, rowBytes: Int, firstRow: Int, rowCount: Int, into t: PlaneTargets) {
        precondition(firstRow & 1 == 0 && firstRow + rowCount <= t.height)
        precondition(rowCount & 1 == 0 || firstRow + rowCount == t.height)
        let width = t.width, cw = t.chromaWidth
        // Scratch for one chroma row pair when the layout interleaves U and V.
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * cw)
        defer { scratch.deallocate() }
        // 3-byte rows are widened to 4 bytes, a row pair at a time, to take the SIMD path.
        let widen = source == .rgb8 && kernels == .fast
        let wide = UnsafeMutablePointer<UInt8>.allocate(capacity: widen ? 8 * width : 0)
        defer { wide.deallocate() }
        var row = 0
        while row < rowCount {
            let y = firstRow + row
            var src0 = band + row * rowBytes
            var src1 = row + 1 < rowCount ? src0 + rowBytes : src0  // odd last row: replicate
            if widen {
                RowKernels.rgbToRGBXRow(src0.assumingMemoryBound(to: UInt8.self), wide, width)
                RowKernels.rgbToRGBXRow(src1.assumingMemoryBound(to: UInt8.self), wide + 4 * width, width)
                src0 = UnsafeRawPointer(wide)
                src1 = UnsafeRawPointer(wide + 4 * width)
            }
            let y0 = t.lumaRow(y), y1 = row + 1 < rowCount ? t.lumaRow(y + 1) : nil
            if (source == .rgba8 || source == .rgb8) && kernels == .fast {
                // One pass over both rows: luma and chroma from the same loads; NV12's UV row written
                // interleaved by the kernel itself.
                let chroma: SIMDKernels.ChromaOut
                if t.layout == .nv12 {
                    chroma = .interleaved(t.biPlanarRow(y / 2))
                } else if t.layout == .nv21 {
                    chroma = .planar(scratch, scratch + cw)
                } else {
                    let (uRow, vRow) = t.chromaRows(y / 2)
                    chroma = .planar(uRow, vRow)
                }
                SIMDKernels.rowPair(src0.assumingMemoryBound(to: UInt8.self), src1.assumingMemoryBound(to: UInt8.self),
                                    y0, y1, chroma, width, spec)
                if t.layout == .nv21 { t.mergeChroma(u: scratch, v: scratch + cw, row: y / 2) }
                row += 2
                continue
            }
            let (uRow, vRow) = t.layout.isBiPlanar ? (scratch, scratch + cw) : t.chromaRows(y / 2)
            do {
                uvRow(src0, src1, uRow, vRow, width)
                yRow(src0, y0, width)
                if let y1 { yRow(src1, y1, width) }
            }
            if t.layout.isBiPlanar { t.mergeChroma(u: uRow, v: vRow, row: y / 2) }
            row += 2
        }
    }

    /// Converts a whole picture held in memory, split into row bands run on `threads` threads
    /// (each band an even number of rows, so no chroma row is shared). The bytes do not depend on `threads`.
    public func convert(pixels: UnsafeRawPointer, rowBytes: Int, width: Int, height: Int,
                        layout: PixelLayout, threads: Int = 1) -> YUVImage {
        var image = YUVImage(width: width, height: height, layout: layout)
        image.bytes.withUnsafeMutableBufferPointer { out in
            convert(pixels: pixels, rowBytes: rowBytes, width: width, height: height, output: out.baseAddress!,
                    layout: layout, threads: threads)
        }
        return image
    }

    /// The same into a raw buffer of `PlaneGeometry(width:height:).tightBytes` bytes.
    public func convert(pixels: UnsafeRawPointer, rowBytes: Int, width: Int, height: Int,
                        output: UnsafeMutablePointer<UInt8>, layout: PixelLayout, threads: Int) {
        let pairs = (height + 1) / 2
        // Eight bands a thread (at least 16 row pairs each): a core slowed by something else takes fewer of
        // them instead of holding up the rest, as one band a thread would.
        let bands = threads <= 1 ? 1 : max(1, min(threads * 8, pairs / 16))
        if bands == 1 {
            convert(band: pixels, rowBytes: rowBytes, firstRow: 0, rowCount: height, output: output,
                    width: width, height: height, layout: layout)
            return
        }
        let pairsPerBand = (pairs + bands - 1) / bands
        // `threads` workers take the next band from a shared counter; each band writes only its own rows.
        let dst = UncheckedSendable(output), src = UncheckedSendable(pixels)
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(threads, bands)) { _ in
            while true {
                let b = next.add(1, ordering: .relaxed).oldValue
                let first = b * pairsPerBand * 2
                guard b < bands, first < height else { return }
                let count = min(pairsPerBand * 2, height - first)
                convert(band: src.value + first * rowBytes, rowBytes: rowBytes, firstRow: first, rowCount: count,
                        output: dst.value, width: width, height: height, layout: layout)
            }
        }
    }

    /// The row kernels for what the fused SIMD pass does not take: 16-bit sources (always exact Int64 rows)
    /// and `YUV_FORCE_REFERENCE` (the scalar references). 8-bit sources with fast kernels never come here.
    @inline(__always)
    func yRow(_ src: UnsafeRawPointer, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int) {
        if source == .rgb16 {
            RowKernels.yRow16(src.assumingMemoryBound(to: UInt16.self), dst, width, spec: spec)
        } else {
            RowKernels.yRowReference(src.assumingMemoryBound(to: UInt8.self), dst, width,
                                     bytesPerPixel: source.bytesPerPixel, spec: spec)
        }
    }

    @inline(__always)
    func uvRow(_ src0: UnsafeRawPointer, _ src1: UnsafeRawPointer, _ u: UnsafeMutablePointer<UInt8>,
               _ v: UnsafeMutablePointer<UInt8>, _ width: Int) {
        if source == .rgb16 {
            RowKernels.uvRow16(src0.assumingMemoryBound(to: UInt16.self), src1.assumingMemoryBound(to: UInt16.self),
                               u, v, width, spec: spec)
        } else {
            RowKernels.uvRowReference(src0.assumingMemoryBound(to: UInt8.self), src1.assumingMemoryBound(to: UInt8.self),
                                      u, v, width, bytesPerPixel: source.bytesPerPixel, spec: spec)
        }
    }
}

/// A value handed to another thread where the caller guarantees the threads never touch the same memory
/// (bands that write disjoint rows, a pipeline's slots). The one such wrapper for every module.
public struct UncheckedSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

/// Where the rows of a conversion go: a whole picture in a layout, or a band buffer that holds rows
/// `origin ..< origin + rows` of the picture (and chroma rows `origin/2 …`) in the same layout.
public struct PlaneTargets {
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    public let origin: Int
    let y: UnsafeMutablePointer<UInt8>
    /// The U plane (or, bi-planar, the interleaved plane) and the V plane at chroma row origin/2.
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>

    public var chromaWidth: Int { (width + 1) / 2 }

    /// Rows of a whole picture held in `base` (`PlaneGeometry.tightBytes` bytes).
    public init(picture base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, layout: PixelLayout) {
        let f = FrameLayout(width: width, height: height, pixelLayout: layout)
        let u = base + f.offset(of: f.isBiPlanar ? .uv : .u)
        self.init(width: width, height: height, layout: layout, origin: 0, y: base + f.offset(of: .y),
                  u: u, v: f.isBiPlanar ? u : base + f.offset(of: .v))
    }

    /// Rows of a band buffer: `y` holds luma rows from `origin`, `u`/`v` chroma rows from origin/2
    /// (for bi-planar layouts `u` is the interleaved plane and `v` is unused).
    public init(width: Int, height: Int, layout: PixelLayout, origin: Int, y: UnsafeMutablePointer<UInt8>,
                u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>) {
        precondition(origin & 1 == 0)
        precondition(layout.bitDepth == 8, "8-bit targets for \(layout): its rows are RGBToYUV420Exact's")
        self.width = width
        self.height = height
        self.layout = layout
        self.origin = origin
        self.y = y
        self.u = u
        self.v = v
    }

    @inline(__always)
    public func lumaRow(_ row: Int) -> UnsafeMutablePointer<UInt8> { y + (row - origin) * width }

    /// U and V rows of a planar layout.
    @inline(__always)
    public func chromaRows(_ row: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        let o = (row - origin / 2) * chromaWidth
        return (u + o, v + o)
    }

    /// Chroma row `row` of a bi-planar layout (2·chromaWidth bytes, U and V interleaved).
    @inline(__always)
    public func biPlanarRow(_ row: Int) -> UnsafeMutablePointer<UInt8> { u + (row - origin / 2) * 2 * chromaWidth }

    /// Interleaves a U row and a V row into chroma row `row` of a bi-planar layout (V first for NV21).
    @inline(__always)
    public func mergeChroma(u uRow: UnsafePointer<UInt8>, v vRow: UnsafePointer<UInt8>, row: Int) {
        let dst = u + (row - origin / 2) * 2 * chromaWidth
        if layout == .nv12 {
            RowKernels.mergeUVRow(uRow, vRow, dst, chromaWidth)
        } else {
            RowKernels.mergeUVRow(vRow, uRow, dst, chromaWidth)
        }
    }
}
