#!/usr/bin/env bash
# Generates the hostile-model corpus and runs it twice through
# hostile_runner: with the library's defaults (only the 2 GiB RLIMIT_AS of
# each child as a bound), and with resource limits configured
# (KILN_OPT_MAX_ARENA_MB 64, KILN_OPT_MAX_MODEL_MB 16, 2 threads), where no
# child may use more than 160 MiB.
#   usage: run_hostile.sh RUNNER OUT_DIR
# Exit 77 (ctest's skip) without Debian's python3-onnx.
set -uo pipefail
runner=${1:?usage: run_hostile.sh RUNNER OUT_DIR}
out=${2:?usage: run_hostile.sh RUNNER OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import onnx' 2>/dev/null; then
    echo "SKIP: $py cannot import onnx (Debian package python3-onnx)"
    exit 77
fi
"$py" "$here/make_hostile.py" "$out" || exit 1
# In a sanitizer build: huge requests fail like malloc does instead of
# aborting (the runner cannot use RLIMIT_AS under ASan).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=3072:detect_leaks=1}
known=(--known "$here/known_issues.txt")
status=0
echo "== pass 1: library defaults, RLIMIT_AS 2 GiB, 20 s per model"
"$runner" "${known[@]}" --as-mb 2048 --timeout-s 20 "$out/manifest.txt" || status=1
echo "== pass 2: max arena 64 MiB, max model 16 MiB, 2 threads; RSS must stay under 160 MiB"
"$runner" "${known[@]}" --as-mb 2048 --timeout-s 20 --max-arena-mb 64 --max-model-mb 16 \
    --threads 2 --rss-limit-mb 160 "$out/manifest.txt" || status=1
exit $status
