#!/bin/sh
# Installs what Lumen needs to build, package and test, from Debian 12 (idempotent: only missing
# packages are installed; uses sudo when not root).
set -eu
pkgs="cmake ninja-build gcc g++ make pkg-config binutils dpkg-dev file
      libhalide14-0-dev pocl-opencl-icd ocl-icd-opencl-dev libpng-dev
      clang libclang-rt-14-dev valgrind
      mingw-w64 wine64 nsis"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "Installing:$missing"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
