#!/usr/bin/env bash
# make test-corpus: every image of the shared corpus (../shared/corpus, or the folder given) against its
# expected outcome in MANIFEST.txt — ok converts (exit 0, full-size output), error fails (exit 1, a message
# naming the file, no output, no temporary file). Prints the mismatches and a closing count line.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$here/../shared/corpus}
yuvconv=$here/.build/release/yuvconv
[ -f "$corpus/MANIFEST.txt" ] || { echo "no corpus at $corpus (give its folder)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
while IFS=$'\t' read -r path size sha expect rest; do
  [[ "$path" == \#* || "$path" == path || -z "$path" ]] && continue
  out=$work/out.nv12
  rm -f "$out"
  timeout 120 "$yuvconv" "$corpus/$path" -o "$out" -q 2>"$work/err"; rc=$?
  ok=1
  if [ "$expect" = ok ]; then
    [ $rc -eq 0 ] && [ -s "$out" ] || ok=0
  else
    [ $rc -eq 1 ] && [ ! -e "$out" ] && grep -qF "$corpus/$path: " "$work/err" || ok=0
  fi
  if ls -A "$work" | grep -q yuvconv-; then ok=0; echo "temporary file left by $path"; fi
  if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "MISMATCH $path: expected $expect, exit $rc: $(head -c 200 "$work/err")"; fi
done < "$corpus/MANIFEST.txt"
echo "corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
