#!/usr/bin/env bash
# make bench-e2e: whole conversions of a 12-megapixel photo, yuvconv against ffmpeg, ImageMagick, djpeg,
# tjbench -yuv, a one-shot TurboJPEG decode (bench/jpeg_decode.c) and a bare libpng decode, all timed in this
# one run. Wall time is the median of RUNS rounds (timed by the shell around each command); peak memory is the
# maximum resident set size /usr/bin/time -v reports in two untimed rounds (bench/rounds.sh).
#
#   bench/e2e.sh BUILD_DIR   (BUILD_DIR holds png_decode and jpeg_decode; the images are made there too)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/bench}
runs=${RUNS:-7}
yuvconv=$here/.build/release/yuvconv
mkdir -p "$out"
cd "$out"

source "$here/bench/rounds.sh"

# The test pictures: the 12 MP JPEG and PNG (`photo12`), a 100-megapixel baseline JPEG, and the 12 MP
# picture as a 4:4:4 JPEG (high-quality exports): the direct path's other rows.
photo12
[ -f photo100.jpg ] || grain 11544 8658 | cjpeg -quality 90 -sample 2x2 -outfile photo100.jpg
[ -f photo12_444.jpg ] || grain 4032 3024 | cjpeg -quality 90 -sample 1x1 -outfile photo12_444.jpg

add ours      out.nv12     "$yuvconv" photo12.jpg -o out.nv12 -q
add ours_rgb  out.nv12     "$yuvconv" photo12.jpg -o out.nv12 -q --jpeg-path rgb
add ffmpeg    out_ff.nv12  ffmpeg -v error -y -i photo12.jpg -vf scale=out_color_matrix=bt709:out_range=full -pix_fmt nv12 -f rawvideo out_ff.nv12
# ImageMagick 6 exits 1 after writing a correct yuv: file here, so success is judged by the output.
add magick    out_im.yuv   sh -c "convert photo12.jpg -sampling-factor 4:2:0 yuv:out_im.yuv; test -s out_im.yuv"
add djpeg     out.ppm      djpeg -outfile out.ppm photo12.jpg
add tjonce    -            ./jpeg_decode photo12.jpg
add ours_png  out_png.nv12 "$yuvconv" photo12.png -o out_png.nv12 -q
add png       -            ./png_decode photo12.png
add ours_100  out100.nv12  "$yuvconv" photo100.jpg -o out100.nv12 -q
add ours_444  out444.nv12  "$yuvconv" photo12_444.jpg -o out444.nv12 -q --jpeg-path direct
add rgb_444   out444.nv12  "$yuvconv" photo12_444.jpg -o out444.nv12 -q --jpeg-path rgb
add djpeg_444 out444.ppm   djpeg -outfile out444.ppm photo12_444.jpg
# BASE_BIN=path: another build of yuvconv (say, the previous commit's) in the same rounds, for before/after.
if [ -n "${BASE_BIN:-}" ]; then
  add base      base.nv12     "$BASE_BIN" photo12.jpg -o base.nv12 -q
  add base_png  base_png.nv12 "$BASE_BIN" photo12.png -o base_png.nv12 -q
  add base_444  base444.nv12  "$BASE_BIN" photo12_444.jpg -o base444.nv12 -q --jpeg-path direct
  add base_100  base100.nv12  "$BASE_BIN" photo100.jpg -o base100.nv12 -q
fi
# tjbench decodes in memory, over and over; its "Decomp to YUV" frame rate becomes a time for one decode, once
# a round.
TJ=()
tj_round() {
  local fps
  fps=$(tjbench photo12.jpg -yuv -benchtime 1 -warmup 1 2>&1 | awk '/Decomp to YUV/ {for (i=1;i<=NF;i++) if ($i ~ /^[0-9.]+$/) v=$i} END {print v}')
  TJ+=("$(awk -v f="$fps" 'BEGIN {if (f > 0) printf "%.4f", 1/f; else print "nan"}')")
}
rounds "$runs" tj_round
tj_s=$(median "${TJ[@]}")

row() { printf '%-58s %9s %10s %9s %9s\n' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2fx", a/b; else print "-"}'; }

echo "bench-e2e: 4032x3024 q90 4:2:0 JPEG ($(du -k photo12.jpg | cut -f1) KiB) and PNG, median of $runs interleaved rounds, $(nproc) cores"
row "what" "wall ms" "peak MiB" "ours/it" ""
row "yuvconv -> NV12 bt709 full (direct YCbCr, to a file)" "$(ms ${T[ours]})" "$(mib ${R[ours]})" "1.00x"
row "yuvconv --jpeg-path rgb" "$(ms ${T[ours_rgb]})" "$(mib ${R[ours_rgb]})" "$(ratio ${T[ours]} ${T[ours_rgb]})"
row "ffmpeg -> NV12 bt709 full" "$(ms ${T[ffmpeg]})" "$(mib ${R[ffmpeg]})" "$(ratio ${T[ours]} ${T[ffmpeg]})"
row "ImageMagick convert -> yuv:" "$(ms ${T[magick]})" "$(mib ${R[magick]})" "$(ratio ${T[ours]} ${T[magick]})"
row "djpeg -> PPM (RGB, 3 B/px)" "$(ms ${T[djpeg]})" "$(mib ${R[djpeg]})" "$(ratio ${T[ours]} ${T[djpeg]})"
row "tjbench -yuv (in-memory decode to planes only)" "$(ms $tj_s)" "-" "$(ratio ${T[ours]} $tj_s)"
row "TurboJPEG decode to planes, one process (jpeg_decode)" "$(ms ${T[tjonce]})" "$(mib ${R[tjonce]})" "$(ratio ${T[ours]} ${T[tjonce]})"
row "yuvconv PNG -> NV12" "$(ms ${T[ours_png]})" "$(mib ${R[ours_png]})" "1.00x"
row "libpng decode alone (same PNG)" "$(ms ${T[png]})" "$(mib ${R[png]})" "$(ratio ${T[ours_png]} ${T[png]})"
row "yuvconv 100 MP baseline JPEG -> NV12" "$(ms ${T[ours_100]})" "$(mib ${R[ours_100]})" ""
row "yuvconv 4:4:4 JPEG --jpeg-path direct (YCbCr planes)" "$(ms ${T[ours_444]})" "$(mib ${R[ours_444]})" "1.00x"
row "yuvconv 4:4:4 JPEG --jpeg-path rgb" "$(ms ${T[rgb_444]})" "$(mib ${R[rgb_444]})" "$(ratio ${T[ours_444]} ${T[rgb_444]})"
row "djpeg 4:4:4 JPEG -> PPM" "$(ms ${T[djpeg_444]})" "$(mib ${R[djpeg_444]})" "$(ratio ${T[ours_444]} ${T[djpeg_444]})"
if [ -n "${BASE_BIN:-}" ]; then
  row "BASE_BIN: 12 MP JPEG -> NV12" "$(ms ${T[base]})" "$(mib ${R[base]})" "$(ratio ${T[ours]} ${T[base]})"
  row "BASE_BIN: 12 MP PNG -> NV12" "$(ms ${T[base_png]})" "$(mib ${R[base_png]})" "$(ratio ${T[ours_png]} ${T[base_png]})"
  row "BASE_BIN: 4:4:4 JPEG -> NV12" "$(ms ${T[base_444]})" "$(mib ${R[base_444]})" "$(ratio ${T[ours_444]} ${T[base_444]})"
  row "BASE_BIN: 100 MP JPEG -> NV12" "$(ms ${T[base_100]})" "$(mib ${R[base_100]})" "$(ratio ${T[ours_100]} ${T[base_100]})"
  printf '{"ratio_vs_base_jpeg": %s, "ratio_vs_base_png": %s, "ratio_vs_base_444": %s, "ratio_vs_base_100mp": %s}\n' \
    "$(ratio ${T[ours]} ${T[base]} | tr -d x)" "$(ratio ${T[ours_png]} ${T[base_png]} | tr -d x)" "$(ratio ${T[ours_444]} ${T[base_444]} | tr -d x)" \
    "$(ratio ${T[ours_100]} ${T[base_100]} | tr -d x)"
fi
printf '{"ours_ms": %s, "ours_peak_mib": %s, "ffmpeg_ms": %s, "ffmpeg_peak_mib": %s, "djpeg_ms": %s, "tjbench_yuv_ms": %s, "tj_process_ms": %s, "magick_ms": %s, "ratio_vs_ffmpeg": %s, "ratio_vs_djpeg": %s, "ratio_vs_tjbench": %s, "ratio_vs_tj_process": %s, "png_ours_ms": %s, "png_decode_ms": %s, "ratio_png_vs_libpng": %s, "png_peak_mib": %s, "ours_100mp_peak_mib": %s, "ours_444_ms": %s, "ratio_444_vs_rgb_path": %s, "ratio_444_vs_djpeg": %s}\n' \
  "$(ms ${T[ours]})" "$(mib ${R[ours]})" "$(ms ${T[ffmpeg]})" "$(mib ${R[ffmpeg]})" "$(ms ${T[djpeg]})" "$(ms $tj_s)" "$(ms ${T[tjonce]})" "$(ms ${T[magick]})" \
  "$(ratio ${T[ours]} ${T[ffmpeg]} | tr -d x)" "$(ratio ${T[ours]} ${T[djpeg]} | tr -d x)" "$(ratio ${T[ours]} $tj_s | tr -d x)" \
  "$(ratio ${T[ours]} ${T[tjonce]} | tr -d x)" "$(ms ${T[ours_png]})" "$(ms ${T[png]})" "$(ratio ${T[ours_png]} ${T[png]} | tr -d x)" "$(mib ${R[ours_png]})" "$(mib ${R[ours_100]})" \
  "$(ms ${T[ours_444]})" "$(ratio ${T[ours_444]} ${T[rgb_444]} | tr -d x)" "$(ratio ${T[ours_444]} ${T[djpeg_444]} | tr -d x)"
