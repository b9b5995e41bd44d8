import Foundation

/// A minimal PNG writer for pictures a test makes itself: 8-bit RGB (colour type 2) or RGBA (6), one IDAT of
/// stored (uncompressed) deflate blocks, so any size a test needs — a very wide picture included — without
/// a library.
public func writePNG(_ path: String, width: Int, height: Int, pixels: [UInt8], alpha: Bool = false) throws {
    let channels = alpha ? 4 : 3
    precondition(pixels.count == width * height * channels)
    var raw: [UInt8] = []
    raw.reserveCapacity(height * (1 + width * channels))
    for y in 0..<height {
        raw.append(0)
        raw += pixels[(y * width * channels)..<((y + 1) * width * channels)]
    }
    let header = be32(width) + be32(height) + [8, alpha ? 6 : 2, 0, 0, 0]
    let file = pngSignature + pngChunk("IHDR", header) + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
    try Data(file).write(to: URL(fileURLWithPath: path))
}

public let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

private func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

/// A zlib stream of stored deflate blocks holding `raw`, with its Adler-32.
public func zlibStored(_ raw: [UInt8]) -> [UInt8] {
    var zlib: [UInt8] = [0x78, 0x01]
    var at = 0
    repeat {
        let n = min(65535, raw.count - at), last = at + n == raw.count
        zlib += [last ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        zlib += raw[at..<(at + n)]
        at += n
    } while at < raw.count
    var a = 1, b = 0
    for byte in raw { a = (a + Int(byte)) % 65521; b = (b + a) % 65521 }
    return zlib + be32(b << 16 | a)
}

/// A PNG chunk: length, type, data and its CRC-32.
public func pngChunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(kind.utf8) + data
    return be32(data.count) + body + be32(Int(crc32Bitwise(body)))
}

/// CRC-32 as PNG and zlib define it (reflected polynomial 0xEDB88320), bit by bit: the definition the tests
/// hold the fast paths to.
public func crc32Bitwise<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// Every chunk of a PNG file, in order: where it starts (its length field), its data's length and its type;
/// a chunk cut short by the file's end is listed too.
public func pngChunks(_ file: [UInt8]) -> [(at: Int, length: Int, type: String)] {
    var chunks: [(at: Int, length: Int, type: String)] = [], at = 8
    while at + 8 <= file.count {
        let length = file[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
        chunks.append((at, length, String(decoding: file[(at + 4)..<(at + 8)], as: UTF8.self)))
        at += 12 + length
    }
    return chunks
}
