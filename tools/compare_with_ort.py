#!/usr/bin/python3
"""Run models with Kiln and with ONNX Runtime on the same inputs and compare.

    /usr/bin/python3 tools/compare_with_ort.py [--kiln build/kiln] MODEL_DIR...

Each MODEL_DIR holds model.onnx and its inputs, either directly
(input_0.pb, input_1.pb, ... as tools/export_models.py writes them) or in
test_data_set_N/ folders (the ONNX test-data layout); every data set is run.
Per folder it prints the worst output over all data sets:

    NAME: max|diff| = X, max|ref| = Y, ratio = X/Y (limit 1e-4) PASS (kiln S s, ORT S s)

where the times are the wall-clock seconds of the two runtimes' processes
(loading the model included), summed over the data sets.

The ratio is relative to the largest reference value rather than per element:
elements near zero would otherwise dominate with meaningless relative errors.
Exits 1 if any folder fails or either runtime errors out.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from onnx import TensorProto, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_exact_reference  # noqa: E402


def load_tensor(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def numbered(folder, prefix):
    """prefix_K.pb files of a folder, in K order (input_10 after input_9)."""
    found = glob.glob(os.path.join(folder, prefix + "_*.pb"))
    key = lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1))
    return sorted((p for p in found if re.search(r"_\d+\.pb$", p)), key=key)


def data_sets(folder):
    sets = [folder] if numbered(folder, "input") else []
    sets += sorted(glob.glob(os.path.join(folder, "test_data_set_*")))
    return [s for s in sets if numbered(s, "input")]


def run(cmd, what):
    """Runs cmd; returns its wall-clock seconds."""
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-5:])
        raise RuntimeError(f"{what} exited {proc.returncode}: {tail}")
    return time.monotonic() - start


def kiln_outputs(folder):
    """Kiln's outputs by tensor name, and by file name for unnamed ones."""
    by_name = {}
    for path in glob.glob(os.path.join(folder, "*.pb")):
        name, value = load_tensor(path)
        by_name[name or os.path.basename(path)[:-3]] = value
        by_name.setdefault(os.path.basename(path)[:-3], value)
    return by_name


def compare_set(args, model, ref_model, inputs, work, seconds):
    """Returns (ratio, max|diff|, max|ref|) over the outputs of one data set
    (Kiln running model, ORT ref_model); adds the two runtimes' wall-clock
    seconds to seconds["kiln"], seconds["ort"]."""
    kiln_dir, ort_dir = os.path.join(work, "kiln"), os.path.join(work, "ort")
    cmd = [args.kiln, "run", model]
    for f in inputs:
        cmd += ["-i", f]
    seconds["kiln"] += run(cmd + ["-o", kiln_dir], "kiln run")
    seconds["ort"] += run([args.node, args.ort_script, ref_model, ort_dir] + inputs, "run_ort.mjs")

    got = kiln_outputs(kiln_dir)
    worst = (0.0, 0.0, 0.0)  # ratio, diff, ref
    for k, path in enumerate(numbered(ort_dir, "output")):
        name, ref = load_tensor(path)
        out = got.get(name, got.get(f"output_{k}"))
        if out is None:
            raise RuntimeError(f"kiln wrote no output '{name}' (output {k})")
        if out.shape != ref.shape or out.dtype != ref.dtype:
            raise RuntimeError(f"output '{name}': kiln {out.dtype}{list(out.shape)}, "
                               f"ORT {ref.dtype}{list(ref.shape)}")
        a, b = out.astype(np.float64), ref.astype(np.float64)
        if not np.array_equal(np.isnan(a), np.isnan(b)):
            raise RuntimeError(f"output '{name}': NaNs differ")
        a, b = np.nan_to_num(a), np.nan_to_num(b)
        diff = float(np.abs(a - b).max()) if a.size else 0.0
        ref_max = float(np.abs(b).max()) if b.size else 0.0
        ratio = diff / ref_max if ref_max > 0 else (0.0 if diff == 0 else float("inf"))
        worst = max(worst, (ratio, diff, ref_max))
    return worst


def compare_folder(args, folder, work):
    name = os.path.basename(os.path.normpath(folder))
    model = os.path.join(folder, "model.onnx")
    sets = data_sets(folder)
    if not os.path.exists(model) or not sets:
        print(f"{name}: FAIL (no model.onnx with input_K.pb files)")
        return False
    worst = (0.0, 0.0, 0.0)
    seconds = {"kiln": 0.0, "ort": 0.0}
    try:
        # int8 models on a CPU where ORT's uint8 x int8 products saturate:
        # ORT runs the same function with uint8 weights (ort_exact_reference)
        os.makedirs(os.path.join(work, name), exist_ok=True)
        ref_model, note = ort_exact_reference.reference_model(
            os.path.abspath(model), os.path.join(work, name, "u8_weights.onnx"))
        if note:
            print(f"{name}: {note}")
        for i, s in enumerate(sets):
            inputs = [os.path.abspath(p) for p in numbered(s, "input")]
            worst = max(worst, compare_set(args, os.path.abspath(model), ref_model, inputs,
                                           os.path.join(work, name, str(i)), seconds))
            shutil.rmtree(os.path.join(work, name, str(i)), ignore_errors=True)
    except RuntimeError as e:
        print(f"{name}: FAIL ({e})")
        return False
    ratio, diff, ref = worst
    ok = ratio <= args.limit
    sets_note = f" over {len(sets)} data sets" if len(sets) > 1 else ""
    print(f"{name}: max|diff| = {diff:.3g}, max|ref| = {ref:.3g}, ratio = {ratio:.3g} "
          f"(limit {args.limit_text}){sets_note} {'PASS' if ok else 'FAIL'} "
          f"(kiln {seconds['kiln']:.1f} s, ORT {seconds['ort']:.1f} s)")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="MODEL_DIR")
    ap.add_argument("--kiln", default=os.path.join("build", "kiln"), help="kiln CLI binary")
    ap.add_argument("--node", default="node")
    ap.add_argument("--ort-script", default=os.path.join(REPO, "tools", "ort", "run_ort.mjs"))
    ap.add_argument("--limit", default="1e-4", help="largest allowed ratio")
    args = ap.parse_args()
    args.limit_text, args.limit = args.limit, float(args.limit)  # print it as given
    args.kiln = os.path.abspath(args.kiln)
    if not os.access(args.kiln, os.X_OK):
        ap.error(f"no kiln binary at {args.kiln} (use --kiln)")

    with tempfile.TemporaryDirectory(prefix="kiln-vs-ort-") as work:
        results = [compare_folder(args, d, work) for d in args.dirs]
    failed = results.count(False)
    print(f"{len(results) - failed}/{len(results)} models match ONNX Runtime")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
