#!/bin/sh
# The tests: install dependencies, then
#   1. release build: every ctest test (labels unit, device, cli, package, valgrind);
#   2. sanitize build (clang ASan + UBSan): unit, device and cli tests again, and the fuzzer for
#      LUMEN_FUZZ_SECONDS (default 60);
#   3. Windows cross build (mingw-w64, generators from build 1): its tests under wine (label
#      windows), the ZIP and the NSIS installer.
# Extra arguments go to both ctest runs (e.g. -L unit).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
PATH="$(pwd)/.venv/bin:$PATH"  # CMake, Ninja (and Halide) from the project venv
export PATH
cmake --preset release
cmake --build --preset release
ctest --preset release "$@"
cmake --preset sanitize -DLUMEN_FUZZ_SECONDS="${LUMEN_FUZZ_SECONDS:-60}"
cmake --build --preset sanitize
ctest --preset sanitize "$@"
cmake --preset windows
cmake --build --preset windows
ctest --preset windows "$@"
