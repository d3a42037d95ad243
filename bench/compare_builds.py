#!/usr/bin/python3
"""Kiln against Kiln: the same models on two builds, alternately, to show
that a change kept (or moved) each model's latency.

    /usr/bin/python3 bench/compare_builds.py OLD_KILN NEW_KILN MODELS_DIR
        [--models a,b] [--threads 1] [--rounds 5] [--runs 30]

For each model (MODELS_DIR/<model>/model.onnx with input_*.pb, as
tools/export_models.py writes them) it runs `OLD_KILN bench --json` and
`NEW_KILN bench --json` alternately, each in a process of its own, --rounds
times, and prints each build's median over rounds of the median latency,
and new/old. Alternating spreads the machine's drift over both builds. The
CPU model is printed first: figures from different machines never mix.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import cpu_info  # noqa: E402


def bench(kiln, model_dir, threads, runs):
    cmd = [kiln, "bench", os.path.join(model_dir, "model.onnx"), "--threads", str(threads),
           "--runs", str(runs), "--json"]
    for f in sorted(os.listdir(model_dir)):
        if f.startswith("input_") and f.endswith(".pb"):
            cmd += ["--input", os.path.join(model_dir, f)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("models_dir")
    ap.add_argument("--models", default="resnet50,mobilenet_v2,squeezenet1_1,efficientnet_b0")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    print(f"CPU: {cpu_info.describe_cpu()}, {os.cpu_count()} logical cores; threads {a.threads}, "
          f"{a.rounds} rounds x {a.runs} runs")
    print(f"{'model':18} {'old ms':>9} {'new ms':>9} {'new/old':>8}")
    worst = 0.0
    for name in a.models.split(","):
        d = os.path.join(a.models_dir, name)
        old, new = [], []
        for _ in range(a.rounds):
            old.append(bench(a.old, d, a.threads, a.runs))
            new.append(bench(a.new, d, a.threads, a.runs))
        o, n = statistics.median(old), statistics.median(new)
        worst = max(worst, abs(n / o - 1))
        print(f"{name:18} {o:9.3f} {n:9.3f} {n / o:8.3f}", flush=True)
    print(f"largest change: {100 * worst:.1f} %")


if __name__ == "__main__":
    main()
