#!/bin/sh
# make test-cpus: the default build on CPUs this machine is not, emulated by qemu-user — plain x86-64
# (qemu64), SSE4.2 (Nehalem) and AVX2 without AVX-512 (Haswell). On each, `--version` must name the tier
# cpuid allows, and every conversion must give this machine's bytes (any tier's rows, the same bytes).
# The conversions run with colour management off: qemu 7.2 (Debian 12's) mis-emulates AVX2's vpgatherdd in
# some register combinations (a plain intrinsic loop gets wrong elements under `-cpu Haswell` and right ones
# natively), and the colour rows' AVX2 copy gathers. Those rows are held to the same bytes on every tier the
# machine itself runs, for all 2^24 inputs, by ColourRowsTests.
set -eu
bin=${1:-.build/release/yuvconv}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
inputs="Fixtures/corpus/photos/rocket.jpg Fixtures/corpus/jpeg/libjpeg-turbo/testimgint.jpg
Fixtures/corpus/photos/kodim23.png Fixtures/corpus/pngsuite/basn6a08.png"
fail=0
for cpu in qemu64:baseline Nehalem:baseline Haswell:avx2; do
    model=${cpu%%:*} want=${cpu##*:}
    got=$(qemu-x86_64 -cpu "$model" "$bin" --version 2>/dev/null | sed -n 's/^kernels: \([a-z0-9]*\).*/\1/p')
    if [ "$got" = "$want" ]; then echo "ok   $model: kernels $got"; else echo "FAIL $model: kernels '$got', want $want"; fail=1; fi
    for f in $inputs; do
        for spec in "bt709 full nv12" "bt601 limited yuv420p" "bt2020 limited nv21"; do
            set -- $spec
            name=$(basename "$f")-$1-$2-$3
            [ -e "$out/native-$name.yuv" ] || "$bin" "$f" -o "$out/native-$name.yuv" -q --color-management off --matrix "$1" --range "$2" -f "$3"
            qemu-x86_64 -cpu "$model" "$bin" "$f" -o "$out/$model-$name.yuv" -q --color-management off --matrix "$1" --range "$2" -f "$3" 2>/dev/null
            if cmp -s "$out/native-$name.yuv" "$out/$model-$name.yuv"; then :; else echo "FAIL $model: $name differs"; fail=1; fi
        done
    done
    echo "ok   $model: $(echo $inputs | wc -w) inputs x 3 conversions, this machine's bytes"
done
exit $fail
