#!/usr/bin/env python3
"""make bench-sharp: what --chroma-filter sharp buys over the box, as a player sees it, and what it costs.

For each photo (Fixtures/corpus/photos/kodim23.png and the photos of ../shared/corpus/photos when present)
and a generated saturated-edge picture (red shapes, strokes and text on blue, anti-aliased, 509x317), it
converts with yuvconv to yuv420p (BT.709 full range, --color-management off --orientation ignore, so the
samples converted are the file's) with --chroma-filter box and sharp, rebuilds RGB as a player does --
chroma upsampled bilinearly from its centre sites (x/2 - 1/4 in chroma units, edges repeated), the BT.709
inverse in float, rounded and clamped -- with numpy, written here independently of yuvconv's code, and
prints the RGB PSNR of each against the source decoded by Pillow (JPEGs: both filters from the RGB route,
--jpeg-path rgb, the RGB Pillow's libjpeg-turbo also decodes). Then the time of whole conversions to
/dev/null, box and sharp as a user runs them (a JPEG's box on its default direct path), median of RUNS
(default 7) interleaved rounds, on each picture and on a 12-megapixel picture (kodim23 scaled up with
Pillow), where the conversion rather than the start of the process is what is timed.

  bench/sharp.py [PHOTO ...]     RUNS=N for the number of timing rounds
"""
import glob, json, math, os, statistics, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
yuvconv = os.environ.get("YUVCONV_BIN", os.path.join(root, ".build", "release", "yuvconv"))
work = os.path.join(root, ".build", "bench", "sharp")
RUNS = int(os.environ.get("RUNS", "7"))
KR, KB = 0.2126, 0.0722
KG = 1 - KR - KB
COMMON = ["--color-management", "off", "--orientation", "ignore"]
TARGETS = {"photos": 2.0, "edges": 1.2, "time": 3.0}


def saturated_edges(w=509, h=317, ss=4):
    """Red discs, a ring, bars 1-6 px wide at odd and even offsets, diagonal strokes and 5x7 block text in
    cells of 1-3 px, on blue; every edge anti-aliased by 4x4 supersampling."""
    yy, xx = np.mgrid[0:h * ss, 0:w * ss].astype(np.float64) / ss
    m = np.zeros((h * ss, w * ss), bool)
    for cx, cy, r in [(60, 60, 40), (170, 70, 25.5), (260, 60, 12.3)]:
        m |= (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
    m ^= (xx - 170) ** 2 + (yy - 70) ** 2 < 15 ** 2
    for k, bw in enumerate([1, 2, 3, 1, 2, 4, 6]):
        x0 = 300 + 17 * k + (k % 2)
        m |= (xx >= x0) & (xx < x0 + bw) & (yy >= 20) & (yy < 110)
        y0 = 130 + 9 * k + (k % 2)
        m |= (yy >= y0) & (yy < y0 + bw) & (xx >= 20) & (xx < 250)
    for k, (a, t) in enumerate([(0.3, 1.5), (1.0, 2.0), (2.7, 1.0), (-0.6, 3.0)]):
        d = np.abs((yy - 200) - a * (xx - (300 + 50 * k))) / np.sqrt(1 + a * a)
        m |= (d < t / 2) & (xx > 280 + 50 * k) & (xx < 320 + 50 * k) & (yy > 140) & (yy < 300)
    font = {"Y": ["10001", "10001", "01010", "00100", "00100", "00100", "00100"],
            "U": ["10001", "10001", "10001", "10001", "10001", "10001", "01110"],
            "V": ["10001", "10001", "10001", "10001", "01010", "01010", "00100"],
            "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
            "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
            "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
            ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"]}
    for tx, ty, cell in [(20, 200, 3), (21, 230, 2), (20, 255, 1.5), (23, 280, 1)]:
        x = tx
        for ch in "YUV 4:2:0":
            for r, bits in enumerate(font.get(ch, [])):
                for c, bit in enumerate(bits):
                    if bit == "1":
                        m |= ((xx >= x + c * cell) & (xx < x + (c + 1) * cell)
                              & (yy >= ty + r * cell) & (yy < ty + (r + 1) * cell))
            x += 6 * cell
    cov = m.reshape(h, ss, w, ss).mean(axis=(1, 3))[..., None]
    rgb = cov * np.array([255.0, 0, 0]) + (1 - cov) * np.array([0, 0, 255.0])
    return np.floor(rgb + 0.5).astype(np.uint8)


def convert(path, w, h, chroma, extra=()):
    out = subprocess.run([yuvconv, path, "-o", "-", "--format", "yuv420p", "-q", "--chroma-filter", chroma]
                         + COMMON + list(extra), check=True, capture_output=True).stdout
    a = np.frombuffer(out, np.uint8)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    assert a.size == w * h + 2 * cw * ch, (path, a.size)
    y = a[:w * h].reshape(h, w)
    u = a[w * h:w * h + cw * ch].reshape(ch, cw)
    v = a[w * h + cw * ch:].reshape(ch, cw)
    return y.astype(np.float64), u.astype(np.float64), v.astype(np.float64)


def upsample(c, n, axis):
    """Bilinear from centre sites: output sample x sits at x/2 - 1/4 in chroma units; edges repeated."""
    m = c.shape[axis]
    pos = np.arange(n) / 2 - 0.25
    i0 = np.floor(pos).astype(int)
    f = pos - i0
    a = np.take(c, np.clip(i0, 0, m - 1), axis=axis)
    b = np.take(c, np.clip(i0 + 1, 0, m - 1), axis=axis)
    shape = [1, 1]
    shape[axis] = n
    return a * (1 - f.reshape(shape)) + b * f.reshape(shape)


def round_trip(y, u, v):
    h, w = y.shape
    cb = upsample(upsample(u, h, 0), w, 1) - 128
    cr = upsample(upsample(v, h, 0), w, 1) - 128
    r = y + 2 * (1 - KR) * cr
    b = y + 2 * (1 - KB) * cb
    g = (y - KR * r - KB * b) / KG
    return np.clip(np.floor(np.stack([r, g, b], -1) + 0.5), 0, 255)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def timed(path, chroma):
    t = time.perf_counter()
    subprocess.run([yuvconv, path, "-o", "/dev/null", "-q", "--chroma-filter", chroma] + COMMON, check=True)
    return time.perf_counter() - t


def times(path):
    box, sharp = [], []
    for _ in range(RUNS):
        box.append(timed(path, "box"))
        sharp.append(timed(path, "sharp"))
    return statistics.median(box), statistics.median(sharp)


def main():
    os.makedirs(work, exist_ok=True)
    found = glob.glob(os.path.join(root, "Fixtures/corpus/photos/kodim23.png")) + \
        glob.glob(os.path.join(root, "../shared/corpus/photos/*.png")) + \
        glob.glob(os.path.join(root, "../shared/corpus/photos/*.jp*g"))
    photos = sys.argv[1:] or sorted({os.path.basename(p): p for p in found}.values())
    edges = os.path.join(work, "saturated-edges.png")
    Image.fromarray(saturated_edges()).save(edges)
    big = os.path.join(work, "kodim23-4032x3024.png")
    if not os.path.exists(big):
        Image.open(os.path.join(root, "Fixtures/corpus/photos/kodim23.png")).convert("RGB") \
            .resize((4032, 3024), Image.LANCZOS).save(big, compress_level=1)
    # The same as a camera's JPEG (q90 4:2:0): box then takes the direct path, which decodes no RGB, while sharp
    # goes through RGB — the largest ratio a user meets.
    big_jpeg = os.path.join(work, "kodim23-4032x3024.jpg")
    if not os.path.exists(big_jpeg):
        Image.open(big).save(big_jpeg, quality=90, subsampling=2)
    rows, gains = [], {"photos": [], "edges": []}
    for kind, path in [("photo", p) for p in photos] + [("edges", edges)]:
        src = np.asarray(Image.open(path).convert("RGB"))
        h, w, _ = src.shape
        extra = ["--jpeg-path", "rgb"] if path.lower().endswith((".jpg", ".jpeg")) else []
        pb = psnr(round_trip(*convert(path, w, h, "box", extra)), src)
        ps = psnr(round_trip(*convert(path, w, h, "sharp", extra)), src)
        tb, ts = times(path)
        gains["photos" if kind == "photo" else "edges"].append(ps - pb)
        rows.append((os.path.basename(path), f"{w}x{h}", pb, ps, tb, ts))
    for timing in (big, big_jpeg):
        tb, ts = times(timing)
        rows.append((os.path.basename(timing) + " (timing only)", "4032x3024", None, None, tb, ts))

    print("| picture | size | box RGB PSNR (dB) | sharp RGB PSNR (dB) | gain (dB) | box (ms) | sharp (ms) | sharp / box |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, size, pb, ps, tb, ts in rows:
        q = f"{pb:.2f} | {ps:.2f} | {ps - pb:+.2f}" if pb is not None else "– | – | –"
        print(f"| {name} | {size} | {q} | {tb * 1000:.1f} | {ts * 1000:.1f} | {ts / tb:.2f}× |")
    mean_photos = sum(gains["photos"]) / len(gains["photos"]) if gains["photos"] else float("nan")
    edge = gains["edges"][0]
    worst_ratio = max(r[5] / r[4] for r in rows)
    print()
    verdict = lambda ok: "met" if ok else "NOT met"
    print(f"photos: mean gain {mean_photos:+.2f} dB over {len(gains['photos'])} "
          f"(target >= +{TARGETS['photos']:.1f} dB: {verdict(mean_photos >= TARGETS['photos'])})")
    print(f"saturated edges: gain {edge:+.2f} dB (target >= +{TARGETS['edges']:.1f} dB: {verdict(edge >= TARGETS['edges'])})")
    print(f"time: sharp at most {worst_ratio:.2f}x box (target <= {TARGETS['time']:.0f}x: {verdict(worst_ratio <= TARGETS['time'])})")
    print(json.dumps({"photos_mean_gain_db": round(mean_photos, 3), "edges_gain_db": round(edge, 3),
                      "worst_time_ratio": round(worst_ratio, 3), "runs": RUNS}))


if __name__ == "__main__":
    main()
