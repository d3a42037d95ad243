#!/usr/bin/env bash
# Instructions per inference of a model on the aarch64 build, counted under
# qemu-aarch64 (user mode), for each SIMD instance: the speed check that
# runs on an x86-64 machine, where emulated timings mean nothing.
#   usage: bench/arm64/count_instructions.sh [--log] [--scalar-build DIR] BUILD_DIR MODEL_DIR... [-- ISA...]
#          bench/arm64/count_instructions.sh --configure-scalar DIR
#   (BUILD_DIR: the cross build of scripts/test_aarch64.sh; MODEL_DIR holds
#   model.onnx as tools/export_models.py writes it; ISAs default: neon base)
# --scalar-build DIR adds a "scalar" row per model: KILN_SIMD=base counted
# in DIR, a cross build configured with -DKILN_SCALAR_PORTABLE_SIMD=ON (the
# portable instance without vector instructions), and prints neon/base and
# neon/scalar. --configure-scalar DIR configures and builds such a folder
# (test_aarch64.sh's cross flags plus that option; only the CLI, ninja -j 2).
# Method: a TCG plugin (count_insns_plugin.c) adds each translated block's
# instruction count to a counter on every execution of the block. --log
# counts the same from qemu's log instead, the first method (about 20
# times slower: one count of squeezenet1_1 took 7.5 min against 23 s, and
# the scalar rows would take hours): qemu logs every translated
# block's instructions once (-d in_asm) and every execution of a block
# (-d exec, with nochain so chained blocks log too) into a FIFO;
# count_tb_insns.c sums, per execution, the block's instruction count.
# Each ISA is counted twice with `kiln bench` on the
# same seeded random input: --warmup 0 --runs 5 and --warmup 1 --runs 5
# (5 is bench's least). The difference is one inference exactly, so load,
# session creation, input generation and process start-up cancel: per
# inference = difference; load and the rest = first count - 5 x that. One thread (Kiln's
# default), so the count does not depend on scheduling; bench's own
# timing code still varies it by a few hundred instructions a run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: $0 [--log] [--scalar-build DIR] BUILD_DIR MODEL_DIR... [-- ISA...] | --configure-scalar DIR"

if [ "${1:-}" = --configure-scalar ]; then
  dir=${2:?$usage}
  src=$(cd "$here/../.." && pwd)
  # scripts/test_aarch64.sh's build, plus the option
  cmake -S "$src" -B "$dir" -G Ninja -C "$src/cmake/aarch64-emulated-build.cmake" \
    -DKILN_SCALAR_PORTABLE_SIMD=ON >/dev/null
  ninja -C "$dir" -j 2 kiln_cli
  obj=$dir/CMakeFiles/kiln_objects.dir/core/simd/simd_base.c.o
  echo "vector-register instructions in $obj: $(aarch64-linux-gnu-objdump -d "$obj" | grep -cE '\bv[0-9]+\.' || true)"
  exit 0
fi

method=plugin
if [ "${1:-}" = --log ]; then
  method=log
  shift
fi
scalar=
if [ "${1:-}" = --scalar-build ]; then
  scalar=${2:?$usage}
  shift 2
fi
build=${1:?$usage}
shift
models=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do models+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
isas=("$@")
[ ${#isas[@]} -eq 0 ] && isas=(neon base)
[ -n "$scalar" ] && isas+=(scalar)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $method = plugin ]; then
  cc -O2 -shared -fPIC -o "$work/count_insns_plugin.so" "$here/count_insns_plugin.c"
else
  counter=$work/count_tb_insns
  cc -O2 -o "$counter" "$here/count_tb_insns.c"
  mkfifo "$work/log"
fi

count() { # count ISA MODEL WARMUP -> instructions (ISA scalar: base in the scalar build)
  local bin=$build/kiln isa=$1
  if [ "$isa" = scalar ]; then bin=$scalar/kiln; isa=base; fi
  if [ $method = plugin ]; then
    KILN_SIMD=$isa qemu-aarch64 -L /usr/aarch64-linux-gnu \
      -plugin "$work/count_insns_plugin.so,out=$work/count" \
      "$bin" bench "$2" --warmup "$3" --runs 5 >/dev/null
  else
    "$counter" <"$work/log" >"$work/count" &
    local reader=$!
    KILN_SIMD=$isa qemu-aarch64 -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain -D "$work/log" \
      "$bin" bench "$2" --warmup "$3" --runs 5 >/dev/null
    wait $reader
  fi
  awk '{print $1}' "$work/count"
}

printf '%-16s %-6s %16s %18s\n' model isa "per inference" "load and rest"
for dir in "${models[@]}"; do
  name=$(basename "$dir")
  declare -A per_isa=()
  for isa in "${isas[@]}"; do
    five=$(count "$isa" "$dir/model.onnx" 0)
    six=$(count "$isa" "$dir/model.onnx" 1)
    per=$(( six - five ))
    per_isa[$isa]=$per
    printf '%-16s %-6s %16d %18d\n' "$name" "$isa" "$per" $(( five - 5 * per ))
  done
  for other in base scalar; do
    if [ -n "${per_isa[neon]:-}" ] && [ -n "${per_isa[$other]:-}" ]; then
      awk -v m="$name" -v o="$other" -v n="${per_isa[neon]}" -v d="${per_isa[$other]}" \
        'BEGIN { printf "%-16s neon/%-6s %.3f\n", m, o, n / d }'
    fi
  done
  unset per_isa
done
