#!/bin/sh
# `kiln diff`: per-tensor error between two models, or one model under two
# settings, and the first tensor (in topological order) over tolerance.
#   - digits against itself: every tensor compared, all exact (SQNR inf);
#   - digits against its `kiln quantize` output: a table of the 7 float
#     tensors with finite SQNR, the QDQ tensors only in B; with --tol 100 the
#     first tensor over tolerance is the first one computed (the first Conv),
#     not the worst;
#   - digits with the second Conv's weights scaled by 1.5 (python3-onnx
#     writes it): the first tensor over tolerance is that Conv's output, the
#     layer that was broken;
#   - optimization level 2 against 0: the fused graph's surviving names;
#   - squeezenet1_1 (exported into BUILD_DIR/models by export_models) with
#     --b-no-dnnl: oneDNN against Kiln's own kernels, every tensor above
#     80 dB;
#   - errors: a missing input, a wrong shape, bad option values, an unknown
#     option, a model that cannot be read.
#
# Usage: test_diff.sh BUILD_DIR SRC_DIR.
set -u
BUILD_DIR=$(cd "${1:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
SRC_DIR=$(cd "${2:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
KILN=$BUILD_DIR/kiln
PY=/usr/bin/python3
DIGITS=$SRC_DIR/examples/digits/digits.onnx
SAMPLE=$SRC_DIR/examples/digits/samples/digit_00_label_5.pb
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-diff-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

# The table's rows: "SQNR relL2 maxabs elements name <- node (op)".
rows() { awk '/^ *SQNR dB/ { on = 1; next } on && NF >= 7 && $6 == "<-" { print }' "$1"; }

# ---- the same model twice: exact ----
if "$KILN" diff "$DIGITS" -i "$SAMPLE" >"$WORK/self.log" 2>&1 &&
    grep -q "^compared 7 tensors present in both (same name and element count); 0 only in A, 0 only in B" "$WORK/self.log" &&
    [ "$(rows "$WORK/self.log" | awk '$1 == "inf" && $2 == 0 && $3 == 0' | wc -l)" = 7 ] &&
    grep -q "^no tensor over tolerance (SQNR < 20.0 dB)" "$WORK/self.log"; then
    pass "digits against itself: 7 tensors, all SQNR inf, no error"
else
    fail "digits against itself: $(cat "$WORK/self.log")"
fi

# ---- float against int8 ----
mkdir -p "$WORK/calib/s0"
cp "$SAMPLE" "$WORK/calib/s0/input_0.pb"
for f in "$SRC_DIR"/examples/digits/samples/digit_1*.pb; do
    d=$WORK/calib/$(basename "$f" .pb)
    mkdir -p "$d" && cp "$f" "$d/input_0.pb"
done
"$KILN" quantize "$DIGITS" -o "$WORK/int8.onnx" --calib "$WORK/calib" >/dev/null 2>&1 ||
    fail "kiln quantize digits for the int8 comparison"
"$KILN" diff "$DIGITS" "$WORK/int8.onnx" -i "$SAMPLE" >"$WORK/int8.log" 2>&1
rc=$?
# Each row's SQNR is finite and positive (int8 is close, not exact), the
# rows come worst first, and the output's row names the Gemm node.
finite=$(rows "$WORK/int8.log" | awk '$1 != "inf" && $1 > 10 && $1 < 90' | wc -l | tr -d ' ')
sorted=$(rows "$WORK/int8.log" | awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { print bad ? "no" : "yes" }')
only_b=$(sed -n 's/.*; 0 only in A, \([0-9]*\) only in B.*/\1/p' "$WORK/int8.log")
if [ $rc = 0 ] && [ "$finite" = 7 ] && [ "$sorted" = yes ] && [ "${only_b:-0}" -gt 0 ] &&
    rows "$WORK/int8.log" | grep -q " logits  <- /classifier/Gemm (Gemm)$"; then
    pass "digits float against int8: 7 tensors between 10 and 90 dB, worst first, $only_b QDQ tensors only in B"
else
    fail "digits float against int8 (rc $rc, $finite finite rows, sorted $sorted): $(cat "$WORK/int8.log")"
fi
want="first tensor over tolerance (SQNR < 100.0 dB), in A's topological order: /features/features.0/Conv_output_0 (produced by node /features/features.0/Conv, op Conv)"
if "$KILN" diff "$DIGITS" "$WORK/int8.onnx" -i "$SAMPLE" --tol 100 --top 2 >"$WORK/tol.log" 2>&1 &&
    grep -qF "$want" "$WORK/tol.log" && [ "$(rows "$WORK/tol.log" | wc -l)" = 2 ] &&
    grep -q "^\.\.\. 5 more (--top 0 shows all)" "$WORK/tol.log"; then
    pass "--tol 100 names the first tensor computed, not the worst; --top 2 prints 2 rows"
else
    fail "--tol 100 --top 2: $(cat "$WORK/tol.log")"
fi

# ---- a broken layer is found ----
if $PY -c 'import onnx' 2>/dev/null; then
    $PY - "$DIGITS" "$WORK/broken.onnx" <<'EOF'
import sys
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
conv = [n for n in m.graph.node if n.op_type == "Conv"][1]  # the second Conv
for init in m.graph.initializer:
    if init.name == conv.input[1]:
        init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * 1.5, init.name))
onnx.save(m, sys.argv[2])
EOF
    want="first tensor over tolerance (SQNR < 20.0 dB), in A's topological order: /features/features.4/Conv_output_0 (produced by node /features/features.4/Conv, op Conv)"
    if "$KILN" diff "$DIGITS" "$WORK/broken.onnx" -i "$SAMPLE" >"$WORK/broken.log" 2>&1 &&
        grep -qF "$want" "$WORK/broken.log" &&
        rows "$WORK/broken.log" | grep "/features/features.0/Conv_output_0 " | grep -q "^ *inf "; then
        pass "the second Conv's weights scaled by 1.5: its output is the first over tolerance, the first Conv's exact"
    else
        fail "a broken second Conv: $(cat "$WORK/broken.log")"
    fi
else
    echo "note: python3-onnx missing: the broken-layer check is skipped"
fi

# ---- optimization level 2 against the file's graph ----
"$KILN" diff "$DIGITS" --b-optimize 2 -i "$SAMPLE" >"$WORK/opt.log" 2>&1
n=$(sed -n 's/^compared \([0-9]*\) tensors.*/\1/p' "$WORK/opt.log")
if [ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -lt 7 ] &&
    grep -q "^B: .* (optimize 2, 1 thread)" "$WORK/opt.log" &&
    rows "$WORK/opt.log" | grep -q " logits  <- " &&
    grep -q "^no tensor over tolerance" "$WORK/opt.log"; then
    pass "--b-optimize 2: the $n tensors fusion keeps are compared, within tolerance"
else
    fail "--b-optimize 2: $(cat "$WORK/opt.log")"
fi

# ---- oneDNN against Kiln's kernels ----
SQ=$BUILD_DIR/models/squeezenet1_1
if [ -f "$SQ/model.onnx" ] && [ -f "$SQ/input_0.pb" ]; then
    "$KILN" diff "$SQ/model.onnx" --b-no-dnnl -i "$SQ/input_0.pb" --top 0 >"$WORK/dnnl.log" 2>&1
    worst=$(rows "$WORK/dnnl.log" | head -1 | awk '{ print $1 }')
    if grep -q "^compared 65 tensors present in both" "$WORK/dnnl.log" &&
        grep -q "^B: .* (optimize 0, no oneDNN, 1 thread)" "$WORK/dnnl.log" &&
        [ "$(rows "$WORK/dnnl.log" | wc -l)" = 65 ] &&
        awk -v w="$worst" 'BEGIN { exit !(w == "inf" || w > 80) }' &&
        grep -q "^no tensor over tolerance" "$WORK/dnnl.log"; then
        pass "squeezenet1_1 --b-no-dnnl: 65 tensors, the worst at $worst dB"
    else
        fail "squeezenet1_1 --b-no-dnnl: $(cat "$WORK/dnnl.log")"
    fi
else
    echo "note: squeezenet1_1 not exported in $BUILD_DIR/models (export_models): --b-no-dnnl check skipped"
fi

# ---- errors in the user's terms ----
expect_error() { # DESCRIPTION TEXT COMMAND...: fails non-zero, saying TEXT
    desc=$1 text=$2
    shift 2
    if "$@" >"$WORK/err.log" 2>&1; then fail "$desc: succeeded"
    elif grep -q -- "$text" "$WORK/err.log"; then pass "$desc"
    else fail "$desc: said '$(cat "$WORK/err.log")', not '$text'"; fi
}
expect_error "no inputs" "give the inputs with -i FILE.pb or --image FILE" "$KILN" diff "$DIGITS"
# A float32 [2, 3] TensorProto of zeros (dims 2 and 3, data_type 1, raw_data
# of 24 bytes) for add_relu.onnx's X; its Y is not given.
{ printf '\010\002\010\003\020\001\112\030'; head -c 24 /dev/zero; } >"$WORK/x23.pb"
expect_error "a model with an input not given" "missing input 'Y' (float32, 2x3)" \
    "$KILN" diff "$SRC_DIR/tests/data/models/add_relu.onnx" -i "X=$WORK/x23.pb"
expect_error "an input of the wrong shape" "input 'X' expects shape 2x3 (rank 2), got 1x1x8x8" \
    "$KILN" diff "$SRC_DIR/tests/data/models/add_relu.onnx" -i "X=$SAMPLE"
expect_error "a bad --tol" "--tol needs a number of dB" "$KILN" diff "$DIGITS" -i "$SAMPLE" --tol x
expect_error "a bad --b-optimize" "--b-optimize needs a number from 0 to 2" \
    "$KILN" diff "$DIGITS" -i "$SAMPLE" --b-optimize 3
expect_error "an unknown option" "unknown option '--c-no-dnnl'" \
    "$KILN" diff "$DIGITS" -i "$SAMPLE" --c-no-dnnl
expect_error "a model that cannot be read" "cannot load $WORK/none.onnx" \
    "$KILN" diff "$DIGITS" "$WORK/none.onnx" -i "$SAMPLE"

echo "$failures failed"
[ "$failures" = 0 ]
