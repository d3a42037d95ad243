#!/usr/bin/env bash
# Writes the fuzzers' seed corpora (not committed: generated each time):
#   OUT/models   every model.onnx of ONNX's test data
#                (/usr/share/libonnx-testdata/data/*/*/), tests/data/models/*.onnx,
#                examples/digits/digits.onnx
#   OUT/tensors  the TensorProto files (.pb) of the same test cases (the
#                first data set of each) and the digits samples
# Files are named by content hash, so duplicates collapse.
#   usage: make_seeds.sh OUT_DIR
set -euo pipefail
out=${1:?usage: make_seeds.sh OUT_DIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
testdata=/usr/share/libonnx-testdata/data
mkdir -p "$out/models" "$out/tensors"

add() { # add FILE DIR
    local sum
    sum=$(sha1sum "$1" | cut -c1-16)
    cp "$1" "$2/$sum"
}

shopt -s nullglob
for f in "$testdata"/*/*/model.onnx "$src"/tests/data/models/*.onnx \
         "$src"/examples/digits/digits.onnx; do
    # matmul_chain.onnx is slow to run by design (tests/hostile/
    # make_long_model.py: 11 GFLOP in a 3 KB file); as a seed each of its
    # mutants took ~20 s in the coverage + ASan build and showed up as a
    # slow unit, while adding no path the other MatMul seeds lack.
    [ "$(basename "$f")" = matmul_chain.onnx ] && continue
    add "$f" "$out/models"
done
for f in "$testdata"/*/*/test_data_set_0/*.pb "$src"/examples/digits/samples/*.pb; do
    # Big tensors slow every mutation down and add nothing new.
    [ "$(stat -c %s "$f")" -le 65536 ] && add "$f" "$out/tensors"
done
[ -d "$testdata" ] || echo "make_seeds: $testdata is missing (Debian package libonnx-testdata); seeds are the repository's models only" >&2
echo "seeds: $(ls "$out/models" | wc -l) models, $(ls "$out/tensors" | wc -l) tensors in $out"
