#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and runs every test suite:
#   1. a warnings-as-errors build with CMake's default generator and the full
#      test run (unit suites, CLI, example, ONNX conformance counts,
#      torchvision CNNs vs ONNX Runtime, bindings, WebAssembly);
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build (Ninja) running
#      the unit suites (reader with its malformed-model corpus, API, runtime,
#      kernels) and the ONNX conformance suites;
#   3. the reliability checks (scripts/reliability.sh: fuzzing 40 s per
#      target, hostile models, the limit and bad-input suites, valgrind,
#      soak, ABI guard);
#   4. the README's two commands in fresh copies of this tree, in both orders
#      (scripts/check_command_order.sh).
#   usage: scripts/test.sh [--configure-only]   (KILN_JOBS=N sets the job count)
# --configure-only installs the packages and configures build/ for the tests,
# nothing else (the order check uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh test
jobs=${KILN_JOBS:-$(nproc)}

# build/ is shared with scripts/demo.sh, which may have configured it without
# the tests: switch them on explicitly. The generator is CMake's default on a
# fresh folder (an existing folder keeps the one it was made with).
cmake -S . -B build -DKILN_BUILD_TESTS=ON -DKILN_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
[ "${1:-}" = --configure-only ] && exit 0
cmake --build build -j "$jobs"
# The suites scripts/reliability.sh runs itself (step 3) are left out here
# so that they run once: valgrind over the API and runtime suites, and the
# bad-input, limits and fuzz-replay suites.
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" \
  -E '^(valgrind_.*|test_bad_input|test_hostile_limits|test_fuzz_replay_.*)$'
KILN_MODELS_DIR=build/models scripts/test_aarch64.sh build-arm64 # cross build + qemu: SIMD suites, digits, squeezenet1_1 vs ORT

cmake -S . -B build-asan -G Ninja -DKILN_WERROR=ON -DKILN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j "$jobs"
ctest --test-dir build-asan --output-on-failure --no-tests=error -j "$jobs" -R '^(test_.*|conformance)$'

KILN_BUILD_DIR=build KILN_FUZZ_SECONDS=${KILN_FUZZ_SECONDS:-40} scripts/reliability.sh
scripts/check_command_order.sh "$(ctest --test-dir build -N --no-tests=error | sed -n 's/^Total Tests: //p')"
