#!/bin/sh
# Usage: check_quickstart.sh PREFIX WORK_DIR GENERATOR
# The installed README's quick start, as written: its C program (which must be the installed
# examples/photo/photo.c) and CMakeLists.txt, its three commands with PREFIX for the example path,
# run on the example's sample image. Also the one-line pkg-config build.
set -eu
prefix=$1 work=$2 gen=$3
fail() { echo "FAIL: $*"; exit 1; }
readme=$prefix/share/doc/lumen/README.md
rm -rf "$work" && mkdir -p "$work"
quick=$(sed -n '/^## Quick start/,/^## /p' "$readme")
block() { printf '%s\n' "$quick" | awk -v lang="$1" '$0 == "```" lang { on = 1; next } on && /^```/ { exit } on'; }
block c >"$work/photo.c"
block cmake >"$work/CMakeLists.txt"
block sh >"$work/commands.sh"
cmp -s "$work/photo.c" "$prefix/share/doc/lumen/examples/photo/photo.c" ||
    fail "the README's program is not examples/photo/photo.c"
[ "$(wc -l <"$work/photo.c")" -le 25 ] || fail "the quick start program is over 25 lines"
example=$(sed -n 's/.*-DCMAKE_PREFIX_PATH=\([^ ]*\).*/\1/p' "$work/commands.sh")
[ -n "$example" ] || fail "no -DCMAKE_PREFIX_PATH in the quick start's commands"
sed -i "s|$example|$prefix|; s|in\.png|$prefix/share/doc/lumen/examples/photo/sample.png|" \
    "$work/commands.sh"
sed -i "s|^cmake -S . -B build|cmake -S . -B build -G \"$gen\"|" "$work/commands.sh"
(cd "$work" && sh -e commands.sh) >"$work/log" 2>&1 || { cat "$work/log"; fail "quick start commands"; }
head -c 3 "$work/out.jpg" | od -An -tx1 | grep -q 'ff d8 ff' || fail "out.jpg is not a JPEG"
echo "ok: the README's quick start builds and runs as written against $prefix"
line=$(printf '%s\n' "$quick" | sed -n 's/.*`\(cc photo\.c .*-o photo\)`.*/\1/p')
[ -n "$line" ] || fail "no pkg-config line in the quick start"
(cd "$work" && PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name lumen-io.pc)") sh -c "$line") ||
    fail "$line"
echo "ok: $line"
# The same program on the static libraries, through lumen-io-static.pc: runs with no liblumen*.so.
(cd "$work" && PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name lumen-io.pc)") sh -c \
    'cc photo.c $(pkg-config --cflags --libs lumen-io-static) -o photo-static' &&
    ./photo-static "$prefix/share/doc/lumen/examples/photo/sample.png" static.png) ||
    fail "photo with lumen-io-static.pc"
! ldd "$work/photo-static" | grep -q liblumen || fail "photo-static needs a liblumen*.so"
echo "ok: photo built with lumen-io-static.pc runs without liblumen*.so"
