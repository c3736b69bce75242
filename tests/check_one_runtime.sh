#!/bin/sh
# Usage: check_one_runtime.sh LIBRARY
# Passes when LIBRARY (.so or .a) holds exactly one definition of each Halide runtime marker
# symbol and, for a shared library, exports no halide_* symbol.
set -u
lib=$1
status=0
[ -f "$lib" ] || { echo "no such library: $lib"; exit 2; }
for sym in halide_default_error halide_cuda_device_interface halide_opencl_device_interface; do
    # Defined symbols of every kind (global, weak, local), in every archive member.
    n=$(nm --defined-only "$lib" 2>/dev/null | awk -v s="$sym" '$3 == s' | wc -l)
    echo "$sym: $n definition(s)"
    [ "$n" -eq 1 ] || status=1
done
case $lib in
*.so*)
    exported=$(nm -D --defined-only "$lib" | awk '$3 ~ /^halide_/' | wc -l)
    echo "exported halide_* symbols: $exported"
    [ "$exported" -eq 0 ] || status=1
    ;;
esac
[ $status -eq 0 ] && echo "one runtime: ok" || echo "one runtime: FAILED"
exit $status
