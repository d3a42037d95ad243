#!/usr/bin/env bash
# Runs `kiln check` over ONNX's backend test suites and prints the counts.
# A suite whose folder is absent is skipped with a message. The run fails
# when a suite passes fewer cases than tests/conformance/minimum_passes.txt
# records, so a regression shows up as a failing test.
# With --device NAME every case runs on that device (kiln check --device):
# nodes its kernels decline run on the CPU, and each suite's line also says
# how many cases passed wholly on the device and how many fell back.
#   usage: run_conformance.sh KILN_BINARY SOURCE_DIR [OUT_DIR] [--device NAME]
set -u
kiln=$1
src=$2
shift 2
out=
device_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --device) device_args=(--device "$2"); shift 2 ;;
    *) out=$1; shift ;;
  esac
done
out=${out:-$(mktemp -d)}
mkdir -p "$out"
minimums="$src/tests/conformance/minimum_passes.txt"
debian=/usr/share/libonnx-testdata/data

suites=(
  "node:$debian/node"
  "pytorch-converted:$debian/pytorch-converted"
  "pytorch-operator:$debian/pytorch-operator"
  "simple:$debian/simple"
  "onnx-1.23-node:$src/../shared/onnx-tests/node"
)

status=0
for entry in "${suites[@]}"; do
  name=${entry%%:*}
  dir=${entry#*:}
  if [ ! -d "$dir" ]; then
    echo "SKIP suite $name: $dir is absent (install libonnx-testdata / provide shared/onnx-tests)"
    continue
  fi
  log="$out/$name.log"
  timeout 1200 "$kiln" check "$dir" --allow-failures "${device_args[@]}" \
    --skip-list "$src/tests/conformance/not_reproducible.txt" > "$log" 2>&1
  rc=$?
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
  if [ $rc -ne 0 ] || [ -z "$summary" ]; then
    echo "FAIL suite $name: kiln check exited $rc without a summary (log: $log)"
    tail -5 "$log"
    status=1
    continue
  fi
  passed=${summary%% passed*}
  minimum=$(awk -v s="$name" '$1 == s {print $2}' "$minimums" 2>/dev/null)
  minimum=${minimum:-0}
  echo "suite $name: $summary (minimum $minimum)"
  grep -E '^device .*: [0-9]+ passed wholly on it' "$log" | sed "s/^/suite $name on /"
  if [ "$passed" -lt "$minimum" ]; then
    echo "FAIL suite $name: $passed passed, fewer than the recorded minimum $minimum"
    grep -E '^FAIL' "$log" | head -20
    status=1
  fi
done
exit $status
