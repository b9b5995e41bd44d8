#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore

/// YUV4MPEG2 (Y4M) input: its header read and checked, its first frame read (`RawInput.readY4M`); the raw
/// planes' reader and the checks both share are RawInput.swift's.
extension RawInput {
    /// The Y4M colour spaces read: 8-bit 4:2:0 under any chroma siting tag, and 10-bit 4:2:0.
    static let y4mColourSpaces: Set<String> = ["420", "420jpeg", "420mpeg2", "420paldv", "420p10"]
    /// `N:D`, both whole numbers from 1 to 2^31 − 1 (`0:0`, unknown, too where `unknownAllowed`: a pixel aspect).
    /// FFmpeg reads them as signed 32-bit numbers: 2^31 or more came back from ffprobe as N/A, or as 25/1.
    /// Each may have a `+` before it, as FFmpeg's `%d` reads it (and as `W` and `H` are read): `F+30:1` played at
    /// 30 frames a second in FFmpeg and was written `F1:1` here. The ratio written plainly (`30:1`), or nil.
    /// Leading zeros, any number of them, are no part of the value (`F00000000030:1` is 30:1 to FFmpeg's `%d`;
    /// more than ten digits were refused).
    static func plainRatio(_ s: Substring, unknownAllowed: Bool) -> String? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map { $0.first == "+" ? $0.dropFirst() : $0 }
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }) else { return nil }
        let values = parts.map { part -> Substring in
            let significant = part.drop { $0 == "0" }
            return significant.isEmpty ? "0" : significant
        }
        guard values.allSatisfy({ $0.count <= 10 }),
              let n = UInt64(values[0]), let d = UInt64(values[1]), n <= UInt64(Int32.max), d <= UInt64(Int32.max),
              (n > 0 && d > 0) || (unknownAllowed && n == 0 && d == 0) else {
            return nil
        }
        return "\(n):\(d)"
    }

    /// mjpegtools' XYSCSS values, matched as FFmpeg's Y4M reader matches them: in this order, by prefix, in their
    /// own case (`420P10X` is 10-bit, `422P10` and `422p10` are 4:2:2, `420p10` is none). The 4:2:0 ones name the
    /// colour space; the others (nil) are refused, never ignored (`MONO` too, which FFmpeg 5 does not know).
    static let y4mXYSCSS: [(prefix: String, colour: String?)] = [("420JPEG", "420jpeg"), ("420MPEG2", "420mpeg2"),
        ("420PALDV", "420paldv"), ("420P9", nil), ("422P9", nil), ("444P9", nil), ("420P10", "420p10"), ("422P10", nil),
        ("444P10", nil), ("420P12", nil), ("422P12", nil), ("444P12", nil), ("420P14", nil), ("422P14", nil),
        ("444P14", nil), ("420P16", nil), ("422P16", nil), ("444P16", nil), ("411", nil), ("422", nil), ("444", nil),
        ("MONO", nil)]

    /// The entry of `y4mXYSCSS` an XYSCSS value matches, if any.
    static func xyscssEntry(_ value: String) -> (prefix: String, colour: String?)? {
        y4mXYSCSS.first { value.utf8.starts(with: $0.prefix.utf8) }
    }

    /// The first frame of a YUV4MPEG2 stream (4:2:0, 8- or 10-bit); returns the range its XCOLORRANGE names,
    /// the siting its colour-space tag says (nil for C420p10, which has none) and its interlacing tag (`I`,
    /// progressive when absent). The
    /// header is checked (size against `maxPixels`, colour space) before any frame data is read, and only
    /// the first frame's bytes are read.
    public static func readY4M(path: String, maxPixels: Int, maxMemory: Int? = nil, besides: HeldBeside? = nil) throws(FileError)
        -> (YUVImage, ColorRange?, ChromaLocation?, Y4MTiming) {
        try withInput(path) { (input, _) throws(DecodeError) -> (YUVImage, ColorRange?, ChromaLocation?, Y4MTiming) in
            let header = String(decoding: try input.line(limit: 4096, what: "the Y4M header"), as: UTF8.self)
            let fields = header.split(separator: " ")
            guard fields.first == "YUV4MPEG2" else {
                throw .decoder("not a Y4M stream: its header starts \"\(fields.first.map { String($0.prefix(16)) } ?? "")\", not \"YUV4MPEG2 \"")
            }
            var w = 0, h = 0, tag: String?, xyscss: String?, range: ColorRange?, interlacing = Y4MInterlacing.progressive
            var rate = "1:1", aspect = "1:1", unreadable: [String] = [], sawRate = false
            var ignoredXYSCSS: String?
            // A tag read here given twice with two values (`W8 … W16`, `C444 C420jpeg`): which one the writer meant
            // cannot be told (FFmpeg takes the last), so it is not guessed at, as C and XYSCSS that disagree are
            // not. The same value twice is one value (`W8 W08`, `F50:2 F25:1`, `XYSCSS=420JPEG XYSCSS=420jpeg`);
            // tags not read here are not looked at.
            var given: [String: (field: Substring, value: String)] = [:]
            func once(_ key: String, _ field: Substring, _ value: String) throws(DecodeError) {
                guard let earlier = given[key] else { given[key] = (field, value); return }
                if earlier.value != value {
                    throw .decoder("the Y4M header gives \(key) twice, as \(earlier.field) and \(field): which is meant cannot be told")
                }
            }
            func number(_ s: Substring) -> String { Int(s).map(String.init) ?? String(s) }
            func ratio(_ s: Substring) -> String {
                let parts = s.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else { return String(s) }
                func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
                let g = gcd(n, d)
                return "\(n / g):\(d / g)"
            }
            for field in fields.dropFirst() {
                switch field.first {
                case "W":
                    try once("W", field, number(field.dropFirst()))
                    w = Int(field.dropFirst()) ?? -1
                case "H":
                    try once("H", field, number(field.dropFirst()))
                    h = Int(field.dropFirst()) ?? -1
                case "I":
                    try once("I", field, String(field.dropFirst()))
                    guard let i = Y4MInterlacing(rawValue: String(field.dropFirst())) else {
                        throw .decoder("the Y4M header's interlacing tag \(field) is not Ip, It, Ib, Im or I?")
                    }
                    interlacing = i
                case "C":
                    try once("C", field, String(field.dropFirst()))
                    tag = String(field.dropFirst())
                // The frame rate and pixel aspect, kept for a Y4M output (an anamorphic frame plays stretched
                // without its aspect); a malformed one is not carried.
                case "F":
                    try once("F", field, ratio(field.dropFirst()))
                    sawRate = true
                    if let r = Self.plainRatio(field.dropFirst(), unknownAllowed: false) { rate = r }
                    else { unreadable.append(String(field)) }
                case "A":
                    try once("A", field, ratio(field.dropFirst()))
                    if let r = Self.plainRatio(field.dropFirst(), unknownAllowed: true) { aspect = r }
                    else { unreadable.append(String(field)) }
                case "X" where field.hasPrefix("XYSCSS="):
                    try once("XYSCSS", field, field.dropFirst("XYSCSS=".count).uppercased())
                    // Its values in their own case only, as FFmpeg and mjpegtools match them: FFmpeg reads
                    // `XYSCSS=420p10` as no colour space (8-bit), and yuvconv read it as 10-bit (a hostile round);
                    // a value it names exactly is not undone by a later one it does not.
                    let value = String(field.dropFirst("XYSCSS=".count))
                    if Self.xyscssEntry(value) != nil { xyscss = value }
                    else if xyscss == nil { ignoredXYSCSS = value }
                case "X" where field.hasPrefix("XCOLORRANGE="):
                    try once("XCOLORRANGE", field, String(field.dropFirst("XCOLORRANGE=".count)))
                    // FFmpeg writes FULL or LIMITED; anything else is not guessed at (as an unknown interlacing tag).
                    switch field.dropFirst("XCOLORRANGE=".count) {
                    case "FULL": range = .full
                    case "LIMITED": range = .limited
                    default: throw .decoder("the Y4M header's \(field) is not XCOLORRANGE=FULL or XCOLORRANGE=LIMITED")
                    }
                default: break
                }
            }
            guard w > 0, h > 0 else { throw .decoder("the Y4M header has no valid size (W and H)") }
            // Without a C tag, mjpegtools' XYSCSS says the colour space (FFmpeg reads it so: XYSCSS=420P10 alone
            // is 10-bit, and was read as 8-bit, its words as bytes); with both, C says it, and an XYSCSS of
            // another depth or sampling is a contradiction, not guessed at. Neither: 4:2:0 8-bit, centre-sited.
            // Known values in any case; one that names none of mjpegtools' or FFmpeg's colour spaces is ignored.
            let fromXYSCSS = xyscss.flatMap { v -> String? in
                Self.xyscssEntry(v).map { $0.colour ?? "XYSCSS=\(v)" }
            }
            // A value that would name one in upper case: ignored, and said (`Y4MTiming.ignoredXYSCSS`).
            if xyscss != nil || ignoredXYSCSS.map({ Self.xyscssEntry($0.uppercased()) == nil }) == true {
                ignoredXYSCSS = nil
            }
            let colour = tag ?? fromXYSCSS ?? "420jpeg"
            // Both named, and they differ: in depth, or in siting (`C420jpeg XYSCSS=420MPEG2`; plain C420 is
            // centre-sited as 420jpeg, as mjpegtools and FFmpeg read it, so `C420 XYSCSS=420MPEG2` is one too: it was
            // read as centre-sited without a word, half a pixel off if the writer meant left).
            let sited = { (s: String) in s == "420" ? "420jpeg" : s }
            if let tag, let fromXYSCSS, y4mColourSpaces.contains(tag),
               (tag == "420p10") != (fromXYSCSS == "420p10") || !y4mColourSpaces.contains(fromXYSCSS)
                || sited(tag) != sited(fromXYSCSS) {
                throw .decoder("the Y4M header's C\(tag) and XYSCSS=\(xyscss!) say different colour spaces")
            }
            guard y4mColourSpaces.contains(colour) else {
                throw .decoder("Y4M colour space \(colour.hasPrefix("XYSCSS=") ? "" : "C")\(colour) is not supported: yuvconv reads 4:2:0 Y4M only "
                               + "(C420jpeg, C420mpeg2, C420paldv, C420, and 10-bit C420p10)")
            }
            let layout: PixelLayout = colour == "420p10" ? .yuv420p10le : .yuv420p
            let need = try frameBytes(width: w, height: h, layout: layout, maxPixels: maxPixels)
            try checkHeld(need, maxMemory: maxMemory, fileSize: input.fileSize,
                          besides: besides.map { ($0, Frame(width: w, height: h, layout: layout, range: range)) })
            let line = try input.line(limit: 4096, what: "the Y4M frame header",
                                      missing: "the Y4M stream holds no frame (the input ends after its header)",
                                      word: Array("FRAME".utf8))
            let frame = String(decoding: line, as: UTF8.self)
            guard frame == "FRAME" || frame.hasPrefix("FRAME ") else {
                // What is there instead (its first 16 bytes), its control bytes and bytes that are not UTF-8 shown as
                // \xNN by the error, as the header's are (they showed as '?', one mark for every byte).
                let shown = PathBytes.decode(Array(line.prefix(16)))
                throw .decoder("the Y4M header is followed by '\(shown)\(line.count > 16 ? "…" : "")', not a frame "
                               + "header: each frame begins with a line FRAME (or FRAME and parameters after a space)")
            }
            let bytes = try input.read(need)
            // Chroma rows one byte short: how FFmpeg 5.1 writes a 10-bit Y4M of an odd width (each chroma row half
            // the luma row's bytes, 2w/2 = w, not 2·⌈w/2⌉; it reads its own file back the same way). The frame is
            // not 4:2:0 as Y4M defines it. Seen as a frame that ends exactly there, or one that holds the next
            // frame's header there.
            let shortFrame = need - 2 * ((h + 1) / 2)
            // 10-bit frames only: FFmpeg writes 8-bit ones whole; and there the next header's first two bytes ("FR",
            // 0x5246 as a sample) can be no valid sample, where an 8-bit frame may hold any bytes.
            let chromaShort = layout == .yuv420p10le && w & 1 == 1 && (bytes.count == shortFrame || (bytes.count == need
                && bytes[shortFrame...].starts(with: Array("FRAME".utf8).prefix(need - shortFrame))))
            let samples = (w + 1) / 2
            let hint = chromaShort ? "; its chroma rows are one byte short of the odd width's \(samples) sample\(samples == 1 ? "" : "s"), as "
                + "some writers (FFmpeg 5's 10-bit Y4M) make them: rewrite it at an even width" : ""
            guard bytes.count == need, !chromaShort else {
                throw .decoder((bytes.count == need ? "the Y4M frame is not \(w)x\(h) 4:2:0 (the next frame's header "
                                + "starts \(need - shortFrame) bytes early)"
                                : "the Y4M frame is cut short (\(bytes.count) of \(need) bytes)") + hint)
            }
            try checkSamples(bytes, layout: layout)
            let image = YUVImage(width: w, height: h, layout: layout, bytes: bytes)
            // The siting tag: C420mpeg2 is left-sited, C420paldv top-left, C420jpeg and C420 centre; C420p10 says
            // nothing (FFmpeg: unspecified), so nil: the caller's --chroma-loc, as for a raw frame.
            let siting: ChromaLocation? = colour == "420mpeg2" ? .left : colour == "420paldv" ? .topleft
                : colour == "420p10" ? nil : .center
            var timing = Y4MTiming(interlacing: interlacing, frameRate: rate, aspect: aspect)
            timing.unreadable = unreadable
            timing.noRate = !sawRate
            timing.ignoredXYSCSS = ignoredXYSCSS
            timing.colourSpace = tag.map { "C\($0)" } ?? xyscss.map { "XYSCSS=\($0)" } ?? "no C tag"
            // A file that goes on after its first frame with more frames: said, since the rest is not converted;
            // with other bytes: refused (below). Line ends and spaces after the frame, however many, are no more (one
            // decision whatever their length: 16 of them were let by and 17 refused). A stream is not read further —
            // an endless producer would hold the run — so neither is checked there.
            if input.fileSize != nil {
                let blank = Array(" \t\r\n".utf8)
                var rest: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while rest.isEmpty {
                    let n = fread(&chunk, 1, chunk.count, input.file)
                    if n == 0 { break }
                    guard let first = chunk[..<n].firstIndex(where: { !blank.contains($0) }) else { continue }
                    rest = Array(chunk[first..<n].prefix(13))
                    // The first 13 bytes after the blanks: enough to show 12 and to tell "FRAME" and what follows it.
                    if rest.count < 13 {
                        var more = [UInt8](repeating: 0, count: 13 - rest.count)
                        let got = fread(&more, 1, more.count, input.file)
                        rest += more[..<got]
                    }
                }
                timing.goesOn = !rest.isEmpty
                // What goes on must be the next frame's header. Anything else means the frames are not the size
                // the header says (a 10-bit frame read by an 8-bit header, a tag FFmpeg finds inside an unknown
                // token such as `Z_C420p10`, which the format says to ignore): the first frame's bytes would be
                // the wrong samples, so it is refused, not converted.
                let word = Array("FRAME".utf8)
                if timing.goesOn, !(rest.starts(with: word) && (rest.count == word.count
                    || [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(rest[rest.startIndex + word.count]))) {
                    let shown = PathBytes.decode(Array(rest.prefix(12)))
                    throw .decoder("the Y4M frame is followed by '\(shown)\(rest.count > 12 ? "…" : "")', not the next "
                                   + "frame's header: its frames are not the \(need) bytes of \(w)x\(h) "
                                   + "\(timing.colourSpace == "no C tag" ? "8-bit 4:2:0" : timing.colourSpace) the header says")
                }
            }
            return (image, range, siting, timing)
        }
    }
}

/// What a Y4M stream says of its frames besides their samples: the interlacing (`I`), the frame rate (`F`) and
/// the pixel aspect (`A`), as `N:D` (1:1 when absent); a Y4M output from it carries them.
public struct Y4MTiming: Sendable, Equatable {
    public var interlacing: Y4MInterlacing
    public var frameRate: String
    public var aspect: String
    /// `F` and `A` tags that could not be read (and are written as 1:1).
    public var unreadable: [String] = []
    /// The header has no `F` tag (written as 1:1; FFmpeg reads such a stream at 25 frames a second).
    public var noRate = false
    /// The colour-space tag as the header gave it (`C420p10`, `XYSCSS=420MPEG2`, or "no C tag"), for messages.
    public var colourSpace = "no C tag"
    /// A Y4M file holds more after its first frame (the frames after it, which are not converted).
    public var goesOn = false
    /// An XYSCSS value that names a colour space in upper case only (`420p10`): ignored, as FFmpeg ignores it.
    public var ignoredXYSCSS: String?

    /// Whether a Y4M `A` value names pixels that are not square: a ratio of two positive numbers that differ
    /// (`0:0`, unknown, and anything unreadable say nothing).
    public static func isNonSquare(_ aspect: String) -> Bool {
        let parts = aspect.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = UInt64(parts[0]), let b = UInt64(parts[1]), a > 0, b > 0 else { return false }
        return a != b
    }

    public init(interlacing: Y4MInterlacing = .progressive, frameRate: String = "1:1", aspect: String = "1:1") {
        (self.interlacing, self.frameRate, self.aspect) = (interlacing, frameRate, aspect)
    }
}

/// A Y4M stream's interlacing tag: progressive (`Ip`), top or bottom field first (`It`, `Ib`), mixed (`Im`,
/// said per frame), or unknown (`I?`, as mjpegtools writes it; read as progressive).
public enum Y4MInterlacing: String, Sendable {
    case progressive = "p", topFieldFirst = "t", bottomFieldFirst = "b", mixed = "m", unknown = "?"
}
