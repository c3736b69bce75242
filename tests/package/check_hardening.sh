#!/bin/sh
# Usage: check_hardening.sh PREFIX BUILD_DIR
# Every installed ELF file (lib/liblumen.so*, bin/*): full RELRO (GNU_RELRO + BIND_NOW), a
# non-executable stack, stack-protector code, and no RPATH/RUNPATH into the build tree.
set -u
prefix=$1 build=$2
status=0
fail() { echo "FAIL: $*"; status=1; }
files=$(ls "$prefix"/lib/liblumen.so.*.*.* "$prefix"/lib/liblumen_io.so.*.*.* "$prefix"/bin/* 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no installed ELF files under $prefix"; exit 1; }
for f in $files; do
    h=$(readelf -lW "$f")
    d=$(readelf -dW "$f")
    echo "$h" | grep -q GNU_RELRO || fail "$f: no GNU_RELRO segment"
    echo "$d" | grep -Eq 'BIND_NOW|FLAGS_1.*NOW' || fail "$f: not linked with -z now"
    stack=$(echo "$h" | grep GNU_STACK)
    [ -n "$stack" ] || fail "$f: no GNU_STACK header (executable stack by default)"
    echo "$stack" | grep -q 'RWE' && fail "$f: executable stack"
    nm -D "$f" | grep -q '__stack_chk_fail' || fail "$f: no stack protector"
    paths=$(echo "$d" | grep -E 'RPATH|RUNPATH' || true)
    case $paths in *"$build"*) fail "$f: RPATH/RUNPATH into the build tree: $paths" ;; esac
    echo "checked $f${paths:+ (${paths##*: })}"
done
[ $status -eq 0 ] && echo "hardening: ok"
exit $status
