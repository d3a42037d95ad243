#!/bin/sh
# Shell test of the `kiln` command-line tool.
# usage: test_cli.sh PATH/TO/kiln SOURCE_DIR
# Prints each check; exits non-zero if any fails. Checks that need the ONNX
# test data (libonnx-testdata) are skipped with a message when it is absent.
set -u

KILN=${1:?usage: test_cli.sh KILN_BINARY SOURCE_DIR}
SRC=${2:?usage: test_cli.sh KILN_BINARY SOURCE_DIR}
DATA=${KILN_TEST_DATA:-/usr/share/libonnx-testdata/data/node}
CASE=$DATA/test_relu

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-cli-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
# check DESCRIPTION COMMAND...: passes when the command exits 0; shows the
# command's output only when it fails.
check() {
    desc=$1
    shift
    if "$@" >"$WORK/check.log" 2>&1; then
        pass "$desc"
    else
        fail "$desc (rc $?: $(cat "$WORK/check.log"))"
    fi
}
# check_fails DESCRIPTION COMMAND...: passes when the command exits non-zero.
check_fails() {
    desc=$1
    shift
    if "$@" >/dev/null 2>&1; then fail "$desc"; else pass "$desc"; fi
}

[ -x "$KILN" ] || { echo "FAIL - $KILN is not an executable"; exit 1; }
[ -d "$SRC" ] || { echo "FAIL - source dir $SRC not found"; exit 1; }

# --help on the tool and on every command.
check "kiln --help exits 0" "$KILN" --help
for cmd in info run bench check; do
    check "kiln $cmd --help exits 0" "$KILN" "$cmd" --help
done
check_fails "unknown command exits non-zero" "$KILN" frobnicate

# A missing model: non-zero exit and a message naming the file.
"$KILN" info "$WORK/no-such-model.onnx" >"$WORK/missing.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "no-such-model.onnx" "$WORK/missing.out"; then
    pass "info on a missing file fails and names it"
else
    fail "info on a missing file fails and names it (rc $rc: $(cat "$WORK/missing.out"))"
fi

if [ ! -f "$CASE/model.onnx" ]; then
    echo "skip - $CASE/model.onnx not found (install libonnx-testdata); model checks skipped"
    [ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
    exit 0
fi

# info names the model's input.
"$KILN" info "$CASE/model.onnx" >"$WORK/info.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^  x: float32" "$WORK/info.out" && grep -q "Relu" "$WORK/info.out"; then
    pass "info lists input x and op Relu"
else
    fail "info lists input x and op Relu (rc $rc: $(cat "$WORK/info.out"))"
fi
"$KILN" info "$CASE/model.onnx" --plan >"$WORK/plan.out" 2>&1
if grep -q "^memory plan: " "$WORK/plan.out"; then
    pass "info --plan prints a memory plan line"
else
    fail "info --plan prints a memory plan line ($(cat "$WORK/plan.out"))"
fi

# run writes output_0.pb, which then passes as expected data.
"$KILN" run "$CASE/model.onnx" -i "$CASE/test_data_set_0/input_0.pb" -o "$WORK/out/nested" \
    >"$WORK/run.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s "$WORK/out/nested/output_0.pb" ]; then
    pass "run writes output_0.pb into a new folder"
else
    fail "run writes output_0.pb into a new folder (rc $rc: $(cat "$WORK/run.out"))"
fi
# The same input by name.
check "run binds an input given as NAME=FILE" \
    "$KILN" run "$CASE/model.onnx" -i "x=$CASE/test_data_set_0/input_0.pb" -o "$WORK/out2"
check_fails "run rejects an unknown input name" \
    "$KILN" run "$CASE/model.onnx" -i "nope=$CASE/test_data_set_0/input_0.pb" -o "$WORK/out3"

# --device: "cpu" is the default; an unknown device fails at session
# creation, naming the backends built in.
check "run --device cpu" \
    "$KILN" run "$CASE/model.onnx" -i "$CASE/test_data_set_0/input_0.pb" --device cpu
"$KILN" run "$CASE/model.onnx" -i "$CASE/test_data_set_0/input_0.pb" --device nosuch \
    >"$WORK/device.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "unknown device 'nosuch': the backends built in are .*cpu (available)" \
    "$WORK/device.out"; then
    pass "run --device nosuch fails and lists the backends"
else
    fail "run --device nosuch fails and lists the backends (rc $rc: $(cat "$WORK/device.out"))"
fi
check_fails "bench --device nosuch fails" \
    "$KILN" bench "$CASE/model.onnx" --runs 1 --warmup 0 --device nosuch
# --device cuda: runs where a GPU and its libraries are; anywhere else the
# error passes on the CUDA backend's own reason (which library, or no
# driver), not a generic "missing".
"$KILN" run "$CASE/model.onnx" -i "$CASE/test_data_set_0/input_0.pb" --device cuda \
    >"$WORK/cuda.out" 2>&1
rc=$?
if [ $rc -eq 0 ] || grep -q "device 'cuda': backend 'cuda' is built in but not available here: CUDA" \
    "$WORK/cuda.out"; then
    pass "run --device cuda runs, or says why CUDA is missing (rc $rc)"
else
    fail "run --device cuda runs, or says why CUDA is missing (rc $rc: $(cat "$WORK/cuda.out"))"
fi

# A case built from run's own output must pass too.
mkdir -p "$WORK/roundtrip/test_data_set_0"
cp "$CASE/model.onnx" "$WORK/roundtrip/"
cp "$CASE/test_data_set_0/input_0.pb" "$WORK/roundtrip/test_data_set_0/"
cp "$WORK/out/nested/output_0.pb" "$WORK/roundtrip/test_data_set_0/" 2>/dev/null
"$KILN" check "$WORK/roundtrip" >"$WORK/roundtrip.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qx "1 passed, 0 failed, 0 skipped" "$WORK/roundtrip.out"; then
    pass "check passes on run's own output"
else
    fail "check passes on run's own output (rc $rc: $(cat "$WORK/roundtrip.out"))"
fi

# check on the real case folder passes.
"$KILN" check "$CASE" >"$WORK/check.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^PASS test_relu" "$WORK/check.out" &&
    grep -qx "1 passed, 0 failed, 0 skipped" "$WORK/check.out"; then
    pass "check passes test_relu"
else
    fail "check passes test_relu (rc $rc: $(cat "$WORK/check.out"))"
fi

# check on a folder of cases, one with a truncated model: FAIL, exit 1, and the
# good case still runs.
mkdir -p "$WORK/suite"
cp -r "$CASE" "$WORK/suite/test_a_good"
cp -r "$CASE" "$WORK/suite/test_b_corrupt"
head -c 20 "$CASE/model.onnx" >"$WORK/suite/test_b_corrupt/model.onnx"
"$KILN" check "$WORK/suite" >"$WORK/suite.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^FAIL test_b_corrupt: " "$WORK/suite.out" &&
    grep -q "^PASS test_a_good" "$WORK/suite.out" &&
    grep -qx "1 passed, 1 failed, 0 skipped" "$WORK/suite.out"; then
    pass "check reports a corrupt model as FAIL, exits 1, runs the rest"
else
    fail "check reports a corrupt model as FAIL, exits 1, runs the rest (rc $rc: $(cat "$WORK/suite.out"))"
fi
check "check --allow-failures exits 0" "$KILN" check "$WORK/suite" --allow-failures
"$KILN" check "$WORK/suite" --filter good >"$WORK/filter.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qx "1 passed, 0 failed, 0 skipped" "$WORK/filter.out"; then
    pass "check --filter selects cases by name"
else
    fail "check --filter selects cases by name (rc $rc: $(cat "$WORK/filter.out"))"
fi

# A wrong expected value is a FAIL that says where.
mkdir -p "$WORK/wrong/test_data_set_0"
cp "$CASE/model.onnx" "$WORK/wrong/"
cp "$CASE/test_data_set_0/input_0.pb" "$WORK/wrong/test_data_set_0/"
# Relu of the input is not the input itself (it has negative values).
cp "$CASE/test_data_set_0/input_0.pb" "$WORK/wrong/test_data_set_0/output_0.pb"
"$KILN" check "$WORK/wrong" >"$WORK/wrong.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^FAIL wrong: output 0 (y): max abs diff" "$WORK/wrong.out"; then
    pass "check reports a value mismatch with its position"
else
    fail "check reports a value mismatch with its position (rc $rc: $(cat "$WORK/wrong.out"))"
fi

# bench --json prints one JSON object with the four keys.
"$KILN" bench "$CASE/model.onnx" --json --warmup 1 --runs 5 >"$WORK/bench.out" 2>"$WORK/bench.err"
rc=$?
lines=$(wc -l <"$WORK/bench.out")
ok=1
[ $rc -eq 0 ] && [ "$lines" -eq 1 ] || ok=0
grep -q '^{.*}$' "$WORK/bench.out" || ok=0
for key in create_ms median_ms p90_ms peak_rss_mb; do
    grep -q "\"$key\": [0-9]" "$WORK/bench.out" || ok=0
done
if [ $ok -eq 1 ]; then
    pass "bench --json prints one object with create_ms, median_ms, p90_ms, peak_rss_mb"
else
    fail "bench --json output (rc $rc: $(cat "$WORK/bench.out" "$WORK/bench.err"))"
fi
if command -v python3 >/dev/null 2>&1; then
    check "bench --json output parses as JSON" \
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/bench.out"
fi

# bench --profile on the digits CNN: a per-op table whose op types are the
# model's, the slowest-steps table, and a share column summing to ~100 %.
DIGITS=$SRC/examples/digits/digits.onnx
SAMPLE=$(ls "$SRC"/examples/digits/samples/*.pb 2>/dev/null | head -n 1)
if [ -f "$DIGITS" ] && [ -n "$SAMPLE" ]; then
    "$KILN" bench "$DIGITS" --input "$SAMPLE" --profile --warmup 1 --runs 5 \
        >"$WORK/profile.out" 2>&1
    rc=$?
    share=$(awk '/^op type/{t=1; next} t && NF==0{t=0} t{gsub("%","",$NF); s+=$NF} END{printf "%d", s+0.5}' \
        "$WORK/profile.out")
    if [ $rc -eq 0 ] && grep -q '^profile: [0-9]* steps' "$WORK/profile.out" &&
        grep -Eq '^(Fused|Nhwc)?Conv ' "$WORK/profile.out" && grep -q '^slowest ' "$WORK/profile.out" &&
        [ "$share" -ge 99 ] && [ "$share" -le 101 ]; then
        pass "bench --profile prints time per op type (shares sum to $share %) and the slowest steps"
    else
        fail "bench --profile output (rc $rc, shares $share: $(cat "$WORK/profile.out"))"
    fi
    # --top N lists N slowest steps; --top 0 lists every step the
    # profile counted
    "$KILN" bench "$DIGITS" --input "$SAMPLE" --profile --top 2 --warmup 1 --runs 3 \
        >"$WORK/top2.out" 2>&1
    "$KILN" bench "$DIGITS" --input "$SAMPLE" --profile --top 0 --warmup 1 --runs 3 \
        >"$WORK/top0.out" 2>&1
    rows() { awk '/^slowest/{t=1; getline; next} t && NF' "$1" | wc -l; }
    steps=$(sed -n 's/^profile: \([0-9]*\) steps.*/\1/p' "$WORK/top0.out")
    if [ "$(rows "$WORK/top2.out")" -eq 2 ] && [ -n "$steps" ] && [ "$steps" -gt 2 ] &&
        [ "$(rows "$WORK/top0.out")" -eq "$steps" ]; then
        pass "bench --top 2 lists 2 steps, --top 0 all $steps"
    else
        fail "bench --top (top 2: $(cat "$WORK/top2.out"); top 0: $(cat "$WORK/top0.out"))"
    fi
    check_fails "bench --top with a non-number is refused" "$KILN" bench "$DIGITS" --top x --runs 1
    check_fails "bench --input with a file that is not a tensor fails" \
        "$KILN" bench "$DIGITS" --input "$DIGITS" --runs 1
    check_fails "bench --optimize 3 is refused" "$KILN" bench "$DIGITS" --optimize 3 --runs 1
else
    echo "skip - bench --profile: examples/digits is missing"
fi

# ---- issue 19: the first hour with the CLI ----

# One message convention: "kiln COMMAND: ..." once the command is known,
# "kiln: ..." before.
"$KILN" frobnicate >/dev/null 2>"$WORK/unknown.err"
if grep -q "^kiln: unknown command 'frobnicate'" "$WORK/unknown.err"; then
    pass "an unknown command is reported as 'kiln: unknown command ...'"
else
    fail "unknown command message ($(cat "$WORK/unknown.err"))"
fi
"$KILN" bench --runs x >/dev/null 2>"$WORK/prefix.err"
if grep -q "^kiln bench: --runs needs a positive number" "$WORK/prefix.err"; then
    pass "bench errors start with 'kiln bench:'"
else
    fail "bench error prefix ($(cat "$WORK/prefix.err"))"
fi
if grep -rn 'fprintf(stderr, "kiln' "$SRC/cli" | grep -v '/cli/util.c:' >"$WORK/fprintf.out"; then
    fail "every CLI error goes through cli_error ($(cat "$WORK/fprintf.out"))"
else
    pass "no CLI message hand-writes its 'kiln ...:' prefix"
fi

if [ -f "$DIGITS" ] && [ -n "$SAMPLE" ]; then
    FIVE=$SRC/examples/digits/samples/digit_00_label_5.pb
    ZERO=$SRC/examples/digits/samples/digit_02_label_0.pb
    "$KILN" info "$DIGITS" >"$WORK/digits-info.out" 2>&1
    DIGITS_IN=$(sed -n '/^inputs (/{n;s/^  \([^:]*\):.*/\1/p;}' "$WORK/digits-info.out")
    DIGITS_OUT=$(sed -n '/^outputs (/{n;s/^  \([^:]*\):.*/\1/p;}' "$WORK/digits-info.out")
    # run without -o prints each output: name, dtype, shape, values, argmax.
    "$KILN" run "$DIGITS" -i "$FIVE" >"$WORK/run5.out" 2>&1
    rc=$?
    values=$(sed -n 's/^  values: //p' "$WORK/run5.out" | wc -w)
    if [ $rc -eq 0 ] && grep -qx "$DIGITS_OUT: float32 \[1, 10\]" "$WORK/run5.out" &&
        [ "$values" -eq 10 ] && grep -qx "  argmax: 5" "$WORK/run5.out"; then
        pass "run without -o prints the 10 scores of digit_00_label_5 and argmax 5"
    else
        fail "run prints output values (rc $rc, $values values: $(cat "$WORK/run5.out"))"
    fi
    "$KILN" run "$DIGITS" -i "$ZERO" >"$WORK/run0.out" 2>&1
    if grep -qx "  argmax: 0" "$WORK/run0.out"; then
        pass "run prints argmax 0 for digit_02_label_0"
    else
        fail "run argmax for a 0 ($(cat "$WORK/run0.out"))"
    fi
    # With -o: the file and a one-line summary, no values.
    "$KILN" run "$DIGITS" -i "$FIVE" -o "$WORK/digits-out" >"$WORK/run5o.out" 2>&1
    if [ -s "$WORK/digits-out/output_0.pb" ] &&
        grep -qx "$DIGITS_OUT: float32 \[1, 10\] -> $WORK/digits-out/output_0.pb" "$WORK/run5o.out" &&
        ! grep -q "values:" "$WORK/run5o.out"; then
        pass "run -o writes output_0.pb and prints one line per output"
    else
        fail "run -o ($(cat "$WORK/run5o.out"))"
    fi
    # A long output is shown as head ... tail: test_relu's 3x4x5 output.
    "$KILN" run "$CASE/model.onnx" -i "$CASE/test_data_set_0/input_0.pb" >"$WORK/long.out" 2>&1
    if grep -q "^  values: \([^ ]* \)\{8\}\.\.\. \([^ ]* \)\{8\}(60 values)$" "$WORK/long.out" &&
        ! grep -q "argmax" "$WORK/long.out"; then
        pass "run shows a 60-value output as 8 values ... 8 values"
    else
        fail "run head ... tail ($(cat "$WORK/long.out"))"
    fi
    # A missing input is named, with its dtype, shape and how to give it.
    "$KILN" run "$DIGITS" >"$WORK/noinput.out" 2>"$WORK/noinput.err"
    rc=$?
    want="kiln run: missing input '$DIGITS_IN' (float32, ?x1x8x8): give it with -i $DIGITS_IN=FILE.pb or --image $DIGITS_IN=FILE.png"
    if [ $rc -eq 1 ] && grep -qxF "$want" "$WORK/noinput.err"; then
        pass "run without -i names the missing input and how to give it"
    else
        fail "run without -i (rc $rc: $(cat "$WORK/noinput.err"); wanted: $want)"
    fi
    # --top without --profile is refused, not ignored.
    "$KILN" bench "$DIGITS" --top 3 --runs 1 >/dev/null 2>"$WORK/top.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qx "kiln bench: --top needs --profile" "$WORK/top.err"; then
        pass "bench --top without --profile exits 2: '--top needs --profile'"
    else
        fail "bench --top without --profile (rc $rc: $(cat "$WORK/top.err"))"
    fi
    # info --optimize 0 shows the graph as in the file; the digits CNN keeps
    # its node count (two Conv + Relu pairs become NHWC convolutions between
    # two Transposes), so the count itself is checked on fusable.onnx below.
    nodes() { sed -n 's/^ops (\([0-9]*\) nodes\{0,1\},.*/\1/p' "$1"; }
    "$KILN" info "$DIGITS" --optimize 0 >"$WORK/info0.out" 2>&1
    n0=$(nodes "$WORK/info0.out")
    n2=$(nodes "$WORK/digits-info.out")
    if grep -q "^graph: as in the file" "$WORK/info0.out" && ! grep -q "^  kiln:" "$WORK/info0.out" &&
        grep -q "^  kiln:" "$WORK/digits-info.out" && grep -q "^  Relu  " "$WORK/info0.out" &&
        ! grep -q "^  Relu  " "$WORK/digits-info.out"; then
        pass "info --optimize 0 shows digits as in the file (Relu), the default as it runs (kiln ops)"
    else
        fail "info --optimize 0 ($(cat "$WORK/info0.out"))"
    fi
    check_fails "info --optimize 3 is refused" "$KILN" info "$DIGITS" --optimize 3

    # --dot: one DOT node per graph node, an ellipse per input and output, and
    # the fused nodes orange with the ops they replaced.
    dot_check() { # MODEL DOTFILE EXPECTED_NODES WANT_FUSED(0/1) LABEL
        boxes=$(grep -c '^  n[0-9]* \[' "$2")
        ends=$(grep -c '^  \(in\|out\)[0-9]* \[' "$2")
        fused=$(grep -c '^  n[0-9]* \[fillcolor="#f6b26b"' "$2")
        ok=1
        [ "$boxes" -eq "$3" ] || ok=0
        [ "$ends" -ge 2 ] || ok=0
        if [ "$4" -eq 1 ]; then
            [ "$fused" -gt 0 ] || ok=0
            grep -q '^  n[0-9]* \[fillcolor="#f6b26b".*label="[A-Za-z]*\\n[A-Z][A-Za-z]* + ' "$2" || ok=0
        else
            [ "$fused" -eq 0 ] || ok=0
        fi
        if [ $ok -eq 1 ]; then
            pass "$5: $boxes nodes, $fused fused"
        else
            fail "$5: $boxes nodes (want $3), $ends inputs/outputs, $fused fused ($(head -c 2000 "$2"))"
        fi
    }
    "$KILN" info "$DIGITS" --dot "$WORK/digits.dot" >"$WORK/dot.out" 2>&1
    dot_check "$DIGITS" "$WORK/digits.dot" "$n2" 1 "info --dot on digits (optimized)"
    if grep -q 'label="NhwcConv\\nConv + Relu"' "$WORK/digits.dot"; then
        pass "info --dot names the ops a fused node replaced (NhwcConv: Conv + Relu)"
    else
        fail "info --dot fused-op list ($(grep fillcolor "$WORK/digits.dot"))"
    fi
    "$KILN" info "$DIGITS" --optimize 0 --dot "$WORK/digits0.dot" >/dev/null 2>&1
    dot_check "$DIGITS" "$WORK/digits0.dot" "$n0" 0 "info --optimize 0 --dot on digits (as in the file)"
    if command -v dot >/dev/null 2>&1; then
        "$KILN" info "$DIGITS" --svg "$WORK/digits.svg" >"$WORK/svg.out" 2>&1
        rc=$?
        svg_nodes=$(grep -c 'class="node"' "$WORK/digits.svg" 2>/dev/null)
        if [ $rc -eq 0 ] && grep -q '<svg' "$WORK/digits.svg" &&
            [ "$svg_nodes" -eq "$(grep -c '^  \(n\|in\|out\)[0-9]* \[' "$WORK/digits.dot")" ] &&
            grep -q 'fill="#f6b26b"' "$WORK/digits.svg"; then
            pass "info --svg renders digits ($svg_nodes SVG nodes, fused ones orange)"
        else
            fail "info --svg (rc $rc, $svg_nodes nodes: $(cat "$WORK/svg.out"))"
        fi
        check "info --dot FILE.svg renders too" "$KILN" info "$DIGITS" --dot "$WORK/digits2.svg"
        grep -q '<svg' "$WORK/digits2.svg" 2>/dev/null || fail "--dot FILE.svg wrote no SVG"
    else
        echo "skip - info --svg: Graphviz's dot is not installed (scripts/install_deps.sh test)"
    fi
    # Without Graphviz the SVG is refused with the reason.
    PATH=/nonexistent "$KILN" info "$DIGITS" --svg "$WORK/none.svg" >/dev/null 2>"$WORK/nodot.err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "^kiln info: cannot write $WORK/none.svg: Graphviz's 'dot' program is not on PATH" "$WORK/nodot.err"; then
        pass "info --svg without Graphviz says dot is missing"
    else
        fail "info --svg without Graphviz (rc $rc: $(cat "$WORK/nodot.err"))"
    fi

    # resnet50, when the models test exported it: renders, fused nodes shown.
    RESNET=$(dirname "$KILN")/models/resnet50/model.onnx
    if [ -f "$RESNET" ] && command -v dot >/dev/null 2>&1; then
        "$KILN" info "$RESNET" >"$WORK/resnet.out" 2>&1
        "$KILN" info "$RESNET" --dot "$WORK/resnet.dot" --svg "$WORK/resnet.svg" >"$WORK/rsvg.out" 2>&1
        rc=$?
        dot_check "$RESNET" "$WORK/resnet.dot" "$(nodes "$WORK/resnet.out")" 1 "info --dot on resnet50"
        orange=$(grep -c 'fill="#f6b26b"' "$WORK/resnet.svg")
        residual=$(grep -c '>Conv + Add + Relu<' "$WORK/resnet.svg")
        # 53 convolutions, 16 of them with the residual Add and Relu fused in.
        if [ $rc -eq 0 ] && [ "$orange" -ge 53 ] && [ "$residual" -eq 16 ]; then
            pass "info --svg renders resnet50: $orange orange nodes, $residual Conv + Add + Relu"
        else
            fail "info --svg on resnet50 (rc $rc: $(cat "$WORK/rsvg.out"))"
        fi
    else
        echo "skip - resnet50 picture: $RESNET not exported (models test) or no Graphviz"
    fi

    # Progress: a line on a terminal (faked with script), none when piped.
    if command -v script >/dev/null 2>&1; then
        script -qec "'$KILN' check '$WORK/suite' --allow-failures" /dev/null \
            >"$WORK/tty.out" 2>&1 </dev/null
        if grep -q "$(printf '\r')\[1/2\] test_a_good" "$WORK/tty.out"; then
            pass "check shows a progress line on a terminal"
        else
            fail "check progress on a terminal ($(od -c "$WORK/tty.out" | head -20))"
        fi
        script -qec "'$KILN' bench '$DIGITS' --runs 5 --warmup 1" /dev/null \
            >"$WORK/ttyb.out" 2>&1 </dev/null
        if grep -q "$(printf '\r')\[5/5\] timed runs" "$WORK/ttyb.out" ||
            grep -q "$(printf '\r')\[[ 0-9]*/5\] timed runs" "$WORK/ttyb.out"; then
            pass "bench shows a progress line on a terminal"
        else
            fail "bench progress on a terminal ($(od -c "$WORK/ttyb.out" | head -20))"
        fi
        # An error erases the progress line instead of running into it.
        printf 'image=1x1x8x8\nimage=2x1x8x8\nnope=1x1x8x8\n' >"$WORK/shapes.txt"
        script -qec "'$KILN' bench '$DIGITS' --shapes-file '$WORK/shapes.txt'" /dev/null \
            >"$WORK/ttye.out" 2>&1 </dev/null
        if grep -q "$(printf '\r') *$(printf '\r')kiln bench: unknown input 'nope'; the model's inputs are: 'image'" \
            "$WORK/ttye.out"; then
            pass "an error on a terminal first erases the progress line"
        else
            fail "error over a progress line ($(od -c "$WORK/ttye.out" | head -20))"
        fi
    else
        echo "skip - progress on a terminal: 'script' (bsdutils) is missing"
    fi
    "$KILN" check "$WORK/suite" --allow-failures >"$WORK/piped.out" 2>&1
    "$KILN" bench "$DIGITS" --runs 5 --warmup 1 >>"$WORK/piped.out" 2>&1
    if grep -q "$(printf '\r')" "$WORK/piped.out"; then
        fail "piped check/bench output carries no carriage return"
    else
        pass "piped check/bench output carries no carriage return"
    fi
else
    echo "skip - run/info/bench digits checks: examples/digits is missing"
fi

# --plan on a model with a dynamic batch: --shape gives the batch.
if /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
    /usr/bin/python3 - "$WORK/dynamic.onnx" "$WORK/fusable.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, numpy_helper
import numpy as np
w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
    "dynamic_batch",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
    [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
open(sys.argv[1], "wb").write(model.SerializeToString())
# MatMul + Add (bias) + Relu: one FusedMatMul once optimized.
b = numpy_helper.from_array(np.full((3,), 0.5, np.float32), "b")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["hb"]),
     helper.make_node("Relu", ["hb"], ["y"])],
    "fusable",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    [w, b])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
open(sys.argv[2], "wb").write(model.SerializeToString())
PY
    "$KILN" info "$WORK/dynamic.onnx" --plan >"$WORK/dyn.out" 2>&1
    if grep -q "^memory plan: not available: the input shapes are dynamic; give them with --shape" \
        "$WORK/dyn.out"; then
        pass "info --plan on a dynamic batch asks for --shape"
    else
        fail "info --plan on a dynamic batch ($(cat "$WORK/dyn.out"))"
    fi
    # Batch 1000: h and y are 1000x3 floats, 12000 bytes each.
    "$KILN" info "$WORK/dynamic.onnx" --plan --shape x=1000x4 >"$WORK/dyn2.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^memory plan: arena .*, intermediates 11.7 KiB" "$WORK/dyn2.out"; then
        pass "info --plan --shape x=1000x4 plans the 1000-row batch"
    else
        fail "info --plan --shape (rc $rc: $(cat "$WORK/dyn2.out"))"
    fi
    check_fails "info --shape without --plan is refused" \
        "$KILN" info "$WORK/dynamic.onnx" --shape x=2x4
    # --optimize 0: the 3 nodes of the file; by default 1 fused node, drawn
    # orange with the 3 ops it replaced.
    "$KILN" info "$WORK/fusable.onnx" --optimize 0 >"$WORK/fus0.out" 2>&1
    "$KILN" info "$WORK/fusable.onnx" --dot "$WORK/fusable.dot" >"$WORK/fus2.out" 2>&1
    if grep -q "^ops (3 nodes, 3 types):" "$WORK/fus0.out" &&
        grep -q "^ops (1 node, 1 type):" "$WORK/fus2.out" &&
        grep -q "^  kiln:FusedMatMul  *1$" "$WORK/fus2.out" &&
        grep -q 'fillcolor="#f6b26b".*label="FusedMatMul\\nMatMul + Add + Relu"' "$WORK/fusable.dot"; then
        pass "info --optimize 0 counts 3 nodes, the default 1 FusedMatMul = MatMul + Add + Relu"
    else
        fail "info --optimize 0 vs 2 on fusable.onnx ($(cat "$WORK/fus0.out" "$WORK/fus2.out" "$WORK/fusable.dot"))"
    fi
else
    echo "skip - info --plan --shape: python3-onnx is missing"
fi

# cmake --install puts the command into PREFIX/bin, and it runs from there.
BUILD=$(dirname "$KILN")
if command -v cmake >/dev/null 2>&1 && [ -f "$BUILD/cmake_install.cmake" ]; then
    cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && "$WORK/prefix/bin/kiln" --version >"$WORK/installed.out" 2>&1 &&
        grep -q "^kiln " "$WORK/installed.out"; then
        pass "cmake --install puts a working kiln into PREFIX/bin"
    else
        fail "cmake --install (rc $rc: $(cat "$WORK/install.out" "$WORK/installed.out" 2>/dev/null))"
    fi
else
    echo "skip - install check: no cmake or no cmake_install.cmake next to $KILN"
fi

# run --image: a digit drawn as a PNG and as a JPEG (tests/data/images,
# from examples/digits/samples/digit_00_label_5.pb) is classified as 5, the
# label; without the image libraries the refusal names the library.
IMAGES=$SRC/tests/data/images
for image in digit_00_label_5.png digit_00_label_5.jpg; do
    [ -f "$DIGITS" ] || break
    "$KILN" run "$DIGITS" --image "$IMAGES/$image" >"$WORK/image.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^  argmax: 5$' "$WORK/image.out"; then
        pass "run --image $image classifies the digit as 5"
    elif [ $rc -ne 0 ] && grep -q 'Kiln was built without lib' "$WORK/image.out"; then
        echo "skip - run --image $image: $(cat "$WORK/image.out")"
    else
        fail "run --image $image (rc $rc: $(cat "$WORK/image.out"))"
    fi
done
if [ -f "$DIGITS" ]; then
    check_fails "run --image with a file that is not an image fails" \
        "$KILN" run "$DIGITS" --image "$DIGITS"
    check_fails "run --image NAME= with no such input fails" \
        "$KILN" run "$DIGITS" --image "nosuch=$IMAGES/digit_00_label_5.png"
    check_fails "run --mean with two values is refused" \
        "$KILN" run "$DIGITS" --image "$IMAGES/digit_00_label_5.png" --mean 1,2
    head -c 60 "$IMAGES/digit_00_label_5.png" >"$WORK/cut.png"
    "$KILN" run "$DIGITS" --image "$WORK/cut.png" >"$WORK/cut.out" 2>&1
    if [ $? -ne 0 ] && grep -q 'PNG image' "$WORK/cut.out"; then
        pass "run --image with a truncated PNG fails naming the format"
    else
        fail "run --image with a truncated PNG ($(cat "$WORK/cut.out"))"
    fi
    "$KILN" run --help 2>&1 | grep -q -- '--image \[NAME=\]FILE' &&
        pass "run --help documents --image" || fail "run --help lacks --image"
fi

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all CLI checks passed"
exit 0
