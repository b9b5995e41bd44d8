#!/usr/bin/env python3
"""make quality: what the JPEG direct path costs in quality against the RGB route.

For each photo (PNG) it makes JPEGs with cjpeg (q75, q85, q90, q95; 4:2:0 and 4:4:4), converts each JPEG
with yuvconv both ways (--jpeg-path direct and rgb) to NV12 BT.709 full range, and measures PSNR per plane
against the exact conversion of the original photo (yuvconv on the PNG, which is bit-exact to the contract).
It does so for each chroma siting (--chroma-loc center, left, topleft), the reference being the exact
conversion with that siting; for left and topleft it also prints the PSNR of the direct path's planes against
the RGB route's. Prints a Markdown table per siting and, per siting, the worst direct-minus-RGB difference per
plane against the contract's rule (the direct path at most 1.0 dB below the RGB route on any plane, both
measured against the exact conversion). Needs numpy and cjpeg.

  bench/quality.py [PHOTO.png ...]   (default: Fixtures/corpus/photos/*.png and ../shared/corpus/photos/*.png)
"""
import glob, math, os, subprocess, sys, tempfile
import numpy as np

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
yuvconv = os.path.join(root, ".build", "release", "yuvconv")

def planes(buf, w, h):
    a = np.frombuffer(buf, np.uint8)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    y = a[: w * h].reshape(h, w)
    uv = a[w * h:].reshape(ch, 2 * cw)
    return y, uv[:, 0::2], uv[:, 1::2]

def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)

def run(args):
    return subprocess.run([yuvconv] + args + ["-o", "-", "-q"], check=True, capture_output=True).stdout

def size(path):
    out = subprocess.run([yuvconv, path, "-o", "/dev/null"], check=True, capture_output=True).stderr.decode()
    line = out.strip().splitlines()[-1]
    w, h = line[len(path) + 2:].split(" ", 1)[0].split("x")
    return int(w), int(h)

SITINGS = ("center", "left", "topleft")

def main():
    found = glob.glob(os.path.join(root, "Fixtures/corpus/photos/*.png")) + \
        glob.glob(os.path.join(root, "../shared/corpus/photos/*.png"))
    photos = sys.argv[1:] or sorted({os.path.basename(p): p for p in found}.values())
    rows = {s: [] for s in SITINGS}
    worst = {s: [0.0, 0.0, 0.0] for s in SITINGS}
    with tempfile.TemporaryDirectory() as tmp:
        for photo in photos:
            w, h = size(photo)
            # The exact conversion of the photo with each siting: what both routes are measured against.
            refs = {s: planes(run([photo, "--chroma-loc", s]), w, h) for s in SITINGS}
            ppm = os.path.join(tmp, "src.ppm")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", photo, "-frames:v", "1", "-pix_fmt", "rgb24", ppm], check=True)
            for samp, flag in (("4:2:0", "2x2"), ("4:4:4", "1x1")):
                for q in (75, 85, 90, 95):
                    jpg = os.path.join(tmp, "q.jpg")
                    subprocess.run(["cjpeg", "-quality", str(q), "-sample", flag, "-outfile", jpg, ppm], check=True)
                    for s in SITINGS:
                        d = planes(run([jpg, "--jpeg-path", "direct", "--chroma-loc", s]), w, h)
                        r = planes(run([jpg, "--jpeg-path", "rgb", "--chroma-loc", s]), w, h)
                        pd = [psnr(x, y) for x, y in zip(d, refs[s])]
                        pr = [psnr(x, y) for x, y in zip(r, refs[s])]
                        between = [psnr(x, y) for x, y in zip(d, r)]
                        for i in range(3):
                            worst[s][i] = max(worst[s][i], pr[i] - pd[i])
                        rows[s].append((os.path.basename(photo), samp, q, pd, pr, between))
    f = lambda v: " / ".join(f"{x:.2f}" for x in v)
    for s in SITINGS:
        print(f"siting {s}: PSNR against the exact conversion with --chroma-loc {s}")
        print()
        extra = s != "center"
        print("| photo | JPEG | q | direct Y / Cb / Cr (dB) | RGB route Y / Cb / Cr (dB) | direct − RGB (dB) |"
              + (" direct against RGB route (dB) |" if extra else ""))
        print("| --- | --- | --- | --- | --- | --- |" + (" --- |" if extra else ""))
        for name, samp, q, pd, pr, between in rows[s]:
            print(f"| {name} | {samp} | {q} | {f(pd)} | {f(pr)} | {f([a - b for a, b in zip(pd, pr)])} |"
                  + (f" {f(between)} |" if extra else ""))
        print()
    for s in SITINGS:
        m = worst[s]
        print(f"{s}: worst (RGB route better by): Y {m[0]:.2f} dB, Cb {m[1]:.2f} dB, Cr {m[2]:.2f} dB "
              f"(contract: at most 1.0 dB on any plane) — {'within' if max(m) <= 1.0 else 'OUTSIDE'} the contract")

if __name__ == "__main__":
    main()
