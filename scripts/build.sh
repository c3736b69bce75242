#!/bin/sh
# The main job: install dependencies, build the SDK (shared + static), make the packages, install
# the TGZ into a fresh prefix and build + run its installed examples against it, as a user would.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
PATH="$(pwd)/.venv/bin:$PATH"  # CMake, Ninja (and Halide) from the project venv
export PATH
cmake --preset release
cmake --build --preset release
cpack --preset release
# Windows: lumen.dll, ZIP and NSIS installer from the mingw cross build (generators from above).
cmake --preset windows
cmake --build --preset windows
cpack --preset windows
out=build/release/packages
stage=build/release/demo
rm -rf "$stage" && mkdir -p "$stage"
tar -xzf "$out"/Lumen-*-Linux-*.tar.gz -C "$stage"
prefix=$(echo "$(pwd)/$stage"/Lumen-*)
for ex in hello chain photo; do
    cmake -S "$prefix/share/doc/lumen/examples/$ex" -B "$stage/$ex" -G Ninja \
        -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$stage/$ex" >/dev/null
done
echo "== Packages in $out and build/windows/packages:"
ls -1 "$out" build/windows/packages | grep -v 'sha256\|:$\|^$\|_CPack'
echo "== examples/hello"
"$stage/hello/hello"
echo "== examples/chain (CPU, then OpenCL)"
"$stage/chain/chain" cpu
"$stage/chain/chain" opencl || echo "(no usable OpenCL device here)"
echo "== examples/photo: sample.png blurred into $stage/photo/blurred.jpg"
"$stage/photo/photo" "$prefix/share/doc/lumen/examples/photo/sample.png" "$stage/photo/blurred.jpg"
echo "== lumen info (from the package)"
"$prefix/bin/lumen" info
echo "== lumen demo $stage/images"
"$prefix/bin/lumen" demo "$stage/images"
