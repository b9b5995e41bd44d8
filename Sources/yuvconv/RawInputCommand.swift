#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

/// YUV in (raw planes or Y4M), re-encoded: another layout, Y4M, PNG (through the exact inverse of the
/// input's matrix and range) or JPEG (BT.601 full range planes; other inputs go through the exact inverse
/// and the exact forward conversion, two roundings).
func runRawInput(_ options: Options) -> Int32 {
    let input = options.inputs[0]
    guard let output = options.output else { return usageFailure("no output given (-o PATH, or -o - for stdout)") }
    let name = displayPath(input)
    let format: OutputFormat
    do throws(UsageError) {
        // The report's figures (memory saved, quality) describe a conversion from RGB: YUV input has none.
        if options.reportFormat != nil || options.metrics {
            throw UsageError(message: "--report and --metrics measure conversions of JPEG and PNG input; "
                             + "YUV input (raw or Y4M) writes no report")
        }
        try refuseTerminal(output)
        format = try options.outputFormat(for: output, rawInput: true)
    } catch {
        return usageFailure(error)
    }
    let protected = Set(inputIdentities(input))
    if let refused = refuseInputsAsStandardStreams(protected) { return refused }
    let dataDescriptor = AtomicOutput.standardDescriptor(output)
    if let refused = refuseStandardStreamHazards(written: dataDescriptor.map { [$0] } ?? [], dataDescriptor: dataDescriptor,
                                                 force: options.force, quiet: options.quiet, replaced: [output]) {
        return refused
    }
    // Before any message: with -q, data on standard error silences them all (`dataAwayFromMessages`).
    let written = options.quiet ? dataAwayFromMessages(output) : output
    // What is at the output's name now, before any work: `--force` replaces that file and nothing put there during
    // the run, as for an image input (`convertOne`'s `before`).
    let before = AtomicOutput.Before.lookingAt(written)
    // Standard error is none of the files this run reads or writes: the messages held until now go out.
    releaseMessages(drop: false)
    // The dry run too, as an image input's does.
    let sameDepthCopy = format.isRaw && !RawInput.isY4M(path: input)
        && options.rawLayout(of: input).bitDepth == options.layout(for: format).bitDepth
    warnIgnoredOptions(options, format: format, rawInput: true, single: true, output: output, sameDepthCopy: sameDepthCopy)
    // To a stream (a pipe, a device, standard output), a raw or Y4M output's planes after its luma wait until the
    // luma has gone out: held whole in part beside the frame, under --max-memory as an image's are (they were not
    // counted: a 48 MP frame to 10-bit on a pipe held 46 MiB past the limit; a hostile round). Counted with the
    // frame before it is read, from the output's check (it was counted after the frame was read: a pipe's whole
    // frame taken to be refused), and again once the output is open.
    let (depth, alignment, heightAlignment) = (options.depth, options.fileAlignment, options.heightAlignment)
    let streamedFrame: @Sendable (RawInput.Frame) -> FrameLayout? = { [format] frame in
        switch format {
        case .y4m: FrameLayout(width: frame.width, height: frame.height,
                               pixelLayout: format.layout(bitDepth: depth ?? frame.layout.bitDepth))
        case .raw(let layout): FrameLayout(width: frame.width, height: frame.height, pixelLayout: layout,
                                           alignment: alignment, heightAlignment: heightAlignment)
        default: nil
        }
    }
    // What the run holds whole beside the frame, counted with it before it is read (the run and its dry run): to a
    // JPEG, the encoder's planes and any reconversion's (`reconverts`, from a Y4M header's range); to a stream,
    // the output's planes above. `destination`: the output's check (nil: it refuses the output anyway).
    func heldBeside(_ destination: AtomicOutput.Destination?,
                    reconverts: @escaping @Sendable (ColorRange?) -> Bool) -> RawInput.HeldBeside? {
        if format == .jpeg { return jpegEncoderHeld(reconverts: reconverts) }
        guard let destination, destination.isStream else { return nil }
        return RawInput.HeldBeside { frame in
            streamedFrame(frame).map { (OutputSink.streamHeldBytes($0), OutputSink.streamHeldWhat($0)) }
        }
    }
    let jfif = ConversionSpec(matrix: .bt601, range: .full)
    if options.dryRun {
        // What the run refuses from the name and the file's status alone: a raw frame without --size (a usage
        // error), or a file whose size is not one frame's.
        var refusal: String?
        if !RawInput.isY4M(path: input) || options.isOneRawFrame(input) {
            guard let size = options.inputSize else { return usageFailure("\(name): raw YUV needs --size WxH") }
            warnRawSiting(name, options.siting ?? .center, format, depth: options.depth ?? options.rawLayout(of: input).bitDepth)
            // In the run's order: the output's limits from --size (a JPEG's 65500 a side), then the frame.
            if let why = format.sizeProblem(width: size.width, height: size.height) {
                refusal = FileError(input: input, writing: written, .unfit(why)).cli
            } else {
                let destination = try? AtomicOutput.check(path: written, force: options.force, inputs: [input],
                                                          protected: protected)
                refusal = RawInput.frameProblem(path: input, width: size.width, height: size.height,
                                                layout: options.rawLayout(of: input), maxPixels: options.maxPixels,
                                                maxMemory: options.maxMemory,
                                                besides: heldBeside(destination) { [spec = options.spec] _ in spec != jfif })?.cli
            }
        } else if let asked = options.siting {
            // A Y4M stream: the run reads the header's tag and says when it differs; the dry run reads no header.
            printErr("yuvconv: warning: \(name): a Y4M header says where its chroma sits and YUV input is not resampled, "
                     + "so --chroma-loc \(asked.rawValue) is ignored (unless the header is a 10-bit C420p10, which has no "
                     + "siting tag: then it says where the chroma sits)")
        }
        return dryRunOne(input: input, output: output, format: format, options: options, protected: protected,
                         inputRefusal: refusal, rawInput: true)
    }
    // The output's checks before the input is read: a FIFO's writer is not waited for, nor its frame taken, by a
    // run that is refused (a file there without --force, no folder). `AtomicOutput` makes them again when it opens.
    let destination: AtomicOutput.Destination
    do throws(WriteError) {
        destination = try AtomicOutput.check(path: written, force: options.force, inputs: [input], protected: protected)
    } catch {
        printErr("yuvconv: error: \(FileError(output: written, error).cli)")
        return 1
    }
    if let why = creationReason(written, makesFolders: false) {
        printErr("yuvconv: error: \(FileError(output: written, reason: why).cli)")
        return 1
    }
    setCurrentInput(name)
    do throws(FileError) {
        var image: YUVImage
        var spec = options.spec
        // The input's siting (a Y4M's tag, else --chroma-loc), kept in a Y4M output's tag: the samples are moved,
        // never resampled.
        var siting = options.siting ?? .center
        var timing = Y4MTiming()
        if RawInput.isY4M(path: input) && !options.isOneRawFrame(input) {
            // The ones given, by name (`-s` alone was told "--size and --pix-fmt").
            let given = [options.inputSize != nil ? "--size" : nil, options.inputLayout != nil ? "--pix-fmt" : nil].compactMap { $0 }
            if !given.isEmpty {
                printErr("yuvconv: warning: \(name): a Y4M header gives the size and layout; \(given.joined(separator: " and ")) "
                         + (given.count == 1 ? "is" : "are") + " ignored")
            }
            let (img, range, tagged, stream) = try RawInput.readY4M(path: input, maxPixels: options.maxPixels,
                                                                    maxMemory: options.maxMemory,
                                                                    besides: heldBeside(destination) { header in
                                                                        y4mSpec(options, header) != jfif })
            // A 10-bit header (C420p10) has no siting tag: --chroma-loc says where its chroma sits, as for a raw
            // frame (yuvconv's own left-sited 10-bit Y4M comes back left-sited), else the centre.
            let tag = tagged ?? options.siting ?? .center
            let fields = stream.interlacing
            image = img
            if stream.goesOn {
                printErr("yuvconv: warning: \(name): the Y4M file goes on after its first frame; only that frame is "
                         + "converted (yuvconv converts one picture)")
            }
            // A Y4M output keeps the stream's frame rate and pixel aspect.
            timing.frameRate = stream.frameRate
            timing.aspect = stream.aspect
            if let v = stream.ignoredXYSCSS {
                printErr("yuvconv: warning: \(name): its Y4M header's XYSCSS=\(v) is ignored, as FFmpeg ignores it (the values "
                         + "are upper case: XYSCSS=\(v.uppercased())); the frame is read as \(stream.colourSpace == "no C tag" ? "8-bit 4:2:0" : stream.colourSpace)")
            }
            if case .y4m = format, !stream.unreadable.isEmpty {
                printErr("yuvconv: warning: \(name): its Y4M header's \(stream.unreadable.joined(separator: " ")) cannot be read; "
                         + "the output says F\(timing.frameRate) A\(timing.aspect)")
            }
            // (A header without F went by in silence, written F1:1 where FFmpeg had played it at 25.)
            if case .y4m = format, stream.noRate {
                printErr("yuvconv: warning: \(name): its Y4M header has no frame rate (F); the output says F\(timing.frameRate) "
                         + "(FFmpeg reads a stream without one at 25 frames a second: F25:1)")
            }
            // Pixels that are not square (A10:11, an anamorphic DVD frame): only a Y4M output says so; PNG, JPEG and
            // raw planes carry no aspect, so the picture is shown stretched, which is worth a word.
            if format != .y4m, Y4MTiming.isNonSquare(stream.aspect) {
                printErr("yuvconv: warning: \(name): the Y4M stream's pixels are not square (A\(stream.aspect)); "
                         + "\(format.name) output does not record a pixel aspect, so the picture shows stretched unless "
                         + "it is scaled")
            }
            // An interlaced frame is two fields woven together. Copied into a Y4M, its samples keep their tag
            // (It, Ib; and I?, which nobody knows, rather than a claim of Ip); anything else takes the woven
            // frame as one progressive picture, which is worth a word (I? is read as progressive, silently).
            if fields == .topFieldFirst || fields == .bottomFieldFirst || fields == .unknown, case .y4m = format {
                timing.interlacing = fields
            } else if fields != .progressive && fields != .unknown {
                printErr("yuvconv: warning: \(name): the Y4M stream is interlaced (I\(fields.rawValue)); its first frame is "
                         + "converted as one progressive picture (the two fields woven, each field's chroma read as the frame's)")
            }
            // The tag says where the samples sit; they are moved, never resampled, so it stays true.
            // (Untagged, it is centre-sited unless --chroma-loc says otherwise: only then is it said.)
            let said = "its chroma is \(tag.rawValue)-sited (" + (tagged != nil ? stream.colourSpace
                : "--chroma-loc \(tag.rawValue): \(stream.colourSpace) has no siting tag") + ")"
            if let asked = options.siting, asked != tag {
                printErr("yuvconv: warning: \(name): \(said); YUV input is not resampled, so --chroma-loc \(asked.rawValue) "
                         + "is ignored")
            }
            siting = tag
            warnRawSiting(name, tag, format, depth: options.depth ?? img.layout.bitDepth, said: said)
            // XCOLORRANGE says; without it, --range if given, else limited (FFmpeg's convention for Y4M). A --range
            // the tag contradicts is ignored with a word, as --size, --pix-fmt and --chroma-loc are.
            if let range, options.rangeGiven, options.spec.range != range {
                printErr("yuvconv: warning: \(name): its Y4M header says XCOLORRANGE=\(range == .full ? "FULL" : "LIMITED"); "
                         + "--range \(options.spec.range.rawValue) is ignored")
            }
            spec = y4mSpec(options, range)
        } else {
            guard let size = options.inputSize else { return usageFailure("\(name): raw YUV needs --size WxH") }
            // A picture the output cannot hold (a JPEG over 65500 a side) is refused from the size given, before
            // the frame is read (4 GiB of a pipe was read first).
            if let why = format.sizeProblem(width: size.width, height: size.height) {
                throw FileError(input: input, writing: written, .unfit(why))
            }
            image = try RawInput.read(path: input, width: size.width, height: size.height, layout: options.rawLayout(of: input),
                                      maxPixels: options.maxPixels, maxMemory: options.maxMemory,
                                      besides: heldBeside(destination) { [spec] _ in spec != jfif })
            warnRawSiting(name, siting, format, depth: options.depth ?? image.layout.bitDepth)
        }
        // What the frame, read, holds whole with what is held beside it: counted as a decoded picture's is, the
        // budget from the bytes read (a stream's too: standard input, a FIFO), at least.
        func wholeCount() -> ImageDecoder.WholeCount {
            RawInput.besideCount(maxMemory: options.maxMemory, frameBytes: image.bytes.count,
                                 fileSize: readsStandardInput(input) ? nil : FileStatus(path: input)?.size)
        }
        // The output's layout when it is drawn from the frame at its own depth (or --depth).
        let deepLayout = format.layout(bitDepth: options.depth ?? image.layout.bitDepth)
        if case .jpeg = format {
            // Checked before the frame was read (`besides`); again with the frame's own byte count and the spec it
            // ends with (a Y4M's range is its header's).
            let encoderHeld = jpegEncoderHeld { [spec] _ in spec != jfif }
            let (w, h) = (image.width, image.height)
            var whole = wholeCount()
            do throws(DecodeError) {
                if let held = encoderHeld.held(RawInput.Frame(width: w, height: h, layout: image.layout)) {
                    try whole.check(image.bytes.count + held.bytes, for: held.what)
                }
            } catch {
                throw FileError(path: input, error)
            }
        }
        // The RGB space the frame's samples are in, which tags a PNG or JPEG drawn from it: --primaries when given
        // (planes made with `--primaries p3`, or `--matrix bt2020 --primaries bt709`), else its matrix's (BT.2020
        // video is in BT.2020's primaries). The matrix's alone tagged P3 planes as sRGB and BT.709 ones as BT.2020.
        let primaries = options.primaries ?? Primaries(for: spec.matrix)
        let sink: AtomicOutput
        do { sink = try AtomicOutput(path: written, force: options.force, inputs: [input], before: before) } catch {
            throw FileError(output: written, error)
        }
        // The output's planes held for a stream (above), counted again now that the output is open: it is the
        // output that says whether it is one.
        if let frame = streamedFrame(RawInput.Frame(width: image.width, height: image.height, layout: image.layout)) {
            let out = OutputSink(output: sink, container: .raw)
            let held = out.wholeBytes(frame)
            var whole = wholeCount()
            do throws(DecodeError) {
                if held > 0 { try whole.check(image.bytes.count + held, for: out.wholeWhat(frame)) }
            } catch {
                sink.abort()
                throw FileError(path: input, error)
            }
        }
        do throws(WriteError) {
            switch format {
            case .jpeg:
                let memory = MemorySink(fitting: .jpeg)
                try convert(frame: image, layout: .yuv420p, into: memory, range: spec.range)
                var planes = memory.image!
                if spec != jfif {
                    // Its RGB picture and the new planes, both whole.
                    let need = 3 * planes.width * planes.height + planes.bytes.count
                    guard let again = Ledger.ifAvailable(need, { reconvert(planes, from: spec, to: jfif) }) else {
                        throw .outOfMemory(Ledger.outOfMemoryUnderALimit(need, for: "the picture"))
                    }
                    planes = again
                }
                // The frame's primaries tag the picture, as they do one converted from an image.
                try encodeJPEG(planes, quality: options.quality, primaries: primaries) { (part: UnsafeRawBufferPointer) throws(WriteError) in
                    try sink.write(part)
                }
            case .png:
                // A 10-bit frame (or --depth 10) draws a 16-bit PNG: one rounding from its samples, nothing lost.
                try convert(frame: image, layout: deepLayout,
                            into: PNGSink(output: sink, spec: spec, primaries: primaries), range: spec.range)
            case .y4m:
                // Without --depth, a Y4M output keeps a 10-bit input's depth (as ffmpeg keeps its pixel format).
                try convert(frame: image, layout: deepLayout,
                            into: OutputSink(output: sink, container: .y4m(spec.range, siting, timing)), range: spec.range)
            case .raw(let layout):
                try convert(frame: image, layout: layout, into: OutputSink(output: sink, container: .raw),
                            alignment: options.fileAlignment, heightAlignment: options.heightAlignment, range: spec.range)
            }
            try sink.commit()
        } catch {
            sink.abort()
            throw FileError(input: input, writing: written, error)
        }
        if !options.quiet {
            // The siting too when it is not the centre (a Y4M's tag or --chroma-loc): a raw output does not carry it.
            let sited = siting == .center ? "" : ", \(siting.rawValue)-sited chroma"
            printErr("\(name): \(image.width)x\(image.height) YUV \(image.layout.rawValue) (\(spec)\(sited)) -> \(sink.isStandardOutput ? "<stdout>" : displayPath(written))")
        }
        return 0
    } catch {
        printErr("yuvconv: error: \(error.cli)")
        return 1
    }
}

/// What a JPEG output of a w×h frame holds whole beside the frame: the encoder's planes and, for another matrix
/// or range than JFIF's, the RGB and planes of the reconversion — under --max-memory as a decoded picture's are,
/// with the same default and sentence, checked with the frame before it is read (it was checked after).
/// `reconverts`: from the Y4M header's range (nil for none, and for a raw frame), whether the frame needs one.
func jpegEncoderHeld(reconverts: @escaping @Sendable (ColorRange?) -> Bool) -> RawInput.HeldBeside {
    RawInput.HeldBeside { frame in
        let (w, h) = (frame.width, frame.height)
        let planes = w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2)
        return (planes + paddedJPEGLumaBytes(width: w, height: h) + (reconverts(frame.range) ? 3 * w * h + planes : 0),
                "holding the picture for the encoder")
    }
}

/// A Y4M input's spec: the options', in the range XCOLORRANGE says; without it, --range if given, else
/// limited (FFmpeg's convention for Y4M).
func y4mSpec(_ options: Options, _ range: ColorRange?) -> ConversionSpec {
    var spec = options.spec
    spec.range = range ?? (options.rangeGiven ? options.spec.range : .limited)
    return spec
}

/// A yuv420p picture in one matrix and range to another: the exact inverse to 8-bit RGB, then the exact
/// conversion (two roundings).
func reconvert(_ image: YUVImage, from: ConversionSpec, to: ConversionSpec) -> YUVImage {
    let w = image.width, h = image.height
    var rgb = [UInt8](repeating: 0, count: 3 * w * h)
    // Read in place: a mutable copy of the planes (`var src = image`) copied all of them, 1.5 bytes a pixel
    // beyond what --max-memory admitted (the rows are only read).
    image.bytes.withUnsafeBufferPointer { b in
        rgb.withUnsafeMutableBufferPointer { r in
            YUVToRGB(spec: from).convertRows(PlaneTargets(picture: UnsafeMutablePointer(mutating: b.baseAddress!), width: w,
                                                          height: h, layout: .yuv420p),
                                             first: 0, count: h, into: r.baseAddress!, stride: 3 * w)
        }
    }
    return rgb.withUnsafeBytes {
        RGBToYUV420(spec: to, source: .rgb8).convert(pixels: $0.baseAddress!, rowBytes: 3 * w, width: w, height: h, layout: .yuv420p)
    }
}

/// YUV input's chroma is moved, never resampled: an output whose readers take it as centre-sited — JPEG, PNG, and a
/// 10-bit Y4M, whose header (C420p10) has no siting tag — shows other chroma half a pixel off, which is worth a word.
/// The one place that says so, for raw frames and Y4M input, from where the samples sit (`said`: how that is known)
/// and the output's depth (a 10-bit input's own, unless --depth: a raw p010 frame was let by in silence). The dry run
/// says it too.
func warnRawSiting(_ name: String, _ siting: ChromaLocation, _ format: OutputFormat, depth: Int, said: String? = nil) {
    guard siting != .center else { return }
    let said = said ?? "its chroma is \(siting.rawValue)-sited (--chroma-loc \(siting.rawValue))"
    if format == .jpeg || format == .png {
        printErr("yuvconv: warning: \(name): \(said); \(format.name) output is centre-sited and the samples are not "
                 + "resampled, so the colours move by half a pixel")
    } else if case .y4m = format, depth == 10 {
        printErr("yuvconv: warning: \(name): \(said); a 10-bit Y4M header (C420p10) has no siting tag (ffprobe: unspecified), "
                 + "so readers take its chroma as centre-sited, half a pixel off (the samples are not resampled)")
    }
}
