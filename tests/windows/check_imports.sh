#!/bin/sh
# Usage: check_imports.sh OBJDUMP DLL
# Passes when DLL imports only DLLs every Windows has (no libgcc_s, libwinpthread, libstdc++),
# and neither nvcuda.dll nor OpenCL.dll: those are loaded at run time, when present.
set -u
imports=$("$1" -p "$2" | awk '/DLL Name:/ { print $3 }')
echo "$2 imports:" $imports
status=0
for dll in $imports; do
    case $(printf '%s' "$dll" | tr 'A-Z' 'a-z') in
    kernel32.dll | msvcrt.dll | ucrtbase.dll | api-ms-win-*.dll | advapi32.dll | user32.dll) ;;
    *) echo "unexpected import: $dll"; status=1 ;;
    esac
done
[ -n "$imports" ] || status=1
exit $status
