#!/bin/sh
# The seed matrix: builds and runs the six link configurations of mylib (see CMakeLists.txt) on
# each platform, and compares every row's outcome with expected.txt.
#
#   sh tests/seed/run.sh <platforms> <workdir>
#     platforms  linux, windows or linux,windows
#     workdir    build folder (made if missing; reused: the generators and wine prefix are kept)
#
# Tools from PATH: cmake (or $CMAKE), ninja (or $CMAKE_MAKE_PROGRAM) (linux rows: cc, nm, readelf; windows rows: x86_64-w64-mingw32-*,
# wine64). Halide: CMAKE_PREFIX_PATH (its CMake package, for the host generators) or
# HalideHelpers_DIR. Outcomes: ok (correct pixels), switching (Halide's "does not support switching
# interfaces"), halide-error (another Halide error), wrong-pixels, link-error, build-error,
# configure-error. Prints one line per row, then a Markdown table; exits 1 if any row differs
# from expected.txt.
set -u
[ $# -eq 2 ] || { echo "usage: $0 linux|windows|linux,windows <workdir>" >&2; exit 2; }
platforms=$(printf '%s' "$1" | tr ',' ' ')
src=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$src/../.." && pwd)
mkdir -p "$2" && work=$(cd "$2" && pwd)
cmake=${CMAKE:-cmake}
make_program=${CMAKE_MAKE_PROGRAM:+-DCMAKE_MAKE_PROGRAM=$CMAKE_MAKE_PROGRAM}
rows=${SEED_ROWS:-1 2 3 4 5 6 7 8 9}
start_all=$(date +%s)

# HalideHelpers' folder (a cross build does not search lib64 of CMAKE_PREFIX_PATH), and Halide's
# beside it, both passed explicitly: a search through PATH can find the pip wheel's Python-only
# redirect package in <venv>/share/cmake, which needs Python's headers.
if [ -z "${HalideHelpers_DIR:-}" ]; then
    old_ifs=$IFS; IFS=:
    for p in ${CMAKE_PREFIX_PATH:-}; do
        for d in "$p/lib64/cmake/HalideHelpers" "$p/lib/cmake/HalideHelpers"; do
            [ -z "${HalideHelpers_DIR:-}" ] && [ -f "$d/HalideHelpersConfig.cmake" ] && HalideHelpers_DIR=$d
        done
    done
    IFS=$old_ifs
fi
[ -n "${HalideHelpers_DIR:-}" ] || { echo "seed: no HalideHelpers (set CMAKE_PREFIX_PATH)" >&2; exit 2; }

# The ONE host generator executable (both generators), shared by every row and platform.
if ! { [ -f "$work/gen/build.ninja" ] ||
       "$cmake" -G Ninja $make_program -S "$src" -B "$work/gen" -DCMAKE_BUILD_TYPE=Release -DSEED_CONFIG=0 \
           -DHalide_DIR="${HalideHelpers_DIR%/*}/Halide" >"$work/gen.log" 2>&1; } ||
   ! "$cmake" --build "$work/gen" >>"$work/gen.log" 2>&1; then
    cat "$work/gen.log" >&2
    echo "seed: the host generators did not build (see $work/gen.log)" >&2
    exit 2
fi

# Evidence, per binary: definitions (nm) of halide_opencl_device_interface, halide_copy_to_device,
# halide_default_error and of the OpenCL interface data (Halide::Runtime::Internal::OpenCL::
# opencl_device_interface), and how many halide_* symbols it exports (readelf / objdump -p).
count_defs() {  # nm-tool file regex
    "$1" --defined-only "$2" 2>/dev/null | grep -cE "$3"
}
evidence() {  # platform dir
    if [ "$1" = linux ]; then
        nmt=nm; ext=so; exe=$2/seed_test
        rtobjs=$(ls "$2"/*runtime.o 2>/dev/null | wc -l)
    else
        nmt=x86_64-w64-mingw32-nm; ext=dll; exe=$2/seed_test.exe
        rtobjs=$(ls "$2"/*runtime.obj 2>/dev/null | wc -l)
    fi
    data='[DdVvBb] (\.weak\.)?(_ZN6Halide7Runtime8Internal6OpenCL23opencl_device_interfaceE|\?opencl_device_interface@)'
    printf 'runtime objects built=%s' "$rtobjs"
    for bin in "$2"/lib*."$ext" "$exe"; do
        [ -f "$bin" ] || continue
        if [ "$1" = linux ]; then
            exported=$(readelf --dyn-syms -W "$bin" | awk '$7 != "UND"' | grep -c ' halide_')
        else
            exported=$(x86_64-w64-mingw32-objdump -p "$bin" |
                       sed -n '/Ordinal\/Name Pointer/,/^$/p' | grep -c ' halide_')
        fi
        # runtime objects this link loaded (from its link map)
        loaded=$(grep -oE '[A-Za-z0-9_.]*runtime\.a\([^)]*\)' "$bin.map" 2>/dev/null | sort -u |
                 sed 's/.*(//; s/)//' | tr '\n' ' ' | sed 's/ $//')
        printf '; %s: loaded=[%s] iface_fn=%s copy_to_device=%s default_error=%s iface_data=%s exported=%s' \
            "$(basename "$bin")" "$loaded" \
            "$(count_defs $nmt "$bin" ' [TtWw] halide_opencl_device_interface$')" \
            "$(count_defs $nmt "$bin" ' [TtWw] halide_copy_to_device$')" \
            "$(count_defs $nmt "$bin" ' [TtWw] halide_default_error$')" \
            "$(count_defs $nmt "$bin" "$data")" "$exported"
    done
    if [ "$1" = linux ] && [ -f "$2/libseed_part2.so" ]; then  # ELF interposition across the parts
        printf '; run-time bindings libseed_part2.so -> libseed_part1.so: %s' \
            "$(LD_DEBUG=bindings "$exe" 2>&1 | grep -c 'libseed_part2.so .* to .*libseed_part1.so')"
    fi
    echo
}

classify() {  # output file, exit status
    if grep -q 'SEED result=ok' "$1" && [ "$2" -eq 0 ]; then echo ok
    elif grep -q 'switching interfaces' "$1"; then echo switching
    elif grep -q 'SEED result=wrong-pixels' "$1"; then echo wrong-pixels
    elif grep -q 'SEED result=error' "$1"; then echo halide-error
    else echo "crash($2)"
    fi
}

results=$work/results.txt
: >"$results"
fail=0
for plat in $platforms; do
    case $plat in
        linux) conf="" ;;
        windows) conf="-DCMAKE_TOOLCHAIN_FILE=$repo/cmake/toolchains/x86_64-w64-mingw32.cmake" ;;
        *) echo "seed: unknown platform $plat" >&2; exit 2 ;;
    esac
    start=$(date +%s)
    if [ "$plat" = windows ]; then
        # The wine prefix, made once before the rows run in it (not by the first row: once, on a
        # fresh, busy machine, every row exited 53, Windows' "path not found", as if the prefix
        # had no drives). Drive Z: is checked, and the prefix made again if it is missing.
        export WINEPREFIX="${WINEPREFIX:-$work/wineprefix}"
        for try in 1 2; do
            sh "$repo/cmake/toolchains/wine.sh" wineboot --init >"$work/wineboot.log" 2>&1 || true
            [ -e "$WINEPREFIX/dosdevices/z:" ] && break
            echo "seed: wine prefix $WINEPREFIX has no drive Z: (try $try), see $work/wineboot.log" >&2
            rm -rf "$WINEPREFIX"
        done
    fi
    for c in $rows; do
        d=$work/$plat-$c
        detail=""
        # shellcheck disable=SC2086
        if ! "$cmake" -G Ninja $make_program -S "$src" -B "$d" $conf -DCMAKE_BUILD_TYPE=Release -DSEED_CONFIG="$c" \
                -DHalideHelpers_DIR="$HalideHelpers_DIR" -DSeedGenerators_ROOT="$work/gen" \
                >"$d.configure.log" 2>&1; then
            outcome=configure-error
            detail=$(grep -m1 -A3 'CMake Error' "$d.configure.log" | tr '\n' ' ')
        elif ! "$cmake" --build "$d" >"$d.build.log" 2>&1; then
            if grep -q 'Linking' "$d.build.log" && grep -qE 'ld returned|undefined reference|multiple definition' "$d.build.log"; then
                outcome=link-error
            else
                outcome=build-error
            fi
            detail=$(grep -m3 -E 'undefined reference|multiple definition|error' "$d.build.log" | tr '\n' ' ')
        else
            if [ "$plat" = linux ]; then
                "$d/seed_test" >"$d.run.log" 2>&1
            else
                LUMEN_WINE_DLL_DIRS=$d \
                    sh "$repo/cmake/toolchains/wine.sh" "$d/seed_test.exe" >"$d.run.log" 2>&1
            fi
            rc=$?
            outcome=$(classify "$d.run.log" $rc)
            detail="$(grep -m1 -E '^SEED' "$d.run.log" | cut -c1-200); $(evidence "$plat" "$d")"
        fi
        expected=$(awk -v r="$c" -v p="$plat" '$1 == r && $2 == p { print $3 }' "$src/expected.txt")
        if [ "$outcome" = "$expected" ]; then verdict=PASS; else verdict=FAIL; fail=1; fi
        echo "$verdict row $c $plat: $outcome (expected ${expected:-nothing}) -- $detail"
        printf '%s %s %s %s\n' "$c" "$plat" "$outcome" "$verdict" >>"$results"
    done
    echo "seed: $plat rows took $(( $(date +%s) - start )) s"
done

echo
echo "| row | $(echo $platforms | sed 's/ / | /g') |"
echo "|---|$(for p in $platforms; do printf -- '---|'; done)"
for c in $rows; do
    line="| $c |"
    for p in $platforms; do
        line="$line $(awk -v r="$c" -v p="$p" '$1 == r && $2 == p { print $3 ($4 == "PASS" ? "" : " (UNEXPECTED)") }' "$results") |"
    done
    echo "$line"
done
echo
echo "seed: total $(( $(date +%s) - start_all )) s; $( [ $fail -eq 0 ] && echo 'all rows as expected' || echo 'SOME ROWS DIFFER from expected.txt')"
exit $fail
