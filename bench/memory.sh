#!/usr/bin/env bash
# make bench-memory: yuvconv's peak resident memory (/usr/bin/time -v) per kind of source, against the
# process's own baseline (`yuvconv --version`), so docs/security.md's bounds are re-measured, not recalled.
#
#   bench/memory.sh BUILD_DIR   (the pictures are made there by bench/make_images.py and cjpeg)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/bench}
yuvconv=${YUVCONV_BIN:-$here/.build/release/yuvconv}
mk="python3 $here/bench/make_images.py"
mkdir -p "$out/memory"
cd "$out/memory"

[ -f noise12.ppm ] || $mk ppm noise12.ppm 4032 3024
[ -f base12.jpg ] || cjpeg -quality 90 -sample 2x2 -outfile base12.jpg noise12.ppm
[ -f prog12.jpg ] || cjpeg -quality 90 -sample 2x2 -progressive -outfile prog12.jpg noise12.ppm
[ -f rot12.jpg ] || $mk exif rot12.jpg base12.jpg 6
[ -f rgb12.png ] || $mk png rgb12.png 4032 3024 2 8 0
[ -f rgba16-12.png ] || $mk png rgba16-12.png 4032 3024 6 16 0
[ -f adam8-12.png ] || $mk png adam8-12.png 4032 3024 2 8 1
[ -f adam16-12.png ] || $mk png adam16-12.png 4032 3024 6 16 1
[ -f wide.png ] || $mk png wide.png 1000000 268 6 8 0
[ -f wide16.png ] || $mk png wide16.png 1000000 268 6 16 0

peak() {   # peak RSS in KiB of one run
  /usr/bin/time -v -o time.txt "$@" >/dev/null 2>err.txt || { cat err.txt >&2; echo 0; return; }
  awk -F': ' '/Maximum resident set size/ {print $2}' time.txt
}
base=$(peak "$yuvconv" --version)
printf '| source | pixels | command | peak RSS MiB | above baseline, B/px |\n| --- | --- | --- | --- | --- |\n'
row() {   # name pixels args...
  local name=$1 px=$2; shift 2
  rm -f o.* 
  local kib; kib=$(peak "$yuvconv" "$@")
  awk -v n="$name" -v p="$px" -v k="$kib" -v b="$base" -v c="$*" \
    'BEGIN { printf "| %s | %.1f M | `yuvconv %s` | %.1f | %.2f |\n", n, p / 1e6, c, k / 1024, (k - b) * 1024 / p }'
}
awk -v b="$base" 'BEGIN { printf "| the process alone | — | `yuvconv --version` | %.1f | — |\n", b / 1024 }'
row "baseline JPEG 4:2:0" 12192768 base12.jpg -o o.nv12 -q
row "baseline JPEG, RGB route" 12192768 base12.jpg -o o.nv12 -q --jpeg-path rgb
row "baseline JPEG on standard input" 12192768 - -o o.nv12 -q < base12.jpg
row "baseline JPEG to standard output" 12192768 base12.jpg -o - -q
row "progressive JPEG" 12192768 prog12.jpg -o o.nv12 -q
row "JPEG with EXIF orientation 6" 12192768 rot12.jpg -o o.nv12 -q
row "JPEG to JPEG" 12192768 base12.jpg -o o.jpg -q
row "JPEG with --report (quality)" 12192768 base12.jpg -o o.nv12 -q --report json
row "PNG RGB 8-bit" 12192768 rgb12.png -o o.nv12 -q
row "PNG RGB 8-bit, --chroma-filter sharp" 12192768 rgb12.png -o o.nv12 -q --chroma-filter sharp
row "PNG RGBA 16-bit" 12192768 rgba16-12.png -o o.nv12 -q
row "PNG RGBA 16-bit, --alpha keep" 12192768 rgba16-12.png -o o.nv12 -q --alpha keep
row "interlaced PNG RGB 8-bit" 12192768 adam8-12.png -o o.nv12 -q
row "interlaced PNG RGBA 16-bit" 12192768 adam16-12.png -o o.nv12 -q
row "interlaced PNG RGBA 16-bit, --alpha keep" 12192768 adam16-12.png -o o.nv12 -q --alpha keep
row "1,000,000×268 PNG RGBA 8-bit" 268000000 wide.png -o o.nv12 -q
row "1,000,000×268 PNG RGBA 16-bit, --alpha keep" 268000000 wide16.png -o o.nv12 -q --alpha keep
row "1,000,000×268 PNG RGBA 8-bit, --chroma-filter sharp" 268000000 wide.png -o o.nv12 -q --chroma-filter sharp
