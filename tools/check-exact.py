#!/usr/bin/env python3
"""make test-exact: every decodable PNG of a corpus (../shared/corpus, else Fixtures/corpus, or the folder given), converted by
yuvconv with the fast rows and again with YUV_FORCE_REFERENCE=1, for every matrix and range, compared byte for
byte with tools/yuvref.py's output (imported, so it is the contract's own code that computes it).

  tools/check-exact.py [CORPUS] [--yuvref PATH] [--jpeg]

--jpeg also takes the corpus's JPEGs through `--jpeg-path rgb` (yuvref decodes them with Pillow's libjpeg,
which need not be the same build as the system's libjpeg-turbo: a mismatch there is reported, not failed),
and through the default direct path with fast and reference rows, which must give the same bytes (the direct
path's contract is its own, CONVENTIONS §2, so yuvref is not its reference).
Every conversion is run with `--orientation ignore`: yuvref reads samples as stored (EXIF not applied).
Prints each mismatch and a count line; exits 1 on any PNG mismatch.
"""
import argparse, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
shared = os.path.join(here, "..", "shared", "corpus")
# The larger shared corpus when it is beside the repository, else the copy in Fixtures/; the contract's reference
# is tools/yuvref.py (a copy of ../shared/tools/yuvref.py).
ap.add_argument("corpus", nargs="?", default=shared if os.path.isdir(shared) else os.path.join(here, "Fixtures", "corpus"))
ap.add_argument("--yuvref", default=os.path.join(here, "tools", "yuvref.py"))
ap.add_argument("--jpeg", action="store_true")
args = ap.parse_args()

manifest = os.path.join(args.corpus, "MANIFEST.txt")
if not os.path.exists(manifest) or not os.path.exists(args.yuvref):
    sys.exit(f"check-exact: needs the corpus ({manifest}) and yuvref.py ({args.yuvref})")
sys.path.insert(0, os.path.dirname(os.path.abspath(args.yuvref)))
import yuvref  # noqa: E402

yuvconv = os.path.join(here, ".build", "release", "yuvconv")
specs = [(m, r) for m in ("bt601", "bt709", "bt2020") for r in ("full", "limited")]
work = tempfile.mkdtemp()
counts = {"png": [0, 0], "jpeg": [0, 0], "direct": [0, 0]}


def convert(path, m, r, reference, *extra):
    """yuvconv's NV12 bytes for one image (None if it failed) and its standard error."""
    out = os.path.join(work, "out.nv12")
    if os.path.exists(out):
        os.remove(out)
    env = {**os.environ, **({"YUV_FORCE_REFERENCE": "1"} if reference else {})}
    p = subprocess.run([yuvconv, path, "-o", out, "-q", "--matrix", m, "--range", r, "--orientation", "ignore",
                        *extra], env=env, capture_output=True)
    got = open(out, "rb").read() if p.returncode == 0 and os.path.exists(out) else None
    return got, p.stderr.decode(errors="replace").strip()[:200]


for line in open(manifest, encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if len(f) < 5 or f[0].startswith("#") or f[0] == "path" or f[3] != "ok":
        continue
    path = os.path.join(args.corpus, f[0])
    kind = "png" if f[0].lower().endswith(".png") else "jpeg"
    if kind == "jpeg" and not args.jpeg:
        continue
    if kind == "jpeg":  # the direct path: fast rows against reference rows
        for m, r in specs:
            fast, reference = convert(path, m, r, False)[0], convert(path, m, r, True)[0]
            if fast is not None and fast == reference:
                counts["direct"][0] += 1
            else:
                counts["direct"][1] += 1
                print(f"MISMATCH {f[0]} {m} {r}: direct path, fast rows differ from reference rows")
    try:
        rgb, top = yuvref.load(path)
    except Exception as e:  # yuvref cannot read it: nothing to compare with
        print(f"skip {f[0]}: yuvref cannot load it ({e})")
        continue
    for m, r in specs:
        want = bytes(yuvref.pack(*yuvref.convert(rgb, m, r, top), "nv12"))
        for reference in (False, True):
            got, err = convert(path, m, r, reference, "--jpeg-path", "rgb")
            if got == want:
                counts[kind][0] += 1
            else:
                counts[kind][1] += 1
                why = err if got is None else f"{sum(a != b for a, b in zip(got, want))} bytes differ of {len(want)}"
                print(f"MISMATCH {f[0]} {m} {r}{' reference rows' if reference else ''}: {why}")
for kind, (ok, bad) in counts.items():
    if kind == "direct" and (ok or bad):
        print(f"direct path (JPEG): {ok} conversions identical with fast and reference rows, {bad} not")
    elif ok or bad:
        print(f"exact {kind}: {ok} conversions identical to yuvref, {bad} not")
sys.exit(1 if counts["png"][1] or counts["direct"][1] else 0)
