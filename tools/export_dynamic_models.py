#!/usr/bin/python3
"""Export models with dynamic input dims, and the input files of the shapes
the dynamic-shape benchmark feeds them.

    /usr/bin/python3 tools/export_dynamic_models.py OUTDIR [--force]

  bert_dynamic      a 4-layer BERT-style encoder (d=256, 4 heads, FFN 1024,
                    gelu; token embedding (8000, 256) + learned positions +
                    LayerNorm); input "input_ids" int64 [batch, sequence]
                    dynamic in both, output [batch, sequence, 256]
  resnet18_dynamic  torchvision resnet18; input "input" float32
                    [batch, 3, height, width] dynamic in batch, height, width

Writes OUTDIR/NAME/model.onnx and OUTDIR/NAME/<shape>.pb, one seeded input per
shape of SHAPES below (e.g. bert_dynamic/1x128.pb). Weights are random,
seeded, with normalisation layers randomized as tools/export_models.py does
(it says why), so activations stay of order one. Skips a model whose folder
is complete unless --force.
"""
import argparse
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models as em  # noqa: E402  (the shared weight adjustments)

warnings.filterwarnings("ignore")

VOCAB, POSITIONS, WIDTH, LAYERS, HEADS, FF = 8000, 512, 256, 4, 4, 1024

# name: the shapes of its one input, in the order the revisit workload runs them
SHAPES = {
    "bert_dynamic": [(1, 16), (1, 64), (1, 128), (1, 384)],
    "resnet18_dynamic": [(1, 3, 224, 224), (4, 3, 224, 224), (1, 3, 320, 320), (2, 3, 160, 256)],
}


class SmallBert(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = torch.nn.Embedding(VOCAB, WIDTH)
        self.positions = torch.nn.Embedding(POSITIONS, WIDTH)
        self.norm = torch.nn.LayerNorm(WIDTH, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(POSITIONS).unsqueeze(0), persistent=False)
        self.layers = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(WIDTH, HEADS, FF, activation="gelu", batch_first=True)
            for _ in range(LAYERS))

    def forward(self, input_ids):
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.norm(self.tokens(input_ids) + self.positions(positions))
        for layer in self.layers:
            x = layer(x)
        return x


def shape_tag(shape):
    return "x".join(str(d) for d in shape)


def make_input(name, shape, rng):
    if name == "bert_dynamic":
        return rng.randint(0, VOCAB, size=shape).astype(np.int64)
    return rng.randn(*shape).astype(np.float32)


def export(name, folder):
    torch.manual_seed(em.WEIGHT_SEED)
    model = SmallBert() if name == "bert_dynamic" else torchvision.models.resnet18(weights=None)
    em.fill_zero_parameters(model)
    em.randomize_layernorms(model)
    em.calibrate_batchnorm(model)
    model.eval()
    input_name = "input_ids" if name == "bert_dynamic" else "input"
    axes = {0: "batch", 1: "sequence"} if name == "bert_dynamic" else {0: "batch", 2: "height",
                                                                         3: "width"}
    rng = np.random.RandomState(em.INPUT_SEED)
    xs = [make_input(name, s, rng) for s in SHAPES[name]]
    tmp = tempfile.mkdtemp(prefix=f".{name}.", dir=os.path.dirname(folder))
    try:
        path = os.path.join(tmp, "model.onnx")
        torch.onnx.export(model, (torch.from_numpy(xs[0]),), path, opset_version=17,
                          input_names=[input_name], output_names=["output"],
                          dynamic_axes={input_name: axes, "output": {0: "batch"}},
                          do_constant_folding=True)
        onnx.checker.check_model(path)
        for shape, x in zip(SHAPES[name], xs):
            with open(os.path.join(tmp, shape_tag(shape) + ".pb"), "wb") as f:
                f.write(onnx.numpy_helper.from_array(x, input_name).SerializeToString())
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.chmod(tmp, 0o755)
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    with torch.no_grad():
        std = float(model(torch.from_numpy(xs[0])).std())
    print(f"{name}: exported, output std {std:.3g} at {shape_tag(SHAPES[name][0])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for name in SHAPES:
        folder = os.path.join(a.outdir, name)
        done = all(os.path.exists(os.path.join(folder, shape_tag(s) + ".pb")) for s in SHAPES[name])
        if done and not a.force:
            print(f"{name}: present")
            continue
        export(name, folder)


if __name__ == "__main__":
    main()
