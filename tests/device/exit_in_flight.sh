#!/bin/sh
# Usage: exit_in_flight.sh PROGRAM RUNS — runs PROGRAM RUNS times, each with an empty PoCL kernel
# cache, and fails if any run does not exit 0 (e.g. aborts at exit).
set -u
prog=$1 runs=$2 bad=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq "$runs"); do
    rm -rf "$dir/cache"
    POCL_CACHE_DIR="$dir/cache" "$prog" >"$dir/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { bad=$((bad + 1)); echo "run $i: exit $rc: $(tail -2 "$dir/out" | tr '\n' ' ')"; }
done
echo "$((runs - bad)) passed, $bad failed"
[ $bad -eq 0 ]
