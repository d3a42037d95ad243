#!/usr/bin/env bash
# Instructions per inference of a model on the aarch64 build, counted under
# qemu-aarch64 (user mode), for each SIMD instance: the speed check that
# runs on an x86-64 machine, where emulated timings mean nothing.
#   usage: bench/arm64/count_instructions.sh BUILD_DIR MODEL_DIR... [-- ISA...]
#   (BUILD_DIR: the cross build of scripts/test_aarch64.sh; MODEL_DIR holds
#   model.onnx as tools/export_models.py writes it; ISAs default: neon base)
# Method: qemu logs every translated block's instructions once (-d in_asm)
# and every execution of a block (-d exec, with nochain so chained blocks
# log too) into a FIFO; count_tb_insns.c sums, per execution, the block's
# instruction count. Each ISA is counted twice with `kiln bench` on the
# same seeded random input: --warmup 0 --runs 5 and --warmup 1 --runs 5
# (5 is bench's least). The difference is one inference exactly, so load,
# session creation, input generation and process start-up cancel: per
# inference = difference; load and the rest = first count - 5 x that. One thread (Kiln's
# default), so the count does not depend on scheduling.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: $0 BUILD_DIR MODEL_DIR... [-- ISA...]}
shift
models=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do models+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
isas=("$@")
[ ${#isas[@]} -eq 0 ] && isas=(neon base)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
counter=$work/count_tb_insns
cc -O2 -o "$counter" "$here/count_tb_insns.c"
mkfifo "$work/log"

count() { # count ISA MODEL WARMUP -> instructions
  "$counter" <"$work/log" >"$work/count" &
  local reader=$!
  KILN_SIMD=$1 qemu-aarch64 -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain -D "$work/log" \
    "$build/kiln" bench "$2" --warmup "$3" --runs 5 >/dev/null
  wait $reader
  awk '{print $1}' "$work/count"
}

printf '%-16s %-6s %16s %18s\n' model isa "per inference" "load and rest"
for dir in "${models[@]}"; do
  name=$(basename "$dir")
  for isa in "${isas[@]}"; do
    five=$(count "$isa" "$dir/model.onnx" 0)
    six=$(count "$isa" "$dir/model.onnx" 1)
    per=$(( six - five ))
    printf '%-16s %-6s %16d %18d\n' "$name" "$isa" "$per" $(( five - 5 * per ))
  done
done
