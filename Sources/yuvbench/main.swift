// yuvbench: kernel and driver throughput on a 4032×3024 RGBA frame, against libyuv measured in the same
// run on the same buffer, and memcpy as the memory-bandwidth ceiling. Not a test: `make bench` runs it.
//
//   yuvbench [--peer PATH/libyuv_peer.so] [--runs N] [--warm-ms MS] [--width W --height H]
//
// Every contender runs once per round, in a new order each round, so machine noise and position hit all of
// them alike; the figure is the median over the rounds. The last line is one JSON object with the headline figures.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import YUVCore

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

let args = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}
/// A per-tier contender's name.
func tierName(_ tier: CPUTier, _ what: String) -> String { "[\(tier)] \(what)" }

/// The CPU's model name, as /proc/cpuinfo gives it.
func cpuModel() -> String {
    guard let f = fopen("/proc/cpuinfo", "r") else { return "unknown" }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), f) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
            return String(text[text.index(after: colon)...]).trimmingCharacters(in: " \n\t")
        }
    }
    return "unknown"
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

let width = Int(option("--width") ?? "") ?? 4032
let height = Int(option("--height") ?? "") ?? 3024
let runs = Int(option("--runs") ?? "") ?? 15
let warmSeconds = (Double(option("--warm-ms") ?? "") ?? 10) / 1000
let peerPath = option("--peer")
let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
let pixels = width * height

// A photo-like frame: smooth gradients plus deterministic noise, alpha varying (it must not matter).
var rgba = [UInt8](repeating: 0, count: pixels * 4)
var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
for y in 0..<height {
    for x in 0..<width {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        let n = Int(truncatingIfNeeded: (seed >> 59)) - 16
        let i = 4 * (y * width + x)
        rgba[i] = UInt8(clamping: x * 255 / width + n)
        rgba[i + 1] = UInt8(clamping: y * 255 / height + n)
        rgba[i + 2] = UInt8(clamping: (x + y) * 255 / (width + height) - n)
        rgba[i + 3] = UInt8(truncatingIfNeeded: seed >> 40)
    }
}

typealias PeerNV12 = @convention(c) (UnsafePointer<UInt8>, Int32, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int32, Int32) -> Int32
typealias PeerPlanar = @convention(c) (UnsafePointer<UInt8>, Int32, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int32, Int32) -> Int32
var peerNV12: PeerNV12?
var peerJ420: PeerPlanar?
var peerI420: PeerPlanar?
typealias PeerPin = @convention(c) (Int32) -> Void
var peerPin: PeerPin?
if let peerPath {
    guard let h = dlopen(peerPath, RTLD_NOW) else {
        fputs("yuvbench: cannot load \(peerPath): \(String(cString: dlerror()))\n", stderr)
        exit(1)
    }
    peerNV12 = unsafeBitCast(dlsym(h, "peer_abgr_to_nv12"), to: PeerNV12.self)
    peerJ420 = unsafeBitCast(dlsym(h, "peer_abgr_to_j420"), to: PeerPlanar.self)
    peerI420 = unsafeBitCast(dlsym(h, "peer_abgr_to_i420"), to: PeerPlanar.self)
    if let pin = dlsym(h, "peer_pin_tier") { peerPin = unsafeBitCast(pin, to: PeerPin.self) }
}

let geometry = PlaneGeometry(width: width, height: height)
let cw = geometry.chromaWidth
// Raw buffers: the contenders' closures keep them for the whole run.
let src = UnsafeMutablePointer<UInt8>.allocate(capacity: rgba.count)
src.initialize(from: rgba, count: rgba.count)
let dst = UnsafeMutablePointer<UInt8>.allocate(capacity: geometry.tightBytes)
dst.initialize(repeating: 0, count: geometry.tightBytes)
let copyDst = UnsafeMutablePointer<UInt8>.allocate(capacity: rgba.count)
copyDst.initialize(repeating: 0, count: rgba.count)
let k709 = KernelConstants(ConversionSpec())

struct Contender {
    let name: String
    /// The CPU tier it runs on (ours, and libyuv pinned to the same instructions); nil: the best.
    var tier: CPUTier? = nil
    let body: () -> Void
    var times: [Double] = []
    var firstCall: [Double] = []
}

// The contenders the summary and the JSON look up by name.
let memcpyName = "memcpy (RGBA frame, bandwidth ceiling)", memcpyAllName = "memcpy (RGBA frame), \(cores) threads"
let sharpName = "RGBA→NV12 bt709 full, sharp chroma, 1 thread"
let oursName = "RGBA→NV12 bt709 full, 1 thread", oursAllName = "RGBA→NV12 bt709 full, \(cores) threads"

var contenders: [Contender] = []
do {
    do {
        contenders.append(Contender(name: memcpyName) {
            memcpy(copyDst, src, pixels * 4)
        })
        let srcShared = UncheckedSendable(src), copyShared = UncheckedSendable(copyDst)
        contenders.append(Contender(name: memcpyAllName) {
            let chunk = (pixels * 4 + cores - 1) / cores
            DispatchQueue.concurrentPerform(iterations: cores) { i in
                let start = i * chunk, n = min(chunk, pixels * 4 - start)
                if n > 0 { memcpy(copyShared.value + start, srcShared.value + start, n) }
            }
        })
        contenders.append(Contender(name: "row pair RGBA→Y,Y,UV bt709 full (fused SIMD), in cache") {
            // The driver's kernel on the frame's first 64 rows (1 MiB of RGBA) over and over, as many pixels
            // as the frame: its speed without main memory.
            var y = 0
            while y < height {
                let r = y % 64
                SIMDKernels.rgbaToNV12RowPair(src + r * width * 4, src + (r + 1) * width * 4, dst + r * width,
                                              dst + (r + 1) * width, dst + pixels + (r / 2) * 2 * cw, width, k709)
                y += 2
            }
        })
        contenders.append(Contender(name: "row RGBAToYRow bt709 full (integer, auto-vectorised)") {
            for y in 0..<height { RowKernels.rgbaToYRow(src + y * width * 4, dst + y * width, width, k709.y) }
        })
        contenders.append(Contender(name: "row RGBAToUVRow bt709 full (integer, auto-vectorised)") {
            var y = 0
            while y < height {
                let s1 = y + 1 < height ? src + (y + 1) * width * 4 : src + y * width * 4
                RowKernels.rgbaToUVRow(src + y * width * 4, s1, dst + pixels + (y / 2) * cw,
                                       dst + pixels + geometry.chromaHeight * cw + (y / 2) * cw, width, k709.u, k709.v)
                y += 2
            }
        })
        for spec in ConversionSpec.all {
            let driver = RGBToYUV420(spec: spec, source: .rgba8)
            contenders.append(Contender(name: "RGBA→NV12 \(spec), 1 thread") {
                driver.convert(band: src, rowBytes: width * 4, firstRow: 0, rowCount: height, output: dst,
                               width: width, height: height, layout: .nv12)
            })
        }
        let driver709 = RGBToYUV420(spec: ConversionSpec(), source: .rgba8)
        contenders.append(Contender(name: oursAllName) {
            driver709.convert(pixels: src, rowBytes: width * 4, width: width, height: height, output: dst,
                              layout: .nv12, threads: cores)
        })
        // The JPEG direct path's rows: a decoder's 4:2:0 planes (here bytes of the frame) to another matrix.
        let ch = geometry.chromaHeight
        let targets = PlaneTargets(picture: dst, width: width, height: height, layout: .nv12)
        for (spec, kernels, label) in [(ConversionSpec(), KernelChoice.fast, "bt709 full (SIMD rows)"),
                                       (ConversionSpec(), .reference, "bt709 full (scalar reference)"),
                                       (ConversionSpec(matrix: .bt709, range: .limited), .fast, "bt709 limited (SIMD rows)")] {
            let direct = YCbCrToYUV420(target: spec, width: width, height: height, components: 3, h: [2, 1, 1],
                                       v: [2, 1, 1], kernels: kernels)
            contenders.append(Contender(name: "JPEG YCbCr 4:2:0 planes→NV12 \(label)") {
                direct.convert(y: src, yStride: width, cb: src + pixels, cbStride: cw, cr: src + pixels + cw * ch,
                               crStride: cw, firstRow: 0, rowCount: height, into: targets)
            })
        }
        // 4:4:4 (full-resolution chroma planes): per-pixel chroma, four-pixel means.
        for (kernels, label) in [(KernelChoice.fast, "SIMD rows"), (.reference, "scalar reference")] {
            let direct = YCbCrToYUV420(target: ConversionSpec(), width: width, height: height, components: 3,
                                       h: [1, 1, 1], v: [1, 1, 1], kernels: kernels)
            contenders.append(Contender(name: "JPEG YCbCr 4:4:4 planes→NV12 bt709 full (\(label))") {
                direct.convert(y: src, yStride: width, cb: src + pixels, cbStride: width, cr: src + 2 * pixels,
                               crStride: width, firstRow: 0, rowCount: height, into: targets)
            })
        }
        // Sharp chroma (`--chroma-filter sharp`, outside the contract) on the same frame, into the same output as
        // the box: its cost against the box.
        contenders.append(Contender(name: sharpName) {
            SharpYUV420.convert(pixels: src, rowBytes: width * 4, width: width, height: height, output: dst,
                                layout: .nv12, spec: ConversionSpec(), source: .rgba8)
        })
        // One set per CPU tier this machine runs: ours pinned with CPUTier.use, libyuv with its MaskCpuFlags.
        let full709 = RGBToYUV420(spec: ConversionSpec(), source: .rgba8)
        let limited709 = RGBToYUV420(spec: ConversionSpec(matrix: .bt709, range: .limited), source: .rgba8)
        for tier in CPUTier.supported {
            contenders.append(Contender(name: tierName(tier, "RGBA→NV12 bt709 full, 1 thread"), tier: tier) {
                full709.convert(band: src, rowBytes: width * 4, firstRow: 0, rowCount: height, output: dst,
                                width: width, height: height, layout: .nv12)
            })
            contenders.append(Contender(name: tierName(tier, "RGBA→NV12 bt709 limited, 1 thread"), tier: tier) {
                limited709.convert(band: src, rowBytes: width * 4, firstRow: 0, rowCount: height, output: dst,
                                   width: width, height: height, layout: .nv12)
            })
            contenders.append(Contender(name: tierName(tier, "RGBA→NV12 bt709 full, \(cores) threads"), tier: tier) {
                full709.convert(pixels: src, rowBytes: width * 4, width: width, height: height, output: dst,
                                layout: .nv12, threads: cores)
            })
            if let peerNV12, peerPin != nil {
                contenders.append(Contender(name: tierName(tier, "libyuv ABGRToNV12, 1 thread"), tier: tier) {
                    _ = peerNV12(src, Int32(width * 4), dst, dst + pixels, Int32(width), Int32(height))
                })
            }
        }
        if let peerNV12, let peerJ420 {
            contenders.append(Contender(name: "libyuv ABGRToNV12 (bt601 limited, 8-bit approx.), 1 thread") {
                _ = peerNV12(src, Int32(width * 4), dst, dst + pixels, Int32(width), Int32(height))
            })
            contenders.append(Contender(name: "libyuv ABGRToJ420 (bt601 full, 8-bit approx.), 1 thread") {
                _ = peerJ420(src, Int32(width * 4), dst, dst + pixels, dst + pixels + cw * geometry.chromaHeight,
                             Int32(width), Int32(height))
            })
        }
        // How a contender is timed. The cores of this kind of machine (a VM) run slowly for a while after
        // they have been idle and speed up under sustained work — one thread: 6.3 → 4.4 ms a frame over its
        // first ten calls; two threads: 5.4 → 2.1 ms — and only a multi-thread contender uses the second core,
        // which sits idle through every other contender. So each contender first runs untimed for `--warm-ms`
        // (its "first call", timed on its own, is kept and printed too), then one timed call: every contender
        // is measured at the speed its cores reach under sustained work, as a batch or a long conversion
        // sees them. The order is shuffled every round (fixed seed), so no contender always follows its kind.
        var order = Array(contenders.indices)
        var shuffleSeed: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<runs {
            for i in stride(from: order.count - 1, to: 0, by: -1) {
                shuffleSeed = shuffleSeed &* 6364136223846793005 &+ 1442695040888963407
                order.swapAt(i, Int((shuffleSeed >> 33) % UInt64(i + 1)))
            }
            for c in order {
                // The tier it asks for, or the best, for ours and for libyuv alike.
                let tier = contenders[c].tier ?? CPUTier.best
                CPUTier.use(tier)
                peerPin?(contenders[c].tier?.rawValue ?? 3)
                let w0 = now()
                contenders[c].body()
                let w1 = now()
                contenders[c].firstCall.append(w1 - w0)
                while now() - w0 < warmSeconds { contenders[c].body() }
                let t0 = now()
                contenders[c].body()
                contenders[c].times.append(now() - t0)
            }
        }
    }
}

func median(_ a: [Double]) -> Double {
    let s = a.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
@MainActor func mpxs(_ name: String, firstCall: Bool = false) -> Double? {
    guard let c = contenders.first(where: { $0.name == name }) else { return nil }
    return Double(pixels) / median(firstCall ? c.firstCall : c.times) / 1e6
}
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

let libyuvName = "libyuv ABGRToNV12 (bt601 limited, 8-bit approx.), 1 thread"
let libyuv = mpxs(libyuvName)
print("yuvbench: \(width)x\(height) RGBA (\(formatFixed(Double(pixels) / 1e6, decimals: 1)) Mpx), median of \(runs) rounds (contenders in a new order each round, each warmed \(formatFixed(warmSeconds * 1000, decimals: 0)) ms), \(cores) cores")
print(pad("what", 62) + lpad("ms", 9) + lpad("Mpx/s", 9) + lpad("vs libyuv", 11) + lpad("first call ms", 15))
for c in contenders {
    let t = median(c.times)
    let m = Double(pixels) / t / 1e6
    let ratio = libyuv.map { formatFixed(m / $0, decimals: 2) + "x" } ?? "-"
    print(pad(c.name, 62) + lpad(formatFixed(t * 1000, decimals: 2), 9) + lpad(formatFixed(m, decimals: 0), 9) + lpad(ratio, 11)
          + lpad(formatFixed(median(c.firstCall) * 1000, decimals: 2), 15))
}

// How exact libyuv is, against the contract, on this frame.
var exactness: [String: Double] = [:]
if let peerNV12, let peerJ420 {
    func agreement(_ ours: [UInt8], _ theirs: [UInt8], _ range: Range<Int>) -> (Double, Int) {
        var same = 0, worst = 0
        for i in range {
            let d = abs(Int(ours[i]) - Int(theirs[i]))
            if d == 0 { same += 1 }
            worst = max(worst, d)
        }
        return (Double(same) * 100 / Double(range.count), worst)
    }
    for (label, spec, layout) in [("ABGRToNV12 vs exact bt601 limited", ConversionSpec(matrix: .bt601, range: .limited), PixelLayout.nv12),
                                  ("ABGRToJ420 vs exact bt601 full", ConversionSpec(matrix: .bt601, range: .full), PixelLayout.yuv420p)] {
        let ours = rgba.withUnsafeBytes {
            RGBToYUV420(spec: spec, source: .rgba8).convert(pixels: $0.baseAddress!, rowBytes: width * 4, width: width,
                                                            height: height, layout: layout, threads: cores)
        }
        var theirs = [UInt8](repeating: 0, count: geometry.tightBytes)
        rgba.withUnsafeBufferPointer { s in
            theirs.withUnsafeMutableBufferPointer { d in
                let b = d.baseAddress!
                if layout == .nv12 {
                    _ = peerNV12(s.baseAddress!, Int32(width * 4), b, b + pixels, Int32(width), Int32(height))
                } else {
                    _ = peerJ420(s.baseAddress!, Int32(width * 4), b, b + pixels, b + pixels + cw * geometry.chromaHeight,
                                 Int32(width), Int32(height))
                }
            }
        }
        let y = agreement(ours.bytes, theirs, 0..<pixels)
        let c = agreement(ours.bytes, theirs, pixels..<geometry.tightBytes)
        print("libyuv \(label): luma exact on \(formatFixed(y.0, decimals: 1))% (off by up to \(y.1)), "
              + "chroma exact on \(formatFixed(c.0, decimals: 1))% (off by up to \(c.1)); yuvconv: 100%, 0")
        exactness[label] = y.0
    }
}

// Per tier: ours against libyuv pinned to the same instructions, and two threads against the memory limit:
// the conversion reads 4 and writes 1.5 bytes a pixel, memcpy reads and writes 4, so at memcpy's rate (the
// faster of its one- and all-thread figures in this run) the conversion cannot take less than 5.5/8 of its time.
@MainActor func ms(_ name: String) -> Double? {
    contenders.first(where: { $0.name == name }).map { median($0.times) * 1000 }
}
let memcpyMs = min(ms(memcpyName)!, ms(memcpyAllName)!)
let limitMs = memcpyMs * 5.5 / 8
print("CPU: \(cpuModel()); tiers it runs: \(CPUTier.supported.map(\.description).joined(separator: ", ")); "
      + "in use by default: \(CPUTier.best)")
print("memory limit of a 4:2:0 conversion: \(formatFixed(limitMs, decimals: 2)) ms (5.5/8 of the fastest memcpy, "
      + "\(formatFixed(memcpyMs, decimals: 2)) ms)")
print(pad("tier", 12) + lpad("full ms", 9) + lpad("limited ms", 12) + lpad("libyuv ms", 11) + lpad("full/libyuv", 13)
      + lpad("lim./libyuv", 13) + lpad("\(cores) thr. ms", 12) + lpad("vs limit", 10))
var tierJSON: [String] = []
for tier in CPUTier.supported {
    let f = ms(tierName(tier, "RGBA→NV12 bt709 full, 1 thread"))!, l = ms(tierName(tier, "RGBA→NV12 bt709 limited, 1 thread"))!
    let t2 = ms(tierName(tier, "RGBA→NV12 bt709 full, \(cores) threads"))!
    let y = ms(tierName(tier, "libyuv ABGRToNV12, 1 thread"))
    let rf = y.map { $0 / f }, rl = y.map { $0 / l }
    func fmt(_ v: Double?, _ suffix: String = "") -> String { v.map { formatFixed($0, decimals: 2) + suffix } ?? "-" }
    print(pad(tier.description, 12) + lpad(fmt(f), 9) + lpad(fmt(l), 12) + lpad(fmt(y), 11) + lpad(fmt(rf, "x"), 13)
          + lpad(fmt(rl, "x"), 13) + lpad(fmt(t2), 12) + lpad(fmt(limitMs / t2), 10))
    tierJSON.append("\"\(tier)\": {\"ratio_vs_libyuv\": \(rf.map { formatFixed($0, decimals: 2) } ?? "null"), "
                    + "\"ratio_vs_libyuv_limited\": \(rl.map { formatFixed($0, decimals: 2) } ?? "null"), "
                    + "\"threads_vs_memory_limit\": \(formatFixed(limitMs / t2, decimals: 2))}")
}
let direct420 = ms("JPEG YCbCr 4:2:0 planes→NV12 bt709 full (SIMD rows)")!
let direct444 = ms("JPEG YCbCr 4:4:4 planes→NV12 bt709 full (SIMD rows)")!
print("sharp chroma: \(formatFixed(ms(sharpName)! / ms(oursName)!, decimals: 2))x the box conversion's time (target: at most 3x)")
print("JPEG direct path: 4:4:4 planes take \(formatFixed(direct444 / direct420, decimals: 2))x the 4:2:0 ones")

let ours1 = mpxs(oursName)!
let oursN = mpxs(oursAllName)!
var json: [(String, String)] = [
    ("width", "\(width)"), ("height", "\(height)"), ("cores", "\(cores)"),
    ("cpu_tier", "\"\(CPUTier.best)\""),
    ("nv12_bt709_full_mpxs", formatFixed(ours1, decimals: 1)),
    ("nv12_bt709_full_all_threads_mpxs", formatFixed(oursN, decimals: 1)),
    ("threads_speedup", formatFixed(oursN / ours1, decimals: 2)),
    ("threads_speedup_first_call", formatFixed(mpxs(oursAllName, firstCall: true)!
                                               / mpxs(oursName, firstCall: true)!, decimals: 2)),
    ("memcpy_mpxs", formatFixed(mpxs(memcpyName)!, decimals: 1)),
    // What the machine's memory gives a second core in this run: a two-thread figure near 1.0 here means
    // the host's bandwidth was taken by something else, and no conversion can scale either.
    ("memcpy_threads_speedup", formatFixed(mpxs(memcpyAllName)!
                                           / mpxs(memcpyName)!, decimals: 2)),
]
if let libyuv {
    json.append(("libyuv_abgr_to_nv12_mpxs", formatFixed(libyuv, decimals: 1)))
    json.append(("libyuv_abgr_to_j420_mpxs", formatFixed(mpxs("libyuv ABGRToJ420 (bt601 full, 8-bit approx.), 1 thread")!, decimals: 1)))
    json.append(("ratio_vs_libyuv", formatFixed(ours1 / libyuv, decimals: 2)))
    json.append(("ratio_vs_libyuv_limited", formatFixed(mpxs("RGBA→NV12 bt709 limited, 1 thread")! / libyuv, decimals: 2)))
} else {
    json.append(("libyuv_abgr_to_nv12_mpxs", "null"))
    json.append(("ratio_vs_libyuv", "null"))
    json.append(("ratio_vs_libyuv_limited", "null"))
}
json.append(("threads_vs_memory_limit", formatFixed(limitMs / ms(oursAllName)!, decimals: 2)))
json.append(("sharp_vs_box", formatFixed(ms(sharpName)! / ms(oursName)!, decimals: 2)))
json.append(("direct_444_vs_420", formatFixed(direct444 / direct420, decimals: 2)))
json.append(("tiers", "{" + tierJSON.joined(separator: ", ") + "}"))
print("{" + json.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
