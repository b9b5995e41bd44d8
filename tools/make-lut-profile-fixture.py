#!/usr/bin/env python3
"""Writes Fixtures/colour/lut-a2b0.png: a 32x32 8-bit RGB gradient whose iCCP profile has both matrix/TRC tags
(sRGB colorants, gamma 2.2) and an A2B0 LUT (mft2) that maps the samples linearly to XYZ, i.e. means something
else. LittleCMS uses the LUT (an A2B1 or A2B0 tag takes precedence over the matrix), so the colour fast path,
which knows only matrix/TRC, must leave such a profile to LittleCMS (ColourManagementTests).

    python3 tools/make-lut-profile-fixture.py Fixtures/colour/lut-a2b0.png
"""
import struct
import sys
import zlib


def s15(x):
    return struct.pack('>i', int(round(x * 65536)))


def xyz(X, Y, Z):
    return b'XYZ ' + b'\0' * 4 + s15(X) + s15(Y) + s15(Z)


def curv_gamma(g):
    return b'curv' + b'\0' * 4 + struct.pack('>I', 1) + struct.pack('>H', int(round(g * 256))) + b'\0\0'


def desc(s):
    s = s.encode() + b'\0'
    return b'desc' + b'\0' * 4 + struct.pack('>I', len(s)) + s + b'\0' * (4 + 4 + 2 + 1 + 67)


SRGB_COLORANTS = [(0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)]


def lut16_linear(colorants):
    """mft2: 3 in, 3 out, identity matrix, 2-entry curves, a 2x2x2 CLUT: RGB linearly to XYZ (u1.15)."""
    b = b'mft2' + b'\0' * 4 + struct.pack('>BBBB', 3, 3, 2, 0)
    for i in range(3):
        for j in range(3):
            b += s15(1.0 if i == j else 0.0)
    b += struct.pack('>HH', 2, 2) + struct.pack('>HH', 0, 65535) * 3
    for r in range(2):
        for g in range(2):
            for bl in range(2):
                rgb = (r, g, bl)
                for c in range(3):
                    v = sum(colorants[k][c] * rgb[k] for k in range(3))
                    b += struct.pack('>H', min(65535, int(round(v * 32768))))
    return b + struct.pack('>HH', 0, 65535) * 3


def profile(tags):
    n = len(tags)
    start = 128 + 4 + 12 * n
    table = body = b''
    for sig, data in tags:
        while (start + len(body)) % 4:
            body += b'\0'
        table += sig.encode() + struct.pack('>II', start + len(body), len(data))
        body += data
    header = (struct.pack('>I', start + len(body)) + b'lcms' + struct.pack('>I', 0x02100000) + b'mntr' + b'RGB '
              + b'XYZ ' + b'\0' * 12 + b'acsp' + b'APPL' + b'\0' * 20 + struct.pack('>I', 0)
              + s15(0.9642) + s15(1.0) + s15(0.8249) + b'\0' * 48)
    assert len(header) == 128
    return header + struct.pack('>I', n) + table + body


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


def main(path):
    gamma = curv_gamma(2.2)
    icc = profile([('desc', desc('matrix/TRC with an A2B0 LUT')), ('wtpt', xyz(0.9642, 1.0, 0.8249)),
                   ('rXYZ', xyz(*SRGB_COLORANTS[0])), ('gXYZ', xyz(*SRGB_COLORANTS[1])),
                   ('bXYZ', xyz(*SRGB_COLORANTS[2])), ('rTRC', gamma), ('gTRC', gamma), ('bTRC', gamma),
                   ('A2B0', lut16_linear(SRGB_COLORANTS))])
    w = h = 32
    raw = b''.join(b'\0' + b''.join(bytes(((x * 8) & 255, (y * 8) & 255, ((x + y) * 4) & 255)) for x in range(w))
                   for y in range(h))
    png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
           + chunk(b'iCCP', b'lut\0\0' + zlib.compress(icc)) + chunk(b'IDAT', zlib.compress(raw, 9))
           + chunk(b'IEND', b''))
    with open(path, 'wb') as f:
        f.write(png)


if __name__ == '__main__':
    main(sys.argv[1])
