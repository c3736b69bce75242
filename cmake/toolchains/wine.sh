#!/bin/sh
# Runs a Windows program under wine64 (the test emulator of the mingw toolchain):
#   WINEPREFIX            default: a private prefix in a temporary folder (made on first use)
#   LUMEN_WINE_DLL_DIRS   colon-separated Unix folders searched for DLLs (e.g. lumen.dll's)
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
# A program that starts just as the prefix's wineserver exits (3 s after the last program ended)
# dies before it runs: "wine client error:0: recvmsg: Connection reset by peer". Run it again
# then (up to 3 times); its standard error is passed on after it ends.
err=$(mktemp) && trap 'rm -f "$err"' EXIT
tries=1
while :; do
    rc=0 && "$wine" "$@" 2>"$err" || rc=$?
    [ "$rc" -ne 0 ] && [ "$tries" -lt 3 ] && grep -q '^wine client error' "$err" || break
    tries=$((tries + 1)) && sleep 1
done
cat "$err" >&2
exit "$rc"
