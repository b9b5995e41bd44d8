#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import YUVCore

/// A source of bands for the pipeline: it fills a slot with the rows of one band (on the producer thread,
/// in order — decoders are sequential) and turns a slot into output rows (on the consumer thread).
/// `JPEGPlanesSource`, `RGBRowsSource` and `RawFrameSource` are the three; a new input format is one more.
protocol BandSource: AnyObject {
    /// The picture's size as it is converted (upright).
    var geometry: PlaneGeometry { get }
    /// Luma rows a band holds (even).
    var bandRows: Int { get }
    /// The route's name for the per-image line and the report ("direct YCbCr", "RGB", "YUV").
    var pathName: String { get }
    /// Once, before the first band: the buffers of `slots` slots, from the ledger (and, for a source that
    /// must hold the whole picture, that picture).
    func prepare(slots: Int, ledger: Ledger) throws
    /// Fills `slot` with picture rows `row ..< row + count`.
    func produce(slot: Int, row: Int, count: Int) throws
    /// Converts the rows in `slot` (picture rows `row ..< row + count`) into `band` and says which picture rows
    /// it wrote there: those same rows, or — for a stage that needs the rows after them (sharp chroma) — rows
    /// further back, or none yet. After the last band it is called `trailingBands` more times with no rows
    /// (`count` 0, `row` the picture's height) to write what it still holds.
    func convert(slot: Int, row: Int, count: Int, into band: BandBuffer) -> Range<Int>
    /// Calls after the last band that write rows held back (0 for a source that writes each band's own rows).
    var trailingBands: Int { get }
    /// After the last band (a decoder's checksums and end marker).
    func finish() throws
    /// Whether `--alpha ignore` dropped an alpha that made some pixel less than opaque (known after the last band).
    var droppedTransparency: Bool { get }
    /// Asks the source to feed `probe` every band it converts (`--metrics`), before `prepare`. A source
    /// with no picture to measure against (raw YUV) ignores it.
    func measure(with probe: QualityProbe, ledger: Ledger) throws(WriteError)
    /// True when the source has work for a band before `convert` — the colour stage — done in
    /// `transform(slot:row:count:)` on a stage of its own.
    var transformsApart: Bool { get }
    /// The stage before `convert` for the band in `slot` (picture rows `row ..< row + count`), in place: called
    /// once per band, in order, while `convert` may work on the band before.
    func transform(slot: Int, row: Int, count: Int)
    /// True when the source measures a band in `measure(slot:row:count:band:)`, after `convert` is done with
    /// it — on a stage of its own — rather than inside `convert`.
    var measuresApart: Bool { get }
    /// The quality stage for the band `convert` just made from `slot` (picture rows `row ..< row + count`,
    /// output in `band`): called once per band, in order, while `convert` may already work on the next slot.
    func measure(slot: Int, row: Int, count: Int, band: BandBuffer)
    /// Called on the producer thread while every slot is taken: one piece of a later stage's work that can be
    /// done ahead (true), or nothing left (false).
    func help() -> Bool
}

extension BandSource {
    var droppedTransparency: Bool { false }
    var trailingBands: Int { 0 }
    var measuresApart: Bool { false }
    var transformsApart: Bool { false }
    func transform(slot: Int, row: Int, count: Int) {}
    func measure(slot: Int, row: Int, count: Int, band: BandBuffer) {}
    func help() -> Bool { false }
}

/// The one loop every conversion runs: `source` → band slots → `sink`, with decoding on this thread and
/// conversion and output on a worker when `threaded` (a ring of three slots), or both here in turn. A source
/// with a colour transform gets a stage before the conversion (the colour stage), and one that measures apart
/// (`--metrics`) a stage after it (the quality stage), each on a worker of its own, over the same three slots
/// (more slots bought no measurable speed and cost a band of memory each).
func runPipeline(_ source: BandSource, frame: FrameLayout, into sink: BandSink, ledger: Ledger,
                 threaded: Bool, placed: Bool = false, prepared: () throws -> Void = {}) throws {
    let apart = source.measuresApart, before = source.transformsApart
    let pipeline = BandPipeline(slots: threaded ? 3 : 1, stages: 1 + (apart ? 1 : 0) + (before ? 1 : 0),
                                threaded: threaded, placed: placed)
    let bands = try (0..<pipeline.slots).map { _ throws(WriteError) in try BandBuffer(frame: frame, rows: source.bandRows, ledger: ledger) }
    // A picture the sink's format cannot hold (a JPEG over 65500 a side) is refused before a source that holds
    // the whole picture (an EXIF turn) decodes it; the sink begins after the source is ready, so a source that
    // fails to prepare has written nothing (not even a Y4M header to a pipe).
    try sink.accepts(frame)
    try source.prepare(slots: pipeline.slots, ledger: ledger)
    try prepared()
    try sink.begin(frame, ledger: ledger)
    let height = source.geometry.height, bandRows = source.bandRows
    var row = 0, trailing = source.trailingBands
    let work = UncheckedSendable((source, sink, bands))
    var stages: [@Sendable (Int, Int, Int) throws -> Void] = [{ slot, first, n in
        let (source, sink, bands) = work.value
        let written = source.convert(slot: slot, row: first, count: n, into: bands[slot])
        if !written.isEmpty { try sink.consume(bands[slot], firstRow: written.lowerBound, rows: written.count) }
    }]
    if before {
        stages.insert({ slot, first, n in
            if n > 0 { work.value.0.transform(slot: slot, row: first, count: n) }
        }, at: 0)
    }
    if apart {
        stages.append { slot, first, n in
            let (source, _, bands) = work.value
            if n > 0 { source.measure(slot: slot, row: first, count: n, band: bands[slot]) }
        }
    }
    try pipeline.run(produce: { slot in
        guard row < height else {
            // The calls that write what the source held back: no rows to decode.
            guard trailing > 0 else { return nil }
            trailing -= 1
            return (height, 0)
        }
        if interruptSignal() != nil { throw DecodeError.interrupted }
        let n = min(bandRows, height - row)
        try source.produce(slot: slot, row: row, count: n)
        defer { row += n }
        return (row, n)
    }, help: { source.help() }, stages: stages)
    try source.finish()
    try sink.end()
}

/// Rows a band hands off at once: up to 64 (fewer thread wake-ups), but never more than about 4 MiB of rows
/// of `rowBytes` each, so a very wide picture (a 1,000,000-pixel-wide PNG) still costs a few MiB a band, not
/// a GiB. Even, at least 2 (a 4:2:0 chroma row covers two luma rows).
/// (yc_jpeg_planes.c's 4:2:0 planes for the RGB route assume its 4 MiB: they are taken up to the width whose 16 rows fit.)
func rowsPerBand(rowBytes: Int) -> Int {
    let rows = (4 << 20) / max(rowBytes, 1)
    return max(2, min(64, rows) & ~1)
}

/// Decodes `path` (a JPEG or PNG, `-` for standard input) band by band and converts each band as it
/// arrives into `sink`: the RGB picture is never held whole, nor (with a file sink) the YUV picture.
/// `alignment` pads every written row to a multiple of that many bytes (1: tightly packed).
/// With `metrics` the report carries PSNR and SSIM, measured as the bands stream (`QualityProbe`).
public func convert(path: String, spec: ConversionSpec, layout: PixelLayout, into sink: BandSink,
                    kernels: KernelChoice = kernelChoiceFromEnvironment(),
                    options: DecodeOptions = DecodeOptions(), alignment: Int = 1,
                    heightAlignment: Int = 1, metrics: Bool = false,
                    siting: ChromaLocation = .center, outputName: String? = nil) throws(FileError) -> ConversionReport {
    let name = path   // FileError shows it (displayPath)
    // For a message that must name the file without a way back here.
    setCurrentInput(displayPath(path))
    defer { setCurrentInput(nil) }
    // LittleCMS's memory budget is this conversion's own: whether its profile can be used never depends on
    // what other conversions (a batch's other jobs) hold at the time.
    let lcmsScope = yc_lcms_scope_begin()
    defer { yc_lcms_scope_end(lcmsScope) }
    // A write failure names the output when the caller says which it is (a batch's `in/k4.png: cannot write
    // out/k4.nv12: No space left on device`).
    // Sharp chroma's rows are 8-bit: a library caller asking for a 10-bit layout with it gets an error, not a
    // trap (the command refuses the options first, as a usage error).
    if options.chromaFilter == .sharp && layout.bitDepth != 8 {
        throw FileError(path: name, .decoder("sharp chroma writes 8-bit layouts; \(layout.rawValue) is \(layout.bitDepth)-bit"))
    }
    if let why = FrameLayout.alignmentProblem(alignment, heightAlignment) { throw FileError(path: name, .decoder(why)) }
    // Room to work in, asked for once before any work: under a tight address-space limit the file fails here
    // with the reason, not later in an allocation that cannot fail gracefully; a batch's job waits here while
    // the others hold the room (`Ledger.beginWork`; a caller that holds the picture after this returns, to encode
    // it, holds an admission around both, as `convertOne` does).
    guard Ledger.beginWork() else {
        throw FileError(path: name, interruptSignal() != nil ? .interrupted : .decoder(Ledger.tooLittleToWorkIn()))
    }
    defer { Ledger.endWork() }
    do {
        let inputSource = try InputSource(path: path, maxPixels: options.maxPixels, listed: options.listed)
        // What the sink holds whole (a stream output's chroma and alpha, a memory picture), per 2x2 block, per
        // pixel and per block more when a side is odd (a JPEG encoder's padded luma): its bytes for a 2x2, a 1x1
        // and a 3x3 frame tell all three. A progressive JPEG counts it from its header, before reading every scan
        // in (`ImageDecoder.alsoHeld`); one that is turned lets that count go and counts it again after the turn.
        func probe(_ side: Int) -> FrameLayout {
            FrameLayout(width: side, height: side, pixelLayout: layout, alpha: options.alpha == .keep)
        }
        // h2 = b + 4p, h1 = b + p + o, h3 = 4b + 9p + 4o (b, p, o: per block, per pixel, per odd block).
        let held1 = sink.wholeBytes(probe(1)), held2 = sink.wholeBytes(probe(2)), held3 = sink.wholeBytes(probe(3))
        // The quality measures compare 8-bit code values; a 10-bit output is not measured.
        let measured = metrics && layout.bitDepth == 8
        let perPixel = (held3 - 4 * held1) / 5, perBlock = held2 - 4 * perPixel, perOddBlock = held1 - perBlock - perPixel
        let decoder = try ImageDecoder(source: inputSource, maxPixels: options.maxPixels, maxScans: options.maxScans,
                                       maxMemory: options.maxMemory, allowTruncated: options.allowTruncated,
                                       // Sharp chroma takes the RGB route: it needs RGB, the direct path's chroma
                                       // is the box's. Every siting stays direct (`YCbCrSiting.swift`).
                                       raw: options.jpegPath != .rgb && options.chromaFilter == .box,
                                       // A turn that would move the chroma off its grid sends it through RGB.
                                       turned: options.orientation == .auto, fullChroma: options.jpegPath == .direct,
                                       // A 4:2:0 JPEG on the RGB route: its planes, made RGB on a stage's worker,
                                       // when there is one (not a batch's job, whose stages run in turn) and it is
                                       // free (sharp chroma's passes fill the conversion's).
                                       planesForRGB: options.pipelined && options.chromaFilter == .box,
                                       // A 16-bit alpha is read (8 bytes a pixel, not 6) for an alpha mode, and
                                       // for the default's look at whether ignoring it drops transparency; not
                                       // when `--alpha ignore` is asked for by name (an interlaced picture, held
                                       // whole, is a third smaller).
                                       alpha16: options.alpha != .ignore || options.sayDroppedAlpha,
                                       colourTarget: options.colourManagement ? options.target(for: spec) : nil,
                                       orientationIgnored: options.orientation == .ignore,
                                       // The quality stage measures against the picture as decoded: a turned one's
                                       // stored copy is kept to the end (`JPEGPlanesSource`).
                                       storedKept: measured,
                                       alsoHeld: held1 > 0 ? (perBlock, perPixel, perOddBlock, sink.wholeWhat(probe(1))) : nil)
        let info = decoder.info
        // The EXIF orientation, applied to the picture before conversion (whole pixels, so the RGB route stays
        // the exact conversion of the upright picture). A turned picture is held whole while it is turned.
        let turn = options.turn(for: info)
        // The colour stage: a transform to the target space when the source's profile asks for one (such a
        // JPEG was opened for RGB); a broken profile is a warning.
        let plan = options.colourManagement ? decoder.colourPlan : (action: ColourAction.none, text: "", keptSRGB: false)
        let colour = plan.action == .transform
            ? try decoder.colourTransform(to: options.target(for: spec), format: info.rowFormat) : nil
        // A plan LittleCMS then could not carry out (its memory budget met making the transform): said, never
        // silently unmanaged. (Memory the system refused it is the file's failure, thrown above.)
        let unmade = plan.action == .transform && colour == nil
        // The RGB space the numbers converted are in, which outputs are labelled with: the target's, or sRGB's when
        // colour management kept sRGB numbers (an untagged or sRGB source with --primaries p3, or BT.2020 by
        // --matrix bt2020; a transform that could not be made, whose numbers are used as stored, as a broken
        // profile's are), which labelled as the target a viewer showed more saturated than the source. With
        // --color-management off the user's --primaries says what they are.
        let labelled: Primaries = plan.keptSRGB || unmade ? .bt709 : options.target(for: spec)
        sink.label(labelled)
        let source: BandSource = decoder.isRaw
            ? JPEGPlanesSource(decoder: decoder, spec: spec, kernels: kernels, turn: turn, siting: siting)
            : RGBRowsSource(decoder: decoder, spec: spec, kernels: kernels, turn: turn, alpha: options.alpha,
                            colour: colour, siting: siting, chromaFilter: options.chromaFilter,
                            saysDroppedAlpha: options.sayDroppedAlpha)
        let g = source.geometry
        let frame = FrameLayout(width: g.width, height: g.height, pixelLayout: layout, alignment: alignment,
                                heightAlignment: heightAlignment, alpha: options.alpha == .keep)
        try sink.accepts(frame)   // a picture the format cannot hold says so, before what holding it would cost
        let held = sink.wholeBytes(frame)
        // What the output holds is allocated when it begins, after the source is ready (`runPipeline`'s `prepared`):
        // checked then, beside what the source holds by that time — a turned picture's stored copy let go, the
        // upright one alone (checked before, it counted the stored copy too: a 12 MP turned JPEG to JPEG was refused
        // as needing 51.6 MiB and used 35.2; a hostile round). A source that decodes nothing whole prepares its bands
        // only, so nothing is decoded before the check.
        let checkHeld = { () throws(DecodeError) in
            if held > 0 && !decoder.alsoHeldCounted { try decoder.checkWhole(held, for: sink.wholeWhat(frame)) }
        }
        let ledger = Ledger()
        let probe = measured ? try QualityProbe(geometry: g, spec: spec, ledger: ledger) : nil
        if let probe { try source.measure(with: probe, ledger: ledger) }
        try runPipeline(source, frame: frame, into: sink, ledger: ledger, threaded: options.pipelined,
                        placed: options.placesWorkers(pixels: g.width * g.height), prepared: checkHeld)
        // A file written into (or replaced under its descriptor's data: truncated) while it was read gave rows of
        // two versions of it: no output (an in-place edit mid-read converted, exit 0).
        if inputSource.isRegularFile && !inputSource.unchangedSinceOpen {
            throw DecodeError.changedWhileRead
        }
        var w = decoder.warnings
        if options.orientation == .auto, let unusable = info.orientationUnusable {
            // Said only when orientations are applied: with `--orientation ignore` every file is as stored.
            let tag = unusable == .xmp ? "XMP: tiff:Orientation" : "EXIF: the orientation tag"
            let text = "\(tag) holds no orientation from 1 to 8: the picture is converted as stored"
            w = (w.count + 1, w.kinds + [WarningKind(text: text)], w.damaged)
        }
        if source.droppedTransparency {
            // The default drops alpha (the contract converts colour as stored): where it made pixels transparent, the
            // colours stored under them — often left over, unseen — now show, which is worth a word.
            let text = "its alpha makes some pixels transparent, and --alpha ignore (the default) drops it, so the colours "
                + "stored under them show: --alpha flatten or premultiply composes them, --alpha keep writes an A plane"
            w = (w.count + 1, w.kinds + [WarningKind(text: text)], w.damaged)
        }
        // What colour management could not do: first, for what was done with the colours says more than a
        // decoder's word on the chunk behind it (after damage to the pixels, which says the most).
        var colourKinds: [WarningKind] = []
        if plan.action == .broken || unmade {
            colourKinds.append(WarningKind(text: unmade ? "colour management (\(plan.text)) could not be set up (LittleCMS "
                + "could not make the transform: its memory budget, or the profile); colours used as stored" : plan.text))
        }
        // --primaries asked for, and this file's numbers stayed sRGB's (the contract keeps them): labelled sRGB.
        // A warning like the others, so reports count it (it was said on the terminal only, `"warnings": 0`).
        if let asked = options.primaries, options.colourManagement, labelled != asked {
            colourKinds.append(WarningKind(text: "its colours are sRGB's (no profile, an sRGB one, or one that cannot be "
                + "used), which are converted as they are, not moved into --primaries \(asked.rawValue): the output is "
                + "labelled sRGB"))
        }
        w = (w.count + colourKinds.count, Array(w.kinds.prefix(w.damaged)) + colourKinds + w.kinds.dropFirst(w.damaged),
             w.damaged)
        // `--jpeg-path direct` asked for, and this JPEG went through RGB all the same (these reasons are this file's;
        // --chroma-filter sharp, which decides for every file, is said up front).
        if options.jpegPath == .direct, options.chromaFilter == .box, info.container == .jpeg, !decoder.isRaw {
            let why = colour != nil || plan.action == .decoded ? "colour management (\(plan.text)) works on RGB"
                : turn != .identity ? "its turn (EXIF orientation) would move the chroma off its grid"
                : "its sampling (\(info.sampling)) has no direct path"
            w = (w.count + 1, w.kinds + [WarningKind(text: "\(why): decoded to RGB, not converted from its planes "
                                                          + "(--jpeg-path direct)")], w.damaged)
        }
        var report = ConversionReport(info: info, geometry: g, layout: layout, spec: spec,
                                      inputBytes: inputSource.byteCount, warnings: w.count, firstWarning: w.kinds.first?.text ?? "",
                                      path: source.pathName, ledgerPeakBytes: ledger.peak)
        report.warningKinds = w.kinds
        report.colour = colour != nil || plan.action == .decoded ? plan.text : nil
        report.primaries = labelled
        report.chromaLocation = siting
        report.alphaBytes = frame.alpha ? frame.tight.planeBytes(.a) : 0
        report.orientation = turn
        report.chromaFilter = decoder.isRaw ? .box : options.chromaFilter
        report.quality = probe?.result
        report.inputVersion = inputSource.isRegularFile ? inputSource.version : nil
        return report
    } catch let e as DecodeError {
        // A read a stopping batch gave up (a stalled stream, `yc_stream`'s wait) failed for that reason only.
        throw FileError(path: name, interruptSignal() != nil ? .interrupted : e)
    } catch let e as WriteError {
        throw FileError(input: name, writing: outputName, e)
    } catch {
        throw FileError(path: name, reason: "\(error)")
    }
}

/// What the box filter's planes give through a bilinear player (`psnr_rgb_bilinear_db`), for a sharp-chroma
/// conversion's report (`report`, measured with sharp chroma) to show its gain per image: the same file
/// converted again from the same RGB (the RGB route, also for a JPEG) with box chroma into nothing, measured.
/// The caller runs it after its conversion is finished and what it held is released (the output written and
/// committed), so the two never hold memory together. Nil when there is nothing to compare (box chroma, no
/// metrics), when the input cannot be read again (standard input, a pipe: `report.inputVersion` nil) or is no
/// longer the file that was converted, or when the second conversion fails; a signal that stops it throws.
public func boxBilinearPSNR(path: String, report: ConversionReport, spec: ConversionSpec, layout: PixelLayout,
                            options: DecodeOptions, siting: ChromaLocation = .center,
                            kernels: KernelChoice = kernelChoiceFromEnvironment()) throws(FileError) -> Double? {
    guard options.chromaFilter == .sharp, report.quality != nil, let version = report.inputVersion else { return nil }
    var box = options
    box.chromaFilter = .box
    box.jpegPath = .rgb
    let result: Double?
    do {
        let again = try convert(path: path, spec: spec, layout: layout, into: DiscardSink(), kernels: kernels, options: box,
                                metrics: true, siting: siting)
        // The same file, still: not another picture put under its name since.
        result = again.inputVersion == version ? again.quality?.psnrRGBBilinear : nil
    } catch {
        if interruptSignal() != nil { throw FileError(path: path, DecodeError.interrupted) }
        result = nil
    }
    if interruptSignal() != nil { throw FileError(path: path, DecodeError.interrupted) }
    return result
}

/// A YUV frame already read (raw planes or Y4M) through the same pipeline into `sink`: another layout,
/// padded rows, a Y4M stream, a PNG.
/// `range` is the frame's: what a change of bit depth keeps (8-bit input to a 10-bit layout, or back).
public func convert(frame image: YUVImage, layout: PixelLayout, into sink: BandSink, alignment: Int = 1,
                    heightAlignment: Int = 1, range: ColorRange = .full, threaded: Bool = true) throws(WriteError) {
    if let why = image.planesProblem ?? FrameLayout.alignmentProblem(alignment, heightAlignment) { throw .system(why) }
    // A caller's 10-bit frame with samples above 1023 (the readers refuse them: `RawInput.checkSamples`) came out
    // mangled without a word: 1025 as 1 in P010, copied as it was to yuv420p10le.
    if image.layout == .yuv420p10le {
        do throws(DecodeError) { try RawInput.checkSamples(image.bytes, layout: .yuv420p10le) } catch { throw .system(error.reason) }
    }
    let frame = FrameLayout(width: image.width, height: image.height, pixelLayout: layout, alignment: alignment,
                            heightAlignment: heightAlignment)
    guard Ledger.beginWork() else {
        throw interruptSignal() != nil ? .interrupted : .outOfMemory(Ledger.tooLittleToWorkIn())
    }
    defer { Ledger.endWork() }
    do {
        try runPipeline(RawFrameSource(image, range: range), frame: frame, into: sink, ledger: Ledger(), threaded: threaded)
    } catch let e as WriteError {
        throw e
    } catch {
        throw .system("\(error)")
    }
}

/// Converts `path` into memory and returns the picture (tests and library callers).
public func convertFile(path: String, spec: ConversionSpec, layout: PixelLayout,
                        kernels: KernelChoice = kernelChoiceFromEnvironment(),
                        options: DecodeOptions = DecodeOptions()) throws(FileError) -> Conversion {
    let sink = MemorySink()
    let report = try convert(path: path, spec: spec, layout: layout, into: sink, kernels: kernels, options: options)
    return Conversion(report: report, image: sink.image!)
}

extension DecodeOptions {
    /// The orientation to apply to a source: its EXIF tag under `auto`, none under `ignore`.
    func turn(for info: SourceInfo) -> Orientation {
        orientation == .auto ? Orientation(exif: info.orientation) : .identity
    }
}
