#!/bin/sh
# The tests: install dependencies, build, run every ctest test (labels: unit, package).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release "$@"
