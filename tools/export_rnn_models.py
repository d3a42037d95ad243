#!/usr/bin/python3
"""Export small PyTorch recurrent models to ONNX and check Kiln against torch.

    /usr/bin/python3 tools/export_rnn_models.py --kiln BUILD/kiln [--out DIR] [--keep] [--threads N]

Models (random seeded weights, opset 17):
  lstm  nn.LSTM(16 -> 32, 2 layers, bidirectional), input [seq 7, batch 3, 16];
        outputs output, h_n, c_n
  gru   nn.GRU(16 -> 24, 2 layers, batch_first) with an initial state input,
        input [batch 3, seq 5, 16]; outputs output, h_n
  rnn   nn.RNN(8 -> 12, 1 layer, relu, bidirectional), outputs output, h_n

For each model the script exports it, writes the inputs as TensorProto files,
runs `kiln run`, and compares every output with torch's own:
max|diff| <= 1e-4 * max|ref| passes. Exit status 1 if any model fails.
Without --out the files go to a temporary folder, removed unless --keep.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
import onnx.numpy_helper
import torch

REL_TOL = 1e-4

# torch's exporter warns about batch sizes and constant folding; irrelevant here.
warnings.filterwarnings("ignore")


class LstmModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


class GruModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(16, 24, num_layers=2, batch_first=True)

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


class RnnModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.RNN(8, 12, nonlinearity="relu", bidirectional=True)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


# name: (module class, input names and shapes, output names)
MODELS = {
    "lstm": (LstmModel, [("x", (7, 3, 16))], ["y", "h_n", "c_n"]),
    "gru": (GruModel, [("x", (3, 5, 16)), ("h0", (2, 3, 24))], ["y", "h_n"]),
    "rnn": (RnnModel, [("x", (6, 2, 8))], ["y", "h_n"]),
}


def check_one(name, kiln, root, threads):
    cls, inputs, outputs = MODELS[name]
    torch.manual_seed(0)
    model = cls().eval()
    rng = np.random.RandomState(1)
    arrays = [rng.randn(*shape).astype(np.float32) for _, shape in inputs]
    with torch.no_grad():
        refs = [t.numpy() for t in model(*[torch.from_numpy(a) for a in arrays])]

    folder = os.path.join(root, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    torch.onnx.export(model, tuple(torch.from_numpy(a) for a in arrays), path, opset_version=17,
                      input_names=[n for n, _ in inputs], output_names=outputs)
    ops = sorted({n.op_type for n in onnx.load(path).graph.node})
    args = [kiln, "run", path]
    for (iname, _), a in zip(inputs, arrays):
        pb = os.path.join(folder, f"{iname}.pb")
        with open(pb, "wb") as f:
            f.write(onnx.numpy_helper.from_array(a, iname).SerializeToString())
        args += ["-i", f"{iname}={pb}"]
    out_dir = os.path.join(folder, "out")
    args += ["-o", out_dir, "--threads", str(threads)]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {name}: kiln run exited {proc.returncode}: {proc.stderr.strip()}")
        return False

    ok = True
    print(f"{name}: ops {', '.join(ops)}")
    for k, (oname, ref) in enumerate(zip(outputs, refs)):
        t = onnx.TensorProto()
        with open(os.path.join(out_dir, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        got = onnx.numpy_helper.to_array(t)
        if got.shape != ref.shape:
            print(f"  FAIL {oname}: shape {got.shape}, torch {ref.shape}")
            ok = False
            continue
        diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
        scale = float(np.max(np.abs(ref))) if ref.size else 0.0
        good = diff <= REL_TOL * scale
        ok &= good
        print(f"  {'PASS' if good else 'FAIL'} {oname} {tuple(ref.shape)}: max|diff| {diff:.3g}, "
              f"max|ref| {scale:.3g}, ratio {diff / scale if scale else 0:.3g}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True, help="path to the kiln CLI")
    ap.add_argument("--out", help="folder for models and outputs (default: temporary)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    ap.add_argument("--threads", type=int, default=1, help="kiln worker threads")
    a = ap.parse_args()
    root = a.out or tempfile.mkdtemp(prefix="kiln_rnn_")
    try:
        results = [check_one(n, a.kiln, root, a.threads) for n in a.models.split(",")]
    finally:
        if not a.out and not a.keep:
            shutil.rmtree(root, ignore_errors=True)
        elif not a.out:
            print(f"files kept in {root}")
    print(f"{sum(results)} of {len(results)} models match torch")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
