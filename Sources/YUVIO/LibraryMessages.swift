/// libjpeg's and libpng's messages are terse and written for programmers ("Unsupported JPEG process: SOF
/// type 0xc3", "R[00]y[00]: invalid chunk type"). Each one a user can meet becomes a sentence that says what is
/// wrong with the file and what to do, with the library's own words kept in parentheses. The one table.
enum LibraryMessages {
    /// (what the library's message contains, the sentence).
    static let table: [(String, @Sendable (String) -> String)] = [
        ("Unsupported JPEG data precision", { m in
            let bits = m.split(separator: " ").last.map(String.init) ?? "?"
            // 0 (or anything JPEG does not define) is no precision at all: a damaged header, not a deep JPEG.
            guard let n = Int(bits), (2...16).contains(n), n != 8 else {
                return "the JPEG's header gives a sample precision of \(bits) bits, which no JPEG has: the file is damaged"
            }
            return "a \(bits)-bit JPEG: this build of libjpeg-turbo decodes 8-bit samples only; convert it to 8 bits first"
        }),
        ("Unsupported JPEG process: SOF type", { m in
            let sof = m.split(separator: " ").last.map(String.init) ?? ""
            let kind: String
            switch sof.lowercased() {
            case "0xc3", "0xc7", "0xcb", "0xcf": kind = "a lossless JPEG"
            case "0xc5", "0xc6", "0xcd", "0xce": kind = "a hierarchical JPEG"
            default: kind = "a JPEG of a kind libjpeg-turbo does not decode"
            }
            return "\(kind) (\(sof)): libjpeg-turbo cannot decode it; convert it to a baseline or progressive JPEG or a PNG first"
        }),
        ("Input file read error", { _ in "the file could not be read (a read error from the system)" }),
        // JERR_EMPTY_IMAGE: a width, a height or a component count of 0 in the frame header.
        ("DNL not supported", { _ in
            "the JPEG's header gives a width, height or number of components of 0: the file is damaged, or gives "
                + "its height later in a DNL marker, which libjpeg-turbo does not support (re-encode it)" }),
        ("Maximum supported image dimension", { _ in "the JPEG is wider or taller than libjpeg's limit of 65500 pixels" }),
        ("JPEG datastream contains no image", { _ in "the JPEG holds no image (metadata only): the file is damaged or incomplete" }),
        ("Invalid JPEG file structure", { _ in "the JPEG's markers are out of order: the file is damaged" }),
        ("Bogus marker length", { _ in "a JPEG marker has an impossible length: the file is damaged" }),
        ("Bogus Huffman table", { _ in "a JPEG Huffman table is invalid: the file is damaged" }),
        // JPEG-LS (ITU T.87) starts its frame with SOF55 (0xF7) and may carry LSE (0xF8): a format of its own.
        ("Unsupported marker type 0xf7", { _ in
            "a JPEG-LS file (lossless, SOF55), or a damaged JPEG: libjpeg-turbo cannot decode it; convert a JPEG-LS "
                + "file to a baseline or progressive JPEG or a PNG first" }),
        ("Unsupported marker type 0xf8", { _ in
            "a JPEG-LS file (its LSE marker, 0xf8), or a damaged JPEG: libjpeg-turbo cannot decode it; convert a "
                + "JPEG-LS file to a baseline or progressive JPEG or a PNG first" }),
        ("Unsupported marker type", { _ in "the JPEG holds a marker libjpeg does not know: the file is damaged" }),
        // libjpeg's warnings that pixels are missing or wrong (`jpeg_warning_damages_pixels`).
        ("Premature end of JPEG file", { _ in "the JPEG ends before its end marker (FF D9): the file is cut short, and image data may be missing" }),
        ("premature end of data segment", { _ in "the JPEG's compressed image data stops at a marker: the file is damaged" }),
        ("bad Huffman code", { _ in "the JPEG's compressed image data holds an invalid code: the file is damaged" }),
        ("bad arithmetic code", { _ in "the JPEG's compressed image data holds an invalid code: the file is damaged" }),
        ("extraneous bytes before marker", { m in
            let n = m.split(separator: " ").first { Int($0) != nil }.map(String.init) ?? "some"
            // Before the end marker or a restart marker it is an error only in an arithmetic-coded scan (yc_jpeg_watch.c).
            let marker = m.split(separator: " ").last.map { $0.lowercased() } ?? ""
            let inScan = marker == "0xd9" || isRestartMarker(marker)
            let nowhere = inScan ? "in an arithmetic-coded scan" : "between scans"
            return "a scan of the JPEG ends at least \(n) byte\(n == "1" ? "" : "s") before its data does (no encoder leaves any "
                + "\(nowhere)): a damaged byte shortened the codes, and the blocks after it are wrong"
        }),
        ("instead of RST", { _ in "the JPEG's restart markers are out of sequence: the file is damaged" }),
        ("Inconsistent progression sequence", { _ in "the progressive JPEG's scans contradict each other: the file is damaged" }),
        ("Invalid progressive parameters", { _ in "a progressive JPEG's scan header is invalid: the file is damaged" }),
        ("Bogus sampling factors", { _ in "the JPEG's chroma sampling factors are invalid: the file is damaged" }),
        ("Invalid component ID", { _ in "a JPEG scan names a component the image does not have: the file is damaged" }),
        ("was not defined", { m in
            let kind = m.hasPrefix("Huffman") ? "Huffman" : m.hasPrefix("Arithmetic") ? "arithmetic-coding" : "quantization"
            return "the JPEG uses a \(kind) table it never defines: the file is damaged" }),
        ("Bogus DHT index", { _ in "a JPEG Huffman table has an impossible number: the file is damaged" }),
        ("Bogus DQT index", { _ in "a JPEG quantization table has an impossible number: the file is damaged" }),
        ("Bogus DAC", { _ in "a JPEG arithmetic-coding table (DAC) is invalid: the file is damaged" }),
        ("Sampling factors too large for interleaved scan", { _ in
            "the JPEG's sampling factors are too large for one scan: the file is damaged" }),
        ("Too many color components", { _ in "the JPEG declares more colour components than JPEG allows: the file is damaged" }),
        // libjpeg's other "Bogus …" errors that a file's header causes (its internal ones — virtual array, buffer
        // mode, message code — are bugs, and stay as they are).
        ("Bogus JPEG colorspace", { _ in "a JPEG header holds an impossible colour space: the file is damaged" }),
        ("Not a JPEG file", { _ in "the file starts like a JPEG but is not one: it is damaged or another format" }),
        // JERR_OUT_OF_MEMORY: libjpeg's own allocations (a progressive picture's coefficients) failed.
        ("Insufficient memory", { _ in
            "libjpeg ran out of memory decoding the JPEG (an address-space limit such as ulimit -v may be too low)" }),
        // JERR_BACKING_STORE: libjpeg's memory limit (the JPEGMEM variable) below what a progressive picture holds.
        ("Backing store not supported", { _ in
            "libjpeg's memory limit (the JPEGMEM environment variable) is below what this JPEG needs held whole; "
                + "raise or unset JPEGMEM" }),
        // JERR_INPUT_EMPTY: nothing to read where the file began (it shrank after it was opened).
        ("Empty input file", { _ in "the file is empty (cut short after it was opened?)" }),
        // JERR_EOI_EXPECTED: a second scan in a sequential file whose one scan held every component.
        ("Didn't expect more than one scan", { _ in
            "the JPEG has a second scan after one that held the whole picture: the file is damaged" }),
        // JERR_FRACT_SAMPLE_NOTIMPL: chroma sampling factors that do not divide luma's (say 3x1 against 2x2).
        ("Fractional sampling not implemented", { _ in
            "the JPEG's chroma sampling factors are not a whole fraction of its luma's (valid JPEG, but libjpeg-turbo "
                + "cannot decode it, nor can most programs): the file is damaged, or re-encode it with usual sampling" }),
        ("exceeds user limit in IHDR", { m in
            // The reason for the width is the memory a row holds; a height has none of its own (the rows stream).
            m.contains("height")
                ? "the PNG is taller than 1,000,000 pixels, the most a side yuvconv reads (libpng's limit)"
                : "the PNG is wider than 1,000,000 pixels, the most a side yuvconv reads (libpng's limit, kept because "
                    + "the memory a conversion holds follows a row's length)"
        }),
        ("Invalid IHDR data", { _ in "the PNG's header (IHDR) is invalid: the file is damaged" }),
        ("missing IHDR", { m in
            "the PNG has a chunk (\(m.split(separator: ":").first.map(String.init) ?? "?")) before its header (IHDR), "
                + "which must come first: the file is damaged"
        }),
        ("IHDR: invalid", { _ in "the PNG's header (IHDR) has the wrong length: the file is damaged" }),
        ("PLTE: invalid", { _ in "the PNG's palette (PLTE) has an impossible length: the file is damaged" }),
        ("PLTE: duplicate", { _ in "the PNG has two palettes (PLTE chunks): the file is damaged" }),
        ("unhandled critical chunk", { m in
            "the PNG needs a chunk libpng does not know (\(chunk(m))) to be read: a newer format or a damaged file" }),
        ("PNG unsigned integer out of range", { _ in "a PNG header value is out of range: the file is damaged" }),
        ("Not enough image data", { m in
            if let r = m.firstRange(of: "broken off by chunk ") {
                let name = m[r.upperBound...].prefix { $0 != ")" }
                return "the PNG's image data ends before the picture does, broken off by a chunk \(name) (a PNG's image "
                    + "data chunks, IDAT, follow each other): the file is damaged"
            }
            return "the PNG's image data ends before the picture does: the file is damaged or cut short"
        }),
        ("Too much image data", { _ in "the PNG holds more image data than its size: the file is damaged" }),
        ("CRC error", { m in "the PNG's \(chunk(m)) chunk fails its checksum: the file is damaged" }),
        ("incorrect data check", { _ in "the PNG's compressed image data fails its checksum: the file is damaged" }),
        ("invalid distance", { _ in "the PNG's compressed image data is invalid: the file is damaged" }),
        ("out of place", { m in "the PNG's chunks are out of order (\(chunk(m)) too early or too late): the file is damaged" }),
        ("invalid chunk type", { _ in "the PNG has a chunk whose name is not four letters: the file is damaged" }),
        ("unknown critical chunk", { _ in "the PNG needs a chunk libpng does not know to be read: a newer or damaged file" }),
        ("bad adaptive filter value", { _ in "a PNG row has an invalid filter type: the file is damaged" }),
        ("Invalid palette", { _ in "the PNG's palette is invalid: the file is damaged" }),
        ("Missing PLTE", { _ in "the palette PNG has no palette: the file is damaged" }),
        ("invalid window size", { _ in "the PNG's compressed image data declares an invalid window: the file is damaged" }),
        ("missing LZ dictionary", { _ in "the PNG's compressed image data needs a preset dictionary, which PNG does not allow: the file is damaged" }),
        // Any other zlib message about the image data ("invalid literal/length code", "incorrect header check").
        ("IDAT: ", { _ in "the PNG's compressed image data is invalid: the file is damaged" }),
    ]

    /// The warnings a conversion goes on after — the picture is converted — as sentences that say what was wrong
    /// and what it did to the picture, the library's words kept in parentheses. `fileBytes`: the input's size,
    /// for the share of it a JPEG left unread. yuvconv's own warnings are sentences already and pass unchanged.
    static let warningTable: [(String, @Sendable (String, Int) -> String)] = [
        // libpng cancels a tRNS read before a PLTE (in an RGB or grey picture, whose PLTE only suggests colours).
        // A warning, not the error of the same words: the palette an RGB or grey picture only suggests.
        ("PLTE: invalid", { _, _ in
            "the PNG's suggested palette (PLTE, which an RGB or grey picture does not need) has an impossible length: "
                + "ignored, the picture is read without it" }),
        ("tRNS must be after", { _, _ in
            "the PNG's tRNS chunk comes before its PLTE chunk, where PNG puts it after: ignored, the picture is read "
                + "without its transparency" }),
        ("extraneous bytes before marker", { m, fileBytes in
            let words = m.split(separator: " ")
            let n = words.first { Int($0) != nil }.flatMap { Int($0) } ?? 0
            let marker = words.last.map { $0.lowercased() } ?? ""
            let bytes = "\(n) byte\(n == 1 ? "" : "s")", were = n == 1 ? "was" : "were"
            if marker == "0xd9" {
                let share = fileBytes > 0 && n * 100 >= fileBytes ? " (\(n * 100 / fileBytes)% of the file)" : ""
                return "\(bytes)\(share) of the JPEG's image data \(were) left unread before its end marker: junk after "
                    + "the last scan, which some cameras write (harmless), or a damaged byte that shortened the codes, "
                    + "after which the picture is wrong: look at the output; if it is wrong, the file is damaged"
            }
            if isRestartMarker(marker) {
                return "\(bytes) left over before a restart marker \(were) skipped: padding, which some webcams and "
                    + "scanners write (harmless), or a damaged byte, after which that interval's blocks are wrong"
            }
            return "\(bytes) of stray data before a JPEG marker (\(marker)) \(were) skipped: junk between the file's "
                + "segments (harmless), or what a damaged scan left over (the blocks after the damage are then wrong)"
        }),
        ("unknown JFIF revision", { m, _ in
            let version = m.split(separator: " ").last.map(String.init) ?? "?"
            return "the JPEG's JFIF header gives a version no standard defines (\(version)); decoded as JFIF all the same"
        }),
        ("Unknown Adobe color transform code", { m, _ in
            let code = m.split(separator: " ").last.map(String.init) ?? "?"
            return "the JPEG's Adobe marker gives a colour transform (\(code)) that is unknown or does not fit its number "
                + "of components; its colours are read as YCbCr (or YCCK), which may be wrong"
        }),
        ("out-of-range samples", { m, _ in
            // libpng masks the key to the bit depth and applies it, as the PNG specification says decoders must and
            // browsers do: "ignored" said the opposite of what the pixels got.
            "the PNG's transparent colour (\(chunk(m).split(separator: " ").first.map(String.init) ?? "tRNS")) has bits "
                + "set above its bit depth; they are dropped, as the PNG specification says, and the colour is what is left"
        }),
        // Damage --allow-truncated converts past: what is missing comes out grey.
        ("Premature end of JPEG file", { _, _ in
            "the JPEG ends before its image data does; what is missing is grey (in a progressive JPEG, less detailed)" }),
        ("premature end of data segment", { _, _ in
            "the JPEG's compressed image data stops at a marker; the blocks after it are grey or wrong" }),
        ("bad Huffman code", { _, _ in "the JPEG's compressed image data holds an invalid code; the blocks after it are wrong" }),
        ("bad arithmetic code", { _, _ in "the JPEG's compressed image data holds an invalid code; the blocks after it are wrong" }),
        ("instead of RST", { _, _ in "the JPEG's restart markers are out of sequence; some blocks are wrong or grey" }),
        ("Inconsistent progression sequence", { _, _ in
            "the progressive JPEG's scans contradict each other; some detail is wrong" }),
        ("Too much image data", { _, _ in "the PNG holds more image data than its size needs; the rest was ignored" }),
        ("Extra compressed data", { _, _ in "the PNG's compressed image data goes on after the picture ends; the rest was ignored" }),
        ("CRC error", { m, _ in "the PNG's \(chunk(m)) chunk fails its checksum: it is damaged, and was ignored" }),
        ("IEND: invalid", { _, _ in "the PNG's end chunk (IEND) holds data, which it may not; ignored" }),
        ("out of place", { m, _ in "the PNG's \(chunk(m)) chunk is out of place (before or after where it may stand); ignored" }),
        ("duplicate", { m, _ in "the PNG has a second \(chunk(m)) chunk; ignored" }),
        // Not damage (`jpeg_warning_damages_pixels`): libjpeg ignores these bytes in a sequential scan.
        ("Invalid SOS parameters for sequential JPEG", { _, _ in
            "a sequential JPEG's scan header has spectral or approximation values of a progressive one; they mean "
                + "nothing there and are ignored, as every decoder does" }),
        ("ignored in grayscale PNG", { m, _ in
            "the grey PNG holds a palette (\(chunk(m))), which only colour PNGs use; ignored" }),
    ]

    /// A decoder's warning as a sentence (`warningTable`); a libpng warning about an ancillary chunk the table
    /// does not name ("tRNS: invalid", "cHRM: invalid chromaticities") as that chunk ignored; anything else —
    /// yuvconv's own sentences — as it is.
    static func explainWarning(_ message: String, library: String, fileBytes: Int) -> String {
        for (needle, sentence) in warningTable where message.contains(needle) {
            return "\(sentence(message, fileBytes)) (\(library): \(printable(message)))"
        }
        // An ancillary chunk's (a lower-case first letter), or a PLTE libpng drops (one that only suggests colours,
        // in an RGB or grey picture: its warnings reached users bare).
        if library == "libpng", let colon = message.firstIndex(of: ":"), message.distance(from: message.startIndex, to: colon) == 4,
           let first = message.first, first.isLowercase || message.hasPrefix("PLTE:"), message.count < 60 {
            let name = String(message[..<colon])
            // Its own "ignored" said once, by the sentence ("cICP: not 4 bytes long, ignored").
            var why = String(message[message.index(after: colon)...].drop { $0 == " " })
            for tail in [", ignored", "; ignored", ": ignored", " ignored"] where why.hasSuffix(tail) {
                why.removeLast(tail.count)
                break
            }
            return "the PNG's \(name) chunk could not be used (\(why)); ignored, the picture is read without it "
                + "(libpng: \(printable(message)))"
        }
        return printable(message)
    }

    /// One of the eight restart markers, as libjpeg writes a marker ("0xd0" … "0xd7"), with or without its "0x".
    static func isRestartMarker<S: StringProtocol>(_ marker: S) -> Bool {
        let hex = marker.hasPrefix("0x") ? marker.dropFirst(2) : marker[...]
        return hex.count == 2 && (0xD0...0xD7).contains(Int(hex, radix: 16) ?? 0)
    }

    /// The chunk libpng names before its message's colon ("IDAT: CRC error").
    static func chunk(_ message: String) -> String { message.split(separator: ":").first.map(String.init) ?? "a" }

    /// The sentence for a library message, or the message itself when it is not in the table — unless it is
    /// the library's own words (`fromLibrary`): those always get a sentence, the table's or a general one, so a
    /// message the table has not met ("Didn't expect more than one scan" was one) never reaches a user bare.
    static func explain(_ message: String, library: String, fromLibrary: Bool = false) -> String {
        for (needle, sentence) in table where message.contains(needle) {
            return "\(sentence(message)) (\(library): \(printable(message)))"
        }
        if fromLibrary {   // libjpeg's (the decoder marks no libpng message so: see `yc_error_from_library`)
            return "libjpeg-turbo cannot decode this JPEG: the file is damaged, or uses a feature libjpeg-turbo does not "
                + "support; re-encode it if other programs open it (\(library): \(printable(message)))"
        }
        return printable(message)
    }

    /// libpng puts a bad chunk's raw bytes in its message ("R[00]y[00]"); control bytes never reach a terminal.
    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
