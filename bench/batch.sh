#!/usr/bin/env bash
# make bench-batch: 200 photos (2 MP JPEGs, q90 4:2:0) converted with -j 1 and with -j N (all cores), timed
# in the same run; prints images/s for each and the speed-up. Each conversion already decodes on one thread
# while another converts and writes, so -j 1 uses more than one core.
#
#   bench/batch.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/bench}
yuvconv=$here/.build/release/yuvconv
mkdir -p "$out/batch-in"
cd "$out"
src=$here/Fixtures/corpus/photos/kodim23.png
if [ ! -f batch-in/199.jpg ]; then
  for i in $(seq 0 199); do
    # Each a little different (noise seed), 1632x1224 = 2 MP.
    ffmpeg -v error -y -i "$src" -vf "scale=1632:1224:flags=bicubic,noise=alls=20:allf=u:all_seed=$i" -frames:v 1 \
      -f image2pipe -vcodec ppm - | cjpeg -quality 90 -sample 2x2 -outfile "batch-in/$i.jpg"
  done
fi
cores=$(nproc)
t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.3f", b - a}'; }
best() { local m=999; for _ in 1 2 3; do rm -rf batch-out; local v; v=$(t "$@"); m=$(awk -v a="$m" -v b="$v" 'BEGIN {print (b < a) ? b : a}'); done; echo "$m"; }
one=$(best "$yuvconv" convert batch-in/ -o batch-out/ -j 1 -q)
all=$(best "$yuvconv" convert batch-in/ -o batch-out/ -j "$cores" -q)
rm -rf batch-out
awk -v one="$one" -v all="$all" -v c="$cores" 'BEGIN {
  printf "bench-batch: 200 JPEGs, 1632x1224 q90 4:2:0, best of 3\n"
  printf "%-24s %8.2f s %8.1f img/s\n", "-j 1", one, 200 / one
  printf "%-24s %8.2f s %8.1f img/s\n", "-j " c, all, 200 / all
  printf "{\"jobs1_s\": %.3f, \"jobsN_s\": %.3f, \"cores\": %d, \"speedup\": %.2f}\n", one, all, c, one / all }'
