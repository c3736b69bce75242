#!/bin/sh
# Usage: check_install.sh PREFIX WORK_DIR GENERATOR
# Checks an installed tree: headers compile alone (C99 pedantic, C++17), the exported symbols of
# liblumen.so and liblumen_io.so are exactly the functions the headers declare, the manual pages
# and installed docs, and wrong find_package requests fail with a clear message.
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

# Declarations start a line with LUMEN_API (LUMEN_IO_API) and name the function before the first
# '('. liblumen.so exports them and lumen__set_error (internal, for liblumen_io); liblumen_io.so
# exports lumen_io.h's.
check_exports() { # library api-macro [extra symbol]
    declared=$( (grep -h "^$2 " "$prefix"/include/lumen/*.h | sed 's/(.*//' | awk '{print $NF}' |
                 tr -d '*'; [ -z "${3:-}" ] || echo "$3") | sort)
    exported=$(nm -D --defined-only "$prefix/lib/$1" | awk '$2 == "T" {print $3}' | sed 's/@.*//' |
               sort)
    [ -n "$declared" ] || fail "no declarations of $2 found"
    if [ "$declared" != "$exported" ]; then
        echo "declared but not exported / exported but not declared:"
        echo "$declared" >"$work/declared"; echo "$exported" >"$work/exported"
        diff "$work/declared" "$work/exported" || true
        fail "$1: exported symbols differ from the headers"
    fi
    echo "ok: $1: $(echo "$exported" | wc -l) exported symbols = the header's functions"
}
check_exports liblumen.so LUMEN_API lumen__set_error
[ ! -e "$prefix/lib/liblumen_io.so" ] || check_exports liblumen_io.so LUMEN_IO_API

# Manual pages: lexgrog finds each NAME line, man renders them without a warning.
pages=$(ls "$prefix"/share/man/man*/lumen.* 2>/dev/null || true)
[ -n "$pages" ] || fail "no manual pages under $prefix/share/man"
for page in $pages; do
    lexgrog "$page" | grep -q ': "lumen - ' || fail "lexgrog: no NAME line in $page"
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || { echo "$warnings"; fail "man warns about $page"; }
    echo "ok: $page ($(lexgrog "$page" | sed 's/.*: "//; s/"$//'))"
done

# The installed docs: the README names only files that are installed; the API reference exists.
readme=$prefix/share/doc/lumen/README.md
[ -f "$readme" ] || fail "no $readme"
! grep -n 'scripts/\|docs/\|tests/\|sdk/\|bench/\|source-only' "$readme" ||
    fail "the installed README names files of the source tree"
for f in $(grep -o '`share/[^`]*`\|`include/[^` ]*`\|`bin/[^`]*`' "$readme" | tr -d '`' | grep -v '<\|\.dll$\|\.exe$' | sort -u); do
    ls -d "$prefix/$f" >/dev/null 2>&1 || fail "README names $f, not installed"
done
echo "ok: every share/, include/, bin/ path the README names is installed"
if [ -d "$prefix/share/doc/lumen/html" ]; then
    for fn in $(grep -ho '^LUMEN_[A-Z_]*API [^(]*' "$prefix"/include/lumen/*.h | awk '{print $NF}' | tr -d '*'); do
        grep -rq "$fn" "$prefix/share/doc/lumen/html" || fail "API reference: no $fn"
    done
    echo "ok: the API reference names every function"
elif [ "${LUMEN_EXPECT_DOCS:-1}" = 1 ]; then
    fail "no API reference in share/doc/lumen/html"
fi

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
