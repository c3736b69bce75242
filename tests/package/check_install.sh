#!/bin/sh
# Usage: check_install.sh PREFIX WORK_DIR GENERATOR
# Checks an installed tree: headers compile alone (C99 pedantic, C++17), the exported symbols of
# liblumen.so are exactly the functions the headers declare, and wrong find_package requests fail
# with a clear message.
set -eu
prefix=$1 work=$2 gen=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

for h in "$prefix"/include/lumen/*.h; do
    printf '#include <lumen/%s>\nint main(void) { return 0; }\n' "$(basename "$h")" >"$work/h.c"
    cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$prefix/include" -c "$work/h.c" -o "$work/h.o" ||
        fail "$h as C99"
    c++ -std=c++17 -Wall -Wextra -pedantic -Werror -x c++ -I"$prefix/include" -c "$work/h.c" \
        -o "$work/h.o" || fail "$h as C++17"
done
echo "ok: headers compile alone as C99 and C++17"

# Declarations start a line with LUMEN_API and name the function before the first '('.
declared=$(grep -h '^LUMEN_API' "$prefix"/include/lumen/*.h | sed 's/(.*//' | awk '{print $NF}' |
           tr -d '*' | sort)
exported=$(nm -D --defined-only "$prefix"/lib/liblumen.so | awk '$2 == "T" {print $3}' |
           sed 's/@.*//' | sort)
[ -n "$declared" ] || fail "no declarations found"
if [ "$declared" != "$exported" ]; then
    echo "declared but not exported / exported but not declared:"
    echo "$declared" >"$work/declared"; echo "$exported" >"$work/exported"
    diff "$work/declared" "$work/exported" || true
    fail "exported symbols differ from the headers"
fi
echo "ok: $(echo "$exported" | wc -l) exported symbols = the header's functions"

# Wrong requests: must fail at configure time with the expected message.
expect_fail() { # name message cmake-lines
    d=$work/$1; mkdir -p "$d"
    printf 'cmake_minimum_required(VERSION 3.22)\nproject(p LANGUAGES C)\n%s\n' "$3" >"$d/CMakeLists.txt"
    if cmake -S "$d" -B "$d/b" -G "$gen" -DCMAKE_PREFIX_PATH="$prefix" >"$d/log" 2>&1; then
        fail "$1 configured"
    fi
    grep -q "$2" "$d/log" || { cat "$d/log"; fail "$1: no message '$2'"; }
    echo "ok: $1 fails with '$2'"
}
expect_fail version2 'requested version "2"' "find_package(Lumen 2 REQUIRED)"
expect_fail both "mutually exclusive" "find_package(Lumen 1 REQUIRED COMPONENTS shared static)"
expect_fail unknown "no component 'gpu'" "find_package(Lumen 1 REQUIRED COMPONENTS gpu)"
