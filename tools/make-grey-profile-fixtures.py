#!/usr/bin/env python3
"""Writes two grey images with a grey ICC profile (a grayTRC curve, D50), for the colour management of grey
sources (ColourManagementTests):

* grey-linear.png: 16x16 8-bit grey, every level 0..255 once, profile "Gray linear" (gamma 1.0): linear grey 128
  is sRGB 188, so the profile changes nearly every level.
* grey-gamma18.jpg: 48x32 grey JPEG (cjpeg -grayscale, quality 95) of a gradient, profile "Gray gamma 1.8" in an
  APP2 ICC_PROFILE segment.

    python3 tools/make-grey-profile-fixtures.py Fixtures/colour   # needs cjpeg (libjpeg-turbo-progs)
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def s15(x):
    return struct.pack('>i', int(round(x * 65536)))


def grey_profile(gamma, name):
    """A v2 monochrome input profile: desc, wtpt (D50), cprt, kTRC (a curv of one gamma)."""
    def desc(s):
        s = s.encode() + b'\0'
        return b'desc' + b'\0' * 4 + struct.pack('>I', len(s)) + s + b'\0' * (4 + 4 + 2 + 1 + 67)
    tags = [
        (b'desc', desc(name)),
        (b'wtpt', b'XYZ ' + b'\0' * 4 + s15(0.9642) + s15(1.0) + s15(0.8249)),
        (b'cprt', b'text' + b'\0' * 4 + b'No copyright, use freely\0'),
        (b'kTRC', b'curv' + b'\0' * 4 + struct.pack('>I', 1) + struct.pack('>H', int(round(gamma * 256))) + b'\0\0'),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b'', b''
    for sig, body in tags:
        while (offset + len(data)) % 4:
            data += b'\0'
        table += sig + struct.pack('>II', offset + len(data), len(body))
        data += body
    body = struct.pack('>I', len(tags)) + table + data
    size = 128 + len(body)
    header = (struct.pack('>I', size) + b'lcms' + struct.pack('>I', 0x02100000) + b'mntr' + b'GRAY' + b'XYZ '
              + b'\0' * 12 + b'acsp' + b'APPL' + b'\0' * 4 + b'\0' * 4 + b'\0' * 4 + b'\0' * 8 + struct.pack('>I', 0)
              + s15(0.9642) + s15(1.0) + s15(0.8249) + b'\0' * 4 + b'\0' * 16 + b'\0' * 28)
    assert len(header) == 128
    return header + body


def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))


def main(folder):
    linear = grey_profile(1.0, 'Gray linear')
    rows = b''.join(b'\0' + bytes(range(16 * y, 16 * y + 16)) for y in range(16))
    png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 0, 0, 0, 0))
           + chunk(b'iCCP', b'Gray linear\0\0' + zlib.compress(linear)) + chunk(b'IDAT', zlib.compress(rows, 9))
           + chunk(b'IEND', b''))
    open(os.path.join(folder, 'grey-linear.png'), 'wb').write(png)

    pgm = b'P5 48 32 255\n' + bytes((x * 5 + y * 3) & 255 for y in range(32) for x in range(48))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'g.pgm')
        open(src, 'wb').write(pgm)
        jpeg = subprocess.run(['cjpeg', '-grayscale', '-quality', '95', src], check=True, stdout=subprocess.PIPE).stdout
    icc = b'ICC_PROFILE\0\x01\x01' + grey_profile(1.8, 'Gray gamma 1.8')
    app2 = b'\xff\xe2' + struct.pack('>H', len(icc) + 2) + icc
    app0_end = 4 + struct.unpack('>H', jpeg[4:6])[0] if jpeg[2:4] == b'\xff\xe0' else 2
    open(os.path.join(folder, 'grey-gamma18.jpg'), 'wb').write(jpeg[:app0_end] + app2 + jpeg[app0_end:])


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'Fixtures/colour')
