#!/bin/bash
# Builds the WebAssembly module into OUT and runs its Node tests
# (wasm/test/*.test.mjs) against the native build's CLI and library, and
# the integer kernels' C suites compiled for the SIMD128 engine.
#
#   run_node_tests.sh OUT SOURCE_DIR KILN_CLI LIBKILN
#
# Exit 77 (skip) when Emscripten or Node is missing. squeezenet1_1 comes
# from KILN_MODELS_DIR if set, else is exported into OUT/models with
# Debian's python3-torch (tools/export_models.py); without either that
# test skips and says why.
set -euo pipefail
out=$1 src=$2 cli=$3 lib=$4

if ! command -v emcc >/dev/null || ! command -v emcmake >/dev/null; then
  echo "SKIP: emcc not found (Debian package emscripten)"; exit 77
fi
if ! command -v node >/dev/null; then
  echo "SKIP: node not found"; exit 77
fi
# Emscripten 3.1.6's optimiser needs Debian's node modules (acorn).
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

cmake_args=(-G Ninja)
command -v ninja >/dev/null || cmake_args=()
emcmake cmake -S "$src/wasm" -B "$out" "${cmake_args[@]}" -DKILN_WASM_KERNEL_TESTS=ON >/dev/null
cmake --build "$out" -j 2
bash "$src/wasm/print_sizes.sh" "$out/kiln-core.wasm"

# The native reference for imageToTensor.
cc -O2 -Wall -Wextra -o "$out/image_ref" "$src/wasm/test/image_ref.c" -I"$src/capi" \
  "$lib" -Wl,-rpath,"$(dirname "$lib")"

models=${KILN_MODELS_DIR:-}
if [[ -z $models ]]; then
  models=$out/models
  if [[ ! -f $models/squeezenet1_1/model.onnx ]] && /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
    /usr/bin/python3 "$src/tools/export_models.py" "$models" --models squeezenet1_1 ||
      echo "note: exporting squeezenet1_1 failed; its test will skip"
  fi
fi

# The integer kernels' C suites, compiled for the SIMD128 engine: its own
# requantization, GEMM and depthwise code against the reference, to the bit.
echo "== integer kernel suites in WebAssembly"
for suite in "$out"/kernel_tests/*.js; do
  node "$suite"
done

export KILN_SOURCE_DIR=$src KILN_WASM_DIR=$out KILN_CLI=$cli KILN_IMAGE_REF=$out/image_ref
export KILN_MODELS_DIR=$models
# Twice: Node 20 without Relaxed SIMD loads the SIMD128 engine; with
# --experimental-wasm-relaxed-simd it validates the relaxed probe and loads
# kiln-core-relaxed.wasm, so every model test covers both builds.
echo "== SIMD128 engine"
node --test "$src"/wasm/test/*.test.mjs
if [[ -f $out/kiln-core-relaxed.wasm ]]; then
  echo "== relaxed-SIMD engine"
  node --experimental-wasm-relaxed-simd --test "$src"/wasm/test/*.test.mjs
fi
