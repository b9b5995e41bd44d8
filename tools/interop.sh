#!/usr/bin/env bash
# make test-interop: what yuvconv writes, read back by ffmpeg with the documented arguments (the report's
# ffmpeg_rawvideo_input, the README's Y4M command), compared with the source picture: RGB PSNR ≥ 45 dB for every
# raw layout (8- and 10-bit) and Y4M (8- and 10-bit), matrix and range, and left and top-left siting (with the
# report's ffmpeg_filter); then ffmpeg's own 10-bit outputs read by yuvconv. Prints one line per case, then "N passed, M failed".
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
# The samples as stored, labelled with the primaries asked for: ffmpeg's rgb24 read-back converts matrices, not
# primaries, so the tags must match what the numbers are taken to be.
asis=(--color-management off)
for m in bt709 bt601 bt2020; do for r in full limited; do
  for layout in nv12 nv21 yuv420p yv12 p010 yuv420p10le; do
    "$BIN" "$src" -o "out.$layout" --format "$layout" --matrix $m --range $r "${asis[@]}" -q --force || { fail=$((fail + 1)); continue; }
    read -r -a args < <("$BIN" report "$src" --format "$layout" --matrix $m --range $r --report json \
      | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["ffmpeg_rawvideo_input"])')
    filter=$("$BIN" report "$src" --format "$layout" --report json \
      | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["ffmpeg_filter"])')
    rm -f back.rgb
    ffmpeg -v error -y "${args[@]}" -i "out.$layout" ${filter:+-vf "$filter"} "${sws[@]}" -f rawvideo -pix_fmt rgb24 back.rgb
    check "$layout $m $r" "$(psnr back.rgb)"
  done
  # Y4M carries its size, layout and range; the matrix, primaries, transfer and siting are given.
  for depth in 8 10; do
    "$BIN" "$src" -o out.y4m --depth $depth --matrix $m --range $r "${asis[@]}" -q --force
    read -r -a args < <("$BIN" report "$src" --matrix $m --range $r --report json \
      | python3 -c 'import json,sys; a=json.loads(sys.stdin.readline())["ffmpeg_rawvideo_input"].split(); print(" ".join(a[8:]))')
    rm -f back.rgb
    ffmpeg -v error -y "${args[@]}" -i out.y4m "${sws[@]}" -f rawvideo -pix_fmt rgb24 back.rgb
    check "y4m ${depth}-bit $m $r" "$(psnr back.rgb)"
  done
done; done
# Left and top-left sited chroma (8- and 10-bit, and the swapped YV12; Y4M carries the siting tag, which ffmpeg's
# scaler ignores as it ignores -chroma_sample_location): read back with the report's ffmpeg_filter, which tells
# the scaler where the samples sit. Without it they came back 4 to 6 dB below centre-sited planes.
for loc in left topleft; do
  for layout in nv12 yv12 p010 y4m; do
    "$BIN" "$src" -o "out.$layout" --chroma-loc $loc "${asis[@]}" -q --force || { fail=$((fail + 1)); continue; }
    json=$("$BIN" report "$src" --format "$([ $layout = y4m ] && echo nv12 || echo $layout)" --chroma-loc $loc --report json | head -1)
    read -r -a args < <(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ffmpeg_rawvideo_input"])' "$json")
    [ $layout = y4m ] && args=("${args[@]:8}")   # Y4M: no rawvideo, pixel format or size
    filter=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ffmpeg_filter"])' "$json")
    rm -f back.rgb
    ffmpeg -v error -y "${args[@]}" -i "out.$layout" ${filter:+-vf "$filter"} "${sws[@]}" -f rawvideo -pix_fmt rgb24 back.rgb
    check "$layout $loc (-vf $filter)" "$(psnr back.rgb)"
  done
done
# The other way: ffmpeg's 10-bit outputs (Y4M, P010, yuv420p10le) read by yuvconv. Re-written as another 10-bit
# layout they must be ffmpeg's own samples, byte for byte (ffmpeg repacks them losslessly); drawn as a PNG
# (yuvconv's preview: exact inverse, nearest chroma — 42.2 dB on kodim23 from its own 8-bit NV12) within
# 41 dB of the source.
same() {   # name, file a, file b
  if cmp -s "$2" "$3"; then pass=$((pass + 1)); echo "PASS $1: identical"; else fail=$((fail + 1)); echo "FAIL $1: differs"; fi
}
size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$src")
for r in full limited; do
  range=$([ $r = full ] && echo pc || echo tv)
  ffmpeg -v error -y -i "$src" -vf "scale=out_color_matrix=bt709:out_range=$r" "${sws[@]}" -pix_fmt yuv420p10le \
    -color_range $range -strict -1 ff.y4m
  # (ffmpeg turns full range into limited when it writes P010 unless told to keep the range)
  keep=(-vf "scale=in_range=$r:out_range=$r")
  ffmpeg -v error -y -i ff.y4m "${keep[@]}" -f rawvideo -pix_fmt p010le ff.p010
  ffmpeg -v error -y -i ff.y4m "${keep[@]}" -f rawvideo -pix_fmt yuv420p10le ff.yuv420p10le
  "$BIN" ff.y4m -o y.p010 -q --force --range $r && same "ffmpeg y4m 10-bit $r -> p010" y.p010 ff.p010
  "$BIN" ff.p010 --size "$size" --range $r -o y.yuv420p10le -q --force && same "ffmpeg p010 $r -> yuv420p10le" y.yuv420p10le ff.yuv420p10le
  "$BIN" ff.yuv420p10le --size "$size" --range $r -o y.y4m --depth 10 -q --force \
    && "$BIN" y.y4m -o y2.yuv420p10le -q --force && same "ffmpeg yuv420p10le $r -> y4m -> yuv420p10le" y2.yuv420p10le ff.yuv420p10le
  "$BIN" ff.y4m -o back.png --matrix bt709 -q --force && ffmpeg -v error -y -i back.png -f rawvideo -pix_fmt rgb24 back.rgb
  db=$(psnr back.rgb)
  if [[ $db != size ]] && awk -v d="$db" 'BEGIN { exit !(d + 0 >= 41) }'; then pass=$((pass + 1)); echo "PASS ffmpeg y4m 10-bit $r -> png: $db dB"
  else fail=$((fail + 1)); echo "FAIL ffmpeg y4m 10-bit $r -> png: $db dB (want ≥ 41)"; fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
