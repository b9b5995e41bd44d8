import YUVCore
import YUVIO

// One output's line of `--update`'s manifest (Manifest.swift holds the file: its format, reading and rendering):
// the entry written as its fields, and read back from them with every field checked — against the picture it
// describes, the output folder it is in, and its own options key — so that a damaged or edited line is converted
// again rather than trusted.

/// Why a manifest line could not be read.
struct Malformed: Error {
    let why: String
}

extension ManifestEntry {
    /// The entry's line in the manifest, without its newline: its fields escaped, tab-separated, then the CRC-32 of
    /// that text (`line_crc32`).
    var line: [UInt8] {
        let out = Self.joined(fields[...])
        return out + [9] + Array(Checksum.crc32Hex(out).utf8)
    }

    /// Fields escaped and tab-separated: a line's text, the bytes its checksum covers.
    static func joined(_ fields: ArraySlice<[UInt8]>) -> [UInt8] {
        var out: [UInt8] = []
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(9) }
            Manifest.escape(field, into: &out)
        }
        return out
    }

    /// The entry's fields in `Manifest.columns` order, before escaping.
    var fields: [[UInt8]] {
        let r = report, i = r.info
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        func number(_ d: Double) -> [UInt8] { text("\(d)") }
        let measures = quality.map { q in [q.psnrY, q.psnrCb, q.psnrCr, q.psnrRGB, q.ssimY].map(number) }
            ?? Array(repeating: [], count: 5)
        return [PathBytes.encode(output), PathBytes.encode(input), text("\(inputBytes)"), number(inputModified),
                text(inputSHA256), text(optionsKey), text("\(outputBytes)"), number(outputModified), text(outputSHA256),
                text(i.container.rawValue), text(i.sampling), text(Self.name(of: i.rowFormat)),
                text(i.progressive ? "1" : "0"), text(i.interlaced ? "1" : "0"), text(i.hasAlpha ? "1" : "0"),
                text("\(i.orientation)"), text("\(i.width)"), text("\(i.height)"), text("\(r.geometry.width)"),
                text("\(r.geometry.height)"), text(r.layout.rawValue), text(r.spec.matrix.rawValue),
                text(r.spec.range.rawValue), text("\(r.inputBytes)"), text("\(r.warnings)"), text(r.firstWarning),
                text(r.path), text("\(r.alphaBytes)"), text("\(r.ledgerPeakBytes)"), text("\(r.orientation.exif)"),
                text("\(peakRSS)")] + measures + [text(r.colour ?? ""), text(r.primaries.rawValue),
                                                 text(r.chromaFilter.rawValue), quality?.psnrRGBBilinear.map(number) ?? [],
                                                 text(i.orientationSource.rawValue), text(outputInode.map { "\($0)" } ?? ""),
                                                 text(inputInode.map { "\($0)" } ?? ""), inputChanged.map(number) ?? [],
                                                 outputChanged.map(number) ?? []]
    }

    /// Why this entry's own line would not be read back as an entry (nil: it would): a run's line that a later run
    /// cannot read leaves its output unrecorded, and that run refuses it as not yuvconv's — said when it is made.
    public var unreadableBecause: String? {
        do throws(Malformed) {
            _ = try ManifestEntry(fields: try Manifest.fields(line[...]))
            return nil
        } catch {
            return error.why
        }
    }

    /// An entry from a line's fields (`Manifest.columns` order), each checked.
    init(fields f: [[UInt8]]) throws(Malformed) {
        // The line's own checksum first: every figure it holds goes into reports as it stands (a kept output's
        // SHA-256 among them, which no run reads the output to check while its size, times and inode are as
        // recorded), so an edited or damaged line is converted again rather than trusted — a hand-edited
        // output_sha256 was reported for an output that does not have it. (A check against damage and edits by
        // hand: whoever can write the folder can also write a line with its checksum.)
        let checked = f.count == Manifest.columns.count
        if checked, String(decoding: f[f.count - 1], as: UTF8.self) != Checksum.crc32Hex(Self.joined(f.dropLast())) {
            throw Malformed(why: "line_crc32 is not the line's checksum: the line was edited or damaged")
        }
        var at = 0
        func next() -> [UInt8] {
            defer { at += 1 }
            return f[at]
        }
        func column() -> String { Manifest.columns[at - 1] }
        func text() -> String { String(decoding: next(), as: UTF8.self) }
        // A count past 2^44 (16 TiB, 17 trillion pixels) is no file's: bounded, the report's sums and products
        // of entries cannot overflow (a hand-edited 9223372036854775807 stopped the process).
        func int() throws(Malformed) -> Int {
            guard let v = Int(text()), v >= 0, v <= 1 << 44 else { throw Malformed(why: "\(column()) is not a count") }
            return v
        }
        func real() throws(Malformed) -> Double {
            guard let v = Double(text()), v.isFinite else { throw Malformed(why: "\(column()) is not a number") }
            return v
        }
        func flag() throws(Malformed) -> Bool {
            switch text() {
            case "0": return false
            case "1": return true
            default: throw Malformed(why: "\(column()) is not 0 or 1")
            }
        }
        func digest() throws(Malformed) -> String {
            let s = text()
            guard s.utf8.count == 64, s.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw Malformed(why: "\(column()) is not a SHA-256")
            }
            return s
        }
        func named<T>(_ make: (String) -> T?) throws(Malformed) -> T {
            guard let v = make(text()) else { throw Malformed(why: "\(column()) is not one this version knows") }
            return v
        }
        let output = PathBytes.decode(next()), input = PathBytes.decode(next())
        let (inputBytes, inputModified, inputSHA256) = (try int(), try real(), try digest())
        let optionsKey = text()
        let (outputBytes, outputModified, outputSHA256) = (try int(), try real(), try digest())
        let container = try named(SourceInfo.Container.init(rawValue:)), sampling = text()
        let rowFormat = try named(Self.rowFormat(named:))
        let (progressive, interlaced, hasAlpha) = (try flag(), try flag(), try flag())
        let (exif, storedWidth, storedHeight, width, height) = (try int(), try int(), try int(), try int(), try int())
        // A picture has pixels: no side 0, and no more of them than any input may have (2^32 sides at most).
        for (side, name) in [(storedWidth, "stored width"), (storedHeight, "stored height"), (width, "width"), (height, "height")]
            where side < 1 || side > 1 << 32 {
            throw Malformed(why: "the \(name) is not a picture's")
        }
        if width.multipliedReportingOverflow(by: height).overflow || width * height > 1 << 44 {
            throw Malformed(why: "the size is not a picture's")
        }
        let layout = try named(PixelLayout.init(rawValue:))
        let spec = ConversionSpec(matrix: try named(ColorMatrix.init(rawValue:)), range: try named(ColorRange.init(rawValue:)))
        let (fileBytes, warnings, firstWarning) = (try int(), try int(), text())
        // A route this tool has (a manifest is a file anyone who can write in the output folder can edit; its text
        // goes into reports, which show every text cell with its control characters escaped: `CellStyle.shown`).
        let path = try named { Self.routes.contains($0) ? $0 : nil }
        let (alphaBytes, buffers, orientation, peakRSS) = (try int(), try int(), try int(), try int())
        // The report's file size is the input's, recorded twice: a line where they differ was edited or damaged.
        if fileBytes != inputBytes { throw Malformed(why: "file_bytes is not input_bytes") }
        let measures = (0..<5).map { _ in next() }
        var quality: QualityReport?
        if !measures.allSatisfy(\.isEmpty) {
            let v = measures.enumerated().map { i, m in Manifest.measure(m, ssim: i == 4) }
            guard v.allSatisfy({ $0 != nil }) else { throw Malformed(why: "a quality measure is not one a picture can have") }
            quality = QualityReport(psnrY: v[0]!, psnrCb: v[1]!, psnrCr: v[2]!, psnrRGB: v[3]!, ssimY: v[4]!)
        }
        let colour = text(), primaries = try named(Primaries.init(rawValue:))
        var chromaFilter = ChromaFilter.box
        if at < f.count {
            chromaFilter = try named(ChromaFilter.init(rawValue:))
            let bilinear = next()
            if !bilinear.isEmpty {
                guard let v = Manifest.measure(bilinear, ssim: false), quality != nil else {
                    throw Malformed(why: "psnr_rgb_bilinear_db is not a PSNR")
                }
                quality!.psnrRGBBilinear = v
            }
        }
        var orientationSource = SourceInfo.OrientationSource.exif
        if at < f.count { orientationSource = try named(SourceInfo.OrientationSource.init(rawValue:)) }
        // Optional fields, each read in its place: nil when empty (not recorded) or when the line ends before it.
        func optional<T>(_ read: () throws(Malformed) -> T) throws(Malformed) -> T? {
            guard at < f.count else { return nil }
            if f[at].isEmpty { at += 1; return nil }
            return try read()
        }
        func inode() throws(Malformed) -> UInt64 {
            guard let v = UInt64(text()) else { throw Malformed(why: "\(column()) is not an inode number") }
            return v
        }
        let (outputInode, inputInode) = (try optional(inode), try optional(inode))
        var (inputChanged, outputChanged) = (try optional(real), try optional(real))
        // A line written before its checksum was: its input and output are read once to check it (no change time
        // vouches for either), and it is written again with one.
        if !checked { (inputChanged, outputChanged) = (nil, nil) }
        if output.isEmpty { throw Malformed(why: "no output name") }
        // An output of this folder, named as a batch names one: relative, inside it, not a manifest's own file (a line
        // naming `../victim.nv12` or an absolute path was taken in, and merged from a journal, without a word).
        if output.isAbsolutePath || output.pathParts.contains(where: { $0 == ".." || $0 == "." })
            || output.unicodeScalars.last == "/" || AtomicOutput.reservedNameProblem(output) != nil {
            throw Malformed(why: "the output is not a file of this folder")
        }
        if !(1...8).contains(orientation) { throw Malformed(why: "orientation is not 1 to 8") }
        // The conversion the line records is the one its options key names: a line whose matrix, range, layout or
        // chroma filter was edited would report a kept output as what it is not (a BT.709 file as BT.601 limited).
        let key = Dictionary(optionsKey.split(separator: " ").compactMap { token -> (Substring, Substring)? in
            guard let eq = token.firstIndex(of: "=") else { return nil }
            return (token[..<eq], token[token.index(after: eq)...])
        }, uniquingKeysWith: { first, _ in first })
        if let v = key["layout"], v != Substring(layout.rawValue) { throw Malformed(why: "layout is not the options' layout") }
        if let v = key["matrix"], v != Substring(spec.matrix.rawValue) { throw Malformed(why: "matrix is not the options' matrix") }
        if let v = key["range"], v != Substring(spec.range.rawValue) { throw Malformed(why: "range is not the options' range") }
        // The primaries the output is labelled with: the options' target, or BT.709 for an sRGB or untagged source,
        // whose numbers are kept whatever the target (its line was refused as edited, so `--update --matrix bt2020`
        // left every such output unrecorded, and the next run refused them as not yuvconv's).
        if let v = key["primaries"], v != Substring(primaries.rawValue), primaries != .bt709 {
            throw Malformed(why: "primaries is not the options' primaries")
        }
        // No alpha plane but with --alpha keep; the picture as stored with --orientation ignore; the direct YCbCr route
        // only for a JPEG the options let take it.
        if let v = key["alpha"], v != "keep", alphaBytes != 0 { throw Malformed(why: "alpha_bytes is not the options' alpha") }
        if key["orientation"] == "ignore", orientation != 1 { throw Malformed(why: "orientation is not the options' orientation") }
        if path == "direct YCbCr" && (container != .jpeg || key["jpeg-path"] == "rgb") || path == "YUV" {
            throw Malformed(why: "path is not a route this input and options take")
        }
        // (A key names sharp chroma only when asked: in a whole key — it names the matrix — its absence is the box.)
        if key["matrix"] != nil && (key["chroma-filter"] == "sharp") != (chromaFilter == .sharp) {
            throw Malformed(why: "chroma_filter is not the options' chroma filter")
        }
        // Without a checksum only a line of a version before checksums (its key names output bytes of 0.4.2 or
        // earlier): one of a later version had its checksum taken off, and its figures, trusted once its input and
        // output hashed as recorded, were reported and then written back with a new checksum (a reviewer's line
        // with a forged PSNR, buffers and route).
        if !checked && !Self.beforeChecksums(key["yuvconv"]) {
            throw Malformed(why: "it has no line_crc32, which every line of its version has: the line was edited or damaged")
        }
        var info = SourceInfo(restoring: container, width: storedWidth, height: storedHeight, sampling: sampling,
                              rowFormat: rowFormat, progressive: progressive, interlaced: interlaced, hasAlpha: hasAlpha,
                              orientation: exif)
        info.orientationSource = orientationSource
        var report = ConversionReport(restoring: info, geometry: PlaneGeometry(width: width, height: height), layout: layout,
                                      spec: spec, inputBytes: fileBytes, warnings: warnings, firstWarning: firstWarning,
                                      path: path, alphaBytes: alphaBytes, ledgerPeakBytes: buffers,
                                      orientation: Orientation(exif: orientation))
        report.colour = colour.isEmpty ? nil : colour
        report.primaries = primaries
        report.chromaFilter = chromaFilter
        self.init(output: output, input: input, inputBytes: inputBytes, inputModified: inputModified,
                  inputSHA256: inputSHA256, optionsKey: optionsKey, outputBytes: outputBytes, outputModified: outputModified,
                  outputSHA256: outputSHA256, report: report, quality: quality, peakRSS: peakRSS, outputInode: outputInode,
                  inputInode: inputInode, inputChanged: inputChanged, outputChanged: outputChanged)
    }

    /// Whether an options key's `yuvconv=` version (output bytes of that version) is one whose lines were written
    /// without `line_crc32`: 0.4.2 or earlier (lines carry it from the version after 0.4.2's output bytes on).
    static func beforeChecksums(_ version: Substring?) -> Bool {
        guard let version else { return false }
        let parts = version.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, parts.allSatisfy({ $0 != nil }) else { return false }
        return parts.map { $0! }.lexicographicallyPrecedes([0, 4, 3])
    }

    /// Whether a change time is old enough to vouch for a file read at `readAt`: more than 2 s before it. A file
    /// system that keeps whole seconds (ext2/ext3 with small inodes, HFS+, many network servers) or two (FAT, a
    /// camera's card) gives a file replaced within the same tick the same change time; such a time is not recorded
    /// (as git's "racily clean" entries), so the next run reads the file again, and records it then. (A change time
    /// ahead of this clock — a server's skew — is never recorded: the file is read on every run while it lasts.)
    static func settled(_ changed: Double, at readAt: Double) -> Bool { changed < readAt - 2 }

    /// The routes a report names (`BandSource.pathName`).
    static let routes: Set<String> = ["direct YCbCr", "RGB", "YUV"]

    static func name(of format: SourceFormat) -> String {
        switch format {
        case .rgb8: return "rgb8"
        case .rgba8: return "rgba8"
        case .rgb16: return "rgb16"
        case .rgba16: return "rgba16"
        }
    }

    static func rowFormat(named name: String) -> SourceFormat? {
        [SourceFormat.rgb8, .rgba8, .rgb16, .rgba16].first { Self.name(of: $0) == name }
    }
}
