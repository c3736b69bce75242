#!/bin/sh
# Usage: check_zip.sh SOURCE_DIR WORK_DIR TOOLCHAIN_FILE GENERATOR OBJDUMP ZIP
# Unpacks the Windows ZIP as a user would, then cross-builds its installed examples/hello against
# it with find_package(Lumen), shared and static, and runs it under wine (the toolchain's emulator).
set -eu
src=$1 work=$2 toolchain=$3 gen=$4 objdump=$5 zip=$6
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
(cd "$work" && cmake -E tar xf "$zip")
prefix=$(echo "$work"/Lumen-*)
for f in include/lumen/lumen.h share/doc/lumen/examples/hello/hello.c bin/lumen.dll lib/liblumen.dll.a lib/liblumen_static.a \
         lib/cmake/Lumen/LumenConfig.cmake lib/cmake/Lumen/LumenConfigVersion.cmake; do
    [ -f "$prefix/$f" ] || fail "no $f in $zip"
done
export LUMEN_WINE_DLL_DIRS="$prefix/bin"  # where a user's PATH would find lumen.dll
for flavour in shared static; do
    b=$work/hello-$flavour
    ctest --build-and-test "$prefix/share/doc/lumen/examples/hello" "$b" --build-generator "$gen" \
        --build-options "-DCMAKE_TOOLCHAIN_FILE=$toolchain" "-DCMAKE_PREFIX_PATH=$prefix" \
                        "-DLUMEN_COMPONENT=$flavour" \
        --test-command ctest --output-on-failure >"$b.log" 2>&1 || { cat "$b.log"; fail "hello ($flavour)"; }
    if "$objdump" -p "$b/hello.exe" | grep -qi 'DLL Name: lumen.dll'; then needs=shared
    else needs=static; fi
    [ "$needs" = "$flavour" ] || fail "hello built for $flavour links like $needs"
    grep -q "100% tests passed" "$b.log" || fail "hello ($flavour) did not run"
    echo "ok: hello.exe ($flavour) built with find_package(Lumen) against the ZIP, ran under wine"
done
