#!/bin/bash
# The ctest `wasm_browser`: builds the WebAssembly module (single-threaded
# and threads engines, wasm/build.sh) into OUT, then runs
# run_browser_tests.mjs, which starts the static server (serve.mjs) on a
# free 127.0.0.1 port, drives Debian's headless Chromium with
# playwright-core, compares with the native CLI and stops the server.
#
#   run_browser_tests.sh OUT SOURCE_DIR KILN_CLI
#
# Exit 77 (skip) when emcc, node, chromium or playwright-core is missing.
# squeezenet1_1 comes from KILN_MODELS_DIR if set, else is exported into
# OUT/models with Debian's python3-torch; without either its test skips.
set -euo pipefail
out=$1 src=$2 cli=$3
here=$src/wasm/browser
chromium=${KILN_CHROMIUM:-/usr/bin/chromium}

if ! command -v emcc >/dev/null || ! command -v emcmake >/dev/null; then
  echo "SKIP: emcc not found (Debian package emscripten)"; exit 77
fi
if ! command -v node >/dev/null; then
  echo "SKIP: node not found"; exit 77
fi
if [[ ! -x $chromium ]]; then
  echo "SKIP: $chromium not found (Debian package chromium)"; exit 77
fi
if [[ ! -d $here/node_modules/playwright-core ]]; then
  echo "installing playwright-core into $here/node_modules (npm ci --ignore-scripts --omit=optional; no browser download)"
  # onnxruntime-web (optional) is only for bench/web.
  if ! (cd "$here" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund >/dev/null); then
    echo "SKIP: playwright-core is not installed and npm ci failed (run: cd wasm/browser && npm ci --ignore-scripts)"
    exit 77
  fi
fi

BUILD_WASM=$out/wasm BUILD_WASM_MT=$out/wasm-mt bash "$src/wasm/build.sh"

models=${KILN_MODELS_DIR:-}
if [[ -z $models ]]; then
  models=$out/models
  if [[ ! -f $models/squeezenet1_1/model.onnx ]]; then
    if /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
      /usr/bin/python3 "$src/tools/export_models.py" "$models" --models squeezenet1_1 ||
        echo "note: exporting squeezenet1_1 failed; its test will skip"
    else
      echo "note: python3-torch/torchvision/onnx missing; the squeezenet1_1 test will skip"
    fi
  fi
fi

exec node "$here/run_browser_tests.mjs" --cli "$cli" --wasm "$out/wasm" --wasm-mt "$out/wasm-mt" \
  --models "$models" --tmp "$out/tmp"
