#!/bin/sh
# Usage: repeat.sh [--cold] RUNS PROGRAM [ARG...] — runs PROGRAM RUNS times (the run number is
# appended to its arguments) with a PoCL kernel cache of its own, emptied before each run with
# --cold, and fails if any run does not exit 0 (e.g. crashes at exit).
set -u
cold=0
[ "$1" = --cold ] && cold=1 && shift
runs=$1
shift
bad=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq "$runs"); do
    [ $cold -eq 0 ] || rm -rf "$dir/cache"
    POCL_CACHE_DIR="$dir/cache" "$@" "$i" >"$dir/out" 2>&1
    rc=$?
    # A failing run's last 40 lines (a sanitizer's report, not just its final ABORTING line).
    [ $rc -eq 0 ] || { bad=$((bad + 1)); echo "run $i: exit $rc:"; tail -40 "$dir/out"; }
done
echo "$((runs - bad)) passed, $bad failed"
[ $bad -eq 0 ]
