/// The one random generator of the tests: SplitMix64, always seeded, so a run is the same every time and a
/// failure can be reproduced. Put `\(rng)` (it prints the seed) in the failure messages of tests that use it.
public struct SplitMix64: RandomNumberGenerator, CustomStringConvertible {
    /// The seed the generator started from.
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public var description: String { "seed \(seed)" }
}

/// `n` bytes from the generator.
public func randomBytes(_ n: Int, _ rng: inout SplitMix64) -> [UInt8] {
    (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
}
