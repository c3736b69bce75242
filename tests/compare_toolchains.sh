#!/bin/sh
# Usage: compare_toolchains.sh LUMEN_A LUMEN_B WORKDIR
# Runs `lumen demo` (every pipeline and a chain) with two builds of the lumen CLI, e.g. one on
# the current Halide and one on Halide 14, on every CPU variant and on OpenCL, and fails unless
# every output image is byte-identical. (Each build is also checked at tolerance 0 against the
# plain-C references by its own ctest; this shows the two toolchains agree with each other.)
set -eu
a=$1 b=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
status=0 n=0
for run in cpu:baseline cpu:sse41 cpu:avx2 cpu:avx512 opencl:avx512; do
    backend=${run%%:*} isa=${run#*:}
    for side in a b; do
        eval exe=\$$side
        LUMEN_BACKEND=$backend LUMEN_MAX_CPU_ISA=$isa "$exe" demo "$work/$run.$side" >/dev/null
    done
    for f in "$work/$run.a"/*.png; do
        n=$((n + 1))
        cmp -s "$f" "$work/$run.b/${f##*/}" || { echo "DIFFERENT: $run ${f##*/}"; status=1; }
    done
done
echo "$n images compared ($("$a" info | head -1) vs $("$b" info | head -1)): \
$([ $status -eq 0 ] && echo identical || echo DIFFERENT)"
exit $status
