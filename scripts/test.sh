#!/bin/sh
# The tests: install dependencies, then
#   1. release build on the current Halide (.venv): every ctest test (labels unit, device, cli,
#      package, valgrind, seed, abi);
#   2. halide14 build on Debian's Halide 14: unit and device tests, then every pipeline's output
#      compared byte for byte with build 1's (tests/compare_toolchains.sh; the GPU bilateral
#      within 1 level);
#   3. sanitize build (clang ASan + UBSan): unit, device and cli tests again, and the fuzzer for
#      LUMEN_FUZZ_SECONDS (default 60);
#   4. tsan build (clang ThreadSanitizer): the CPU-path tests (tests/tsan.supp);
#   5. Windows cross build (mingw-w64, generators from build 1): its tests under wine (label
#      windows), the ZIP and the NSIS installer.
# `--quick` (first argument): only the release build and its unit tests (about 2 minutes once
# built), for contributors. Other arguments go to every ctest run (e.g. -L unit).
set -eu
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
sh scripts/deps.sh
PATH="$(pwd)/.venv/bin:$PATH"  # CMake, Ninja (and Halide) from the project venv
export PATH
if [ $quick = 1 ]; then
    cmake --preset release
    cmake --build --preset release
    exec ctest --preset release -L unit "$@"
fi
for preset in release halide14; do
    cmake --preset $preset
    cmake --build --preset $preset
    ctest --preset $preset "$@"
done
sh tests/compare_toolchains.sh build/release/cli/lumen build/halide14/cli/lumen \
    build/halide14/compare
cmake --preset sanitize -DLUMEN_FUZZ_SECONDS="${LUMEN_FUZZ_SECONDS:-60}"
cmake --build --preset sanitize
ctest --preset sanitize "$@"
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan "$@"
cmake --preset windows
cmake --build --preset windows
ctest --preset windows "$@"
