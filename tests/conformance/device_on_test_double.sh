#!/usr/bin/env bash
# The conformance runner's device path (kiln check --device) on the testdev
# TEST DOUBLE (check_on_test_double.c): cases of ops the double serves pass
# wholly on it, cases of ops it declines (Sigmoid; Gemm with transA, which
# it does not take) pass with their nodes on the CPU, and the summary
# counts both.
#   usage: device_on_test_double.sh KILN_CHECK_TESTDEV
set -u
node=/usr/share/libonnx-testdata/data/node
if [ ! -d "$node" ]; then
  echo "SKIP: $node is absent (install libonnx-testdata)"
  exit 0
fi
out=$("$1" --device testdev "$node/test_relu" "$node/test_add" "$node/test_add_bcast" \
  "$node/test_matmul_2d" "$node/test_gemm_default_no_bias" "$node/test_sigmoid" \
  "$node/test_gemm_transposeA" 2>&1)
echo "$out"
fail=0
expect() {
  if ! grep -qxF -- "$1" <<< "$out"; then
    echo "FAIL: expected the line: $1"
    fail=1
  fi
}
grep -q 'TEST DOUBLE' <<< "$out" || { echo "FAIL: the output does not say it is a test double"; fail=1; }
expect "PASS test_relu"
expect "PASS test_sigmoid [on the CPU: Sigmoid]"
expect "PASS test_gemm_transposeA [on the CPU: Gemm]"
expect "7 passed, 0 failed, 0 skipped"
expect "device testdev: 5 passed wholly on it, 2 passed with a fallback to the CPU"
exit $fail
