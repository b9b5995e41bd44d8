/// A JPEG's embedded ICC profile, its APP2 `ICC_PROFILE` pieces joined in their sequence order, and the header's
/// other segments (from the first after SOI up to the scan), as they are, and where the scan's segment begins: for
/// tests that take a fixture's profile or put another in its place.
public func jpegICCProfile(_ jpeg: [UInt8]) -> (profile: [UInt8], otherSegments: [UInt8], scan: Int) {
    var pieces: [Int: [UInt8]] = [:], i = 2, rest: [UInt8] = []
    while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
        let n = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
        if jpeg[i + 1] == 0xE2, n > 16, Array(jpeg[(i + 4)..<(i + 16)]) == Array("ICC_PROFILE\0".utf8) {
            pieces[Int(jpeg[i + 16])] = Array(jpeg[(i + 18)..<(i + 2 + n)])
        } else {
            rest += jpeg[i..<(i + 2 + n)]
        }
        i += 2 + n
    }
    return (pieces.keys.sorted().flatMap { pieces[$0]! }, rest, i)
}
