#!/usr/bin/python3
"""Train a tiny CNN on scikit-learn's 8x8 handwritten digits and export it.

Writes, next to this file:
  digits.onnx                       opset 17; input "image" [batch,1,8,8] float32
                                    in [0,1]; output "logits" [batch,10]
  samples/digit_NN_label_L.pb       20 held-out images as TensorProto [1,1,8,8]
and updates the "Held-out accuracy:" line of README.md.

Run with Debian's interpreter (python3-torch, python3-sklearn, python3-onnx):
  /usr/bin/python3 examples/digits/train_digits.py
"""
import os
import re
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
from sklearn.datasets import load_digits

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240601
HELD_OUT = 0.2          # the last 20 % of the shuffled data is never trained on
SAMPLES = 20
EPOCHS = 40
# Ops a Kiln example may rely on; anything else means the exporter changed.
ALLOWED_OPS = {"Conv", "BatchNormalization", "Relu", "MaxPool", "GlobalAveragePool",
               "Flatten", "Gemm", "Reshape", "Add", "Softmax"}


class DigitsNet(nn.Module):
    """Two conv blocks and a linear classifier: ~4k parameters, ~17 KB."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),                                   # 8x8 -> 4x4
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        # Flatten keeps where strokes are; a global average would throw it away.
        self.classifier = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def load_split():
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    order = np.random.RandomState(SEED).permutation(len(labels))
    images, labels = images[order], labels[order]
    n_train = int(round(len(labels) * (1.0 - HELD_OUT)))
    return (images[:n_train], labels[:n_train]), (images[n_train:], labels[n_train:])


def train(model, images, labels):
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(SEED)
    model.train()
    for epoch in range(EPOCHS):
        perm = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        if epoch % 10 == 9:
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}")


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(images)).argmax(1).numpy()
    return int((pred == labels).sum()), len(labels)


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, 8, 8), path, opset_version=17,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                      do_constant_folding=True)
    graph = onnx.load(path)
    onnx.checker.check_model(graph)
    ops = sorted({n.op_type for n in graph.graph.node})
    extra = set(ops) - ALLOWED_OPS
    if extra:
        sys.exit(f"exported graph uses ops outside the allowed set: {sorted(extra)}")
    print(f"wrote {path} ({os.path.getsize(path)} bytes), ops: {', '.join(ops)}")


def write_samples(images, labels, folder):
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):          # stale samples would skew accuracy
        if old.endswith(".pb"):
            os.remove(os.path.join(folder, old))
    for i in range(SAMPLES):
        proto = onnx.numpy_helper.from_array(images[i:i + 1], name="image")
        name = f"digit_{i:02d}_label_{labels[i]}.pb"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(proto.SerializeToString())
    print(f"wrote {SAMPLES} samples to {folder}")


def record_accuracy(readme, line):
    if not os.path.exists(readme):
        print(f"note: {readme} missing; accuracy not recorded")
        return
    with open(readme) as f:
        text = f.read()
    text, count = re.subn(r"^Held-out accuracy:.*$", line, text, flags=re.M)
    if count != 1:
        print(f"note: no 'Held-out accuracy:' line in {readme}; not updated")
        return
    with open(readme, "w") as f:
        f.write(text)


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)   # fewer sources of run-to-run variation
    (train_x, train_y), (test_x, test_y) = load_split()
    model = DigitsNet()
    train(model, train_x, train_y)
    right, total = accuracy(model, test_x, test_y)
    sample_right, _ = accuracy(model, test_x[:SAMPLES], test_y[:SAMPLES])
    line = (f"Held-out accuracy: {right}/{total} = {100.0 * right / total:.1f} % "
            f"(the {SAMPLES} samples: {sample_right}/{SAMPLES})")
    print(line)
    export(model, os.path.join(HERE, "digits.onnx"))
    write_samples(test_x, test_y, os.path.join(HERE, "samples"))
    record_accuracy(os.path.join(HERE, "README.md"), line)


if __name__ == "__main__":
    main()
