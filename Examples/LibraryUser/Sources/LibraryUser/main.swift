// Converts an image to NV12 in memory with yuvconv's libraries and prints what it made: the smallest use of
// the library API (YUVIO's convertFile, YUVCore's types). Usage: LibraryUser IMAGE
//
// It then writes the same conversion to a file (AtomicOutput) and checks that the program's own state is its
// own: its signal handler still in place (the first file written took some twenty signals) and LittleCMS's
// default allocator unlimited by yuvconv's budget (a plugin for the whole process refused 90 MiB). A change
// there prints what changed instead of "program state kept".
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import YUVCore
import YUVIO

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: LibraryUser IMAGE")
    exit(2)
}
do {
    let conversion = try convertFile(path: arguments[1], spec: ConversionSpec(matrix: .bt709, range: .full), layout: .nv12)
    let image = conversion.image
    print("\(image.width)x\(image.height) \(image.layout.rawValue): \(image.bytes.count) bytes, "
          + "CRC-32 \(Checksum.crc32Hex(image.bytes)), path \(conversion.report.path)")
} catch {
    print("LibraryUser: \(error.path): \(error.reason)")
    exit(1)
}

/// The handler SIGUSR1 has now, as a number (0 for the default).
func usr1Handler() -> Int {
    var now = sigaction()
    sigaction(SIGUSR1, nil, &now)
    return unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self)
}
var mine = sigaction()
mine.__sigaction_handler.sa_handler = { _ in }
sigaction(SIGUSR1, &mine, nil)
let before = usr1Handler()
let path = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/LibraryUser-\(getpid()).nv12"
do {
    let out = try AtomicOutput(path: path, force: true)
    _ = try convert(path: arguments[1], spec: ConversionSpec(), layout: .nv12, into: OutputSink(output: out))
    try out.commit()
    unlink(path)
} catch {
    print("LibraryUser: writing \(path): \(error)")
    exit(1)
}
var changed: [String] = []
if usr1Handler() != before { changed.append("SIGUSR1's handler was replaced") }
// 200 MiB from LittleCMS's default context, as a program using LittleCMS itself would ask (its own limit is 512).
typealias CMSMalloc = @convention(c) (OpaquePointer?, UInt32) -> UnsafeMutableRawPointer?
typealias CMSFree = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
if let m = dlsym(nil, "_cmsMalloc"), let f = dlsym(nil, "_cmsFree") {
    if let block = unsafeBitCast(m, to: CMSMalloc.self)(nil, 200 << 20) {
        unsafeBitCast(f, to: CMSFree.self)(nil, block)
    } else {
        changed.append("LittleCMS refused the program 200 MiB")
    }
} else {
    changed.append("LittleCMS's _cmsMalloc not found")
}
print(changed.isEmpty ? "program state kept" : "program state changed: " + changed.joined(separator: "; "))
