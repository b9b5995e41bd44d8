#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// The process's peak resident set so far, in bytes (`getrusage`).
public func peakResidentBytes() -> Int {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)           // bytes on macOS
    #else
    return Int(usage.ru_maxrss) * 1024    // KiB on Linux
    #endif
}

/// Measures `image` (the conversion of `path`) against the source picture, decoded again to R, G, B row by
/// row (JPEG through libjpeg-turbo's RGB output, as viewers show it).
public func measureQuality(path: String, image: YUVImage, spec: ConversionSpec,
                           options: DecodeOptions = DecodeOptions()) throws(FileError) -> QualityReport {
    let name = displayPath(path)
    do {
        let source = try InputSource(path: path, maxPixels: options.maxPixels)
        let decoder = try ImageDecoder(source: source, maxPixels: options.maxPixels, maxScans: options.maxScans,
                                       allowTruncated: options.allowTruncated, raw: false)
        let format = decoder.info.rowFormat
        let rowBytes = decoder.info.width * format.bytesPerPixel
        let rowBuf = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { rowBuf.deallocate() }
        var acc = QualityAccumulator(image: image, spec: spec)
        let turn = options.turn(for: decoder.info)
        if !turn.isIdentity {
            // The conversion was of the upright picture: measure against the upright source.
            let ledger = Ledger()
            let turned = try decodeUpright(decoder, turn: turn, ledger: ledger)
            defer { ledger.deallocate(turned.pointer, bytes: turned.bytes) }
            let turnedRowBytes = image.width * format.bytesPerPixel
            for y in 0..<image.height { acc.add(row: turned.pointer + y * turnedRowBytes, format: format) }
            return acc.result()
        }
        for _ in 0..<decoder.info.height {
            try decoder.readRows(into: rowBuf, rowBytes: rowBytes, count: 1)
            acc.add(row: rowBuf, format: format)
        }
        return acc.result()
    } catch {
        throw FileError(path: name, error)
    }
}
