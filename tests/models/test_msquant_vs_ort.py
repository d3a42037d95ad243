#!/usr/bin/python3
"""ctest msquant_vs_ort: the com.microsoft quantized ops (QLinearAdd, QGemm,
QLinearConcat, ...) in Kiln against ONNX Runtime (onnxruntime-node).

    /usr/bin/python3 tests/models/test_msquant_vs_ort.py BUILD_DIR SRC_DIR

Builds the models of make_msquant_models.py into BUILD_DIR/msquant, runs
each with `BUILD_DIR/kiln run` (1 and 2 threads, which must give the same
bytes) and with tools/ort/run_ort.mjs on the same inputs and requires
every output element to agree within one quantization step (meta.json: 1 for int8/uint8 outputs, the step of the integer product
for float ones). Prints per model and output how many elements are equal,
how many differ by up to one step, and the largest difference in steps.
Exits 77 (skip) with the reason when node or onnxruntime-node is missing.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import make_msquant_models  # noqa: E402
import ort_exact_reference  # noqa: E402


def load(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited {proc.returncode}: "
                           + "\n".join(proc.stdout.strip().splitlines()[-5:]))


def compare(kiln, node, ort_script, folder):
    """Returns (ok, lines) for one model folder."""
    name = os.path.basename(folder)
    model = os.path.join(folder, "model.onnx")
    inputs = sorted(glob.glob(os.path.join(folder, "input_*.pb")),
                    key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    steps = json.load(open(os.path.join(folder, "meta.json")))["steps"]
    kiln_out, ort_out = os.path.join(folder, "kiln_out"), os.path.join(folder, "ort_out")
    kiln2_out = os.path.join(folder, "kiln_out_2_threads")
    for d in (kiln_out, kiln2_out, ort_out):
        shutil.rmtree(d, ignore_errors=True)
    cmd = [kiln, "run", model]
    for p in inputs:
        cmd += ["-i", p]
    try:
        run(cmd + ["-o", kiln_out])
        run(cmd + ["--threads", "2", "-o", kiln2_out])
        # where ORT's uint8 x int8 products saturate, the same function with
        # uint8 weights (tools/ort_exact_reference.py)
        ref_model, note = ort_exact_reference.reference_model(
            model, os.path.join(folder, "model_u8_weights.onnx"))
        run([node, ort_script, ref_model, ort_out] + inputs)
    except RuntimeError as e:
        return False, [f"FAIL {name}: {e}"]
    lines = [f"     {name}: ORT's reference has the weights as uint8 (see the note above)"] \
        if note else []
    got = {}
    for p in glob.glob(os.path.join(kiln_out, "*.pb")):
        n, v = load(p)
        got[n] = v
    ok = True
    for p in glob.glob(os.path.join(kiln2_out, "*.pb")):
        n, v = load(p)
        if n not in got or not np.array_equal(got[n], v, equal_nan=True):
            ok = False
            lines.append(f"FAIL {name}/{n}: Kiln's 2-thread result differs from its 1-thread one")
    for k, step in enumerate(steps):
        n, ref = load(os.path.join(ort_out, f"output_{k}.pb"))
        out = got.get(n)
        if out is None or out.shape != ref.shape or out.dtype != ref.dtype:
            desc = "missing" if out is None else f"{out.dtype}{list(out.shape)}"
            lines.append(f"FAIL {name}/{n}: kiln {desc}, ORT {ref.dtype}{list(ref.shape)}")
            ok = False
            continue
        diff = np.abs(out.astype(np.float64) - ref.astype(np.float64)) / step
        equal = int(np.count_nonzero(diff == 0))
        near = int(np.count_nonzero((diff > 0) & (diff <= 1 + 1e-6)))
        worst = float(diff.max()) if diff.size else 0.0
        good = worst <= 1 + 1e-6
        ok &= good
        lines.append(f"{'ok  ' if good else 'FAIL'} {name}/{n} ({ref.dtype}, {ref.size} elements): "
                     f"{equal} equal, {near} within one step, max {worst:.3g} steps")
    return ok, lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, src = (os.path.abspath(a) for a in sys.argv[1:3])
    node = shutil.which("node")
    ort_script = os.path.join(src, "tools", "ort", "run_ort.mjs")
    if not node:
        print("SKIP: node is not installed (Debian package nodejs)")
        return 77
    if not os.path.isdir(os.path.join(src, "tools", "ort", "node_modules", "onnxruntime-node")):
        print("SKIP: onnxruntime-node is missing (cd tools/ort && npm install --ignore-scripts)")
        return 77
    kiln = os.path.join(build, "kiln")
    root = os.path.join(build, "msquant")
    shutil.rmtree(root, ignore_errors=True)
    for m in make_msquant_models.all_models():
        m.write(root)
    if ort_exact_reference.ort_saturates_u8s8():
        print(ort_exact_reference.note())
    failures = 0
    for folder in sorted(glob.glob(os.path.join(root, "*"))):
        ok, lines = compare(kiln, node, ort_script, folder)
        failures += not ok
        print("\n".join(lines))
    print(f"{failures} model(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
