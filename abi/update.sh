#!/bin/sh
# Rewrites abi/liblumen.abi from the current tree. Only for a deliberate ABI break, which needs a
# new major version (PROJECT_VERSION in CMakeLists.txt, SOVERSION, and a new version node in
# sdk/src/lumen.map); additions need no new baseline. Usage: abi/update.sh [preset, default release]
set -eu
cd "$(dirname "$0")/.."
preset=${1:-release}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target lumen_abi_baseline

git --no-pager diff --stat -- abi/liblumen.abi
