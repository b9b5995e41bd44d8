#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

/// Writes the conversion as an RGB PNG, through the exact inverse of its matrix and range (`YUVToRGB`), band
/// by band: how users look at what they produced. Bands must be planar: yuv420p draws an 8-bit PNG,
/// yuv420p10le (a 10-bit conversion or input) a 16-bit one, so that nothing of the 10 bits is lost.
public final class PNGSink: BandSink {
    let output: AtomicOutput
    let spec: ConversionSpec
    var inverse: YUVToRGB
    var file: UnsafeMutablePointer<FILE>?
    var writer: OpaquePointer?
    var rgb: UnsafeMutablePointer<UInt8>?
    var rgbBytes = 0
    var ledger: Ledger?
    var frame: FrameLayout?

    /// The target's profile (`Primaries.outputProfile`), written as the PNG's iCCP chunk.
    var profile: (name: String, bytes: [UInt8])?

    public func label(_ primaries: Primaries) { profile = primaries.outputProfile }

    /// `primaries`: the space of the RGB it draws (the conversion's target), tagged when not sRGB.
    public init(output: AtomicOutput, spec: ConversionSpec, primaries: Primaries = .bt709) {
        self.output = output
        self.spec = spec
        inverse = YUVToRGB(spec: spec)
        profile = primaries.outputProfile
    }

    func check(_ rc: Int32) throws(WriteError) {
        if rc != 0 { throw .system("PNG: " + (writer.flatMap { yc_png_writer_error($0) }.map { String(cString: $0) } ?? "write failed")) }
    }

    public func begin(_ frame: FrameLayout, ledger: Ledger) throws(WriteError) {
        // A library caller's other layout is an error, not a trap.
        guard frame.pixelLayout == .yuv420p || frame.pixelLayout == .yuv420p10le else {
            throw .system("PNG output converts from yuv420p or yuv420p10le bands, not \(frame.pixelLayout.rawValue)")
        }
        // One picture a sink: its writer, its rows' buffer and its output are that picture's (a second picture
        // through one sink wrote a wider band into the first one's buffer).
        guard writer == nil else { throw .system("a PNGSink writes one picture: make another for the next") }
        self.frame = frame
        let deep = frame.pixelLayout == .yuv420p10le
        inverse = YUVToRGB(spec: spec, inputDepth: deep ? 10 : 8, outputDepth: deep ? 16 : 8)
        self.ledger = ledger
        file = try output.stream()
        let icc = profile?.bytes ?? []
        guard let w = yc_png_writer_open(file, UInt32(frame.width), UInt32(frame.height), Int32(inverse.outputDepth), icc,
                                         icc.count, profile?.name ?? "") else {
            throw .system("out of memory")
        }
        writer = w
        if let e = yc_png_writer_error(w) { throw .system("PNG: " + String(cString: e)) }
    }

    public func consume(_ band: BandBuffer, firstRow: Int, rows: Int) throws(WriteError) {
        let w = band.geometry.width, sample = inverse.outputDepth / 8
        if let why = band.problem(into: writer == nil ? nil : frame, firstRow: firstRow, rows: rows) { throw .system(why) }
        guard let ledger else { throw .system("a band before the sink's begin") }
        if rgb == nil || 3 * sample * w * band.rows > rgbBytes {
            if let old = rgb { ledger.deallocate(UnsafeMutableRawPointer(old), bytes: rgbBytes) }
            rgbBytes = 3 * sample * w * band.rows
            rgb = try ledger.allocateBytes(rgbBytes)
        }
        if inverse.inputDepth == 10 {
            // The band's 16-bit words and the RGB rows, each seen as UInt16 for the call (bound as bytes otherwise).
            let cw = (w + 1) / 2, chromaWords = cw * ((rows + 1) / 2)
            band.y.withMemoryRebound(to: UInt16.self, capacity: w * rows) { y in
                band.u.withMemoryRebound(to: UInt16.self, capacity: chromaWords) { u in
                    band.v.withMemoryRebound(to: UInt16.self, capacity: chromaWords) { v in
                        rgb!.withMemoryRebound(to: UInt16.self, capacity: 3 * w * rows) { out in
                            inverse.convertDeepRows(width: w, y: y, u: u, v: v, count: rows, into: out, stride: 3 * w)
                        }
                    }
                }
            }
        } else {
            inverse.convertRows(band.targets(origin: firstRow), first: firstRow, count: rows, into: rgb!, stride: 3 * w)
        }
        try check(yc_png_write_rows(writer, rgb, 3 * sample * w, UInt32(rows)))
    }

    public func end() throws(WriteError) {
        try check(yc_png_writer_finish(writer))
        if let f = file {
            file = nil
            if fclose(f) != 0 { throw .system("write failed: \(errnoMessage())") }
        }
    }

    deinit {
        yc_png_writer_close(writer)
        if let file { fclose(file) }
        if let rgb { ledger?.deallocate(UnsafeMutableRawPointer(rgb), bytes: rgbBytes) }
    }
}
