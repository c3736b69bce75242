#!/bin/sh
# Usage: check_package.sh SOURCE_DIR WORK_DIR GENERATOR PACKAGE [PACKAGE...]
# Installs the package(s) into a fresh prefix the way a user would, then builds and runs the
# installed examples (share/doc/lumen/examples) against it (shared and static, CMake and make +
# pkg-config), checks what they link, moves the prefix and does it again. Debian packages: the
# multiarch libdir, each package's copyright and changelog, Depends.
set -eu
src=$1 work=$2 gen=$3 desc=""
shift 3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

case $1 in
*.tar.gz) tar -xzf "$1" -C "$work"; prefix=$(echo "$work"/Lumen-*) ;;
*.zip) (cd "$work" && cmake -E tar xf "$1"); prefix=$(echo "$work"/Lumen-*) ;;
*.sh) prefix=$work/prefix; mkdir -p "$prefix"
      sh "$1" --prefix="$prefix" --skip-license --exclude-subdir >/dev/null ;;
*.deb)
    for deb in "$@"; do
        dpkg-deb -x "$deb" "$work/root"
        dpkg-deb -f "$deb" Package Version Depends Section Description Homepage
    done
    for deb in "$@"; do
        case $(dpkg-deb -f "$deb" Package) in
        liblumen-dev) dpkg-deb -f "$deb" Depends | grep -q "liblumen1 (= " ||
                          fail "liblumen-dev must depend on liblumen1 of the same version" ;;
        liblumen1) dpkg-deb -f "$deb" Depends | grep -q "libc6" || fail "no shlibdeps Depends"
                   [ "$(dpkg-deb -f "$deb" Section)" = libs ] || fail "liblumen1 Section" ;;
        liblumen-io1) dpkg-deb -f "$deb" Depends | grep -q "libpng" || fail "liblumen-io1: no libpng"
                      dpkg-deb -f "$deb" Depends | grep -q "libjpeg" || fail "liblumen-io1: no libjpeg" ;;
        liblumen-io-dev) dpkg-deb -f "$deb" Depends | grep -q "liblumen-io1 (= " ||
                             fail "liblumen-io-dev must depend on liblumen-io1 of the same version" ;;
        lumen-tools) dpkg-deb -f "$deb" Depends | grep -q "liblumen1 (= " ||
                         fail "lumen-tools must depend on liblumen1 of the same version" ;;
        *) fail "unexpected package in $deb" ;;
        esac
        p=$(dpkg-deb -f "$deb" Package)
        [ "$(dpkg-deb -f "$deb" Description | head -1)" != "$desc" ] || fail "$p: same Description"
        desc=$(dpkg-deb -f "$deb" Description | head -1)
        grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
            "$work/root/usr/share/doc/$p/copyright" || fail "$p: no DEP-5 copyright file"
        gzip -dc "$work/root/usr/share/doc/$p/changelog.gz" | head -1 |
            grep -q "^lumen ($(dpkg-deb -f "$deb" Version))" || fail "$p: changelog is not for this version"
    done
    prefix=$work/root/usr
    export LD_LIBRARY_PATH="$prefix/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
    [ -f "$LD_LIBRARY_PATH/liblumen.so.1" ] || fail "no liblumen.so.1 in $LD_LIBRARY_PATH"
    ! [ -e "$prefix/lib/liblumen.so.1" ] || fail "liblumen.so.1 outside the multiarch libdir" ;;
*) fail "unknown package kind: $1" ;;
esac
[ -f "$prefix/include/lumen/lumen.h" ] || fail "no lumen.h under $prefix"
case $1 in
*.deb) ;;
*) [ -f "$prefix/share/doc/lumen/THIRD-PARTY-NOTICES.txt" ] || fail "no Halide notice" ;;
esac
examples=$prefix/share/doc/lumen/examples
[ -f "$examples/hello/hello.c" ] || fail "no examples in $examples"
pcdir=$(dirname "$(find "$prefix" -name lumen.pc | head -1)")

# The CLI runs from the package as installed (its RPATH is relative to itself).
if [ -e "$prefix/bin/lumen" ]; then
    "$prefix/bin/lumen" info >"$work/info.txt" || fail "bin/lumen info"
    "$prefix/bin/lumen" demo "$work/demo" >/dev/null || fail "bin/lumen demo"
    echo "ok: bin/lumen info and demo"
elif [ "${LUMEN_EXPECT_CLI:-1}" = 1 ]; then
    fail "no bin/lumen in the package"
fi

# Builds and runs one example; checks whether it needs liblumen.so. hello asks for the flavour as
# a find_package component, chain through Lumen_SHARED_LIBS.
consume() { # example flavour prefix
    b=$work/build-$1-$2-$(echo "$3" | cksum | cut -d" " -f1)
    choose="-DLUMEN_COMPONENT=$2"
    if [ "$1" = chain ]; then
        choose=-DLumen_SHARED_LIBS=ON; [ "$2" = static ] && choose=-DLumen_SHARED_LIBS=OFF
    fi
    ctest --build-and-test "$examples/$1" "$b" --build-generator "$gen" \
        --build-options "-DCMAKE_PREFIX_PATH=$3" "$choose" \
        --test-command ctest --output-on-failure >"$b.log" 2>&1 || { cat "$b.log"; fail "$1 ($2)"; }
    if readelf -d "$b/$1" | grep -q 'NEEDED.*liblumen\.so\.1'; then needs=shared; else needs=static; fi
    [ "$needs" = "$2" ] || fail "$1 built for $2 links like $needs"
    echo "ok: $1 ($2) against $3"
}
examples_run="hello chain"
[ ! -e "$examples/photo/photo.c" ] || [ -z "$(find "$prefix" -name 'liblumen_io.*')" ] ||
    examples_run="hello chain photo"
for flavour in shared static; do
    for ex in $examples_run; do consume $ex $flavour "$prefix"; done
done
if [ -n "${LUMEN_CUDA_ROOT:-}" ]; then  # builds; runs where a GPU is (77 = skip)
    b=$work/build-cuda-interop
    ctest --build-and-test "$examples/cuda-interop" "$b" --build-generator "$gen" \
        --build-options "-DCMAKE_PREFIX_PATH=$prefix" "-DCUDAToolkit_ROOT=$LUMEN_CUDA_ROOT" \
        --test-command ctest --output-on-failure >"$b.log" 2>&1 || { cat "$b.log"; fail "cuda-interop"; }
    echo "ok: cuda-interop against $prefix ($(grep -o 'tests passed.*\|Skipped' "$b.log" | head -1))"
fi
case $examples_run in *photo*) sh "$(dirname "$0")/check_quickstart.sh" "$prefix" "$work/quickstart" "$gen" ;; esac

# make + pkg-config, both flavours.
for pc in lumen lumen-static; do
    mkdir -p "$work/make-$pc" && cp "$examples/hello/hello.c" "$examples/hello/Makefile" "$work/make-$pc"
    PKG_CONFIG_PATH="$pcdir" make -s -C "$work/make-$pc" PKG=$pc >/dev/null ||
        fail "make with $pc.pc"
    "$work/make-$pc/hello" >/dev/null || fail "hello built with $pc.pc"
    echo "ok: hello (make, $pc.pc)"
done

# Relocatable: move the whole tree, build and run again.
case $1 in *.deb) exit 0 ;; esac  # a system package is not moved
moved=$work/moved/$(basename "$prefix")
mkdir -p "$work/moved" && mv "$prefix" "$moved"
examples=$moved/share/doc/lumen/examples
for flavour in shared static; do consume hello $flavour "$moved"; done
if [ -e "$moved/bin/lumen" ]; then
    "$moved/bin/lumen" info >/dev/null || fail "bin/lumen after moving the prefix"
    echo "ok: bin/lumen after moving the prefix"
fi
