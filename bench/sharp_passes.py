#!/usr/bin/env python3
"""How many passes sharp chroma needs: a float model of --chroma-filter sharp's passes, scored like bench/sharp.py.

The model: luma exact, chroma the box; each pass rebuilds every pixel as the player of bench/sharp.py does
(bilinear chroma from centre sites, the BT.709 inverse, clamped to 0..255, unrounded), moves luma by the mean
of the residual's three channels and, in all but the last pass, chroma by the adjoint of the upsampler (as a
mean) applied to the residual's chroma, x step, plus momentum x the previous move. At 5 passes, step 7/4,
momentum 1/2 it scores what yuvconv's integer bytes score. Also: the box chroma with one luma fit, and the
closed form (least squares for a player that never clamps, then one luma fit). Prints the gain over the box
(RGB PSNR through the bilinear player) on the photos (mean) and on the saturated-edge picture.

  bench/sharp_passes.py [PHOTO ...]      (run from the repository; uses .build/release/yuvconv for the box)
"""
import os, sys
import numpy as np
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sharp as B

KR, KB = B.KR, B.KB
KG = 1 - KR - KB


def even(a):
    if a.shape[0] % 2: a = np.concatenate([a, a[-1:]], 0)
    if a.shape[1] % 2: a = np.concatenate([a, a[:, -1:]], 1)
    return a


def upsampler(n):
    """The player's bilinear upsampler as an n x ceil(n/2) matrix (x/2 - 1/4 in chroma units, edges repeated)."""
    m = (n + 1) // 2
    pos = np.arange(n) / 2 - 0.25
    i0 = np.floor(pos).astype(int)
    f = pos - i0
    u = np.zeros((n, m))
    np.add.at(u, (np.arange(n), np.clip(i0, 0, m - 1)), 1 - f)
    np.add.at(u, (np.arange(n), np.clip(i0 + 1, 0, m - 1)), f)
    return u


def rebuild(y, cb, cr):
    r = y + 2 * (1 - KR) * cr
    b = y + 2 * (1 - KB) * cb
    return np.stack([r, (y - KR * r - KB * b) / KG, b], -1)


def chroma(rgb):
    y = KR * rgb[..., 0] + KG * rgb[..., 1] + KB * rgb[..., 2]
    return y, (rgb[..., 2] - y) / (2 * (1 - KB)), (rgb[..., 0] - y) / (2 * (1 - KR))


def solve(src, passes, step=7 / 4, momentum=0.5, start="box"):
    """Luma and chroma planes (unrounded) of the model for an even-sized float RGB picture."""
    h, w, _ = src.shape
    u0, u1 = upsampler(h), upsampler(w)
    y, cb, cr = chroma(src)
    if start == "box":
        c = [0.25 * (p[0::2, 0::2] + p[1::2, 0::2] + p[0::2, 1::2] + p[1::2, 1::2]) for p in (cb, cr)]
    else:                                   # least squares for an unclamped player: (U'U)^-1 U' per axis
        p0, p1 = np.linalg.solve(u0.T @ u0, u0.T), np.linalg.solve(u1.T @ u1, u1.T)
        c = [np.clip(p0 @ p @ p1.T, -128, 127) for p in (cb, cr)]
    before = [x.copy() for x in c]
    for k in range(passes):
        r = src - np.clip(rebuild(y, u0 @ c[0] @ u1.T, u0 @ c[1] @ u1.T), 0, 255)
        y = np.clip(y + r.mean(-1), 0, 255)
        if k < passes - 1:
            _, eb, er = chroma(r)
            moved = [np.clip(x + momentum * (x - b) + step * (u0.T @ e @ u1) / 4, -128, 127)
                     for x, b, e in zip(c, before, (eb, er))]
            before, c = c, moved
    return y, c[0], c[1]


def score(path, **model):
    src = np.asarray(Image.open(path).convert("RGB"))
    h, w, _ = src.shape
    y, cb, cr = solve(even(src.astype(np.float64)), **model)
    planes = [np.clip(np.floor(y[:h, :w] + 0.5), 0, 255)] + [np.clip(np.floor(c + 128.5), 0, 255) for c in (cb, cr)]
    return B.psnr(B.round_trip(*planes), src)


def main():
    root = B.root
    photos = sys.argv[1:] or sorted({os.path.basename(p): p for p in
                                     [os.path.join(root, "Fixtures/corpus/photos/kodim23.png")] +
                                     [os.path.join(root, "../shared/corpus/photos", n) for n in
                                      sorted(os.listdir(os.path.join(root, "../shared/corpus/photos")))
                                      if n.endswith((".png", ".jpg"))]
                                     if os.path.exists(p)}.values())
    os.makedirs(B.work, exist_ok=True)
    edges = os.path.join(B.work, "saturated-edges.png")
    Image.fromarray(B.saturated_edges()).save(edges)
    models = [("2", dict(passes=2)), ("3", dict(passes=3)), ("5 (what sharp does)", dict(passes=5)),
              ("12", dict(passes=12)), ("40", dict(passes=40)),
              ("4, step 9/4", dict(passes=4, step=9 / 4)),
              ("the box chroma, one luma fit", dict(passes=1)),
              ("closed form, then one luma fit", dict(passes=1, start="least squares")),
              ("closed form, one chroma move, the luma fit", dict(passes=2, start="least squares"))]
    box = {}
    for p in photos + [edges]:
        src = np.asarray(Image.open(p).convert("RGB"))
        extra = ["--jpeg-path", "rgb"] if p.lower().endswith((".jpg", ".jpeg")) else []
        box[p] = B.psnr(B.round_trip(*B.convert(p, src.shape[1], src.shape[0], "box", extra)), src)
    print(f"| passes (chroma moves + the luma fit) | photos (mean of {len(photos)}) | saturated edges |")
    print("| --- | --- | --- |")
    for name, model in models:
        gains = [score(p, **model) - box[p] for p in photos]
        print(f"| {name} | {np.mean(gains):+.2f} dB | {score(edges, **model) - box[edges]:+.2f} dB |", flush=True)


if __name__ == "__main__":
    main()
