# Sourced by bench/e2e.sh and bench/costs.sh: timing whole commands in interleaved rounds. Every contender
# runs once per round, in turn, so the shared machine's noise hits all of them alike; the figure is the median
# over the rounds (peak memory: the largest seen). Each writes a new file: its previous output is deleted
# before the clock starts (freeing 18 MB of page cache is not converting).

# The test picture: the bundled photo scaled to W×H with film-grain noise, so a JPEG of it costs what a camera
# photo costs to decode. PPM on standard output.
grain() {
  ffmpeg -v error -y -i "$here/Fixtures/corpus/photos/kodim23.png" \
    -vf "scale=$1:$2:flags=bicubic,noise=alls=30:allf=u" -frames:v 1 -f image2pipe -vcodec ppm -
}

# The 12 MP picture as a q90 4:2:0 baseline JPEG and as PNG, in the current folder, made once.
photo12() {
  [ -f photo12.jpg ] || grain 4032 3024 | cjpeg -quality 90 -sample 2x2 -outfile photo12.jpg
  [ -f photo12.png ] || grain 4032 3024 | ffmpeg -v error -y -f image2pipe -vcodec ppm -i - -frames:v 1 photo12.png
}

# One timed run: wall seconds from the shell's microsecond clock around the command itself (what running it
# costs, process start included). Not under /usr/bin/time: its own fork and exec add about 4 ms to every
# contender, which an in-memory figure (tjbench's) never pays.
timed() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>time.err || { cat time.err >&2; return 1; }
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}'
}
# One untimed run under /usr/bin/time -v: its peak RSS in KiB.
peak() {
  /usr/bin/time -v -o time.txt "$@" >/dev/null 2>time.err || { cat time.err >&2; return 1; }
  awk -F': ' '/Maximum resident set size/ {print $2}' time.txt
}

declare -A CMD TIMES R OUT T
KEYS=()
# add KEY OUTPUT COMMAND...: a contender, and the file it writes (deleted before each of its runs; - none).
add() { local key=$1 out=$2; shift 2; KEYS+=("$key"); OUT[$key]=$out; CMD[$key]=$(printf '%q ' "$@"); R[$key]=0; TIMES[$key]=""; }

# rounds N [HOOK]: two rounds of every contender under /usr/bin/time for its peak RSS, then N timed rounds
# (HOOK, a command, after each); then T[key] is the median wall time and R[key] the largest peak RSS.
rounds() {
  local key wall kb
  for _ in 1 2; do
    for key in "${KEYS[@]}"; do
      rm -f "${OUT[$key]}"
      kb=$(eval "peak ${CMD[$key]}") || kb=0   # a contender that fails has said why; the others go on
      [ "$kb" -gt "${R[$key]}" ] && R[$key]=$kb
    done
  done
  for _ in $(seq "$1"); do
    for key in "${KEYS[@]}"; do
      rm -f "${OUT[$key]}"
      wall=$(eval "timed ${CMD[$key]}") || wall=nan
      TIMES[$key]="${TIMES[$key]} $wall"
    done
    [ -z "${2:-}" ] || $2
  done
  for key in "${KEYS[@]}"; do T[$key]=$(median ${TIMES[$key]}); done
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk -v s="$1" 'BEGIN {printf "%.0f", s*1000}'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k/1024}'; }
