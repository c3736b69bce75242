#!/bin/sh
# Runs a Windows program under wine64 (the test emulator of the mingw toolchain):
#   WINEPREFIX            default: a private prefix in a temporary folder (made on first use)
#   LUMEN_WINE_DLL_DIRS   colon-separated Unix folders searched for DLLs (e.g. lumen.dll's)
# `wine.sh --server ARGS`: runs the prefix's wineserver with ARGS instead.
set -eu
: "${WINEPREFIX:=${TMPDIR:-/tmp}/lumen-wine-$(id -u)}"
: "${WINEDEBUG:=-all}"
# No .NET (mono) or HTML (gecko) engine: nothing needs them; wine would offer to install them.
WINEDLLOVERRIDES="mscoree,mshtml=${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
wine=${LUMEN_WINE:-/usr/lib/wine/wine64}
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine)
if [ -n "${LUMEN_WINE_DLL_DIRS:-}" ]; then  # /a/b -> Z:\a\b, ';'-separated
    WINEPATH=$(printf '%s' "$LUMEN_WINE_DLL_DIRS" | sed 's|^/|Z:\\|; s|:/|;Z:\\|g; s|/|\\|g')
    export WINEPATH
fi
if [ "${1:-}" = --server ]; then
    shift
    exec "$(command -v wineserver || echo /usr/lib/wine/wineserver64)" "$@"
fi
exec "$wine" "$@"
