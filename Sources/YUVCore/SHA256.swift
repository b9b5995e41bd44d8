import CSIMD

/// SHA-256 (FIPS 180-4), incremental: `update` with the bytes as they come, `finalize` once for the 64 hex
/// digits `sha256sum` prints. The report names each output by it, and `--update`'s manifest recognises an
/// altered output or a changed input by it; without Foundation or another package, so it is written here.
/// Whole 64-byte blocks are compressed straight from the caller's memory; only a block's tail is copied.
public struct SHA256: Sendable {
    private var state: SIMD8<UInt32> = SHA256.initial
    /// The bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    /// Every byte given so far.
    public private(set) var count = 0

    /// Whether the CPU's SHA extensions may be used (where it has them); false: FIPS 180-4's rounds in Swift
    /// (the tests compare both).
    public let hardware: Bool

    public init(hardware: Bool = true) {
        self.hardware = hardware
        pending.reserveCapacity(64)
    }

    /// Adds `bytes` to what is hashed.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress, !bytes.isEmpty else { return }
        var n = bytes.count
        count += n
        if !pending.isEmpty {
            let take = min(64 - pending.count, n)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: p, count: take))
            p += take
            n -= take
            if pending.count < 64 { return }
            let hw = hardware
            pending.withUnsafeBytes { Self.compress(&state, $0.baseAddress!, blocks: 1, hardware: hw) }
            pending.removeAll(keepingCapacity: true)
        }
        if n >= 64 {
            Self.compress(&state, p, blocks: n / 64, hardware: hardware)
            p += n & ~63
            n &= 63
        }
        if n > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n)) }
    }

    /// Adds `bytes` to what is hashed.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The digest of everything given, as 64 lowercase hex digits. The hash is spent: start a new one after.
    public mutating func finalize() -> String {
        let bits = UInt64(count) &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        let hw = hardware
        tail.withUnsafeBytes { Self.compress(&state, $0.baseAddress!, blocks: $0.count / 64, hardware: hw) }
        pending.removeAll()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for i in 0..<8 {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(digits[Int((state[i] >> UInt32(shift)) & 15)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The digest of `bytes` in one call.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    static let initial = SIMD8<UInt32>(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)

    /// FIPS 180-4's round constants: one table, `yc_sha256_k`, shared with the SHA-extension rounds.
    static var k: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: yc_sha256_constants(), count: 64) }

    @inline(__always)
    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

    /// One round, written for eight in a row: the caller names the working variables in turn instead of
    /// moving all eight each round (a few percent faster; about 210 MiB/s on one core, as `sha256sum`).
    @inline(__always)
    static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
                      _ h: inout UInt32, _ kw: UInt32) {
        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (g ^ (e & (f ^ g))) &+ kw
        d = d &+ t1
        h = t1 &+ (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) | (c & (a | b)))
    }

    /// The compression function over `blocks` consecutive 64-byte blocks at `p`: the CPU's SHA extensions
    /// where it has them and `hardware` allows (`yc_sha256_blocks`, chosen at run time), else these rounds.
    static func compress(_ state: inout SIMD8<UInt32>, _ p: UnsafeRawPointer, blocks: Int, hardware: Bool) {
        if hardware && yc_sha256_hardware() != 0 {
            withUnsafeMutableBytes(of: &state) { s in
                _ = yc_sha256_blocks(s.baseAddress!.assumingMemoryBound(to: UInt32.self), p, blocks)
            }
            return
        }
        Self.compressInSoftware(&state, p, blocks: blocks)
    }

    /// Whether this CPU has the SHA extensions the hash uses when it may.
    public static var hasHardware: Bool { yc_sha256_hardware() != 0 }

    /// The compression function in Swift: FIPS 180-4's rounds.
    static func compressInSoftware(_ state: inout SIMD8<UInt32>, _ p: UnsafeRawPointer, blocks: Int) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            let k = Self.k
            do {
                for n in 0..<blocks {
                    let block = p + n * 64
                    for t in 0..<16 { w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self)) }
                    for t in 16..<64 {
                        let x = w[t - 15], y = w[t - 2]
                        w[t] = w[t - 16] &+ (rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)) &+ w[t - 7]
                            &+ (rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10))
                    }
                    var a = state[0], b = state[1], c = state[2], d = state[3]
                    var e = state[4], f = state[5], g = state[6], h = state[7]
                    for t in stride(from: 0, to: 64, by: 8) {
                        round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
                        round(h, a, b, &c, d, e, f, &g, k[t + 1] &+ w[t + 1])
                        round(g, h, a, &b, c, d, e, &f, k[t + 2] &+ w[t + 2])
                        round(f, g, h, &a, b, c, d, &e, k[t + 3] &+ w[t + 3])
                        round(e, f, g, &h, a, b, c, &d, k[t + 4] &+ w[t + 4])
                        round(d, e, f, &g, h, a, b, &c, k[t + 5] &+ w[t + 5])
                        round(c, d, e, &f, g, h, a, &b, k[t + 6] &+ w[t + 6])
                        round(b, c, d, &e, f, g, h, &a, k[t + 7] &+ w[t + 7])
                    }
                    state &+= SIMD8(a, b, c, d, e, f, g, h)
                }
            }
        }
    }
}
