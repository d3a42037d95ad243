#!/usr/bin/python3
"""Export real CNN architectures from torchvision to ONNX for side-by-side checks.

    /usr/bin/python3 tools/export_models.py OUTDIR [--models resnet50,mobilenet_v2,squeezenet1_1] [--force]

Writes OUTDIR/NAME/model.onnx (opset 17, input "input" [1,3,224,224] float32,
static) and OUTDIR/NAME/input_0.pb (a seeded normal input). Models already
present are skipped unless --force.

Pretrained weights cannot be downloaded here, so weights are random but
seeded. Freshly initialised BatchNorm layers are nearly identities (weight 1,
bias 0, mean 0, var 1), which lets activations shrink or blow up through a
deep net until the outputs are ~1e-9 or ~1e9 and a comparison says nothing.
So every BatchNorm gets random affine parameters and running statistics
measured on one random batch: activations then stay of order one, like a
trained net's, and the folded Conv weights are no longer trivial.
"""
import argparse
import collections
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torchvision

MODELS = {
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
}
SHAPE = (1, 3, 224, 224)
WEIGHT_SEED, CALIBRATION_SEED, INPUT_SEED = 0, 1, 2
CALIBRATION_BATCH = 8
# Outside this the outputs are degenerate; inside the ideal band, quiet.
STD_FAIL = (1e-2, 1e2)
STD_IDEAL = (1e-1, 1e1)


def calibrate_batchnorm(model):
    """Random affine BN parameters, running stats from one random batch."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return 0
    gen = torch.Generator().manual_seed(CALIBRATION_SEED)
    with torch.no_grad():
        for bn in norms:
            bn.weight.copy_(torch.rand(bn.weight.shape, generator=gen) + 0.5)   # U(0.5, 1.5)
            bn.bias.copy_(torch.randn(bn.bias.shape, generator=gen) * 0.1)      # N(0, 0.1)
            bn.reset_running_stats()
            bn.momentum = 1.0  # running stats := this batch's stats
        model.train()
        model(torch.randn(CALIBRATION_BATCH, *SHAPE[1:], generator=gen))
    for bn in norms:
        bn.momentum = 0.1
    return len(norms)


def export_one(name, folder):
    torch.manual_seed(WEIGHT_SEED)  # same weights whatever else is exported
    model = MODELS[name](weights=None)
    n_bn = calibrate_batchnorm(model)
    model.eval()

    x = np.random.RandomState(INPUT_SEED).randn(*SHAPE).astype(np.float32)
    with torch.no_grad():
        out = model(torch.from_numpy(x)).numpy()
    std = float(out.std())

    # Write into a temporary folder and rename, so an interrupted export never
    # looks like a finished one to the skip check.
    tmp = tempfile.mkdtemp(prefix=f".{name}.", dir=os.path.dirname(folder))
    try:
        path = os.path.join(tmp, "model.onnx")
        torch.onnx.export(model, torch.from_numpy(x), path, opset_version=17,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
        onnx.checker.check_model(path)
        with open(os.path.join(tmp, "input_0.pb"), "wb") as f:
            f.write(onnx.numpy_helper.from_array(x, "input").SerializeToString())
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.chmod(tmp, 0o755)  # mkdtemp makes it private
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

    graph = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    ops = collections.Counter(n.op_type for n in graph.graph.node)
    size_mb = os.path.getsize(os.path.join(folder, "model.onnx")) / 2**20
    print(f"{name}: {size_mb:.1f} MiB, {len(graph.graph.node)} nodes, "
          f"{n_bn} BatchNorms calibrated, output {list(out.shape)} std {std:.3g}")
    print("  ops: " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))
    if not STD_FAIL[0] <= std <= STD_FAIL[1]:
        print(f"{name}: output std {std:.3g} is degenerate; the comparison would be meaningless",
              file=sys.stderr)
        return False
    if not STD_IDEAL[0] <= std <= STD_IDEAL[1]:
        print(f"  note: output std {std:.3g} is outside {STD_IDEAL}")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated subset of: " + ", ".join(MODELS))
    ap.add_argument("--force", action="store_true", help="re-export models already present")
    args = ap.parse_args()

    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown models {unknown}; choose from {list(MODELS)}")
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(os.cpu_count() or 1)

    ok = True
    for name in names:
        folder = os.path.join(args.outdir, name)
        done = all(os.path.exists(os.path.join(folder, f)) for f in ("model.onnx", "input_0.pb"))
        if done and not args.force:
            print(f"{name}: present in {folder}, skipped (--force to redo)")
            continue
        ok = export_one(name, folder) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
