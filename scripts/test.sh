#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and runs every test suite:
#   1. a warnings-as-errors build and the full ctest run (unit suites, CLI,
#      example, ONNX conformance counts, torchvision CNNs vs ONNX Runtime);
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build running the
#      unit suites (reader with its malformed-model corpus, API, runtime,
#      kernels) and the ONNX conformance suites;
#   3. the reliability checks (scripts/reliability.sh: fuzzing 60 s per
#      target, hostile models, valgrind, soak, ABI guard).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh test
jobs=$(nproc)

cmake -S . -B build -G Ninja -DKILN_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
ninja -C build
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-asan -G Ninja -DKILN_WERROR=ON -DKILN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
ninja -C build-asan
ctest --test-dir build-asan --output-on-failure -j "$jobs" -R '^(test_.*|conformance)$'

KILN_BUILD_DIR=build scripts/reliability.sh
