#!/usr/bin/python3
"""Dynamic input shapes, Kiln against ONNX Runtime: the revisit workload.

    /usr/bin/python3 bench/dynamic_shapes.py [--build build] [--threads 1,2]
        [--runs 30] [--models bert_dynamic,resnet18_dynamic] [--json FILE]

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
ORT's revisit median, Kiln/ORT, and both engines' first runs and peak RSS;
the CPU model first, so results from different machines are never mixed.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from export_dynamic_models import SHAPES, shape_tag  # noqa: E402


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


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
    ap.add_argument("--models", default=",".join(SHAPES))
    ap.add_argument("--json", default=None, help="write every measurement here")
    a = ap.parse_args()
    kiln = os.path.join(a.build, "kiln")
    models_dir = os.path.join(a.build, "models-dynamic")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "export_dynamic_models.py"),
                    models_dir], check=True, stdout=subprocess.DEVNULL)
    common = ["--runs", str(a.runs), "--warmup", str(a.warmup), "--json"]
    print(f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; {a.runs} rounds, "
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
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_model(), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
