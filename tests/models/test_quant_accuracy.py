#!/usr/bin/python3
"""INT8 accuracy on real labelled images: float32 against Kiln's QDQ models.

For each trained network (tests/data/quant_nets/README.md) and each way of
choosing activation ranges (minmax, percentile, entropy, mse; asymmetric
uint8 and --symmetric int8), the network is calibrated on its calibration
split and the QDQ model and the float model are run in Kiln on the held-out
split, which neither training nor calibration saw. Prints a table: float
top-1, int8 top-1, delta in percentage points, and how often the int8 model
picks the float model's class.

Fails when, for some network, the float model is below FLOOR (the data or the
float runtime is broken) or even the best method loses more than
MAX_LOSS_PP against float (calibration or int8 execution is broken).

The table comes from kiln.Calibrator, which adds the calibration batches once
and writes every method from the same histograms. `kiln quantize` (the CLI,
on the same images as one-sample folders of input_0.pb) is checked to write
the very same file for its default settings, so the table is the CLI's too.

Usage (ctest quant_accuracy sets these):
  KILN_LIBRARY=BUILD/libkiln.so KILN_CLI=BUILD/kiln \
      /usr/bin/python3 tests/models/test_quant_accuracy.py
"""
import os
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("KILN_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
if not os.environ.get("KILN_PYTHON_INSTALLED"):
    sys.path.insert(0, os.path.join(SOURCE_DIR, "bindings", "python"))

import kiln  # noqa: E402

DATA = os.path.join(SOURCE_DIR, "tests", "data", "quant_nets")
MAX_LOSS_PP = 0.5       # the bound for the best method
BATCH = 500             # held-out images per run
CALIB_BATCH = 50        # calibration images per Calibrator.add


class Net(NamedTuple):
    name: str
    model: str          # the float32 ONNX file
    data: str           # .npz: test_images/test_labels/calib_images, uint8
    pixel_max: float    # uint8 value that means 1.0 at the model's input
    floor: float        # float32 top-1 below this means something is broken


NETS = [
    Net("mnist_cnn", os.path.join(DATA, "mnist_cnn.onnx"), os.path.join(DATA, "mnist.npz"),
        255.0, 0.97),
    Net("mnist_vit", os.path.join(DATA, "mnist_vit.onnx"), os.path.join(DATA, "mnist.npz"),
        255.0, 0.97),
    # examples/digits: 8x8 images with pixel values 0..16.
    Net("digits", os.path.join(SOURCE_DIR, "examples", "digits", "digits.onnx"),
        os.path.join(DATA, "digits.npz"), 16.0, 0.97),
]
SETTINGS = [(method, symmetric, 8) for symmetric in (False, True)
            for method in ("minmax", "percentile", "entropy", "mse")]
# the default method with 7-bit weights (for ONNX Runtime on x86 without
# VNNI): what the bit of weight precision costs
SETTINGS.append(("mse", False, 7))


def label(method, symmetric, bits):
    return method + (" --symmetric" if symmetric else "") + (" --weight-bits 7" if bits == 7 else "")


def as_input(images, pixel_max):
    """uint8 [N, H, W] -> float32 [N, 1, H, W] in [0, 1], as the models were trained."""
    return (images.astype(np.float32) / np.float32(pixel_max))[:, None]


def top1(source, images):
    """Predicted classes of a model (path or bytes) on float images, in batches."""
    preds = []
    with kiln.Model(source, threads=2) as model, model.session() as session:
        for i in range(0, len(images), BATCH):
            (logits,) = session.run({"image": images[i:i + BATCH]})
            preds.append(np.argmax(logits, axis=1))
    return np.concatenate(preds)


def loaded_ops(source):
    """The op histogram of a model's graph after Kiln's load passes: shows
    whether the table measured integer kernels (QLinearConv, QAdd) or the
    Q/DQ pairs around float ones."""
    with kiln.Model(source) as model:
        counts = {}
        for node in model.nodes:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return ", ".join("%s %d" % item for item in sorted(counts.items()))


def cli_quantize(cli, model, calib, workdir):
    """`kiln quantize MODEL --calib DIR` (default method) on one-sample
    folders of input_0.pb; returns the written file's bytes."""
    calib_dir = os.path.join(workdir, "calib")
    for i, image in enumerate(calib):
        sample = os.path.join(calib_dir, "sample_%03d" % i)
        os.makedirs(sample)
        kiln.save_tensor(os.path.join(sample, "input_0.pb"), image[None], name="image")
    out = os.path.join(workdir, "cli_int8.onnx")
    proc = subprocess.run([cli, "quantize", model, "-o", out, "--calib", calib_dir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError("kiln quantize %s failed (exit %d): %s"
                           % (model, proc.returncode, proc.stdout.strip()))
    with open(out, "rb") as handle:
        return handle.read()


def measure(net, cli):
    """[(method, symmetric, weight bits, float acc, int8 acc, agreement)] and
    problems found.
    A setting that fails (calibration, writing or running) is a problem and
    a row of NaN, so the rest of the table still shows."""
    data = np.load(net.data)
    images = as_input(data["test_images"], net.pixel_max)
    labels = data["test_labels"].astype(np.int64)
    calib = as_input(data["calib_images"], net.pixel_max)
    float_pred = top1(net.model, images)
    float_acc = float(np.mean(float_pred == labels))
    rows, problems = [], []
    if float_acc < net.floor:
        problems.append("%s: float32 top-1 %.2f %% is below the floor %.0f %%"
                        % (net.name, 100 * float_acc, 100 * net.floor))
    default_bytes = None
    with kiln.Calibrator(net.model, threads=2) as cal:
        for i in range(0, len(calib), CALIB_BATCH):
            cal.add({"image": calib[i:i + CALIB_BATCH]})
        for method, symmetric, bits in SETTINGS:
            try:
                cal.configure(method=method, symmetric=symmetric, weight_bits=bits)
                qdq = cal.to_bytes()
                pred = top1(qdq, images)
            except kiln.KilnError as err:
                problems.append("%s, %s: %s" % (net.name, label(method, symmetric, bits), err))
                rows.append((method, symmetric, bits, float_acc, float("nan"), float("nan")))
                continue
            if method == "mse" and not symmetric and bits == 8:
                default_bytes = qdq
            rows.append((method, symmetric, bits, float_acc, float(np.mean(pred == labels)),
                         float(np.mean(pred == float_pred))))
    if default_bytes is None:
        return len(labels), len(calib), rows, "(not written)", problems
    if cli:
        with tempfile.TemporaryDirectory(prefix="kiln-quant-acc-") as work:
            if cli_quantize(cli, net.model, calib, work) != default_bytes:
                problems.append("%s: `kiln quantize` (default mse, one sample per folder) wrote "
                                "a different file than kiln.Calibrator on the same %d images"
                                % (net.name, len(calib)))
    return len(labels), len(calib), rows, loaded_ops(default_bytes), problems


def main():
    cli = os.environ.get("KILN_CLI")
    if cli and not os.path.exists(cli):
        print("FAIL: KILN_CLI=%s does not exist (build the kiln_cli target)" % cli)
        return 1
    print("INT8 accuracy on held-out real digits (%s, %d threads)"
          % (kiln.library_path(), 2))
    header = "%-10s %-28s %8s %8s %9s %12s" % ("net", "method", "float32", "int8",
                                                  "delta pp", "agree/float")
    problems, passed = [], 0
    for net in NETS:
        missing = [path for path in (net.model, net.data) if not os.path.exists(path)]
        if missing:
            problems.append("%s: %s missing (tools/train_quant_nets.py writes the data)"
                            % (net.name, " and ".join(missing)))
            continue
        start = time.time()
        n_test, n_calib, rows, ops, net_problems = measure(net, cli)
        print("\n%s: %d held-out images, calibrated on %d (%.0f s)"
              % (net.name, n_test, n_calib, time.time() - start))
        print(header)
        for method, symmetric, bits, float_acc, int8_acc, agree in rows:
            print("%-10s %-28s %7.2f%% %7.2f%% %+9.2f %11.2f%%"
                  % (net.name, label(method, symmetric, bits), 100 * float_acc,
                     100 * int8_acc, 100 * (int8_acc - float_acc), 100 * agree))
        best = max(rows, key=lambda row: -1 if np.isnan(row[4]) else row[4])
        delta_pp = 100 * (best[4] - best[3])
        loss_pp = -delta_pp
        print("best: %s, %+.2f pp against float32 (fails below -%.1f)"
              % (label(*best[:3]), delta_pp + 0.0, MAX_LOSS_PP))
        print("the default QDQ model as Kiln runs it: " + ops)
        if loss_pp > MAX_LOSS_PP:
            net_problems.append("%s: the best method (%s) loses %.2f pp of top-1, more than %.1f"
                                % (net.name, best[0], loss_pp, MAX_LOSS_PP))
        problems += net_problems
        passed += not net_problems
    print()
    for problem in problems:
        print("FAIL: " + problem)
    print("%d passed, %d failed" % (passed, len(NETS) - passed))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
