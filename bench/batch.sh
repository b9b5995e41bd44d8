#!/usr/bin/env bash
# make bench-batch: a batch's speed and its memory.
#
#   bench/batch.sh BUILD_DIR [all|speed|memory]
#
# speed: 200 photos (2 MP JPEGs, q90 4:2:0) converted with -j 1 and with -j N (all cores), timed in the same
# run; prints images/s for each and the speed-up. Each conversion already decodes on one thread while another
# converts and writes, so -j 1 uses more than one core.
#
# memory: peak RSS (/usr/bin/time %M) of `convert DIR/ -o OUT/ -j 2 -q`, plain and with `--report json
# --report-file`, for COUNTS files (default 1,000 and 100,000) of tiny 8x8 PNGs made here (python3, no
# packages; each a little different); the median of RUNS runs (default 3). A batch's memory must not grow with
# its number of files: the largest count's peak within 10% of the smallest's, or the line says FAIL.
# YUVCONV=path measures another binary (a build of main, for before and after). Needs about 1 GB of disk for
# 100,000 files and their outputs (4 KiB blocks).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/bench}
mode=${2:-all}
yuvconv=${YUVCONV:-$here/.build/release/yuvconv}
mkdir -p "$out"
cd "$out"

speed() {
  mkdir -p batch-in
  local src=$here/Fixtures/corpus/photos/kodim23.png
  if [ ! -f batch-in/199.jpg ]; then
    for i in $(seq 0 199); do
      # Each a little different (noise seed), 1632x1224 = 2 MP.
      ffmpeg -v error -y -i "$src" -vf "scale=1632:1224:flags=bicubic,noise=alls=20:allf=u:all_seed=$i" -frames:v 1 \
        -f image2pipe -vcodec ppm - | cjpeg -quality 90 -sample 2x2 -outfile "batch-in/$i.jpg"
    done
  fi
  local cores; cores=$(nproc)
  t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.3f", b - a}'; }
  best() { local m=999; for _ in 1 2 3; do rm -rf batch-out; local v; v=$(t "$@"); m=$(awk -v a="$m" -v b="$v" 'BEGIN {print (b < a) ? b : a}'); done; echo "$m"; }
  local one all
  one=$(best "$yuvconv" convert batch-in/ -o batch-out/ -j 1 -q)
  all=$(best "$yuvconv" convert batch-in/ -o batch-out/ -j "$cores" -q)
  rm -rf batch-out
  awk -v one="$one" -v all="$all" -v c="$cores" 'BEGIN {
    printf "bench-batch: 200 JPEGs, 1632x1224 q90 4:2:0, best of 3\n"
    printf "%-24s %8.2f s %8.1f img/s\n", "-j 1", one, 200 / one
    printf "%-24s %8.2f s %8.1f img/s\n", "-j " c, all, 200 / all
    printf "{\"jobs1_s\": %.3f, \"jobsN_s\": %.3f, \"cores\": %d, \"speedup\": %.2f}\n", one, all, c, one / all }'
}

# N tiny PNGs in batch-mem/in-N/ (made once).
tiny() {
  local n=$1 dir=batch-mem/in-$1
  [ -f "$dir/.complete" ] && return
  rm -rf "$dir"
  python3 - "$dir" "$n" <<'EOF'
import os, struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
def png(i):
    rows = b"".join(b"\0" + bytes(((i >> (8 * (c % 3))) + 31 * x + 17 * y + c) & 255 for x in range(8) for c in range(3))
                    for y in range(8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
for i in range(n):
    with open(os.path.join(d, "%06d.png" % i), "wb") as f: f.write(png(i))
EOF
  touch "$dir/.complete"
}

memory() {
  local counts=${COUNTS:-1000 100000} runs=${RUNS:-3}
  for n in $counts; do tiny "$n"; done
  printf "bench-batch memory: %s, %s tiny 8x8 PNGs, -j 2, peak RSS median of %s runs\n" "$yuvconv" "${counts// /, }" "$runs"
  printf "%-8s %8s %14s %10s  %s\n" "report" "files" "peak RSS MiB" "seconds" "command"
  local json="" first=""
  for report in none json; do
    local base=""
    for n in $counts; do
      local extra=() peaks=() secs=()
      [ "$report" = json ] && extra=(--report json --report-file batch-mem/r.json)
      for _ in $(seq "$runs"); do
        rm -rf batch-mem/out batch-mem/r.json
        local m
        /usr/bin/time -o batch-mem/time.txt -f "%M %e" "$yuvconv" convert "batch-mem/in-$n/" -o batch-mem/out/ -j 2 -q \
          "${extra[@]}" >/dev/null 2>&1 || { echo "bench-batch: the batch of $n files failed" >&2; exit 1; }
        m=$(tail -1 batch-mem/time.txt)
        # Exit 0, and with a report every file in it once and the totals.
        if [ "$report" = json ] && [ "$(wc -l < batch-mem/r.json)" != $((n + 1)) ]; then
          echo "bench-batch: the report of $n files has $(wc -l < batch-mem/r.json) lines, not $((n + 1))" >&2; exit 1
        fi
        peaks+=("${m% *}"); secs+=("${m#* }")
      done
      rm -rf batch-mem/out batch-mem/r.json
      local peak sec
      peak=$(printf "%s\n" "${peaks[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
      sec=$(printf "%s\n" "${secs[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
      [ -z "$base" ] && base=$peak
      printf "%-8s %8d %14.2f %10.2f  yuvconv convert in-%d/ -o out/ -j 2 -q%s\n" "$report" "$n" "$(awk -v k="$peak" 'BEGIN {print k / 1024}')" \
        "$sec" "$n" "$( [ "$report" = json ] && echo " --report json --report-file r.json")"
      json+="${first}{\"report\": \"$report\", \"files\": $n, \"peak_rss_kib\": $peak, \"seconds\": $sec}"
      first=", "
      last=$peak
    done
    awk -v a="$base" -v b="$last" -v r="$report" 'BEGIN {
      d = (b - a) * 100 / a
      printf "%-8s largest against smallest: %+.1f%% %s\n", r, d, (d <= 10 && d >= -10) ? "(within 10%: flat)" : "FAIL (more than 10%)" }'
  done
  echo "[$json]"
}

case $mode in
  speed) speed ;;
  memory) memory ;;
  all) speed; memory ;;
  *) echo "usage: bench/batch.sh BUILD_DIR [all|speed|memory]" >&2; exit 2 ;;
esac
