#!/bin/sh
# Usage: check_nsis.sh WINE_SH INSTALLER
# Installs the NSIS installer silently under wine (/S /D=...), checks the installed tree, runs
# the uninstaller silently and checks that it removed everything.
set -eu
wine="sh $1" exe=$2
: "${WINEPREFIX:=${TMPDIR:-/tmp}/lumen-wine-$(id -u)}"  # as wine.sh
export WINEPREFIX
fail() { echo "FAIL: $*"; exit 1; }
name=lumen-nsis-test-$$
dir=$WINEPREFIX/drive_c/$name
rm -rf "$dir"
# The installer may hand work to other wine processes, and NSIS uninstallers re-run themselves
# from a temporary copy: poll, up to 60 s, until TEST holds.
wait_for() { i=0; while ! eval "$1" && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done; eval "$1"; }
$wine "$exe" /S "/D=C:\\$name"
for f in include/lumen/lumen.h bin/lumen.dll lib/liblumen.dll.a lib/liblumen_static.a \
         lib/cmake/Lumen/LumenConfig.cmake Uninstall.exe; do
    wait_for "[ -f '$dir/$f' ]" || fail "installed tree has no $f"
done
echo "ok: installed into C:\\$name: $(find "$dir" -type f | wc -l) files"
$wine "$dir/Uninstall.exe" /S
wait_for "[ ! -e '$dir' ]" || { find "$dir" | head; fail "the uninstaller left C:\\$name"; }
echo "ok: the uninstaller removed C:\\$name"
