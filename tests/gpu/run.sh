#!/usr/bin/env bash
# Issue 22's GPU check, in one short run on a machine with an NVIDIA GPU
# (the H200 image: nvcc 13, the driver, PyTorch with its cuBLAS/cuDNN
# wheels; no network, no apt). It runs:
#   1. tests/gpu/cuda_probe.c: Kiln's loader finds the CUDA runtime,
#      cuBLASLt and cuDNN 9 (from $KILN_CUDA_PATH, set here to the PyTorch
#      wheels' nvidia/*/lib folders when the caller did not set it) and the
#      driver reports the GPU;
#   2. the loader's suite, test_cuda_libs, and the backend's,
#      test_cuda_backend (its cuda_gpu tests run every CUDA kernel against
#      Kiln's CPU kernel on the same nodes), built with criterion_lite (the
#      image has no Criterion) and KILN_WITH_CUDA=ON, with a driver present;
#   3. tests/gpu/torch_anchors.py: PyTorch's eager (and compiled, unless
#      KILN_GPU_NO_COMPILE=1) FP16 figures for resnet50 and a BERT-base
#      encoder, the anchors Kiln's CUDA numbers are compared with;
#   4. resnet50 and the BERT-base encoder exported by tools/export_models.py
#      (needs the onnx package; skipped, saying so, without it) and run by
#      tests/gpu/compare_devices.py through `kiln run --device cuda` against
#      `kiln run` on the CPU, with both latencies next to PyTorch's, and the
#      CUDA latency with plain launches against a captured graph's replay
#      (`kiln bench --device cuda --device-graph`); for resnet50 also the
#      first run of a new shape without a tuning cache against the steady
#      state (target: at most 3x) and tuned against untuned latency.
#      KILN_GPU_MODELS=resnet50 limits the models (the BERT export is big).
#   5. ONNX's node test cases of the ops the CUDA backend serves, through
#      `kiln check --device cuda` (docs/conformance.md), time-boxed: pass /
#      fail counts, the cases that fell back to the CPU and their ops.
# KILN_GPU_CMAKE_ARGS adds configure options (e.g. -DKILN_CUDA_COMPRESS=OFF).
# Prints everything to stdout; with $OUT set, also writes $OUT/gpu.log.
#   usage: tests/gpu/run.sh [BUILD_DIR]     (default build-gpu)
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-gpu}
py=${PYTHON:-python3}
[ -n "${OUT:-}" ] && exec > >(tee "$OUT/gpu.log") 2>&1
status=0
start=$(date +%s)

echo "== GPU"
nvidia-smi -L || echo "nvidia-smi: not found"
grep -m1 "model name" /proc/cpuinfo

if [ -z "${KILN_CUDA_PATH:-}" ]; then
  KILN_CUDA_PATH=$("$py" - <<'PY' 2>/dev/null
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except ImportError:
    roots = []
print(":".join(sorted(d for r in roots for d in glob.glob(os.path.join(r, "*", "lib")))))
PY
)
  export KILN_CUDA_PATH
fi
echo "KILN_CUDA_PATH=${KILN_CUDA_PATH:-(unset)}"

echo "== 1. Kiln's CUDA loader"
mkdir -p "$build"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I"$src" \
  "$src/tests/gpu/cuda_probe.c" "$src/core/cuda/cuda_libs.c" "$src/core/base/status.c" \
  -o "$build/cuda_probe" -ldl || status=1
"$build/cuda_probe" || status=1

echo "== 2. test_cuda_libs, test_cuda_backend"
built=0
build_start=$(date +%s)
if cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON \
     -DKILN_CRITERION_LITE=ON -DKILN_WITH_SERVE=OFF -DKILN_WITH_CUDA=ON ${KILN_GPU_CMAKE_ARGS:-} \
     >"$build/configure.log" 2>&1 &&
   cmake --build "$build" -j "$(nproc)" --target test_cuda_libs test_cuda_backend kiln_cli \
     >"$build/build.log" 2>&1; then
  built=1
  echo "build: $(($(date +%s) - build_start)) s"
  grep -m1 "Kiln CUDA backend" "$build/configure.log"
  "$build/tests/test_cuda_libs" || status=1
  "$build/tests/test_cuda_backend" || status=1
else
  tail -20 "$build/configure.log" "$build/build.log"
  status=1
fi

echo "== 3. PyTorch anchors"
compile=()
[ "${KILN_GPU_NO_COMPILE:-0}" = 1 ] && compile=(--no-compile)
timeout 400 "$py" "$src/tests/gpu/torch_anchors.py" "${compile[@]}" | tee "$build/anchors.jsonl" ||
  status=1

echo "== 4. models: kiln --device cuda against kiln on the CPU"
models=${KILN_GPU_MODELS:-resnet50,bert_encoder}
if [ $built = 1 ]; then
  if timeout 300 "$py" "$src/tools/export_models.py" "$build/models" --models "$models" \
       >"$build/export.log" 2>&1; then
    timeout 400 "$py" "$src/tests/gpu/compare_devices.py" --kiln "$build/kiln" --runs 20 \
      --models "$build/models" --names "$models" --anchors "$build/anchors.jsonl"
    rc=$?
    [ $rc = 77 ] && echo "compare_devices: skipped (see above)"
    [ $rc != 0 ] && [ $rc != 77 ] && status=1
  else
    echo "models: export failed (no onnx package for this Python?), not compared:"
    tail -5 "$build/export.log"
  fi
fi

echo "== 5. ONNX node cases on the GPU (kiln check --device cuda)"
node=/usr/share/libonnx-testdata/data/node
[ -d "$node" ] || node=$src/../shared/onnx-tests/node
[ -d "$node" ] || node=$("$py" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/node"))' 2>/dev/null)
if [ $built = 1 ] && [ -d "$node" ]; then
  cases=()
  for op in relu sigmoid tanh add mul div matmul gemm conv maxpool averagepool globalaveragepool \
            softmax layer_normalization reduce_mean reduce_sum transpose concat gather slice \
            resize upsample where cast; do
    for d in "$node"/test_"$op"*; do [ -f "$d/model.onnx" ] && cases+=("$d"); done
  done
  echo "${#cases[@]} cases from $node"
  timeout 150 "$build/kiln" check --device cuda --allow-failures "${cases[@]}" >"$build/check.log" 2>&1
  rc=$?
  [ $rc = 124 ] && echo "kiln check: stopped after 150 s; the counts below are partial"
  grep -E '^FAIL|on the CPU' "$build/check.log" | head -40
  grep -E '^[0-9]+ passed|^device ' "$build/check.log" ||
    echo "$(grep -c '^PASS' "$build/check.log") passed, $(grep -c '^FAIL' "$build/check.log") failed so far"
else
  echo "node cases: none found (no libonnx-testdata, shared/onnx-tests or onnx package), skipped"
fi

echo "== tests/gpu/run.sh: $([ $status = 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - start)) s"
exit $status
