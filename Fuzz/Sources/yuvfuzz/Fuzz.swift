// libFuzzer entry for the Swift path: input bytes → a file → decode → convert (direct and RGB routes) → the
// report's quality measures, streamed as the tool streams them. The last two bytes pick the matrix, range,
// layout (8- and 10-bit), siting, box or sharp chroma, orientation, colour management and kernels. Any crash,
// trap or sanitizer report is a bug; errors are fine.
import Foundation
import YUVCore
import YUVIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 4 else { return 0 }
    let path = NSTemporaryDirectory() + "yuvfuzz-\(getpid()).img"
    let bytes = Data(bytes: data, count: size)
    guard FileManager.default.createFile(atPath: path, contents: bytes) else { return 0 }
    defer { unlink(path) }
    let pick = Int(data[size - 1]), more = Int(data[size - 2])
    let spec = ConversionSpec.all[pick % ConversionSpec.all.count]
    let layout = PixelLayout.allCases[(pick / 6) % PixelLayout.allCases.count]
    let siting = ChromaLocation.allCases[more % ChromaLocation.allCases.count]
    for jpegPath in JPEGPath.allCases {
        var options = DecodeOptions(maxPixels: 1 << 22, allowTruncated: pick & 64 != 0, jpegPath: jpegPath,
                                    orientation: more & 4 != 0 ? .auto : .ignore)
        // From both bytes: an unmutated seed ends the same way for its kind (a JPEG FF D9, a PNG its IEND's CRC
        // 60 82), and `more` alone left every JPEG seed's colours unmanaged, its profile never reached.
        options.colourManagement = (pick ^ more) & 8 == 0
        options.chromaFilter = more & 16 != 0 && layout.bitDepth == 8 ? .sharp : .box
        _ = try? convert(path: path, spec: spec, layout: layout, into: MemorySink(),
                         kernels: pick & 128 != 0 ? .reference : .fast, options: options, metrics: true,
                         siting: options.chromaFilter == .sharp ? .center : siting)
    }
    return 0
}

// SwiftPM links an executable through a `<name>_main` entry; hand control to libFuzzer's driver from it.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("yuvfuzz_main")
public func yuvfuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, { data, size in fuzzOne(data, size) })
}
