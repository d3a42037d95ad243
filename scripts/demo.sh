#!/usr/bin/env bash
# Builds Kiln and runs the bundled example: a small CNN trained on real 8x8
# handwritten digits classifies the sample images shipped with it.
# It builds only the CLI and the C example; the language bindings need the
# full build (`cmake --build build`, README "Install and use from your own
# project").
#   usage: scripts/demo.sh [-j N]     (-j N, or KILN_JOBS=N, sets the job count)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${KILN_JOBS:-$(nproc)}
while [ $# -gt 0 ]; do
    case $1 in
    -j) [ $# -ge 2 ] || { echo "demo.sh: -j needs a number" >&2; exit 2; }
        jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (usage: scripts/demo.sh [-j N])" >&2; exit 2 ;;
    esac
done
case $jobs in
''|*[!0-9]*|0) echo "demo.sh: the job count must be a positive number, not '$jobs'" >&2; exit 2 ;;
esac
scripts/install_deps.sh build
# build/ is shared with scripts/test.sh. A fresh folder is configured without
# the test suites (their packages are not installed here); an existing one
# keeps its settings, so running the demo after the tests leaves every test
# in place.
if [ -f build/CMakeCache.txt ]; then
    cmake -S . -B build
else
    cmake -S . -B build -DKILN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build -j "$jobs" --target kiln_cli classify_digits
build/kiln info examples/digits/digits.onnx
build/examples/c/classify_digits examples/digits/digits.onnx examples/digits/samples
