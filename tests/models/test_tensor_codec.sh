#!/bin/sh
# Checks the TensorProto codec in tools/ort/run_ort.mjs against ONNX's own
# Python implementation: tensors written by onnx (raw_data and typed fields,
# packed and unpacked dims) must decode and re-encode to equal tensors.
# Usage: test_tensor_codec.sh SRC_DIR   (exit 77 = skipped, for ctest)
set -eu
SRC_DIR=${1:-$(dirname "$0")/../..}
PY=/usr/bin/python3
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
$PY -c 'import onnx, numpy' 2>/dev/null || { echo "SKIP: $PY cannot import onnx and numpy"; exit 77; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. Write the cases with onnx.
$PY - "$WORK" <<'EOF'
import os, sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper

work = sys.argv[1]
rng = np.random.RandomState(0)
cases = {
    "f32_raw": numpy_helper.from_array(rng.randn(2, 3, 4).astype(np.float32), "a"),
    "f64_raw": numpy_helper.from_array(rng.randn(5).astype(np.float64), "b"),
    "i64_raw": numpy_helper.from_array(np.array([[-1, 2**40], [3, -2**62]], np.int64), "c"),
    "i32_raw": numpy_helper.from_array(np.array([-7, 0, 2**31 - 1], np.int32), "d"),
    "u8_raw": numpy_helper.from_array(np.arange(256, dtype=np.uint8), "e"),
    "bool_raw": numpy_helper.from_array(np.array([True, False, True]), "f"),
    "scalar": numpy_helper.from_array(np.array(3.5, np.float32), ""),
    "empty": numpy_helper.from_array(np.zeros((0, 3), np.float32), "g"),
    # Typed fields instead of raw_data (what hand-written test data uses).
    "f32_typed": helper.make_tensor("h", TensorProto.FLOAT, [2, 2], [1.5, -2.0, 0.0, 1e-30]),
    "i64_typed": helper.make_tensor("i", TensorProto.INT64, [3], [-5, 0, 2**50]),
    "i32_typed": helper.make_tensor("j", TensorProto.INT32, [2], [-1, 123456]),
    "f64_typed": helper.make_tensor("k", TensorProto.DOUBLE, [2], [1e300, -0.25]),
    "u8_typed": helper.make_tensor("l", TensorProto.UINT8, [3], [0, 128, 255]),
    "bool_typed": helper.make_tensor("m", TensorProto.BOOL, [2], [True, False]),
}
for name, t in cases.items():
    with open(os.path.join(work, name + ".pb"), "wb") as f:
        f.write(t.SerializeToString())
# dims packed (field 1, wire type 2): legal protobuf that onnx never writes.
t = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "n")
packed = bytes([0x0A, 2, 2, 3]) + t.SerializeToString()[4:]  # replace "08 02 08 03"
assert t.SerializeToString()[:4] == bytes([0x08, 2, 0x08, 3])
with open(os.path.join(work, "dims_packed.pb"), "wb") as f:
    f.write(packed)
EOF

# 2. Decode and re-encode with the JS codec, in a fixed order.
FILES=$(ls "$WORK"/*.pb | sort)
# shellcheck disable=SC2086
node "$SRC_DIR/tools/ort/run_ort.mjs" --roundtrip "$WORK/out" $FILES >/dev/null

# 3. Compare: same name, dtype, shape and values.
$PY - "$WORK" $FILES <<'EOF'
import os, sys
import numpy as np
from onnx import TensorProto, numpy_helper

work, files = sys.argv[1], sys.argv[2:]
failed = 0
for k, path in enumerate(files):
    want, got = TensorProto(), TensorProto()
    with open(path, "rb") as f:
        want.ParseFromString(f.read())
    with open(os.path.join(work, "out", f"output_{k}.pb"), "rb") as f:
        got.ParseFromString(f.read())
    a, b = numpy_helper.to_array(want), numpy_helper.to_array(got)
    same = (want.name == got.name and want.data_type == got.data_type
            and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b))
    print(f"{os.path.basename(path)}: {'ok' if same else 'MISMATCH'}")
    failed += not same
sys.exit(1 if failed else 0)
EOF
echo "tensor codec: all cases round-trip"
