#!/usr/bin/env bash
# make test-interop: what yuvconv writes, read back by ffmpeg with the documented arguments (the report's
# ffmpeg_rawvideo_input, the README's Y4M command), compared with the source picture: RGB PSNR ≥ 45 dB for every
# raw layout and Y4M, matrix and range. Prints one line per case, then "N passed, M failed".
#
#   tools/interop.sh [IMAGE]   (default Fixtures/corpus/photos/kodim23.png; YUVCONV_BIN as for the tests)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${YUVCONV_BIN:-$here/.build/release/yuvconv}
src=${1:-$here/Fixtures/corpus/photos/kodim23.png}
work=$(mktemp -d "${TMPDIR:-/tmp}/yuvconv-interop.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
ffmpeg -v error -y -i "$src" -f rawvideo -pix_fmt rgb24 src.rgb || { echo "ffmpeg cannot read $src"; exit 2; }
psnr() { python3 - "$1" <<'PY'
import math, sys
import os
if not os.path.exists(sys.argv[1]):
    print("size"); sys.exit()
a = open("src.rgb", "rb").read(); b = open(sys.argv[1], "rb").read()
if len(a) != len(b):
    print("size"); sys.exit()
mse = sum((x - y) * (x - y) for x, y in zip(a, b)) / len(a)
print("inf" if mse == 0 else f"{10 * math.log10(255 * 255 / mse):.2f}")
PY
}
pass=0 fail=0
check() {   # name, dB
  if [[ $2 != size ]] && awk -v d="$2" 'BEGIN { exit !(d == "inf" || d + 0 >= 45) }'; then
    pass=$((pass + 1)); echo "PASS $1: $2 dB"
  else
    fail=$((fail + 1)); echo "FAIL $1: $2 dB (want ≥ 45)"
  fi
}
sws=(-sws_flags accurate_rnd+full_chroma_int)
for m in bt709 bt601 bt2020; do for r in full limited; do
  for layout in nv12 nv21 yuv420p yv12; do
    "$BIN" "$src" -o "out.$layout" --format "$layout" --matrix $m --range $r -q --force || { fail=$((fail + 1)); continue; }
    read -r -a args < <("$BIN" report "$src" --format "$layout" --matrix $m --range $r --report json \
      | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["ffmpeg_rawvideo_input"])')
    filter=$("$BIN" report "$src" --format "$layout" --report json \
      | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["ffmpeg_filter"])')
    rm -f back.rgb
    ffmpeg -v error -y "${args[@]}" -i "out.$layout" ${filter:+-vf "$filter"} "${sws[@]}" -f rawvideo -pix_fmt rgb24 back.rgb
    check "$layout $m $r" "$(psnr back.rgb)"
  done
  # Y4M carries its size, layout and range; the matrix, primaries, transfer and siting are given.
  "$BIN" "$src" -o out.y4m --matrix $m --range $r -q --force
  read -r -a args < <("$BIN" report "$src" --matrix $m --range $r --report json \
    | python3 -c 'import json,sys; a=json.loads(sys.stdin.readline())["ffmpeg_rawvideo_input"].split(); print(" ".join(a[8:]))')
  rm -f back.rgb
  ffmpeg -v error -y "${args[@]}" -i out.y4m "${sws[@]}" -f rawvideo -pix_fmt rgb24 back.rgb
  check "y4m $m $r" "$(psnr back.rgb)"
done; done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
