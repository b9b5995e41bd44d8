import Foundation
import YUVCore

/// The package's Fixtures folder, found from this file's path (tests run from a fresh clone).
let fixturesURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

/// A deterministic generator (SplitMix64), so a failure can be reproduced.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomBytes(_ n: Int, _ rng: inout SplitMix64) -> [UInt8] {
    (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
}
