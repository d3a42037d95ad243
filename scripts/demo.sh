#!/usr/bin/env bash
# Builds Kiln and runs the bundled example: a small CNN trained on real 8x8
# handwritten digits classifies the sample images shipped with it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh build
cmake -S . -B build -G Ninja -DKILN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
ninja -C build kiln_cli classify_digits
build/kiln info examples/digits/digits.onnx
build/examples/c/classify_digits examples/digits/digits.onnx examples/digits/samples
