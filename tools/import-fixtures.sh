#!/usr/bin/env bash
# Copies the test images the suite needs from ../shared/corpus into Fixtures/corpus, with their READMEs
# (origin and licence) and the matching MANIFEST lines, so the suite runs on a fresh clone without ../shared.
# Chosen: all of PngSuite, every JPEG and extra PNG under 40 kB, and two photos (rocket.jpg for the demo,
# kodim23.png as a real photo for exactness). Re-run after the corpus changes; then run tools/make-golden.py.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$here/../shared/corpus}
dst=$here/Fixtures/corpus
rm -rf "$dst"
mkdir -p "$dst"
{
  grep '^#' "$src/MANIFEST.txt"
  awk -F'\t' '$1 == "path"' "$src/MANIFEST.txt"
  awk -F'\t' '$1 !~ /^#/ && $1 != "path" && ($1 ~ /^pngsuite\// || (($1 ~ /^jpeg\// || $1 ~ /^png-extra\//) && $2 < 40000) || $1 == "photos/rocket.jpg" || $1 == "photos/kodim23.png")' "$src/MANIFEST.txt"
} > "$dst/MANIFEST.txt"
awk -F'\t' '$1 !~ /^#/ && $1 != "path" {print $1}' "$dst/MANIFEST.txt" | while IFS= read -r f; do
  mkdir -p "$dst/$(dirname "$f")"
  cp "$src/$f" "$dst/$f"
done
cp "$src/README.txt" "$dst/README.txt"
for d in jpeg photos png-extra pngsuite; do cp "$src/$d/README.txt" "$dst/$d/README.txt"; done
chmod -R u+w "$dst"
echo "copied $(awk -F'\t' '$1 !~ /^#/ && $1 != "path"' "$dst/MANIFEST.txt" | wc -l) images to $dst"
