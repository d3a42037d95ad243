#!/usr/bin/python3
"""Dynamic input shapes, Kiln against ONNX Runtime: the revisit workload.

    /usr/bin/python3 bench/dynamic_shapes.py [--build build] [--threads 1,2]
        [--runs 30] [--novel-runs 300] [--models bert_dynamic,resnet18_dynamic]
        [--json FILE]

Exports (tools/export_dynamic_models.py, into BUILD/models-dynamic) a 4-layer
BERT-style encoder with dynamic batch and sequence, and resnet18 with dynamic
batch and image size, with one input file per shape. Per model and thread
count it runs, each in a process of its own:
  - Kiln, revisit: one session runs the shapes in turn (`kiln bench --set
    ... --set ...`); each shape's first run (which plans it) is reported
    apart from its median and p90 over the later rounds;
  - Kiln, one shape per session (`kiln bench --set` with that shape alone):
    what a session that never sees another shape takes;
  - ONNX Runtime, revisit (bench/ort_bench.mjs --set, same files, same
    order, graph optimization "all").
It prints, per shape: Kiln's revisit and one-shape medians and their ratio,
ORT's revisit median, Kiln/ORT, and both engines' first runs and peak RSS.

Then the novel workload: --novel-runs runs, each of a new random shape
(BERT: sequence length 1-512; ResNet-18: height and width 96-384), the same
seeded list of shapes for both engines (`kiln bench --shapes-file`,
ort_bench.mjs --shapes-file), each run timed whole, planning included: the
median, p90 and mean of both, peak RSS after 100 runs and at the end, and
Kiln's plans built and kept (the plan cache holds 8 by default). The CPU model
is printed first, so results from different machines are never mixed.
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cpu_info  # noqa: E402
from export_dynamic_models import SHAPES, shape_tag  # noqa: E402


def json_lines(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def sets_args(files):
    args = []
    for f in files:
        args += ["--set", f]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--novel-runs", type=int, default=300)
    ap.add_argument("--models", default=",".join(SHAPES))
    ap.add_argument("--json", default=None, help="write every measurement here")
    a = ap.parse_args()
    kiln = os.path.join(a.build, "kiln")
    models_dir = os.path.join(a.build, "models-dynamic")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "export_dynamic_models.py"),
                    models_dir], check=True, stdout=subprocess.DEVNULL)
    common = ["--runs", str(a.runs), "--warmup", str(a.warmup), "--json"]
    print(f"CPU: {cpu_info.describe_cpu()}, {os.cpu_count()} logical cores; {a.runs} rounds, "
          f"{a.warmup} warm-up rounds")
    results = []
    for threads in [int(t) for t in a.threads.split(",")]:
        for name in a.models.split(","):
            model = os.path.join(models_dir, name, "model.onnx")
            files = [os.path.join(models_dir, name, shape_tag(s) + ".pb") for s in SHAPES[name]]
            t = ["--threads", str(threads)]
            kiln_rows = json_lines([kiln, "bench", model] + sets_args(files) + t + common)
            ort_rows = json_lines(["node", os.path.join(HERE, "ort_bench.mjs"), model] +
                                  sets_args(files) + t + common)
            alone = [json_lines([kiln, "bench", model, "--set", f] + t + common)[0] for f in files]
            print(f"\n{name}, {threads} thread(s): Kiln peak RSS {kiln_rows[-1]['peak_rss_mb']:.0f}"
                  f" MiB, ORT {ort_rows[-1]['peak_rss_mb']:.0f} MiB")
            print(f"  {'shape':14} {'revisit':>9} {'1 shape':>9} {'rev/1':>6} {'ORT':>9} "
                  f"{'Kiln/ORT':>8} {'p90 K/O':>8} {'1st Kiln':>9} {'1st ORT':>9}")
            for s, shape in enumerate(SHAPES[name]):
                k, o, one = kiln_rows[s], ort_rows[s], alone[s]
                row = {"model": name, "threads": threads, "shape": shape_tag(shape),
                       "kiln_ms": k["median_ms"], "kiln_p90_ms": k["p90_ms"],
                       "kiln_one_shape_ms": one["median_ms"], "ort_ms": o["median_ms"],
                       "ort_p90_ms": o["p90_ms"], "kiln_first_ms": k["first_ms"],
                       "ort_first_ms": o["first_ms"]}
                results.append(row)
                print(f"  {shape_tag(shape):14} {k['median_ms']:9.3f} {one['median_ms']:9.3f} "
                      f"{k['median_ms'] / one['median_ms']:6.3f} {o['median_ms']:9.3f} "
                      f"{k['median_ms'] / o['median_ms']:8.3f} {k['p90_ms'] / o['p90_ms']:8.3f} "
                      f"{k['first_ms']:9.2f} {o['first_ms']:9.2f}")
    if a.novel_runs > 0:
        results += novel(a, kiln, models_dir)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_info.describe_cpu(), "results": results}, f, indent=1)


def novel_shapes(name, runs, path):
    rng = random.Random(7)
    with open(path, "w") as f:
        for _ in range(runs):
            if name == "bert_dynamic":
                f.write(f"input_ids=1x{rng.randint(1, 512)}\n")
            else:
                f.write(f"input=1x3x{rng.randint(96, 384)}x{rng.randint(96, 384)}\n")


def novel(a, kiln, models_dir):
    print(f"\nnovel shapes: {a.novel_runs} runs, a new random shape each")
    print(f"  {'model':17} {'thr':>3} {'Kiln med':>9} {'ORT med':>9} {'K/O':>6} {'K/O p90':>7} "
          f"{'K/O mean':>8} {'RSS@100':>8} {'RSS end':>8} {'ORT RSS':>8} {'plans':>6}")
    rows = []
    for threads in [int(t) for t in a.threads.split(",")]:
        for name in a.models.split(","):
            model = os.path.join(models_dir, name, "model.onnx")
            shapes = os.path.join(models_dir, name, "novel_shapes.txt")
            novel_shapes(name, a.novel_runs, shapes)
            t = ["--threads", str(threads), "--json", "--shapes-file", shapes]
            k = json_lines([kiln, "bench", model] + t)[0]
            o = json_lines(["node", os.path.join(HERE, "ort_bench.mjs"), model] + t)[0]
            rows.append({"model": name, "threads": threads, "workload": "novel", "kiln": k,
                         "ort": o})
            print(f"  {name:17} {threads:3} {k['median_ms']:9.3f} {o['median_ms']:9.3f} "
                  f"{k['median_ms'] / o['median_ms']:6.3f} {k['p90_ms'] / o['p90_ms']:7.3f} "
                  f"{k['mean_ms'] / o['mean_ms']:8.3f} {k['peak_rss_at_100_mb']:8.1f} "
                  f"{k['peak_rss_mb']:8.1f} {o['peak_rss_mb']:8.1f} "
                  f"{k['plans_built']:6d}")
    return rows


if __name__ == "__main__":
    main()
