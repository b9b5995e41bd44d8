import CSIMD

/// CRC-32 (IEEE 802.3, zlib's `crc32`): a small, dependency-free fingerprint of output bytes that any
/// tool can recompute (`python3 -c 'import zlib,sys; print(zlib.crc32(open(sys.argv[1],"rb").read()))'`).
/// The test suite compares conversions with golden CRCs of `yuvref.py`'s output. Not cryptographic.
public enum Checksum {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        // Contiguous bytes (arrays, slices, buffers: every caller) through the carry-less CRC the PNG reader
        // uses (yc_checksums.c, checked against the bit-by-bit definition); this generic function is not
        // specialised across modules, and its byte loop ran at a few MB/s in the tests (30 s for 1 GB).
        if let fast = bytes.withContiguousStorageIfAvailable({ yc_crc32(0, $0.baseAddress, $0.count) }) { return fast }
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// Eight lowercase hex digits.
    public static func crc32Hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let s = String(crc32(bytes), radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}
