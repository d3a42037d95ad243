#!/usr/bin/env bash
# Builds Kiln and runs the bundled example: a small CNN trained on real 8x8
# handwritten digits classifies the sample images shipped with it.
#   usage: scripts/demo.sh            (KILN_JOBS=N sets the build's job count)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh build
jobs=${KILN_JOBS:-$(nproc)}
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
