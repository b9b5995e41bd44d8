#!/usr/bin/env python3
"""Writes the golden data the test suite checks yuvconv against, computed by tools/yuvref.py
(the contract's reference). Run after tools/import-fixtures.sh; commit the results.

  Fixtures/synthetic/ties-67x45.png   2x2 blocks whose exact chroma (and pixels whose exact luma) lands on
                                      a .5 tie for some matrix and range, plus primaries and extremes; odd size
  Fixtures/golden/images.tsv          CRC-32 of yuvref's output for every ok PNG fixture x matrix x range x layout
                                      (the four 8-bit layouts and the 10-bit p010 and yuv420p10le)
  Fixtures/golden/siting.tsv          the same with --chroma-loc left and topleft (NV12 and P010) for PngSuite,
                                      the tie picture and the photo
  Fixtures/golden/exhaustive-luma.tsv CRC-32 of yuvref's all-2^24 luma table per matrix and range
Needs numpy, Pillow, pypng.
"""
import importlib.util, os, sys, zlib
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
spec = importlib.util.spec_from_file_location("yuvref", os.path.join(root, "tools", "yuvref.py"))
R = importlib.util.module_from_spec(spec); spec.loader.exec_module(R)

def crc(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}"

def tie_image():
    """A 67x45 picture (odd both ways) whose 2x2 blocks hit exact .5 chroma ties in full range (limited range
    has none: 224/255 never lands on a half), then primaries and extremes, the rest random."""
    rng = np.random.default_rng(20261130)
    blocks = []
    for c in [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]:
        blocks.append([c] * 4)
    # Grey blocks with one sample 4 higher: Cb' or Cr' = exactly 0.5 for every matrix.
    for x in (0, 17, 100, 127, 128, 200, 251):
        blocks.append([(x, x, x)] * 3 + [(x, x, x + 4)])
        blocks.append([(x, x, x)] * 3 + [(x + 4, x, x)])
    # General ties for each matrix in full range, found by solving for the B (or R) sum.
    def split(s):
        q, r = divmod(int(s), 4)
        return [q + (1 if i < r else 0) for i in range(4)]
    for m, (kr, kb) in R.K.items():
        S = R.S; kg = S - kr - kb
        found = 0
        while found < 40:
            r, g = rng.integers(0, 1021, size=2)
            b = np.arange(1021)
            ys = kr * r + kg * g + kb * b
            for n, k in ((S * b - ys, kb), (S * r - ys, kr)):
                d = 8 * (S - k); num = 128 * d * 255 + n * 255; den = d * 255
                hits = np.nonzero((2 * num + den) % (2 * den) == 0)[0]
                if len(hits):
                    bs = int(rng.choice(hits))
                    blocks.append(list(zip(split(r), split(g), split(bs))))
                    found += 1
    w, h = 67, 45
    img = rng.integers(0, 256, size=(h, w, 3))
    bw = w // 2
    for i, b in enumerate(blocks):
        y, x = 2 * (i // bw), 2 * (i % bw)
        img[y, x], img[y, x + 1], img[y + 1, x], img[y + 1, x + 1] = b
    return img.astype(np.uint8), len(blocks)

def main():
    from PIL import Image
    syn = os.path.join(root, "Fixtures", "synthetic")
    os.makedirs(syn, exist_ok=True)
    ties = os.path.join(syn, "ties-67x45.png")
    if not os.path.exists(ties):   # made once: another Pillow may encode the same picture in other bytes
        img, n = tie_image()
        Image.fromarray(img, "RGB").save(ties)
        print(f"ties-67x45.png: {n} special blocks")
    gold = os.path.join(root, "Fixtures", "golden")
    os.makedirs(gold, exist_ok=True)
    manifest = os.path.join(root, "Fixtures", "corpus", "MANIFEST.txt")
    files = ["synthetic/ties-67x45.png"]
    for line in open(manifest):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or f[0] == "path" or len(f) < 5:
            continue
        if f[3] == "ok" and f[4] == "png":
            files.append("corpus/" + f[0])
    rows = []
    for rel in files:
        try:
            rgb, M = R.load(os.path.join(root, "Fixtures", rel))
        except Exception as e:
            print("skip", rel, e, file=sys.stderr)
            continue
        for m in R.K:
            for r in ("full", "limited"):
                planes = R.convert(rgb, m, r, M)
                for lay in ("nv12", "nv21", "yuv420p", "yv12"):
                    rows.append(f"{rel}\t{m}\t{r}\t{lay}\t{crc(R.pack(*planes, lay))}")
                deep = R.convert(rgb, m, r, M, depth=10)
                for lay in ("p010", "yuv420p10le"):
                    rows.append(f"{rel}\t{m}\t{r}\t{lay}\t{crc(R.pack(*deep, lay))}")
    # Left and top-left siting, 8- and 10-bit, on the pictures that reach every edge case (PngSuite's sizes
    # 1…40, odd and even; the tie picture; a photo several bands tall).
    siting = []
    for rel in files:
        if not (rel.startswith("corpus/pngsuite/") or rel.endswith("ties-67x45.png") or rel.endswith("kodim23.png")):
            continue
        try:
            rgb, M = R.load(os.path.join(root, "Fixtures", rel))
        except Exception:
            continue
        for m in R.K:
            for r in ("full", "limited"):
                for loc in ("left", "topleft"):
                    siting.append(f"{rel}\t{m}\t{r}\t{loc}\tnv12\t{crc(R.pack(*R.convert(rgb, m, r, M, loc), 'nv12'))}")
                    siting.append(f"{rel}\t{m}\t{r}\t{loc}\tp010\t{crc(R.pack(*R.convert(rgb, m, r, M, loc, 10), 'p010'))}")
    with open(os.path.join(gold, "siting.tsv"), "w") as out:
        out.write("# path (under Fixtures/)\tmatrix\trange\tchroma location\tlayout\tCRC-32 of yuvref.py's output\n")
        out.write("\n".join(siting) + "\n")
    print(f"siting.tsv: {len(siting)} rows")
    with open(os.path.join(gold, "images.tsv"), "w") as out:
        out.write("# path (under Fixtures/)\tmatrix\trange\tlayout\tCRC-32 of yuvref.py's output\n")
        out.write("\n".join(rows) + "\n")
    print(f"images.tsv: {len(rows)} rows")
    with open(os.path.join(gold, "exhaustive-luma.tsv"), "w") as out:
        out.write("# matrix\trange\tCRC-32 of yuvref.py exhaustive-luma (R slowest, B fastest)\n")
        v = np.arange(256, dtype=np.int64)
        rgb = np.stack(np.meshgrid(v, v, v, indexing="ij"), -1).reshape(4096, 4096, 3)
        for m in R.K:
            for r in ("full", "limited"):
                y, _, _ = R.convert(rgb, m, r)
                out.write(f"{m}\t{r}\t{crc(y.tobytes())}\n")
    print("exhaustive-luma.tsv written")

if __name__ == "__main__":
    main()
