/// An EXIF orientation (TIFF tag 0x0112): how the stored picture must be turned to be shown upright.
///
///     1 as stored            2 mirrored left-right     3 turned 180°         4 mirrored top-bottom
///     5 transposed           6 turned 90° clockwise    7 transversed         8 turned 90° anticlockwise
///
/// 5–8 swap width and height. `apply` moves whole pixels, so the picture that comes out is exactly the
/// stored one, upright: converting it afterwards is the contract's conversion of the upright picture.
public struct Orientation: Sendable, Equatable, CustomStringConvertible {
    /// 1…8.
    public let exif: Int

    public static let identity = Orientation(exif: 1)

    /// Out-of-range values (0, 9…) are treated as 1, as viewers do.
    public init(exif: Int) { self.exif = (1...8).contains(exif) ? exif : 1 }

    public var isIdentity: Bool { exif == 1 }
    public var swapsAxes: Bool { exif >= 5 }

    public var description: String {
        ["", "as stored", "mirrored", "turned 180°", "flipped", "transposed", "turned 90° clockwise",
         "transversed", "turned 90° anticlockwise"][exif]
    }

    /// The upright size of a stored `width` × `height` picture.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Where upright pixel (0, 0) is found in the stored picture, and the stored step (in pixels along x and
    /// along y) for one step right and one step down in the upright picture.
    func walk(width w: Int, height h: Int) -> (x0: Int, y0: Int, right: (Int, Int), down: (Int, Int)) {
        switch exif {
        case 2: return (w - 1, 0, (-1, 0), (0, 1))
        case 3: return (w - 1, h - 1, (-1, 0), (0, -1))
        case 4: return (0, h - 1, (1, 0), (0, -1))
        case 5: return (0, 0, (0, 1), (1, 0))
        case 6: return (0, h - 1, (0, -1), (1, 0))
        case 7: return (w - 1, h - 1, (0, -1), (-1, 0))
        case 8: return (w - 1, 0, (0, 1), (-1, 0))
        default: return (0, 0, (1, 0), (0, 1))
        }
    }

    /// Where upright pixel (`x`, `y`) of a stored `width` × `height` picture is stored.
    public func storedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let (x0, y0, right, down) = walk(width: width, height: height)
        return (x0 + x * right.0 + y * down.0, y0 + x * right.1 + y * down.1)
    }

    /// Writes the upright picture of a stored `width` × `height` one (pixels of `bytesPerPixel` bytes, rows
    /// `srcRowBytes` apart) to `dst`, rows `dstRowBytes` apart.
    public func apply(_ src: UnsafeRawPointer, srcRowBytes: Int, width: Int, height: Int, bytesPerPixel bpp: Int,
                      to dst: UnsafeMutableRawPointer, dstRowBytes: Int) {
        let (ow, oh) = size(width: width, height: height)
        let (x0, y0, right, down) = walk(width: width, height: height)
        let stepRight = right.0 * bpp + right.1 * srcRowBytes
        let stepDown = down.0 * bpp + down.1 * srcRowBytes
        var rowStart = src + x0 * bpp + y0 * srcRowBytes
        for oy in 0..<oh {
            let out = dst + oy * dstRowBytes
            var p = rowStart
            switch bpp {
            case 1:
                let o = out.assumingMemoryBound(to: UInt8.self)
                for ox in 0..<ow { o[ox] = p.load(as: UInt8.self); p += stepRight }
            case 4:
                for ox in 0..<ow {
                    out.storeBytes(of: p.loadUnaligned(as: UInt32.self), toByteOffset: 4 * ox, as: UInt32.self)
                    p += stepRight
                }
            default:
                for ox in 0..<ow {
                    (out + ox * bpp).copyMemory(from: p, byteCount: bpp)
                    p += stepRight
                }
            }
            rowStart += stepDown
        }
    }
}
