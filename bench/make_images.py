#!/usr/bin/env python3
"""Test pictures for `make bench-memory`, made from nothing but the standard library (seeded, so every run
makes the same files): PNGs of any size, colour type, depth and interlacing, and a noisy PPM for cjpeg."""
import random
import struct
import sys
import zlib

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(path, width, height, colour_type=2, depth=8, interlaced=False):
    """Rows of a repeating seeded pattern (cheap to compress, real work to decode)."""
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    bpp = channels * depth // 8
    rng = random.Random(1)
    pattern = bytes(rng.randrange(256) for _ in range(4096 * bpp))
    comp = zlib.compressobj(1)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 1 if interlaced else 0)))
        passes = ADAM7 if interlaced else [(0, 0, 1, 1)]
        pending = b""
        for x0, y0, dx, dy in passes:
            w = (width - x0 + dx - 1) // dx if width > x0 else 0
            if w == 0:
                continue
            row = pattern * (w * bpp // len(pattern) + 1)
            row = b"\x00" + row[: w * bpp]
            for y in range(y0, height, dy):
                pending += comp.compress(row)
                if len(pending) > 1 << 20:
                    f.write(chunk(b"IDAT", pending))
                    pending = b""
        pending += comp.flush()
        f.write(chunk(b"IDAT", pending))
        f.write(chunk(b"IEND", b""))


def ppm(path, width, height):
    rng = random.Random(2)
    line = bytes(rng.randrange(256) for _ in range(width * 3))
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        for y in range(height):
            k = (y * 7919) % (width * 3)
            f.write(line[k:] + line[:k])


def exif_orientation(src, dst, value):
    """Copies a JPEG with an APP1 Exif segment holding orientation `value` after SOI."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHII", 0x0112, 3, 1, value << 16) + b"\x00" * 4
    body = b"Exif\x00\x00" + tiff
    data = open(src, "rb").read()
    open(dst, "wb").write(data[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + data[2:])


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "png":
        w, h, ct, depth, inter = (int(v) for v in sys.argv[3:8])
        png(path, w, h, ct, depth, bool(inter))
    elif kind == "ppm":
        ppm(path, int(sys.argv[3]), int(sys.argv[4]))
    elif kind == "exif":
        exif_orientation(sys.argv[3], path, int(sys.argv[4]))
