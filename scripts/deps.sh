#!/bin/sh
# Installs what Lumen needs to build, package and test (idempotent; sudo when not root):
#   1. Debian 12 packages (only the missing ones);
#   2. the project virtual environment .venv/ with the pinned PyPI toolchain of
#      scripts/requirements.txt (Halide, CMake, Ninja), and .venv/halide -> the Halide wheel's
#      install directory (the CMake presets' CMAKE_PREFIX_PATH).
# The other scripts then put .venv/bin first on PATH.
set -eu
cd "$(dirname "$0")/.."
pkgs="cmake ninja-build gcc g++ make pkg-config binutils dpkg-dev file
      python3 python3-venv
      libhalide14-0-dev libjpeg-dev libpng-dev pocl-opencl-icd ocl-icd-opencl-dev
      clang libclang-rt-14-dev valgrind abigail-tools doxygen lintian man-db
      mingw-w64 wine64 nsis"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "Installing:$missing"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
fi

venv=.venv
req=scripts/requirements.txt
if ! cmp -s "$req" "$venv/lumen-requirements.txt"; then
    [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
    echo "Installing into $venv: $(grep -v '^#' "$req" | tr '\n' ' ')"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$req"
    # The wheel's files without importing it (its Python module would need numpy).
    dir=$("$venv/bin/python" -c "import importlib.util as u, os
print(os.path.relpath(u.find_spec('halide').submodule_search_locations[0], '$venv'))")
    ln -sfn "$dir" "$venv/halide"
    cp "$req" "$venv/lumen-requirements.txt"
fi
