#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

/// One output's line in `--update`'s manifest: what it was made from and with, what it is, and the figures its
/// report line needs, so that an output found up to date is reported without being converted again.
public struct ManifestEntry: Sendable {
    /// The output's name in the output folder (with the folders `{dir}` made).
    public var output: String
    /// The input, as the batch named it.
    public var input: String
    public var inputBytes: Int
    public var inputModified: Double
    public var inputSHA256: String
    /// The options that shape the output's bytes, in one canonical line (the front end renders it).
    public var optionsKey: String
    public var outputBytes: Int
    public var outputModified: Double
    public var outputSHA256: String
    /// The output's inode as written (nil in lines written before it was recorded): with its time, what tells
    /// the file at the name is the one recorded without reading it.
    public var outputInode: UInt64?
    /// The input's inode and change time (`FileStatus.changed`) when it was last read (nil in lines written
    /// before they were recorded): an input whose size and modification time are as recorded but is another
    /// file (one moved over it by `mv`, `cp -p`, `rsync -a` or `tar x`, which restore the time) or was
    /// written and its time set back has another change time, and is read again.
    public var inputInode: UInt64?
    public var inputChanged: Double?
    /// The output's change time once it was named (nil in lines written before it was recorded, or when the name
    /// led to another file by then): an output edited in place, keeping its size, with its time set back has
    /// another, and is read (its SHA-256 decides).
    public var outputChanged: Double?

    /// `path` read for the manifest: its status, its SHA-256, and the change time to record for it — nil when not
    /// `settled` against the moment it was opened (not after a conversion that followed, which may take seconds).
    /// Inputs and outputs alike, whether converted or read again to be kept.
    public static func read(_ path: String) throws(FileError) -> (status: FileStatus, sha256: String, changed: Double?) {
        let readAt = wallClock()
        let (status, sha) = try sha256(ofFile: path)
        return (status, sha, recorded(changed: status.changed, readAt: readAt))
    }

    /// The change time to record for a file whose status, taken at `readAt`, says `changed`: nil when not `settled`.
    public static func recorded(changed: Double, readAt: Double) -> Double? { settled(changed, at: readAt) ? changed : nil }

    /// The time now, as change times count it.
    public static func wallClock() -> Double { wallClockSeconds() }
    public var report: ConversionReport
    public var quality: QualityReport?
    /// The process's peak resident set after the conversion that made the output.
    public var peakRSS: Int

    public init(output: String, input: String, inputBytes: Int, inputModified: Double, inputSHA256: String,
                optionsKey: String, outputBytes: Int, outputModified: Double, outputSHA256: String,
                report: ConversionReport, quality: QualityReport?, peakRSS: Int, outputInode: UInt64? = nil,
                inputInode: UInt64? = nil, inputChanged: Double? = nil, outputChanged: Double? = nil) {
        (self.output, self.input, self.inputBytes, self.inputModified, self.inputSHA256) =
            (output, input, inputBytes, inputModified, inputSHA256)
        (self.optionsKey, self.outputBytes, self.outputModified, self.outputSHA256) =
            (optionsKey, outputBytes, outputModified, outputSHA256)
        (self.report, self.quality, self.peakRSS, self.outputInode) = (report, quality, peakRSS, outputInode)
        (self.inputInode, self.inputChanged, self.outputChanged) = (inputInode, inputChanged, outputChanged)
    }
}

/// `--update`'s record of an output folder, `.yuvconv-manifest` in it: a line per output, tab-separated
/// fields in `Manifest.columns` order, with `\` `\t` `\n` `\r` escaped as `\\` `\t` `\n` `\r` (and a field's first `#`
/// as `\#`); paths as their bytes, everything else UTF-8. The first line, `yuvconv-manifest<TAB>1`, names the format and its version;
/// lines starting with `#` are comments (a heading naming the columns is written).
public struct Manifest: Sendable {
    public static let fileName = AtomicOutput.manifestName
    static let magic = Array("yuvconv-manifest\t1".utf8)
    public static let columns = [
        "output", "input", "input_bytes", "input_mtime", "input_sha256", "options", "output_bytes", "output_mtime",
        "output_sha256", "format", "source_sampling", "row_format", "progressive", "interlaced",
        "has_alpha", "exif_orientation", "stored_width", "stored_height", "width", "height", "layout", "matrix",
        "range", "file_bytes", "warnings", "first_warning", "path", "alpha_bytes", "conversion_buffers_bytes",
        "orientation", "peak_rss_bytes", "psnr_y_db", "psnr_cb_db", "psnr_cr_db", "psnr_rgb_db", "ssim_y",
        "color_management", "primaries", "chroma_filter", "psnr_rgb_bilinear_db", "orientation_source", "output_inode",
        "input_inode", "input_ctime", "output_ctime", "line_crc32",
    ]
    /// Lines written before the last columns were added, by their number of fields: before `chroma_filter` and
    /// `psnr_rgb_bilinear_db` (read as box-filtered, without the bilinear measure), before `orientation_source`
    /// (read as EXIF, which the text report names), and before `output_inode` (its output then checked by size and
    /// time alone, as then), before `input_inode` and `input_ctime` (its input then read once, to record them), and
    /// before `output_ctime` (its output then checked by size, time and inode, as then), and before `line_crc32` (its
    /// input and output then read once, to check the line's figures, and the line written again with its checksum).
    static let olderColumns = [columns.count - 8, columns.count - 6, columns.count - 5, columns.count - 4, columns.count - 2,
                               columns.count - 1]

    /// The entries by output name.
    public var entries: [String: ManifestEntry] = [:]

    public init() {}

    /// The manifest in `bytes`. Lines that cannot be read are left out (their outputs will be converted again:
    /// the safe side) and each is described in `problems`; a first line that is not this format's leaves the
    /// whole manifest empty.
    public init(parsing bytes: [UInt8], problems: inout [String]) {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        guard let first = lines.first, Array(first) == Self.magic else {
            problems.append("not a yuvconv manifest of version 1 (its first line differs)")
            return
        }
        for (n, line) in lines.enumerated().dropFirst() where !line.isEmpty && line.first != UInt8(ascii: "#") {
            do throws(Malformed) {
                let entry = try ManifestEntry(fields: try Self.fields(line))
                entries[entry.output] = entry
            } catch {
                problems.append("line \(n + 1): \(error.why)")
            }
        }
    }

    /// The manifest's first two lines: the format, then a heading naming the columns.
    static var head: [UInt8] { magic + [10] + Array(("# " + columns.joined(separator: "\t") + "\n").utf8) }

    /// The manifest's text, entries sorted by output name (the bytes of the name as written, escaped: the order
    /// `ManifestFile` searches in).
    public func rendered() -> [UInt8] {
        var out = Self.head
        for entry in entries.values.map({ (Self.escaped(PathBytes.encode($0.output)), $0) }).sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
            out += entry.1.line
            out.append(10)
        }
        return out
    }

    /// A field as written: `\`, tab, newline and carriage return escaped.
    static func escaped(_ field: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        escape(field, into: &out)
        return out
    }

    /// Reads the manifest at `path`: an empty one when there is no file. At most 256 MiB.
    public static func read(_ path: String) throws(FileError) -> (manifest: Manifest, problems: [String]) {
        let fd = openWithoutWaiting(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT { return (Manifest(), []) }
            throw FileError(path: path, reason: "cannot open: \(systemMessage())")
        }
        defer { close(fd) }
        guard FileStatus(descriptor: fd)?.kind == .regular else { throw FileError(path: path, reason: "not a regular file") }
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = readSome(fd, &buffer)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileError(path: path, reason: "read failed: \(systemMessage())") }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > 256 << 20 { throw FileError(path: path, reason: "longer than 256 MiB") }
        }
        var problems: [String] = []
        let manifest = Manifest(parsing: bytes, problems: &problems)
        return (manifest, problems)
    }

    /// A field's bytes, escaped, after `out`: and a `#` it starts with as `\#`, so that the line of an output
    /// named `#…` (the first field) is not taken for a comment (it was, and converted again by every run).
    static func escape(_ field: [UInt8], into out: inout [UInt8]) {
        if field.first == UInt8(ascii: "#") { out.append(92) }
        for b in field {
            switch b {
            case 92: out += [92, 92]
            case 9: out += [92, UInt8(ascii: "t")]
            case 10: out += [92, UInt8(ascii: "n")]
            case 13: out += [92, UInt8(ascii: "r")]
            default: out.append(b)
            }
        }
    }

    /// A quality measure as a manifest holds it, when it is one a conversion can give: a PSNR from 0 dB (every
    /// sample 255 off) to 1000 dB, or +∞ (identical planes), an SSIM from −1 to 1; nil otherwise (a hand-edited `nan` or
    /// `1e19` is not taken as up to date, nor reported).
    static func measure(_ field: [UInt8], ssim: Bool) -> Double? {
        guard let v = Double(String(decoding: field, as: UTF8.self)) else { return nil }
        // A finite PSNR of a picture within the pixel limit stays below about 200 dB; 1000 leaves room.
        return (ssim ? (-1...1).contains(v) : (0...1000).contains(v) || v == .infinity) ? v : nil
    }

    /// A line's fields, unescaped.
    static func fields(_ line: ArraySlice<UInt8>) throws(Malformed) -> [[UInt8]] {
        var fields: [[UInt8]] = [[]], escaped = false
        for b in line {
            if escaped {
                switch b {
                case 92: fields[fields.count - 1].append(92)
                case UInt8(ascii: "t"): fields[fields.count - 1].append(9)
                case UInt8(ascii: "n"): fields[fields.count - 1].append(10)
                case UInt8(ascii: "r"): fields[fields.count - 1].append(13)
                case UInt8(ascii: "#"): fields[fields.count - 1].append(UInt8(ascii: "#"))
                default: throw Malformed(why: "an unknown escape \\\(Character(Unicode.Scalar(b)))")
                }
                escaped = false
            } else if b == 92 {
                escaped = true
            } else if b == 9 {
                fields.append([])
            } else {
                fields[fields.count - 1].append(b)
            }
        }
        if escaped { throw Malformed(why: "ends in the middle of an escape") }
        // Fewer fields: an older version's line, if it is one of theirs. More is refused: two lines run together (a
        // newline lost) would otherwise be read as one with the next line's name in its last field — and a later
        // version's line is converted again anyway, its options key naming that version.
        if fields.count != columns.count && !olderColumns.contains(fields.count) {
            throw Malformed(why: "\(fields.count) fields, not \(columns.count)")
        }
        return fields
    }
}

/// `read(2)` into `buffer` (the module-level name, which `Manifest.read` hides).
private func readSome(_ fd: Int32, _ buffer: inout [UInt8]) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, &buffer, buffer.count)
    #else
    return Darwin.read(fd, &buffer, buffer.count)
    #endif
}

/// `--update`'s changes, set aside on disk while a batch runs (a `Spool`) and put into the manifest at its
/// end: each a record of the output's name and, unless the entry is dropped, its manifest line.
public enum ManifestChange {
    public static func write(name: String, entry: ManifestEntry?, to spool: Spool) {
        let n = PathBytes.encode(name), line = entry?.line ?? []
        spool.appendRecord(parts: [InputLength.bytes(n.count)[...], n[...], line[...]])
    }

    /// Each change in `spool`, in the order written, to `body`. A line that does not read back drops its entry:
    /// the output goes unrecorded, and the next run refuses it as not yuvconv's — so the run says so when it makes
    /// the line (`ManifestEntry.unreadableBecause`); none should (`testEveryOutputIsRecordedWhateverTheOptions`).
    public static func forEach(in spool: Spool, _ body: (String, ManifestEntry?) -> Void) throws(FileError) {
        try spool.seal()
        var reader = spool.reader()
        while let r = reader.nextRecord() {
            let s = r.startIndex
            let n = Int(r[s]) | Int(r[s + 1]) << 8 | Int(r[s + 2]) << 16 | Int(r[s + 3]) << 24
            let name = PathBytes.decode(r[(s + 4)..<(s + 4 + n)]), line = r[(s + 4 + n)...]
            body(name, line.isEmpty ? nil : try? ManifestEntry(fields: try Manifest.fields(line)))
        }
        try spool.seal()
    }
}

enum InputLength {
    static func bytes(_ n: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
}
