#!/bin/sh
# Usage: [NM=nm] [OBJDUMP=objdump] check_one_runtime.sh LIBRARY
# Passes when LIBRARY (.so, .dll or .a) holds exactly one definition of each Halide runtime
# marker symbol and, for a shared library, exports only lumen_* functions.
set -u
lib=$1
nm=${NM:-nm}
objdump=${OBJDUMP:-objdump}
status=0
[ -f "$lib" ] || { echo "no such library: $lib"; exit 2; }
for sym in halide_default_error halide_cuda_device_interface halide_opencl_device_interface; do
    # Defined symbols of every kind (global, weak, local), in every archive member.
    n=$("$nm" --defined-only "$lib" 2>/dev/null | awk -v s="$sym" '$3 == s' | wc -l)
    echo "$sym: $n definition(s)"
    [ "$n" -eq 1 ] || status=1
done
case $lib in
*.so*) # the dynamic symbol table, less the version node
    exports=$("$nm" -D --defined-only "$lib" | awk '$2 != "A" { print $3 }') ;;
*.dll) # the PE export table
    exports=$("$objdump" -p "$lib" |
              awk '/^\[Ordinal\/Name Pointer\] Table/ { t = 1; next } t && NF == 0 { t = 0 }
                   t { print $NF }') ;;
*) exports="" ;;
esac
if [ -n "$exports" ] || [ "${lib%.a}" = "$lib" ]; then
    total=$(printf '%s\n' "$exports" | grep -c .)
    # lumen_* only, and lumen__set_error (internal, for liblumen_io)
    keep='^(lumen_[a-z]|lumen__set_error(@|$))'
    other=$(printf '%s\n' "$exports" | grep -Ev "$keep" | grep -c .)
    echo "exported: $total symbol(s), $other not lumen_*"
    printf '%s\n' "$exports" | grep -Ev "$keep" | grep . | head -5
    [ "$total" -gt 0 ] && [ "$other" -eq 0 ] || status=1
fi
[ $status -eq 0 ] && echo "one runtime: ok" || echo "one runtime: FAILED"
exit $status
