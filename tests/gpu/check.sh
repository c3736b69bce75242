#!/bin/sh
# The GPU check for Lumen's CUDA backend, on a machine with an NVIDIA GPU:
#   tests/gpu/check.sh             build with the release preset, run `ctest -L cuda` and the chain
#                                  benchmark (needs the build dependencies: scripts/deps.sh);
#   tests/gpu/check.sh --pack DIR  on a build machine: copy what the check runs into DIR (a few MB);
#   tests/gpu/check.sh --kit DIR   on the GPU machine: run it from DIR (no compiler, Halide or CUDA
#                                  toolkit needed, only the driver).
# Prints a Markdown report. Exit 0: all passed; 1: a check failed; 77: no usable GPU (skipped).
# LUMEN_BUILD_DIR: the build to use or pack (default build/release).
set -u
case ${2:-} in "" | /*) ;; *) set -- "$1" "$(pwd)/$2" ;; esac
cd "$(dirname "$0")/../.."
build=${LUMEN_BUILD_DIR:-build/release}
bins="tests/device/test_device_shared tests/cuda/test_cuda_interop tests/gpu/lumen_cuda_chain"

case ${1:-} in
--pack)
    set -e
    [ -n "${2:-}" ] || { echo "usage: $0 --pack DIR"; exit 2; }
    mkdir -p "$2/lib" "$2/bin"
    cp -P $build/sdk/liblumen.so* "$2/lib/"
    for b in $bins; do cp "$build/$b" "$2/bin/"; done
    echo "kit in $2: $(du -sh "$2" | cut -f1)"
    exit 0 ;;
--kit) kit=${2:?usage: $0 --kit DIR} ;;
"") kit=""
    { cmake --preset release && cmake --build --preset release; } >/tmp/lumen-gpu-build.log 2>&1 ||
        { tail -30 /tmp/lumen-gpu-build.log; echo "build failed"; exit 1; } ;;
*) echo "usage: $0 [--pack DIR | --kit DIR]"; exit 2 ;;
esac

# run NAME CMD...: one check, its result as a table row; the output goes to the log below.
log=$(mktemp)
passed=0 failed=0 skipped=0
run() {
    name=$1; shift
    "$@" >"$log.one" 2>&1
    rc=$?
    [ $rc = 0 ] && grep -q "(Skipped)" "$log.one" && { rc=77; echo "SKIP: ctest skipped some" >>"$log.one"; }
    case $rc in
    0) r=pass; passed=$((passed + 1)) ;;
    77) r="skip ($(grep -m1 SKIP "$log.one" | sed 's/^SKIP: //' | cut -c1-90))"; skipped=$((skipped + 1)) ;;
    *) r="FAIL (exit $rc)"; failed=$((failed + 1)) ;;
    esac
    echo "| $name | $r |" >>"$log.table"
    { echo "== $name"; cat "$log.one"; } >>"$log"
}
: >"$log.table"
if [ -n "$kit" ]; then
    export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    run "device.cuda (CUDA vs CPU, device chains)" "$kit/bin/test_device_shared" cuda
    run "device.cuda.hidden (no visible device)" env CUDA_VISIBLE_DEVICES= \
        "$kit/bin/test_device_shared" cuda hidden
    run "cuda.interop (caller memory, streams)" "$kit/bin/test_cuda_interop"
    chain="$kit/bin/lumen_cuda_chain"
else
    run "ctest -L cuda" ctest --preset release -L cuda --output-on-failure
    chain="$build/tests/gpu/lumen_cuda_chain"
fi
run "chain benchmark" "$chain"

echo "# Lumen GPU check ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
echo
echo "| check | result |"
echo "|---|---|"
cat "$log.table"
echo
sed -n '/^== chain benchmark/,$p' "$log" | sed 1d
echo
echo "passed $passed, failed $failed, skipped $skipped (full log: $log)"
[ "$failed" -gt 0 ] && exit 1
[ "$skipped" -gt 0 ] && exit 77
exit 0
