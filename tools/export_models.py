#!/usr/bin/python3
"""Export real architectures to ONNX for Kiln's side-by-side checks.

    /usr/bin/python3 tools/export_models.py OUTDIR [--models NAME,...] [--force]

Models (opset 17, static shapes, dynamo-free torch.onnx.export):
  resnet50, mobilenet_v2, squeezenet1_1, efficientnet_b0
                torchvision CNNs; input "input" float32 [1,3,224,224]
  seq_rnn       Embedding(1000, 64) -> 2-layer bidirectional LSTM(128) ->
                GRU(128) -> Linear(1000), batch_first; input "tokens" int64
                [1,32], output "logits" [1,32,1000]
  vit_b_16      torchvision ViT-B/16; input "input" float32 [1,3,224,224]
                (big: ~330 MB)
  bert_encoder  BERT-base-sized encoder from torch.nn: token embedding
                (30522, 768) + learned positions (512, 768) + LayerNorm, then
                12 x TransformerEncoderLayer(768, 12 heads, 3072, gelu,
                batch_first); input "input_ids" int64 [1,128], output
                [1,128,768] (big: ~420 MB)
Without --models all but the big ones are exported.

Writes OUTDIR/NAME/model.onnx and OUTDIR/NAME/input_K.pb (seeded inputs:
normal floats, uniform token ids). Models already present are skipped unless
--force. Prints each model's size, op histogram and output std.

Pretrained weights cannot be downloaded here, so weights are random but
seeded. Freshly initialised normalisation layers are nearly identities
(weight 1, bias 0, mean 0, var 1), which lets activations shrink or blow up
through a deep net until the outputs are ~1e-9 or ~1e9 and a comparison says
nothing. So every BatchNorm gets random affine parameters and running
statistics measured on one random batch: activations then stay of order one,
like a trained net's, and the folded Conv weights are no longer trivial.
LayerNorms get random affine parameters too, and parameters that torch
initialises to exactly zero (biases, ViT's classifier head and class token)
get small random values, so that every term of the graph is exercised and the
output is not trivially zero. seq_rnn's recurrent weights are drawn wider than
torch's default so that its gates saturate, as a trained model's do.
"""
import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torchvision

# The exporter warns about batch sizes of RNNs, constant folding and the like.
warnings.filterwarnings("ignore")

WEIGHT_SEED, CALIBRATION_SEED, INPUT_SEED, ZERO_FILL_SEED, LAYERNORM_SEED = 0, 1, 2, 3, 4
CALIBRATION_BATCH = 8
ZERO_FILL_STD = 0.02
# Outside this the outputs are degenerate; inside the ideal band, quiet.
STD_FAIL = (1e-2, 1e2)
STD_IDEAL = (1e-1, 1e1)

IMAGE = (1, 3, 224, 224)
BERT_VOCAB, BERT_POSITIONS, BERT_WIDTH, BERT_LAYERS, BERT_HEADS, BERT_FF = 30522, 512, 768, 12, 12, 3072
BERT_SEQ = 128
RNN_VOCAB, RNN_EMBED, RNN_HIDDEN, RNN_SEQ = 1000, 64, 128, 32
# torch's default U(+-1/sqrt(hidden)) = U(+-0.09) leaves the gates stuck near
# 0.5 and the states near 0.05; wider, like a trained tagger's, they saturate.
RNN_INIT = 0.25


class BertEncoder(torch.nn.Module):
    """BERT-base's encoder from plain torch.nn modules (no token types, no mask)."""

    def __init__(self):
        super().__init__()
        self.tokens = torch.nn.Embedding(BERT_VOCAB, BERT_WIDTH)
        self.positions = torch.nn.Embedding(BERT_POSITIONS, BERT_WIDTH)
        self.norm = torch.nn.LayerNorm(BERT_WIDTH, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(BERT_POSITIONS).unsqueeze(0), persistent=False)
        self.layers = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(BERT_WIDTH, BERT_HEADS, BERT_FF, activation="gelu",
                                             batch_first=True)
            for _ in range(BERT_LAYERS))

    def forward(self, input_ids):
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.norm(self.tokens(input_ids) + self.positions(positions))
        for layer in self.layers:
            x = layer(x)
        return x


class SeqRnn(torch.nn.Module):
    """A token tagger: embedding, 2-layer bidirectional LSTM, GRU, per-step logits."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(RNN_VOCAB, RNN_EMBED)
        self.lstm = torch.nn.LSTM(RNN_EMBED, RNN_HIDDEN, num_layers=2, bidirectional=True,
                                  batch_first=True)
        self.gru = torch.nn.GRU(2 * RNN_HIDDEN, RNN_HIDDEN, batch_first=True)
        self.head = torch.nn.Linear(RNN_HIDDEN, RNN_VOCAB)
        with torch.no_grad():
            for p in list(self.lstm.parameters()) + list(self.gru.parameters()):
                p.uniform_(-RNN_INIT, RNN_INIT)

    def forward(self, tokens):
        x, _ = self.lstm(self.embed(tokens))
        x, _ = self.gru(x)
        return self.head(x)


def image_input(rng):
    return rng.randn(*IMAGE).astype(np.float32)


def ids_input(vocab, shape):
    return lambda rng: rng.randint(0, vocab, size=shape).astype(np.int64)


# name: (builder, [(input name, maker(RandomState) -> array)], output names, big)
MODELS = {
    "resnet50": (torchvision.models.resnet50, [("input", image_input)], ["output"], False),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, [("input", image_input)], ["output"], False),
    "squeezenet1_1": (torchvision.models.squeezenet1_1, [("input", image_input)], ["output"], False),
    "efficientnet_b0": (torchvision.models.efficientnet_b0, [("input", image_input)], ["output"], False),
    "seq_rnn": (SeqRnn, [("tokens", ids_input(RNN_VOCAB, (1, RNN_SEQ)))], ["logits"], False),
    "vit_b_16": (torchvision.models.vit_b_16, [("input", image_input)], ["output"], True),
    "bert_encoder": (BertEncoder, [("input_ids", ids_input(BERT_VOCAB, (1, BERT_SEQ)))],
                     ["output"], True),
}
DEFAULT_MODELS = [n for n, spec in MODELS.items() if not spec[3]]
BIG_MODELS = [n for n, spec in MODELS.items() if spec[3]]


def build(name):
    builder = MODELS[name][0]
    return builder(weights=None) if builder.__module__.startswith("torchvision") else builder()


NORMS = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm)


def fill_zero_parameters(model):
    """Small random values for parameters torch initialised to exactly zero
    (normalisation layers aside: they are randomized on their own below)."""
    skip = {id(p) for m in model.modules() if isinstance(m, NORMS) for p in m.parameters()}
    gen = torch.Generator().manual_seed(ZERO_FILL_SEED)
    n = 0
    with torch.no_grad():
        for _, p in sorted(model.named_parameters(), key=lambda item: item[0]):
            if id(p) not in skip and p.numel() and not p.any():
                p.copy_(torch.randn(p.shape, generator=gen) * ZERO_FILL_STD)
                n += 1
    return n


def randomize_layernorms(model):
    """Random affine LayerNorm parameters, drawn like BatchNorm's below."""
    norms = [m for m in model.modules()
             if isinstance(m, torch.nn.LayerNorm) and m.elementwise_affine]
    gen = torch.Generator().manual_seed(LAYERNORM_SEED)
    with torch.no_grad():
        for ln in norms:
            ln.weight.copy_(torch.rand(ln.weight.shape, generator=gen) + 0.5)   # U(0.5, 1.5)
            ln.bias.copy_(torch.randn(ln.bias.shape, generator=gen) * 0.1)      # N(0, 0.1)
    return len(norms)


def calibrate_batchnorm(model, make_args=None):
    """Random affine BN parameters, running stats from one random batch:
    make_args(generator) -> the model's arguments (default: a batch of
    CALIBRATION_BATCH random images)."""
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
        # Only the BatchNorms in training mode: dropout and stochastic depth
        # (EfficientNet) would otherwise skew the statistics.
        model.eval()
        for bn in norms:
            bn.train()
        if make_args is None:
            model(torch.randn(CALIBRATION_BATCH, *IMAGE[1:], generator=gen))
        else:
            model(*make_args(gen))
    for bn in norms:
        bn.momentum = 0.1
    model.eval()
    return len(norms)


def export_one(name, folder):
    _, input_specs, output_names, _ = MODELS[name]
    start = time.monotonic()
    torch.manual_seed(WEIGHT_SEED)  # same weights whatever else is exported
    model = build(name)
    n_zero = fill_zero_parameters(model)
    n_ln = randomize_layernorms(model)
    n_bn = calibrate_batchnorm(model)
    model.eval()

    rng = np.random.RandomState(INPUT_SEED)
    xs = [make(rng) for _, make in input_specs]
    args = tuple(torch.from_numpy(x) for x in xs)
    with torch.no_grad():
        out = model(*args).numpy()
    std = float(out.std())

    # Write into a temporary folder and rename, so an interrupted export never
    # looks like a finished one to the skip check.
    tmp = tempfile.mkdtemp(prefix=f".{name}.", dir=os.path.dirname(folder))
    try:
        path = os.path.join(tmp, "model.onnx")
        # Not under no_grad: with gradients on, torch's transformer layers take
        # their exportable Python path instead of the fused fast-path kernels.
        torch.onnx.export(model, args, path, opset_version=17,
                          input_names=[n for n, _ in input_specs], output_names=output_names,
                          do_constant_folding=True)
        onnx.checker.check_model(path)
        for k, ((input_name, _), x) in enumerate(zip(input_specs, xs)):
            with open(os.path.join(tmp, f"input_{k}.pb"), "wb") as f:
                f.write(onnx.numpy_helper.from_array(x, input_name).SerializeToString())
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.chmod(tmp, 0o755)  # mkdtemp makes it private
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    seconds = time.monotonic() - start

    graph = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    ops = collections.Counter(n.op_type for n in graph.graph.node)
    size_mb = os.path.getsize(os.path.join(folder, "model.onnx")) / 2**20
    changed = [f"{n_bn} BatchNorms calibrated"] if n_bn else []
    changed += [f"{n_ln} LayerNorms randomized"] if n_ln else []
    changed += [f"{n_zero} zero parameters filled"] if n_zero else []
    print(f"{name}: {size_mb:.1f} MiB, {len(graph.graph.node)} nodes, "
          f"{', '.join(changed) or 'no weights adjusted'}, "
          f"output {list(out.shape)} std {std:.3g}, exported in {seconds:.1f} s")
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
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS),
                    help="comma-separated subset of: " + ", ".join(MODELS) +
                         " (default: all but the big " + ", ".join(BIG_MODELS) + ")")
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
        n_inputs = len(MODELS[name][1])
        files = ["model.onnx"] + [f"input_{k}.pb" for k in range(n_inputs)]
        done = all(os.path.exists(os.path.join(folder, f)) for f in files)
        if done and not args.force:
            print(f"{name}: present in {folder}, skipped (--force to redo)")
            continue
        ok = export_one(name, folder) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
