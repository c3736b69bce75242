#!/bin/sh
# Usage: sh bench/run.sh [--halide14] [--quick]
# Builds Lumen with the benchmarks (Release), runs them and writes results.md, results.csv and
# ratios.svg: on the current Halide (the project venv, scripts/deps.sh) into bench/, with
# --halide14 on Debian's Halide 14 into bench/halide14/.
# Installs what it needs: libopencv-dev and libvips-dev (apt-get, as root or with sudo) if missing,
# and the bench venv build/bench-venv from bench/requirements.txt (OpenCV from PyPI, numpy).
# Runs lumen_bench + peer_cv2.py once per Lumen CPU variant: the best one here, then (on an
# AVX-512 machine) capped at AVX2, with OpenCV capped likewise. About 10 minutes on 2 cores.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
PATH="$root/.venv/bin:$PATH"
export PATH
start=$(date +%s)
build="$root/build/bench" out="$root/bench"
halide="-DHalide_DIR=$root/.venv/halide/lib64/cmake/Halide"
if [ "${1:-}" = --halide14 ]; then
    shift
    build="$root/build/bench-halide14" out="$root/bench/halide14"
    halide="-DHalide_DIR=/usr/lib/x86_64-linux-gnu/cmake/Halide14"
fi
args="" pyargs=""
if [ "${1:-}" = --quick ]; then args="--quick --sizes=640x480,1920x1080" pyargs="--budget=0.02"; fi

# System packages (Debian names, checked with apt-cache policy): OpenCV 4.6 and libvips 8.14.
need=""
for p in libopencv-dev libvips-dev pkg-config; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { echo "bench/run.sh: needs$need (run as root or with sudo)" >&2; exit 1; }
        sudo=sudo
    fi
    $sudo apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need
fi

# The bench venv, separate from the project's .venv; remade when requirements.txt changes.
venv="$root/build/bench-venv"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$root/bench/requirements.txt" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/bench/requirements.txt"
    cp "$root/bench/requirements.txt" "$venv/requirements.txt"
fi

mkdir -p "$out"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLUMEN_BUILD_BENCH=ON \
      -DBUILD_TESTING=OFF -DLUMEN_BUILD_CLI=OFF "$halide" >/dev/null
cmake --build "$build" --target lumen_bench lumen_first_call lumen_shared lumen_static

raw="$build/bench"
rm -f "$raw"/raw-*.csv "$raw"/py-*.csv
cat /proc/loadavg > "$raw/loadavg-start.txt"  # other jobs on the machine disturb the times
# One variant: lumen_bench (Lumen, OpenCV 4.6, libvips, plain C), then OpenCV from PyPI on the
# same cases. Arguments: extra lumen_bench arguments; the environment is the caller's.
run_variant() {
    # Idle OpenMP threads (plain C) must not spin while the others run.
    OMP_WAIT_POLICY=passive "$raw/lumen_bench" "$raw/raw.csv" $args "$@"
    v=$(sed -n '1s/.*cpu variant \([a-z0-9]*\).*/\1/p' "$raw/raw.csv")
    mv "$raw/raw.csv" "$raw/raw-$v.csv"
    "$venv/bin/python" "$root/bench/peer_cv2.py" "$raw/raw-$v.csv" "$build/sdk/liblumen.so" "$raw/py-$v.csv" $pyargs
}
run_variant  # sets v
if [ "$v" = avx512 ]; then
    # AVX2: Lumen capped before its first call; OpenCV's dispatch (and PyPI's IPP) capped too.
    # OpenCV 4.6 has no AVX512-CLX dispatch (it would warn about the name), so only PyPI's gets it.
    LUMEN_MAX_CPU_ISA=avx2 OPENCV_CPU_DISABLE=AVX512F,AVX512-SKX OPENCV_IPP=avx2 \
        OMP_WAIT_POLICY=passive "$raw/lumen_bench" "$raw/raw.csv" $args --peers=opencv
    mv "$raw/raw.csv" "$raw/raw-avx2.csv"
    LUMEN_MAX_CPU_ISA=avx2 OPENCV_CPU_DISABLE=AVX512F,AVX512-SKX,AVX512-CLX OPENCV_IPP=avx2 \
        "$venv/bin/python" "$root/bench/peer_cv2.py" "$raw/raw-avx2.csv" "$build/sdk/liblumen.so" \
        "$raw/py-avx2.csv" $pyargs
fi
python3 "$root/bench/report.py" "$build" "$out" "$(($(date +%s) - start))"
{
    echo
    echo "## First call and peak memory per call (3840x2160, bench/first_call.c)"
    echo
    echo "A fresh process per row: the first Lumen call (CPU: variant pick, thread pool start;"
    echo "OpenCL: device set-up, kernel compile with PoCL's kernel cache off, copies), the median of"
    echo "the next 5, and the peak RSS"
    echo "growth over those calls past the images (OpenCL on PoCL: device buffers are host memory)."
    echo
    "$build/bench/lumen_first_call"
} >> "$out/results.md"
echo "wrote $out/results.md, results.csv, ratios.svg ($(($(date +%s) - start)) s)"
