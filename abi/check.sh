#!/bin/sh
# ABI check of liblumen against the committed baseline abi/liblumen.abi.
#   check.sh [--update] BASELINE PROBE LIB INCLUDE_DIR...
# PROBE: liblumen's objects compiled with -g (abidw reads the public types from its DWARF);
# LIB: the shipped liblumen.so.1. Fails on
#   - an exported lumen_* symbol of LIB without the version node LUMEN_1 (sdk/src/lumen.map);
#   - PROBE exporting other functions than LIB (PROBE would not stand for LIB);
#   - any ABI change other than added functions (SameMajorVersion): removed or changed
#     functions, struct layouts, enum values.
# --update rewrites BASELINE instead (a deliberate break: new major version). Tools: ABIDW,
# ABIDIFF, READELF from the environment (default: abidw, abidiff, readelf).
set -u
update=0
if [ "$1" = --update ]; then
    update=1
    shift
fi
baseline=$1 probe=$2 lib=$3
shift 3
: "${ABIDW:=abidw}" "${ABIDIFF:=abidiff}" "${READELF:=readelf}"
hd=""
for d in "$@"; do hd="$hd --headers-dir $d"; done

# The public ABI: exported functions and the types of the public headers (INCLUDE_DIRs) only,
# opaque types as declarations; no source locations, so the file changes only with the ABI.
abi() { # abi ELF OUT
    # shellcheck disable=SC2086
    "$ABIDW" --drop-private-types --drop-undefined-syms --no-corpus-path --no-comp-dir-path \
        --no-show-locs $hd --out-file "$2" "$1" || exit 1
    # Read without DWARF, the file would hold symbols only: insist on the types.
    if ! grep -q "<class-decl name='lumen_transfer_stats' size-in-bits=" "$2" ||
        ! grep -q "<enumerator name='LUMEN_OK'" "$2"; then
        echo "FAIL: $2 holds no type information ($1 built without -g?)"
        exit 1
    fi
}
if [ $update = 1 ]; then
    abi "$probe" "$baseline"
    echo "wrote $baseline"
    exit 0
fi
status=0

# Defined dynamic symbols named lumen_*, as "name@@VERSION".
exports() {
    "$READELF" --wide --dyn-syms "$1" | awk '$7 != "UND" && $8 ~ /^lumen_/ { print $8 }' | sort
}
lib_syms=$(exports "$lib")
[ -n "$lib_syms" ] || { echo "FAIL: $lib exports no lumen_* symbol"; exit 1; }
unversioned=$(printf '%s\n' "$lib_syms" | grep -v '@@LUMEN_1$')
if [ -n "$unversioned" ]; then
    echo "FAIL: exported without the version node LUMEN_1:" $unversioned
    status=1
fi
if [ "$(exports "$probe")" != "$lib_syms" ]; then
    echo "FAIL: the probe exports" $(exports "$probe")
    echo "      but $lib exports" $lib_syms
    status=1
fi
echo "$lib: $(printf '%s\n' "$lib_syms" | wc -l) exported lumen_* functions"

# abidiff's exit status is a bit set: 1 error, 2 usage, 4 ABI change, 8 incompatible change.
# Added functions alone set bit 4; --no-added-syms leaves them out of the report and the status.
current="$probe.abi"
abi "$probe" "$current"
"$ABIDIFF" --no-added-syms "$baseline" "$current"
rc=$?
if [ $rc -ne 0 ]; then
    [ $((rc & 3)) -ne 0 ] && echo "FAIL: abidiff could not compare (status $rc)"
    [ $((rc & 8)) -ne 0 ] && echo "FAIL: incompatible ABI change (abidiff status $rc)"
    [ $((rc & 12)) -eq 4 ] && echo "FAIL: ABI change other than added functions (status $rc)"
    echo "Only a new major version may break the ABI; then: abi/update.sh"
    status=1
else
    echo "ABI compatible with $baseline (added functions allowed)"
fi
exit $status
