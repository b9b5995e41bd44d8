// Converts an image to NV12 in memory with yuvconv's libraries and prints what it made: the smallest use of
// the library API (YUVIO's convertFile, YUVCore's types). Usage: LibraryUser IMAGE
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
