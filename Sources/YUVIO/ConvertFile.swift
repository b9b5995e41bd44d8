import YUVCore

/// Everything one conversion produced: the picture in its output layout and what the input was.
public struct Conversion: Sendable {
    public let info: SourceInfo
    public let image: YUVImage
    public let inputBytes: Int
    public let warnings: Int
    public let firstWarning: String
}

/// Options that decide how an input is read.
public struct DecodeOptions: Sendable {
    public var maxPixels: Int
    public var allowTruncated: Bool

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels, allowTruncated: Bool = false) {
        self.maxPixels = maxPixels
        self.allowTruncated = allowTruncated
    }
}

/// Decodes `path` (a JPEG or PNG, `-` for standard input) band by band and converts each band as it
/// arrives, so only the output picture and a few source rows are held at once.
public func convertFile(path: String, spec: ConversionSpec, layout: PixelLayout,
                        kernels: KernelChoice = kernelChoiceFromEnvironment(),
                        options: DecodeOptions = DecodeOptions()) throws(FileError) -> Conversion {
    do {
        let source = try InputSource(path: path)
        let decoder = try ImageDecoder(source: source, maxPixels: options.maxPixels,
                                       allowTruncated: options.allowTruncated)
        let info = decoder.info
        let driver = RGBToYUV420(spec: spec, source: info.rowFormat, kernels: kernels)
        var image = YUVImage(width: info.width, height: info.height, layout: layout)
        let bandRows = 16
        let rowBytes = info.width * info.rowFormat.bytesPerPixel
        let band = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * bandRows, alignment: 64)
        defer { band.deallocate() }
        var row = 0
        while row < info.height {
            let n = min(bandRows, info.height - row)
            try decoder.readRows(into: band, rowBytes: rowBytes, count: n)
            driver.convert(band: band, rowBytes: rowBytes, firstRow: row, rowCount: n, into: &image)
            row += n
        }
        try decoder.finish()
        let w = decoder.warnings
        return Conversion(info: info, image: image, inputBytes: source.byteCount, warnings: w.count,
                          firstWarning: w.first)
    } catch {
        throw FileError(path: path == "-" ? "<stdin>" : path, error)
    }
}
