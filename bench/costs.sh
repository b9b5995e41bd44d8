#!/usr/bin/env bash
# make bench-costs: what the optional work costs, each against the same conversion without it, timed in the
# same interleaved rounds — the report (`--report json`: the output's SHA-256 and the report line; `--report text`,
# which shows no hash and makes none), the quality
# metrics (`--report json --metrics`, and `--report text --metrics`: the metrics without the hash), and colour management (a 12 MP Display P3 photo with `--color-management
# auto`, the default, against `off`). Wall time: the median of RUNS rounds; memory: the largest peak RSS seen
# (/usr/bin/time -v, in untimed rounds: bench/rounds.sh) and the report's own figure for the conversion (`conversion_buffers_bytes`, the ledger's measure).
#
#   bench/costs.sh BUILD_DIR   (the pictures are made there, as bench/e2e.sh makes them)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/bench}
runs=${RUNS:-9}
yuvconv=${YUVCONV_BIN:-$here/.build/release/yuvconv}
mkdir -p "$out"
cd "$out"

source "$here/bench/rounds.sh"

# The pictures of bench/e2e.sh (`photo12`: a q90 4:2:0 JPEG and a PNG), and the same JPEG tagged with a
# Display P3 profile.
photo12
[ -f photo12-p3.jpg ] || grain 4032 3024 | cjpeg -quality 90 -sample 2x2 -icc "$here/Fixtures/colour/DisplayP3.icc" -outfile photo12-p3.jpg

y() { echo out.nv12 "$yuvconv" "$@" -q --force; }
add jpg          $(y photo12.jpg -o out.nv12)
add jpg_report   $(y photo12.jpg -o out.nv12 --report json --report-file jpg.json)
add jpg_text     $(y photo12.jpg -o out.nv12 --report text --report-file jpg.txt)
add jpg_metrics  $(y photo12.jpg -o out.nv12 --report json --report-file jpg-metrics.json --metrics)
add jpg_text_metrics $(y photo12.jpg -o out.nv12 --report text --report-file jpg-metrics.txt --metrics)
add png          $(y photo12.png -o out.nv12)
add png_report   $(y photo12.png -o out.nv12 --report json --report-file png.json)
add png_metrics  $(y photo12.png -o out.nv12 --report json --report-file png-metrics.json --metrics)
add p3_off       $(y photo12-p3.jpg -o out.nv12 --color-management off)
add p3_auto      $(y photo12-p3.jpg -o out.nv12)
rounds "$runs"
# What colour management did, and its buffers, from one more (untimed) run with a report: the timed runs
# have none, as the plain run they are compared with.
$yuvconv photo12-p3.jpg -o out.nv12 -q --force --report json --report-file p3.json
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
field() { grep -o "\"$2\": *[^,}]*" "$1" | head -1 | sed 's/.*: *//; s/"//g'; }
peak_mib() { awk -v b="$(field "$1" conversion_buffers_bytes)" 'BEGIN {printf "%.1f", b/1048576}'; }

echo "bench-costs: 4032x3024 grain photo (q90 4:2:0 JPEG, PNG, JPEG with a Display P3 profile), median of $runs interleaved rounds, $(nproc) cores, kernels $("$yuvconv" --version | sed -n 's/^kernels: \([a-z0-9]*\).*/\1/p')"
row() { printf '%-52s %8s %10s %9s %12s\n' "$@"; }
row "what" "wall ms" "peak MiB" "ratio" "buffers MiB"
row "JPEG -> NV12" "$(ms ${T[jpg]})" "$(mib ${R[jpg]})" "1.00" ""
row "  --report json (SHA-256 of the output, the line)" "$(ms ${T[jpg_report]})" "$(mib ${R[jpg_report]})" "$(ratio ${T[jpg_report]} ${T[jpg]})" "$(peak_mib jpg.json)"
row "  --report text (the line, no hash: text shows none)" "$(ms ${T[jpg_text]})" "$(mib ${R[jpg_text]})" "$(ratio ${T[jpg_text]} ${T[jpg]})" ""
row "  --report json --metrics (PSNR, SSIM)" "$(ms ${T[jpg_metrics]})" "$(mib ${R[jpg_metrics]})" "$(ratio ${T[jpg_metrics]} ${T[jpg]})" "$(peak_mib jpg-metrics.json)"
row "  --report text --metrics (the metrics, no hash)" "$(ms ${T[jpg_text_metrics]})" "$(mib ${R[jpg_text_metrics]})" "$(ratio ${T[jpg_text_metrics]} ${T[jpg]})" ""
row "PNG -> NV12" "$(ms ${T[png]})" "$(mib ${R[png]})" "1.00" ""
row "  --report json" "$(ms ${T[png_report]})" "$(mib ${R[png_report]})" "$(ratio ${T[png_report]} ${T[png]})" "$(peak_mib png.json)"
row "  --report json --metrics" "$(ms ${T[png_metrics]})" "$(mib ${R[png_metrics]})" "$(ratio ${T[png_metrics]} ${T[png]})" "$(peak_mib png-metrics.json)"
row "P3 JPEG -> NV12 --color-management off" "$(ms ${T[p3_off]})" "$(mib ${R[p3_off]})" "1.00" ""
row "  colour-managed ($(field p3.json color_management))" "$(ms ${T[p3_auto]})" "$(mib ${R[p3_auto]})" "$(ratio ${T[p3_auto]} ${T[p3_off]})" "$(peak_mib p3.json)"
printf '{"report_vs_plain": %s, "text_report_vs_plain": %s, "metrics_vs_plain": %s, "text_metrics_vs_plain": %s, "png_report_vs_plain": %s, "png_metrics_vs_plain": %s, "colour_vs_off": %s, "jpg_ms": %s, "jpg_peak_mib": %s, "jpg_metrics_peak_mib": %s, "p3_auto_peak_mib": %s, "report_buffers_mib": %s, "metrics_buffers_mib": %s}\n' \
  "$(ratio ${T[jpg_report]} ${T[jpg]})" "$(ratio ${T[jpg_text]} ${T[jpg]})" "$(ratio ${T[jpg_metrics]} ${T[jpg]})" "$(ratio ${T[jpg_text_metrics]} ${T[jpg]})" "$(ratio ${T[png_report]} ${T[png]})" \
  "$(ratio ${T[png_metrics]} ${T[png]})" "$(ratio ${T[p3_auto]} ${T[p3_off]})" "$(ms ${T[jpg]})" "$(mib ${R[jpg]})" \
  "$(mib ${R[jpg_metrics]})" "$(mib ${R[p3_auto]})" "$(peak_mib jpg.json)" "$(peak_mib jpg-metrics.json)"
