#!/bin/sh
# A model's outputs do not depend on the thread count: the exported real
# models (tools/export_models.py, the kiln_models fixture) run with 1, 2
# and 3 threads must write byte-identical output files. Parallel kernels
# may split work by threads, never the order of a sum (a global pool that
# split its pixels by thread count once changed SqueezeNet's and
# EfficientNet-B0's last bits between 1 and 2 threads).
#
# Usage: test_thread_invariance.sh BUILD_DIR
# Exit 77 (ctest's skip code) when no model was exported (python3-torch
# missing).
set -eu
BUILD_DIR=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
KILN=$BUILD_DIR/kiln
MODELS=$BUILD_DIR/models
[ -x "$KILN" ] || { echo "FAIL: no kiln CLI at $KILN"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checked=0
failed=0
for name in resnet50 mobilenet_v2 squeezenet1_1 efficientnet_b0 seq_rnn; do
    dir=$MODELS/$name
    [ -f "$dir/model.onnx" ] && [ -f "$dir/input_0.pb" ] || continue
    for threads in 1 2 3; do
        "$KILN" run "$dir/model.onnx" -i "$dir/input_0.pb" --threads $threads \
            -o "$work/$name-$threads" >/dev/null
    done
    before=$failed
    for threads in 2 3; do
        for out in "$work/$name-1"/*.pb; do
            other="$work/$name-$threads/$(basename "$out")"
            if cmp -s "$out" "$other"; then
                :
            else
                echo "FAIL: $name: $(basename "$out") with $threads threads differs from 1 thread"
                failed=$((failed + 1))
            fi
        done
    done
    echo "$name: outputs with 2 and 3 threads byte-identical to 1 thread's: $([ $failed = "$before" ] && echo yes || echo no)"
    checked=$((checked + 1))
done
if [ $checked = 0 ]; then
    echo "SKIP: no exported model in $MODELS (python3-torch missing?)"
    exit 77
fi
[ $failed = 0 ] || exit 1
echo "PASS: $checked models give the same bits on 1, 2 and 3 threads"
