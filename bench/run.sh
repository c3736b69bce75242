#!/bin/sh
# Usage: sh bench/run.sh [--halide14] [--quick]
# Builds Lumen with the benchmarks (Release), runs them and writes results.md, results.csv and
# ratios.svg: on the current Halide (the project venv, scripts/deps.sh) into bench/, with
# --halide14 on Debian's Halide 14 into bench/halide14/. Needs libopencv-dev.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
PATH="$root/.venv/bin:$PATH"
export PATH
build="$root/build/bench" out="$root/bench"
halide="-DHalide_DIR=$root/.venv/halide/lib64/cmake/Halide"
if [ "${1:-}" = --halide14 ]; then
    shift
    build="$root/build/bench-halide14" out="$root/bench/halide14"
    halide="-DHalide_DIR=/usr/lib/x86_64-linux-gnu/cmake/Halide14"
fi
mkdir -p "$out"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLUMEN_BUILD_BENCH=ON \
      -DBUILD_TESTING=OFF -DLUMEN_BUILD_CLI=OFF "$halide" >/dev/null
cmake --build "$build" --target lumen_bench lumen_shared lumen_static
# Idle OpenMP threads (plain C) must not spin while Lumen or OpenCV run.
OMP_WAIT_POLICY=passive "$build/bench/lumen_bench" "$build/bench/raw.csv" "$@"
python3 "$root/bench/report.py" "$build" "$out"
echo "wrote $out/results.md, results.csv, ratios.svg"
