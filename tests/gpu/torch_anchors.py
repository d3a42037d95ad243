#!/usr/bin/env python3
"""PyTorch's figures on this machine's GPU, the anchors issue 22's targets
are stated against (Kiln <= 0.8x PyTorch eager), measured by the same
script that measures Kiln so both come from one run on one GPU:

  - resnet50 (torchvision architecture, random weights), batch 1, FP16:
    eager latency, and torch.compile's (mode "reduce-overhead", which
    replays CUDA graphs) unless --no-compile;
  - resnet50 FP16 at batch 128: images per second, eager;
  - a BERT-base-sized encoder (12 layers, width 768, 12 heads, FFN 3072,
    built from torch.nn.TransformerEncoderLayer; transformers may be
    absent), batch 1, sequence 128, FP16: eager and compiled latency.

Latency is the median of timed runs after warm-up, each run bracketed by
torch.cuda.synchronize(). Prints one JSON object per figure.

    python3 tests/gpu/torch_anchors.py [--device cuda] [--runs 50] [--no-compile]

--device cpu --runs 2 runs the same code on the CPU in float32 with tiny
batches: a check of the script itself, not a measurement.
"""
import argparse
import json
import statistics
import time

import torch


def timed(fn, runs, warmup, sync):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def bert_base_encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                             activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    import torchvision

    gpu = a.device == "cuda"
    dtype = torch.float16 if gpu else torch.float32
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    where = torch.cuda.get_device_name(0) if gpu else "cpu (script check only)"
    warmup = 10 if gpu else 1
    big_batch = 128 if gpu else 2

    def report(figure, **values):
        print(json.dumps({"figure": figure, "device": where, "torch": torch.__version__, **values}),
              flush=True)

    torch.manual_seed(0)
    with torch.inference_mode():
        resnet = torchvision.models.resnet50().eval().to(a.device, dtype)
        x1 = torch.randn(1, 3, 224, 224, device=a.device, dtype=dtype)
        report("resnet50_b1_eager_ms", value=timed(lambda: resnet(x1), a.runs, warmup, sync))
        xb = torch.randn(big_batch, 3, 224, 224, device=a.device, dtype=dtype)
        ms = timed(lambda: resnet(xb), max(3, a.runs // 5), warmup // 2 or 1, sync)
        report("resnet50_batch_images_per_s", batch=big_batch, value=big_batch / ms * 1e3)

        bert = bert_base_encoder().eval().to(a.device, dtype)
        tokens = torch.randn(1, 128, 768, device=a.device, dtype=dtype)
        report("bert_base_seq128_b1_eager_ms", value=timed(lambda: bert(tokens), a.runs, warmup, sync))

        if not a.no_compile:
            for name, model, inp in (("resnet50_b1", resnet, x1), ("bert_base_seq128_b1", bert, tokens)):
                t0 = time.perf_counter()
                compiled = torch.compile(model, mode="reduce-overhead" if gpu else "default")
                compiled(inp)
                sync()
                compile_s = time.perf_counter() - t0
                report(name + "_compiled_ms", compile_s=round(compile_s, 1),
                       value=timed(lambda: compiled(inp), a.runs, warmup, sync))


if __name__ == "__main__":
    main()
