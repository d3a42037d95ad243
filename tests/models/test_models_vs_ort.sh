#!/bin/sh
# Kiln against ONNX Runtime on real models (random but calibrated weights,
# see tools/export_models.py): torchvision's resnet50, mobilenet_v2,
# squeezenet1_1 and efficientnet_b0, an LSTM/GRU sequence model (seq_rnn),
# and the trained digits example on its 20 samples. With KILN_BIG_MODELS=1
# also vit_b_16 and a BERT-base-sized encoder (bert_encoder): ~330 and
# ~420 MB, about a minute each to export. Fails if any output differs from
# ORT's by more than 1e-4 of the output's largest magnitude.
#
# Usage: [KILN_BIG_MODELS=1] test_models_vs_ort.sh BUILD_DIR SRC_DIR
# Exit 77 (ctest's skip code) when the tools it needs are missing: Debian's
# python3 with torch/torchvision/onnx, node, or onnxruntime-node (npm).
set -eu
BUILD_DIR=$(cd "${1:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
SRC_DIR=$(cd "${2:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
PY=/usr/bin/python3
KILN=$BUILD_DIR/kiln
MODELS=$BUILD_DIR/models

DEFAULT_MODELS="resnet50 mobilenet_v2 squeezenet1_1 efficientnet_b0 seq_rnn"
BIG_MODELS="vit_b_16 bert_encoder"

skip() {
    echo "SKIP: $*"
    exit 77
}

[ -x "$PY" ] || skip "$PY is not installed"
$PY -c 'import torch, torchvision, onnx, numpy' 2>/dev/null ||
    skip "$PY cannot import torch, torchvision, onnx and numpy (python3-torch, python3-torchvision, python3-onnx)"
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -x "$KILN" ] || { echo "FAIL: no kiln CLI at $KILN"; exit 1; }

# ORT comes from npm; install it once (the native library is bundled, so
# the post-install script, which only fetches a CUDA add-on, is not needed).
ORT_DIR=$SRC_DIR/tools/ort
if [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then
    command -v npm >/dev/null 2>&1 || skip "npm is not installed"
    (cd "$ORT_DIR" && npm install --ignore-scripts --no-audit --no-fund) ||
        skip "npm install of onnxruntime-node failed (offline?)"
fi

NAMES=$DEFAULT_MODELS
if [ "${KILN_BIG_MODELS:-0}" = 1 ]; then
    NAMES="$NAMES $BIG_MODELS"
else
    echo "note: skipped $(echo "$BIG_MODELS" | sed 's/ /, /g'): big (~330 and ~420 MB, about" \
         "a minute each to export, up to 1 GB of RAM to run); set KILN_BIG_MODELS=1 to include them"
fi

# Exports are cached in BUILD_DIR/models; export_models.py skips those present.
$PY "$SRC_DIR/tools/export_models.py" "$MODELS" --models "$(echo "$NAMES" | tr ' ' ,)"

# The digits model in the ONNX test-data layout, rebuilt each time so a
# retrained model is picked up: one data set per sample.
DIGITS=$MODELS/digits
rm -rf "$DIGITS"
mkdir -p "$DIGITS"
cp "$SRC_DIR/examples/digits/digits.onnx" "$DIGITS/model.onnx"
n=0
for sample in "$SRC_DIR"/examples/digits/samples/*.pb; do
    mkdir -p "$DIGITS/test_data_set_$n"
    cp "$sample" "$DIGITS/test_data_set_$n/input_0.pb"
    n=$((n + 1))
done

set --
for name in $NAMES; do
    set -- "$@" "$MODELS/$name"
done
exec $PY "$SRC_DIR/tools/compare_with_ort.py" --kiln "$KILN" "$@" "$DIGITS"
