#!/usr/bin/env bash
# Same bytes from two builds: every image of a corpus folder through both binaries, × 3 matrices × 2 ranges
# × 4 raw layouts, plus Y4M, PNG and JPEG outputs and the JSON report's non-timing fields, compared by
# SHA-256. Prints one line per output kind and a closing "N passed, M failed" (a pair whose two builds both
# refuse the input with the same exit status counts as passed).
#
#   tools/compare-builds.sh OLD_BINARY NEW_BINARY [CORPUS_DIR]   (default: Fixtures/corpus)
#
# NEW_ARGS: options added to every run of the new binary — what turns off a deliberate change of behaviour
# (NEW_ARGS="--color-management off": the build before colour management converted samples as stored). The
# report comparison takes the old build's fields only (a new build may add columns).
set -u
read -r -a new_args <<< "${NEW_ARGS:-}"
old=$1 new=$2
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${3:-$here/Fixtures/corpus}
work=$(mktemp -d "${TMPDIR:-/tmp}/yuvconv-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t files < <(find "$corpus" -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \) | sort)
pass=0 fail=0
declare -A kind_pass kind_fail
# One conversion with each binary; equal when both succeed with the same bytes or both fail alike.
both() {   # kind, args... (the output is $work/o.* for each binary)
  local kind=$1; shift
  local a b sa sb
  "$old" "$@" -o "$work/a.$ext" -q --force 2>/dev/null; sa=$?
  "$new" "$@" "${new_args[@]}" -o "$work/b.$ext" -q --force 2>/dev/null; sb=$?
  a=$( [ $sa = 0 ] && sha256sum < "$work/a.$ext" ); b=$( [ $sb = 0 ] && sha256sum < "$work/b.$ext" )
  rm -f "$work/a.$ext" "$work/b.$ext"
  if [ $sa = $sb ] && [ "$a" = "$b" ]; then
    pass=$((pass + 1)); kind_pass[$kind]=$(( ${kind_pass[$kind]:-0} + 1 ))
  else
    fail=$((fail + 1)); kind_fail[$kind]=$(( ${kind_fail[$kind]:-0} + 1 ))
    echo "DIFF $kind: $* (exit $sa vs $sb)"
  fi
}
for f in "${files[@]}"; do
  for m in bt709 bt601 bt2020; do for r in full limited; do
    for ext in nv12 nv21 yuv yv12; do both "raw $ext" "$f" --matrix $m --range $r; done
  done; done
  ext=y4m; both y4m "$f"
  ext=png; both png "$f"
  ext=jpg; both jpeg "$f"
  ext=nv12; both "rgb route" "$f" --jpeg-path rgb --range limited
done
# The JSON report's fields of the old build, without those that measure time or memory.
same_report() {   # old JSON lines file, new JSON lines file
  python3 - "$1" "$2" <<'PY'
import json, re, sys
timing = re.compile(r"^(peak_rss_bytes|conversion_buffers_bytes|.*_ms|.*seconds)$")
old = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
new = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
same = len(old) == len(new) and all(all(k in n and n[k] == v for k, v in o.items() if not timing.match(k)) for o, n in zip(old, new))
sys.exit(0 if same else 1)
PY
}
for f in "${files[@]:0:200}"; do
  "$old" report "$f" --report json > "$work/a.jsonl" 2>/dev/null
  "$new" report "$f" "${new_args[@]}" --report json > "$work/b.jsonl" 2>/dev/null
  if same_report "$work/a.jsonl" "$work/b.jsonl"; then pass=$((pass + 1)); kind_pass[report]=$(( ${kind_pass[report]:-0} + 1 ));
  else fail=$((fail + 1)); kind_fail[report]=$(( ${kind_fail[report]:-0} + 1 )); echo "DIFF report: $f"; fi
done
echo "| output | identical | different |"
echo "| --- | --- | --- |"
while IFS= read -r k; do
  echo "| $k | ${kind_pass[$k]:-0} | ${kind_fail[$k]:-0} |"
done < <(printf '%s\n' "${!kind_pass[@]}" "${!kind_fail[@]}" | sort -u)
echo "${#files[@]} images"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
