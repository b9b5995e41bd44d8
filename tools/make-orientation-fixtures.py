#!/usr/bin/env python3
"""Writes Fixtures/synthetic/orientation/: one stored 7x5 RGB picture (odd both ways, seeded noise) saved as
PNG with an eXIf orientation of 1..8 (exif-N.png), and for each the upright picture without EXIF
(upright-N.png), turned by Pillow's ImageOps.exif_transpose -- an implementation independent of yuvconv's.
The tests convert exif-N.png (--orientation auto) and upright-N.png and demand identical bytes.

    python3 tools/make-orientation-fixtures.py     (needs numpy and Pillow)
"""
import os
import numpy as np
from PIL import Image, ImageOps

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "Fixtures", "synthetic", "orientation")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(20261130)
stored = Image.fromarray(rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8), "RGB")
for n in range(1, 9):
    exif = Image.Exif()
    exif[0x0112] = n
    stored.save(os.path.join(out, f"exif-{n}.png"), exif=exif.tobytes())
    with Image.open(os.path.join(out, f"exif-{n}.png")) as im:
        assert im.getexif().get(0x0112) == n
        ImageOps.exif_transpose(im).save(os.path.join(out, f"upright-{n}.png"))
print("wrote", out)
