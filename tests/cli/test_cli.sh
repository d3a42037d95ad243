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

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all CLI checks passed"
exit 0
