#!/usr/bin/env python3
"""Kiln on the GPU against Kiln on the CPU, model by model, and its speed
against PyTorch's on the same GPU.

For each MODELS/NAME/model.onnx (with its inputs MODELS/NAME/input_K.pb, as
tools/export_models.py writes them):
  1. `kiln run` on the CPU and `kiln run --device cuda`, each writing its
     outputs as TensorProto files; every output is compared (max absolute
     error over the output's largest magnitude, and the share of elements
     off by more than the tolerance);
  2. `kiln bench --json` on both devices: median latency; on the GPU also
     with --device-graph (one captured device graph replayed per run,
     KILN_OPT_DEVICE_GRAPH) next to plain kernel launches;
  3. for resnet50 (--first-run-names): the first run of a new shape
     without a tuning cache (kernel choice by the libraries' heuristics,
     nothing timed) against the steady state, as a ratio (target <= 3), and
     tuned (--tune: cuBLASLt's and cuDNN's candidates timed at plan time,
     kept in a fresh tuning cache, then read back by a second session)
     against untuned latency;
  4. with --anchors (the JSON lines tests/gpu/torch_anchors.py printed),
     Kiln's CUDA latency next to PyTorch's eager one for the same model.
     Kiln runs float32 here and PyTorch float16, so the ratio is an upper
     bound on Kiln's until Kiln has FP16.

    python3 tests/gpu/compare_devices.py --kiln BUILD/kiln --models DIR
        [--names resnet50,bert_encoder] [--runs 30] [--tol 2e-3] [--anchors FILE]
        [--first-run-names resnet50]

Exit status 0 when every output matched, 1 when one did not or a run
failed, 77 when this kiln has no --device option yet (nothing compared).
Needs numpy only: the TensorProto files are read by the small reader below.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# TensorProto.DataType -> numpy
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
          9: np.bool_, 10: np.float16, 11: np.float64}

# which PyTorch anchor figure matches which exported model
ANCHORS = {"resnet50": "resnet50_b1_eager_ms", "bert_encoder": "bert_base_seq128_b1_eager_ms"}


def varint(buf, at):
    value = shift = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def read_tensor(path):
    """dims, data_type and the data of a TensorProto file (raw_data, or the
    packed float_data / int32_data / int64_data Kiln does not write but
    other tools may)."""
    buf = open(path, "rb").read()
    at, dims, dtype, raw, floats, ints = 0, [], 1, None, [], []
    while at < len(buf):
        key, at = varint(buf, at)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(buf, at)
            if field == 1:
                dims.append(value)
            elif field == 2:
                dtype = value
            elif field in (5, 7):
                ints.append(value)
        elif wire == 2:
            size, at = varint(buf, at)
            chunk = buf[at:at + size]
            at += size
            if field == 1:
                p = 0
                while p < len(chunk):
                    v, p = varint(chunk, p)
                    dims.append(v)
            elif field == 9:
                raw = chunk
            elif field == 4:
                floats.extend(np.frombuffer(chunk, np.float32))
            elif field in (5, 7):
                p = 0
                while p < len(chunk):
                    v, p = varint(chunk, p)
                    ints.append(v)
        elif wire == 5:
            at += 4
        elif wire == 1:
            at += 8
        else:
            raise ValueError(f"{path}: unexpected wire type {wire}")
    np_type = DTYPES.get(dtype)
    if np_type is None:
        raise ValueError(f"{path}: data type {dtype} not handled")
    if raw is not None:
        data = np.frombuffer(raw, np_type)
    elif floats:
        data = np.array(floats, np.float32)
    else:
        data = np.array(ints, np.int64).astype(np_type)
    return data.reshape(dims)


def kiln_run(kiln, model, inputs, out_dir, device):
    cmd = [kiln, "run", model, "-o", out_dir]
    for path in inputs:
        cmd += ["-i", path]
    if device:
        cmd += ["--device", device]
    else:
        cmd += ["--threads", str(os.cpu_count() or 1)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def kiln_bench(kiln, model, inputs, runs, device, graph=False):
    cmd = [kiln, "bench", model, "--json", "--runs", str(runs), "--warmup", "5"]
    if graph:
        cmd += ["--device-graph"]
    for path in inputs:
        cmd += ["-i", path]
    cmd += ["--device", device] if device else ["--threads", str(os.cpu_count() or 1)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return None, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


def kiln_bench_first(kiln, model, inputs, runs, extra=()):
    """kiln bench on the GPU with the inputs as one --set: its first run
    plans the shape (a new shape), then the median of the runs after."""
    cmd = [kiln, "bench", model, "--json", "--runs", str(runs), "--warmup", "5",
           "--device", "cuda", "--set", ",".join(inputs), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return None, done.stdout + done.stderr
    found = {}
    for line in done.stdout.strip().splitlines():
        if line.startswith("{"):
            found.update(json.loads(line))  # the set's figures, then create_ms
    if "first_ms" not in found:
        return None, done.stdout + done.stderr
    return found, ""


def first_run_and_tuning(kiln, model, inputs, runs):
    """Prints the first-run / steady ratio untuned, and tuned against
    untuned latency; returns False when a run failed."""
    plain, why = kiln_bench_first(kiln, model, inputs, runs)
    if plain is None:
        print(f"  kiln bench --set failed:\n{why[-1500:]}")
        return False
    ratio = plain["first_ms"] / plain["median_ms"]
    print(f"  first run of a new shape, no tuning cache: {plain['first_ms']:.2f} ms, steady "
          f"{plain['median_ms']:.2f} ms: first / steady = {ratio:.2f} (target <= 3: "
          f"{'met' if ratio <= 3 else 'NOT met'}; session create "
          f"{plain.get('create_ms', 0):.0f} ms)")
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "tuning.cache")
        tune = ["--tune", "--tuning-cache", cache]
        timed, why = kiln_bench_first(kiln, model, inputs, runs, tune)
        cached, why2 = kiln_bench_first(kiln, model, inputs, runs, tune)
        lines = 0
        if os.path.exists(cache):
            with open(cache) as f:
                lines = sum(1 for line in f if not line.startswith("#"))
    if timed is None or cached is None:
        print(f"  kiln bench --tune failed:\n{why[-1500:]}\n{why2[-1500:]}")
        return False
    print(f"  tuned: session create + first run {timed.get('create_ms', 0) + timed['first_ms']:.0f}"
          f" ms timing candidates ({lines} choices cached), "
          f"{cached.get('create_ms', 0) + cached['first_ms']:.0f} ms from the cache; median tuned "
          f"{cached['median_ms']:.2f} ms, untuned {plain['median_ms']:.2f} ms (untuned / tuned "
          f"= {plain['median_ms'] / cached['median_ms']:.2f})")
    print(json.dumps({"model": os.path.basename(os.path.dirname(model)),
                      "first_ms": plain["first_ms"], "steady_ms": plain["median_ms"],
                      "first_over_steady": ratio, "tuning_first_ms": timed["first_ms"],
                      "cached_first_ms": cached["first_ms"], "tuned_ms": cached["median_ms"],
                      "tuned_choices": lines}))
    return True


def has_device_option(kiln):
    """Whether this kiln knows --device (the engine's side of the backend)."""
    done = subprocess.run([kiln, "run", "--help"], capture_output=True, text=True)
    return "--device" in done.stdout + done.stderr


def compare(name, cpu_dir, gpu_dir, tol):
    ok = True
    for path in sorted(glob.glob(os.path.join(cpu_dir, "output_*.pb"))):
        other = os.path.join(gpu_dir, os.path.basename(path))
        want = read_tensor(path)
        if not os.path.exists(other):
            print(f"  {name} {os.path.basename(path)}: missing from the CUDA run")
            ok = False
            continue
        got = read_tensor(other)
        if got.shape != want.shape:
            print(f"  {name} {os.path.basename(path)}: shape {got.shape} vs CPU {want.shape}")
            ok = False
            continue
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        scale = max(1.0, float(np.abs(w).max()) if w.size else 1.0)
        err = np.abs(g - w) / scale
        worst = float(err.max()) if err.size else 0.0
        bad = float((err > tol).mean()) if err.size else 0.0
        passed = worst <= tol and bool(np.isfinite(g).all() == np.isfinite(w).all())
        print(f"  {name} {os.path.basename(path)} {list(want.shape)}: max |GPU - CPU| / "
              f"{scale:.3g} = {worst:.2e}, {bad * 100:.3f} % above {tol:g}: "
              f"{'PASS' if passed else 'FAIL'}")
        ok &= passed
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--names", default="resnet50,bert_encoder")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--tol", type=float, default=2e-3)
    ap.add_argument("--anchors")
    ap.add_argument("--first-run-names", default="resnet50",
                    help="models whose first run and tuning are measured (comma-separated)")
    a = ap.parse_args()
    if not has_device_option(a.kiln):
        print("compare_devices: this kiln has no --device option (the engine's device support "
              "is not in this build): nothing compared")
        return 77
    anchors = {}
    if a.anchors and os.path.exists(a.anchors):
        for line in open(a.anchors):
            line = line.strip()
            if line.startswith("{"):
                figure = json.loads(line)
                anchors[figure["figure"]] = figure["value"]
    all_ok = True
    for name in a.names.split(","):
        folder = os.path.join(a.models, name)
        model = os.path.join(folder, "model.onnx")
        inputs = sorted(glob.glob(os.path.join(folder, "input_*.pb")))
        if not os.path.exists(model):
            print(f"{name}: no {model}: skipped")
            continue
        print(f"== {name}")
        with tempfile.TemporaryDirectory() as tmp:
            cpu_dir, gpu_dir = os.path.join(tmp, "cpu"), os.path.join(tmp, "cuda")
            rc_cpu, log_cpu = kiln_run(a.kiln, model, inputs, cpu_dir, None)
            rc_gpu, log_gpu = kiln_run(a.kiln, model, inputs, gpu_dir, "cuda")
            if rc_cpu != 0 or rc_gpu != 0:
                print(f"  kiln run failed: CPU {rc_cpu}, CUDA {rc_gpu}\n{log_cpu[-2000:]}"
                      f"\n{log_gpu[-2000:]}")
                all_ok = False
                continue
            all_ok &= compare(name, cpu_dir, gpu_dir, a.tol)
        cpu, why_cpu = kiln_bench(a.kiln, model, inputs, max(3, a.runs // 5), None)
        gpu, why_gpu = kiln_bench(a.kiln, model, inputs, a.runs, "cuda")
        if cpu is None or gpu is None:
            print(f"  kiln bench failed:\n{why_cpu[-1500:]}\n{why_gpu[-1500:]}")
            all_ok = False
            continue
        line = (f"  latency: CPU ({os.cpu_count()} threads) {cpu['median_ms']:.2f} ms, CUDA FP32 "
                f"{gpu['median_ms']:.2f} ms (session create {gpu['create_ms']:.0f} ms)")
        torch_ms = anchors.get(ANCHORS.get(name, ""))
        if torch_ms:
            line += (f"; PyTorch FP16 eager {torch_ms:.2f} ms: Kiln / PyTorch = "
                     f"{gpu['median_ms'] / torch_ms:.2f}")
        print(line)
        # the same runs replayed from a captured device graph (one launch per
        # run instead of one per node); a plan with CPU steps runs plainly
        graph, why_graph = kiln_bench(a.kiln, model, inputs, a.runs, "cuda", graph=True)
        graph_ms = graph["median_ms"] if graph else None
        if graph is None:
            print(f"  kiln bench --device-graph failed:\n{why_graph[-1500:]}")
            all_ok = False
        else:
            print(f"  latency: CUDA plain launches {gpu['median_ms']:.2f} ms, graph replay "
                  f"{graph_ms:.2f} ms (plain / graph = {gpu['median_ms'] / graph_ms:.2f})")
        print(json.dumps({"model": name, "cpu_ms": cpu["median_ms"], "cuda_ms": gpu["median_ms"],
                          "cuda_graph_ms": graph_ms, "cuda_create_ms": gpu["create_ms"],
                          "torch_fp16_eager_ms": torch_ms}))
        if name in a.first_run_names.split(","):
            all_ok &= first_run_and_tuning(a.kiln, model, inputs, a.runs)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
