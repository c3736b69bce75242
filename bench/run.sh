#!/bin/sh
# Usage: sh bench/run.sh [--quick]
# Builds Lumen with the benchmarks in build/bench (Release), runs them and writes
# bench/results.md, bench/results.csv and bench/ratios.svg. Needs libopencv-dev.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/bench"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLUMEN_BUILD_BENCH=ON \
      -DBUILD_TESTING=OFF -DLUMEN_BUILD_CLI=OFF >/dev/null
cmake --build "$build" --target lumen_bench lumen_shared lumen_static
# Idle OpenMP threads (plain C) must not spin while Lumen or OpenCV run.
OMP_WAIT_POLICY=passive "$build/bench/lumen_bench" "$build/bench/raw.csv" "$@"
python3 "$root/bench/report.py" "$build" "$root/bench"
echo "wrote $root/bench/results.md, results.csv, ratios.svg"
