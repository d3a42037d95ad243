#!/usr/bin/python3
"""Kiln vs ONNX Runtime on CPU, side by side, on the same inputs.

    /usr/bin/python3 bench/side_by_side.py [--build build] [--set six|wide]
        [--models a,b] [--threads 1,2] [--rounds 3] [--runs 50]
        [--json bench/results.json] [--svg bench/results.svg]
        [--int8 [--requantize]] [--bf16]

--set wide runs the wide set instead: the 20 architectures of
tools/export_wide_models.py (detection, segmentation, video, optical flow,
audio, NHWC Keras-style, transformers), exported into BUILD/models-wide.
A model Kiln or ONNX Runtime cannot run is reported with the error and left
out of the timings; a model whose Kiln/ORT median ratio is above 0.9 gets
`kiln bench --profile` run on it, and its three costliest op types are
printed under the table (where the time goes).

For each model (exported by tools/export_models.py into BUILD/models when
missing: resnet50, mobilenet_v2, squeezenet1_1, efficientnet_b0, vit_b_16,
bert_encoder by default) it first checks that both engines' outputs agree
(tools/compare_with_ort.py: max|diff| <= 1e-4 x max|ref|), then, per thread
count, runs `kiln bench --json` and bench/ort_bench.mjs (onnxruntime-node
1.30, graph optimization "all", sequential execution) alternately, each in a
process of its own, --rounds times, on the model's input_0.pb. Per engine it
keeps the median over rounds of: median and p90 latency, create time (model
load + session creation) and peak RSS. It prints a table of Kiln/ORT ratios
with their geometric means, writes everything to the JSON file and draws the
median ratios as an SVG bar chart (bench/ratio_chart.py; the CPU is in its
title).

When bench/dnnl_peak (built with oneDNN) is present, it also prints the
practical peak (best oneDNN sgemm GFLOP/s at each thread count) and each
engine's achieved GFLOP/s and percent of that peak, from the model's
multiply-add count (bench/model_flops.py). That count is the direct
convolution's: an engine that runs 3x3 layers as Winograd does fewer
multiplications and can pass 100 %. The "at peak" line is the geometric mean
of ORT's shares of the peak: the ratio an engine would reach if it ran every
direct multiply-add at the peak and spent no time on anything else.

--int8 adds int8 (bench/int8_side.py). Each model is quantized once with
`kiln quantize`, calibrated on the model's own input_0.pb (one sample; each
test_data_set_N/ folder is one more), and the QDQ model is cached as
MODEL_DIR/int8.onnx: it is rebuilt only when missing, or with --requantize
(do that after the quantizer changes). The alternate rounds then time four
processes: Kiln float32, Kiln int8, ORT int8 (the same QDQ file) and ORT
float32. A second table per thread count gives Kiln int8 and ORT int8
latency, Kiln int8/ORT int8, each engine's float32/int8 speed-up with
geometric means, Kiln's achieved int8 GOP/s (2 x the float model's
multiply-adds / latency) and both engines' percent of the practical int8
peak (bench/dnnl_peak --int8: oneDNN's best u8s8s32 matmul). Kiln's int8
outputs are compared with ORT's on the same file (max|diff|/max|ref|),
reported but never failing the run: two int8 engines round differently.
The JSON gets an "int8" entry per model and "peak_gops_int8"; the chart of
Kiln int8/ORT int8 goes beside the float one, as NAME-int8.svg.

--bf16 adds Kiln's float32 model in a bf16 session (bench/bf16_side.py):
`kiln bench --bf16` timed in the same alternate rounds, and `kiln diff
--b-bf16` on the model's inputs for the accuracy. A third table gives Kiln
float32 and bf16 latency, the speed-up and the outputs' SQNR and relative L2
against float32; the JSON gets a "bf16" entry per model.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

import bf16_side
import int8_side
import ratio_chart

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MODELS = "resnet50,mobilenet_v2,squeezenet1_1,efficientnet_b0,vit_b_16,bert_encoder"
METRICS = ("median_ms", "p90_ms", "create_ms", "peak_rss_mb")


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


EXPORTERS = {"six": "export_models.py", "wide": "export_wide_models.py"}
MODELS_DIRS = {"six": "models", "wide": "models-wide"}
MISS_RATIO = 0.9


def export(models_dir, names, which):
    """Exports the named models that are missing (names None: the whole set;
    the exporter skips those present). A model that fails to export is left
    out; the exporter says why."""
    missing = None if names is None else \
        [n for n in names if not os.path.exists(os.path.join(models_dir, n, "model.onnx"))]
    if missing == []:
        return
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "tools", EXPORTERS[which]), models_dir]
    if missing:
        cmd += ["--models", ",".join(missing)]
    subprocess.run(cmd, check=which == "six")


def exported(models_dir):
    return sorted(n for n in os.listdir(models_dir)
                  if os.path.exists(os.path.join(models_dir, n, "model.onnx")))


def top_ops(kiln, model_dir, threads, count=3):
    """The costliest op types of `kiln bench --profile`: [(op, kernel, share %)]."""
    model = os.path.join(model_dir, "model.onnx")
    cmd = [kiln, "bench", model, "--threads", str(threads), "--runs", "10", "--profile",
           "--top", "0", "--json"]
    for f in sorted(f for f in os.listdir(model_dir) if f.startswith("input_")):
        cmd += ["--input", os.path.join(model_dir, f)]
    err = subprocess.run(cmd, capture_output=True, text=True).stderr.splitlines()
    ops, in_table = [], False
    for line in err:
        if line.startswith("op type"):
            in_table = True
        elif in_table and not line.strip():
            break
        elif in_table:
            f = line.split()
            if len(f) >= 5 and f[-1].endswith("%"):
                ops.append((f[0], f[1], float(f[-1].rstrip("%"))))
    return ops[:count]


def agree(kiln, model_dir):
    p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "compare_with_ort.py"),
                        "--kiln", kiln, model_dir], capture_output=True, text=True)
    lines = p.stdout.strip().splitlines() or ["(no output)"]
    # the model's own line (its max|diff| ratio), not the summary after it
    line = next((l for l in lines if "max|diff|" in l), lines[-1])
    return p.returncode == 0, line


def bench_once(engine, kiln, model_dir, threads, runs, extra, model=None):
    """One timing process; model defaults to MODEL_DIR/model.onnx (the int8
    rounds pass MODEL_DIR/int8.onnx), the inputs are MODEL_DIR's."""
    model = model or os.path.join(model_dir, "model.onnx")
    inputs = sorted(f for f in os.listdir(model_dir) if f.startswith("input_") and f.endswith(".pb"))
    if engine == "kiln":
        cmd = [kiln, "bench", model, "--threads", str(threads), "--runs", str(runs), "--json"]
        cmd += extra
        for f in inputs:
            cmd += ["--input", os.path.join(model_dir, f)]
    else:
        cmd = ["node", os.path.join(HERE, "ort_bench.mjs"), model, "--threads", str(threads),
               "--runs", str(runs), "--json"]
        for f in inputs:
            cmd += ["--input", os.path.join(model_dir, f)]
    return run_json(cmd)


def peak_gflops(build, threads):
    tool = os.path.join(build, "bench", "dnnl_peak")
    if not os.path.exists(tool):
        return None
    return run_json([tool, "--threads", str(threads), "--json"])["gflops"]


def model_gmacs(model_dir):
    out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "model_flops.py"),
                          os.path.join(model_dir, "model.onnx")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["gmacs"]


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--set", default="six", choices=sorted(EXPORTERS),
                    help="six: the six benchmark models; wide: tools/export_wide_models.py's")
    ap.add_argument("--models", default=None,
                    help=f"comma-separated subset (six: default {DEFAULT_MODELS}; wide: all)")
    ap.add_argument("--models-dir", default=None, help="default BUILD/models (six) or "
                    "BUILD/models-wide (wide)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--kiln-args", default="", help="extra `kiln bench` arguments")
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--svg", default=None, help="the ratio chart (default: the JSON path "
                    "with .svg)")
    ap.add_argument("--int8", action="store_true", help="also quantize each model (cached "
                    "as MODEL_DIR/int8.onnx) and time Kiln and ORT on it")
    ap.add_argument("--requantize", action="store_true", help="with --int8: rebuild "
                    "MODEL_DIR/int8.onnx even if present")
    ap.add_argument("--bf16", action="store_true", help="also time Kiln's float32 model in a "
                    "bf16 session and measure its outputs against float32")
    a = ap.parse_args()
    kiln = os.path.join(a.build, "kiln")
    models_dir = a.models_dir or os.path.join(a.build, MODELS_DIRS[a.set])
    models = a.models or (DEFAULT_MODELS if a.set == "six" else None)
    names = [n for n in models.split(",") if n] if models else None
    threads = [int(t) for t in a.threads.split(",")]
    export(models_dir, names, a.set)
    names = [n for n in (names or exported(models_dir))
             if os.path.exists(os.path.join(models_dir, n, "model.onnx"))]

    report = {"models": {}, "threads": threads, "rounds": a.rounds, "peak_gflops": {}}
    report["cpu"] = ratio_chart.cpu_name()
    print(f"CPU: {report['cpu']} ({os.cpu_count()} logical CPUs)", flush=True)
    for t in threads:
        report["peak_gflops"][t] = peak_gflops(a.build, t)
    if a.int8:
        report["peak_gops_int8"] = {t: int8_side.peak_gops(a.build, t) for t in threads}
    ok_all = True
    timed = []
    for name in names:
        mdir = os.path.join(models_dir, name)
        ok, line = agree(kiln, mdir)
        print(f"check {line}", flush=True)
        ok_all &= ok
        try:
            gmacs = model_gmacs(mdir)
        except subprocess.CalledProcessError:
            gmacs = 0.0
        entry = {"agree": ok, "check": line, "gmacs": gmacs, "threads": {}}
        report["models"][name] = entry
        qmodel = int8_prepare(a, kiln, mdir, entry) if a.int8 else None
        if a.bf16:
            sqnr, rel, line = bf16_side.accuracy(kiln, mdir)
            entry["bf16"] = {"threads": {}, "sqnr_db": sqnr, "rel_l2": rel, "check": line}
            print(f"check {line}", flush=True)
        try:
            for t in threads:
                samples = {"kiln": [], "ort": []}
                if qmodel:
                    samples = {"kiln": [], "kiln8": [], "ort8": [], "ort": []}
                if a.bf16:
                    samples[bf16_side.ENGINE] = []
                for _ in range(a.rounds):  # alternate so drift hits both engines alike
                    for engine in list(samples):
                        if engine not in samples:  # int8 dropped earlier in this round
                            continue
                        try:
                            bf16 = ["--bf16"] if engine == bf16_side.ENGINE else []
                            samples[engine].append(bench_once(
                                "kiln" if engine.startswith("kiln") else "ort", kiln, mdir, t,
                                a.runs, a.kiln_args.split() + bf16,
                                qmodel if engine.endswith("8") else None))
                        except subprocess.CalledProcessError as e:
                            if not engine.endswith("8"):
                                raise
                            # an int8 failure costs the int8 columns, not the float ones
                            entry["int8"]["error"] = f"{engine}: " + (
                                ((e.stderr or "").strip().splitlines() or [str(e)])[-1])
                            print(f"  {name} int8: not timed: {entry['int8']['error']}",
                                  flush=True)
                            qmodel = None
                            samples.pop("kiln8"), samples.pop("ort8")
                row = {e: {m: statistics.median(s[m] for s in samples[e]) for m in METRICS}
                       for e in samples}
                row["ratio"] = {m: row["kiln"][m] / row["ort"][m] for m in METRICS}
                if a.bf16:
                    entry["bf16"]["threads"][t] = bf16_side.bf16_row(row, row.pop(bf16_side.ENGINE))
                if qmodel:
                    q = {e: row.pop(e) for e in int8_side.ENGINES}
                    q["ratio"] = int8_side.int8_row(row, q)
                    entry["int8"]["threads"][t] = q
                entry["threads"][t] = row
                print(f"  {name} threads {t}: kiln {row['kiln']['median_ms']:.2f} ms, "
                      f"ORT {row['ort']['median_ms']:.2f} ms", flush=True)
                if a.bf16:
                    print(f"  {name} threads {t} bf16: kiln "
                          f"{entry['bf16']['threads'][t]['kilnbf']['median_ms']:.2f} ms",
                          flush=True)
                if qmodel:
                    print(f"  {name} threads {t} int8: kiln {q['kiln8']['median_ms']:.2f} ms, "
                          f"ORT {q['ort8']['median_ms']:.2f} ms", flush=True)
                if row["ratio"]["median_ms"] > MISS_RATIO and a.set == "wide":
                    entry.setdefault("profile", {})[t] = top_ops(kiln, mdir, t)
        except subprocess.CalledProcessError as e:
            entry["error"] = (e.stderr or "").strip().splitlines()[-1:] or [str(e)]
            print(f"  {name}: not timed: {entry['error'][0]}", flush=True)
            continue
        timed.append(name)

    print_table(report, timed, threads)
    if a.int8:
        int8_side.print_table(report, timed, threads, geomean)
    if a.bf16:
        bf16_side.print_table(report, timed, threads, geomean)
    for name in names:
        for t, ops in report["models"][name].get("profile", {}).items():
            shares = ", ".join(f"{op} ({kernel}) {share:.0f}%" for op, kernel, share in ops)
            print(f"where {name} spends its time, threads {t}: {shares}")
        if "error" in report["models"][name]:
            print(f"{name}: not timed: {report['models'][name]['error'][0]}")
        if "error" in report["models"][name].get("int8", {}):
            print(f"{name}: int8 not timed: {report['models'][name]['int8']['error']}")
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
    svg = a.svg or os.path.splitext(a.json)[0] + ".svg"
    with open(svg, "w") as f:
        f.write(ratio_chart.ratio_svg(
            f"Kiln vs ONNX Runtime, {a.set} set, on {report['cpu']}", timed, threads,
            lambda n, t: report["models"][n]["threads"][t]["ratio"]["median_ms"]))
    if a.int8:
        timed8 = [n for n in timed if report["models"][n].get("int8", {}).get("threads")]
        svg8 = os.path.splitext(svg)[0] + "-int8.svg"
        with open(svg8, "w") as f:
            f.write(ratio_chart.ratio_svg(
                f"Kiln int8 vs ONNX Runtime int8 (same QDQ file), {a.set} set, on "
                f"{report['cpu']}", timed8, threads,
                lambda n, t: report["models"][n]["int8"]["threads"][t]["ratio"]
                ["kiln8_over_ort8"]))
        svg += f" and {svg8}"
    print(f"\nwrote {a.json} and {svg} (CPU: {report['cpu']})")
    return 0 if ok_all else 1


def int8_prepare(a, kiln, mdir, entry):
    """The model's QDQ file (made or reused) and its agreement check, recorded
    in entry["int8"]; None when it cannot be made (the reason is recorded)."""
    name = os.path.basename(mdir)
    entry["int8"] = {"threads": {}}
    qmodel, why = int8_side.quantized_model(kiln, mdir, a.requantize)
    if not qmodel:
        entry["int8"]["error"] = why
        print(f"  {name} int8: {why}", flush=True)
        return None
    entry["int8"]["model"] = qmodel
    rel, line = int8_side.agreement(kiln, mdir, qmodel)
    entry["int8"].update(rel_diff=rel, check=line)
    print(f"check {line}", flush=True)
    return qmodel


def print_table(report, names, threads):
    print()
    head = f"{'model':16} {'thr':>3} {'kiln ms':>9} {'ORT ms':>9} {'median':>7} {'p90':>7} " \
           f"{'create':>7} {'peakRSS':>7}"
    peaks = report["peak_gflops"]
    if any(peaks.values()):
        head += f" {'kiln %pk':>8} {'ORT %pk':>8}"
    print(head)
    for t in threads:
        for name in names:
            row = report["models"][name]["threads"][t]
            r = row["ratio"]
            line = f"{name:16} {t:>3} {row['kiln']['median_ms']:9.2f} {row['ort']['median_ms']:9.2f}" \
                   f" {r['median_ms']:7.3f} {r['p90_ms']:7.3f} {r['create_ms']:7.3f}" \
                   f" {r['peak_rss_mb']:7.3f}"
            if peaks.get(t):
                gflop = 2 * report["models"][name]["gmacs"]
                for e in ("kiln", "ort"):
                    pct = 100 * gflop / (row[e]["median_ms"] / 1000) / peaks[t]
                    row[e]["percent_of_peak"] = pct
                    line += f" {pct:7.1f}%"
            print(line)
        gm = geomean(report["models"][n]["threads"][t]["ratio"]["median_ms"] for n in names)
        report.setdefault("geomean_median_ratio", {})[t] = gm
        print(f"{'geomean':16} {t:>3} {'':9} {'':9} {gm:7.3f}")
        if peaks.get(t):
            # Kiln/ORT if Kiln ran every multiply-add at the practical peak
            # and spent nothing else: ORT's own share of the peak.
            floor = geomean(report["models"][n]["threads"][t]["ort"]["percent_of_peak"] / 100
                            for n in names)
            report.setdefault("geomean_ratio_at_peak", {})[t] = floor
            print(f"{'at peak':16} {t:>3} {'':9} {'':9} {floor:7.3f}")
    for t in threads:
        if peaks.get(t):
            print(f"practical peak (oneDNN sgemm), threads {t}: {peaks[t]:.1f} GFLOP/s")
    if any(peaks.values()):
        print("(%pk counts the direct convolution's multiply-adds; Winograd layers do fewer,"
              " so a model can pass 100 %)")
        print("('at peak': the geometric mean ratio an engine would reach running every one"
              " of those multiply-adds at the practical peak, with no other cost: a floor"
              " for direct float32 arithmetic)")


if __name__ == "__main__":
    sys.exit(main())
