// libFuzzer entry for the Swift path: input bytes → a file → decode → convert (direct and RGB routes,
// a random matrix, range and layout from the first byte) → the report's quality measures. Any crash,
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
    let pick = Int(data[size - 1])
    let spec = ConversionSpec.all[pick % 6]
    let layout = PixelLayout.allCases[(pick / 6) % 4]
    for jpegPath in JPEGPath.allCases {
        let options = DecodeOptions(maxPixels: 1 << 22, allowTruncated: pick & 64 != 0, jpegPath: jpegPath)
        if let c = try? convertFile(path: path, spec: spec, layout: layout, kernels: pick & 128 != 0 ? .reference : .fast,
                                    options: options) {
            _ = try? measureQuality(path: path, image: c.image, spec: spec, options: options)
        }
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
