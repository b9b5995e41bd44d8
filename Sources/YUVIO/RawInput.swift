#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

/// YUV as input: raw 4:2:0 planes (a size and a layout needed) or a YUV4MPEG2 stream (its header has them).
public enum RawInput {
    /// Only regular files are looked into: reading the start of a pipe or FIFO would consume it.
    static func isRegular(_ path: String) -> Bool {
        var st = stat()
        return path != "-" && stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// True when the (regular) file starts like a Y4M stream.
    public static func isY4M(path: String) -> Bool {
        guard isRegular(path), let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: 10)
        return fread(&head, 1, 10, f) == 10 && head == Array("YUV4MPEG2 ".utf8)
    }

    /// True when the (regular) file starts with a JPEG or PNG signature.
    public static func isImage(path: String) -> Bool {
        guard isRegular(path), let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: 8)
        let n = fread(&head, 1, 8, f)
        return yc_sniff(head, n) != YC_FORMAT_UNKNOWN
    }

    static func readAll(_ path: String) throws(DecodeError) -> [UInt8] {
        let f: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(dup(STDIN_FILENO), "rb") : fopen(path, "rb")
        guard let f else { throw .cannotOpen(errnoMessage()) }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n == 0 { break }
            out += buf[0..<n]
        }
        if ferror(f) != 0 { throw .cannotOpen("read failed: \(errnoMessage())") }
        return out
    }

    /// Raw planes of `layout`, tightly packed; the file's length must be exactly what the size needs.
    public static func read(path: String, width: Int, height: Int, layout: PixelLayout,
                            maxPixels: Int) throws(FileError) -> YUVImage {
        let name = path == "-" ? "<stdin>" : path
        guard width > 0, height > 0 else { throw FileError(path: name, reason: "the size must be at least 1x1") }
        guard width * height <= maxPixels else {
            throw FileError(path: name, .tooLarge(width: width, height: height, limit: maxPixels))
        }
        let bytes: [UInt8]
        do { bytes = try readAll(path) } catch { throw FileError(path: name, error) }
        let need = PlaneGeometry(width: width, height: height).tightBytes
        guard bytes.count == need else {
            throw FileError(path: name, reason: "is \(bytes.count) bytes, but \(width)x\(height) \(layout.rawValue) "
                            + "needs \(need) (check --size and --pix-fmt)")
        }
        var image = YUVImage(width: width, height: height, layout: layout)
        image.bytes = bytes
        return image
    }

    /// A one-frame (the first frame) 4:2:0 YUV4MPEG2 stream; returns the range its XCOLORRANGE names.
    public static func readY4M(path: String, maxPixels: Int) throws(FileError) -> (YUVImage, ColorRange?) {
        let name = path == "-" ? "<stdin>" : path
        let bytes: [UInt8]
        do { bytes = try readAll(path) } catch { throw FileError(path: name, error) }
        guard let nl = bytes.firstIndex(of: 10) else { throw FileError(path: name, reason: "Y4M header has no end") }
        let header = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ")
        var w = 0, h = 0, colour = "420jpeg", range: ColorRange?
        for field in header.dropFirst() {
            switch field.first {
            case "W": w = Int(field.dropFirst()) ?? 0
            case "H": h = Int(field.dropFirst()) ?? 0
            case "C": colour = String(field.dropFirst())
            case "X" where field.hasPrefix("XCOLORRANGE="):
                range = field.hasSuffix("FULL") ? .full : field.hasSuffix("LIMITED") ? .limited : nil
            default: break
            }
        }
        guard w > 0, h > 0 else { throw FileError(path: name, reason: "Y4M header without a size") }
        guard colour.hasPrefix("420") else {
            throw FileError(path: name, reason: "Y4M colour space C\(colour) is not 4:2:0 (yuvconv reads 4:2:0 only)")
        }
        guard w * h <= maxPixels else { throw FileError(path: name, .tooLarge(width: w, height: h, limit: maxPixels)) }
        // The frame line: "FRAME" and optional parameters, then the planes.
        guard let fnl = bytes[(nl + 1)...].firstIndex(of: 10),
              String(decoding: bytes[(nl + 1)..<fnl], as: UTF8.self).hasPrefix("FRAME") else {
            throw FileError(path: name, reason: "Y4M stream has no FRAME")
        }
        let need = PlaneGeometry(width: w, height: h).tightBytes
        guard bytes.count - (fnl + 1) >= need else {
            throw FileError(path: name, reason: "Y4M frame is cut short (\(bytes.count - fnl - 1) of \(need) bytes)")
        }
        var image = YUVImage(width: w, height: h, layout: .yuv420p)
        image.bytes = Array(bytes[(fnl + 1)..<(fnl + 1 + need)])
        return (image, range)
    }

    /// The same picture in another layout.
    public static func repack(_ image: YUVImage, to layout: PixelLayout) -> YUVImage {
        if image.layout == layout { return image }
        var out = YUVImage(width: image.width, height: image.height, layout: layout)
        let u = image.uPlane, v = image.vPlane, n = u.count, base = image.width * image.height
        out.bytes.replaceSubrange(0..<base, with: image.yPlane)
        switch layout {
        case .yuv420p: out.bytes.replaceSubrange(base..<(base + 2 * n), with: u + v)
        case .yv12: out.bytes.replaceSubrange(base..<(base + 2 * n), with: v + u)
        case .nv12, .nv21:
            for i in 0..<n {
                out.bytes[base + 2 * i] = layout == .nv12 ? u[i] : v[i]
                out.bytes[base + 2 * i + 1] = layout == .nv12 ? v[i] : u[i]
            }
        }
        return out
    }

    /// Feeds a whole picture to a sink in bands, as a conversion would.
    public static func emit(_ image: YUVImage, into sink: BandSink) throws(WriteError) {
        let g = image.geometry
        try sink.begin(geometry: g, layout: image.layout)
        let band = BandBuffer(geometry: g, layout: image.layout, rows: 16)
        let offsets = FileOffsets(g: g, layout: image.layout)
        var row = 0
        try image.bytes.withUnsafeBufferPointer { (src) throws(WriteError) in
            let base = src.baseAddress!
            while row < g.height {
                let n = min(16, g.height - row), c0 = row / 2, cn = (n + 1) / 2
                band.luma.update(from: base + row * g.width, count: n * g.width)
                if image.layout.isBiPlanar {
                    band.uPlane.update(from: base + offsets.chroma(row: c0, v: false), count: cn * 2 * g.chromaWidth)
                } else {
                    band.uPlane.update(from: base + offsets.chroma(row: c0, v: false), count: cn * g.chromaWidth)
                    band.vPlane.update(from: base + offsets.chroma(row: c0, v: true), count: cn * g.chromaWidth)
                }
                try sink.consume(band, firstRow: row, rows: n)
                row += n
            }
        }
        try sink.end()
    }
}
