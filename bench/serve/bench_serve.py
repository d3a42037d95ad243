#!/usr/bin/python3
"""kiln serve against the same sessions in process, on this machine:

  1. overhead: digits, 1 connection, binary and JSON requests: the server's
     p50 latency (wrk) minus `kiln bench`'s in-process p50 run;
  2. throughput: resnet50 on 2 threads, 4 concurrent clients, two ways:
     two instances of 1 thread against kiln_sessions_bench (two sessions of
     1 thread, each on its own thread), and one instance of 2 threads
     against `kiln bench --threads 2` (one session back to back);
  3. dynamic batching: mobilenet_v2 with a dynamic batch dim, 16 concurrent
     clients, batching on (max 16 rows, 2 ms delay) against off; p99 printed.

    /usr/bin/python3 bench/serve/bench_serve.py [--build build] [--models DIR]
        [--seconds 10] [--only overhead,throughput,batching]

wrk (Debian package wrk) is the load generator: it runs in its own process
on the same machine, so its CPU use is part of what the server competes
with; the in-process figures have no such competitor. Names the CPU.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def cpu_name():
    sys.path.insert(0, os.path.join(SOURCE, "tools"))
    import cpu_info
    return cpu_info.describe_cpu()


def in_process_ms(kiln, model, threads, shape=None, runs=200):
    cmd = [kiln, "bench", model, "--threads", str(threads), "--json", "--runs", str(runs)]
    if shape:
        cmd += ["--shape", shape]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["median_ms"]


def ort_ms(model, name, shape, threads, folder):
    """ONNX Runtime's median run (bench/ort_bench.mjs, onnxruntime-node from
    tools/ort), or None when it is not installed."""
    if not os.path.isdir(os.path.join(SOURCE, "tools", "ort", "node_modules", "onnxruntime-node")):
        return None
    shapes = os.path.join(folder, "shapes_" + shape.replace("x", "_") + ".txt")
    with open(shapes, "w") as f:
        f.write(f"{name}={shape}\n" * 30)
    out = subprocess.run(["node", os.path.join(SOURCE, "bench", "ort_bench.mjs"), model,
                          "--shapes-file", shapes, "--threads", str(threads), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def batch_gain_in_process(kiln, model, name, folder, batch=16, threads=2):
    """What batching can give on this CPU at all: per-image time of one run
    of `batch` images against one run of 1, in process, for Kiln and for
    ONNX Runtime. A server's batching gain cannot exceed its engine's."""
    for engine in ("kiln", "onnxruntime"):
        per_image = []
        for b in (1, batch):
            shape = f"{b}x3x224x224"
            ms = (in_process_ms(kiln, model, threads, f"{name}={shape}", runs=30) if engine == "kiln"
                  else ort_ms(model, name, shape, threads, folder))
            per_image.append(None if ms is None else ms / b)
        if per_image[0] is None:
            print(f"in process, {engine}: SKIP (onnxruntime-node not installed in tools/ort)")
            continue
        print(f"in process, {engine:11s} {threads} threads: {per_image[0]:.2f} ms per image at batch 1, "
              f"{per_image[1]:.2f} at batch {batch}: batch gain {per_image[0] / per_image[1]:.2f}x")


def binary_body(name, arr, folder, tag):
    header = json.dumps({"inputs": [{"name": name, "datatype": "FP32", "shape": list(arr.shape),
                                     "parameters": {"binary_data_size": arr.nbytes}}],
                         "parameters": {"binary_data_output": True}}).encode()
    path = os.path.join(folder, tag + ".bin")
    with open(path, "wb") as f:
        f.write(header + arr.tobytes())
    return path, len(header)


def json_body(name, arr, folder, tag):
    path = os.path.join(folder, tag + ".json")
    with open(path, "w") as f:
        json.dump({"inputs": [{"name": name, "datatype": "FP32", "shape": list(arr.shape),
                               "data": arr.ravel().tolist()}]}, f)
    return path


class Server:
    def __init__(self, kiln, repo, *args):
        self.proc = subprocess.Popen([kiln, "serve", repo, "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"kiln serve did not start: {line!r}")
        self.url = line.strip().rsplit(" ", 1)[-1]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(60)


def wrk(url, path, body, header_length, connections, seconds):
    cmd = ["wrk", "-t", "1", "-c", str(connections), "-d", f"{seconds}s", "--latency",
           "-s", os.path.join(HERE, "post_body.lua"), url, "--", body, path]
    if header_length is not None:
        cmd.append(str(header_length))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    vals = dict(re.findall(r"^(\w+) (\d+)$", out, re.M))
    r = {k: int(v) for k, v in vals.items()}
    if r["non_200"]:
        raise SystemExit(f"{r['non_200']} requests were not answered 200:\n{out}")
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    return r


def repo_with(root, name, model_path, config):
    folder = os.path.join(root, name, "1")
    os.makedirs(folder, exist_ok=True)
    shutil.copy(model_path, os.path.join(folder, "model.onnx"))
    with open(os.path.join(root, name, "config.json"), "w") as f:
        json.dump(config, f)
    return root


def dynamic_batch_copy(src, dst):
    m = onnx.load(src)
    for v in list(m.graph.input) + list(m.graph.output):
        v.type.tensor_type.shape.dim[0].dim_param = "batch"
    del m.graph.value_info[:]
    onnx.save(m, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--models", default=None, help="folder with resnet50/ and mobilenet_v2/ "
                    "(tools/export_models.py); default BUILD/models")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--only", default="overhead,throughput,batching")
    a = ap.parse_args()
    if not shutil.which("wrk"):
        print("SKIP: wrk is not installed (Debian package wrk)")
        return 77
    kiln = os.path.join(a.build, "kiln")
    models = a.models or os.path.join(a.build, "models")
    tmp = tempfile.mkdtemp()
    only = a.only.split(",")
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; wrk on the same machine")

    if "overhead" in only:
        digits = os.path.join(SOURCE, "examples", "digits", "digits.onnx")
        inproc = in_process_ms(kiln, digits, 1, runs=5000) * 1000
        x = np.full((1, 1, 8, 8), 0.5, np.float32)
        bbody, blen = binary_body("image", x, tmp, "digits")
        jbody = json_body("image", x, tmp, "digits")
        repo = repo_with(os.path.join(tmp, "r1"), "digits", digits, {"instances": 1})
        s = Server(kiln, repo)
        try:
            for kind, body, hl in (("binary", bbody, blen), ("JSON", jbody, None)):
                w = wrk(s.url, "/v2/models/digits/infer", body, hl, 1, a.seconds)
                over = w["latency_p50_us"] - inproc
                print(f"overhead digits {kind:6s} 1 connection: p50 {w['latency_p50_us']} us, "
                      f"in-process p50 {inproc:.1f} us, overhead {over:.0f} us "
                      f"(limit 150) {'PASS' if over <= 150 else 'FAIL'}; p99 "
                      f"{w['latency_p99_us']} us, {w['rps']:.0f} req/s")
        finally:
            s.stop()

    if "throughput" in only:
        resnet = os.path.join(models, "resnet50", "model.onnx")
        sessions_bench = os.path.join(a.build, "bench", "kiln_sessions_bench")
        if not os.path.exists(resnet):
            print(f"throughput: SKIP ({resnet} missing: tools/export_models.py)")
        else:
            x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
            name = onnx.load(resnet, load_external_data=False).graph.input[0].name
            body, hl = binary_body(name, x, tmp, "resnet50")
            pb = os.path.join(tmp, "resnet50_input.pb")
            with open(pb, "wb") as f:
                f.write(onnx.numpy_helper.from_array(x, name).SerializeToString())
            for instances, threads in ((2, 1), (1, 2)):
                if instances == 1:
                    inproc_rps = 1000.0 / in_process_ms(kiln, resnet, threads, runs=40)
                    what = "kiln bench --threads 2, one session"
                else:
                    out = subprocess.run([sessions_bench, resnet, pb, "--sessions",
                                          str(instances), "--runs", "30"], capture_output=True,
                                         text=True, check=True).stdout
                    inproc_rps = float(re.search(r"([0-9.]+) runs/s on %d threads" % instances,
                                                 out).group(1))
                    what = f"{instances} sessions of 1 thread, each on its own thread"
                repo = repo_with(os.path.join(tmp, f"r2_{instances}"), "resnet50", resnet,
                                 {"instances": instances, "threads": threads})
                s = Server(kiln, repo)
                try:
                    wrk(s.url, "/v2/models/resnet50/infer", body, hl, 4, 3)  # warm-up
                    w = wrk(s.url, "/v2/models/resnet50/infer", body, hl, 4, a.seconds)
                finally:
                    s.stop()
                ratio = w["rps"] / inproc_rps
                print(f"throughput resnet50 {instances} instance(s) x {threads} thread(s), 4 "
                      f"clients: server {w['rps']:.2f} req/s, in-process {inproc_rps:.2f} runs/s "
                      f"({what}), ratio {ratio:.3f} (need >= 0.95) "
                      f"{'PASS' if ratio >= 0.95 else 'FAIL'}; p50 {w['latency_p50_us'] / 1000:.1f} ms")

    if "batching" in only:
        mobilenet = os.path.join(models, "mobilenet_v2", "model.onnx")
        if not os.path.exists(mobilenet):
            print(f"batching: SKIP ({mobilenet} missing: tools/export_models.py)")
        else:
            dyn = os.path.join(tmp, "mobilenet_v2_dynamic.onnx")
            dynamic_batch_copy(mobilenet, dyn)
            x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(np.float32)
            name = onnx.load(dyn).graph.input[0].name
            body, hl = binary_body(name, x, tmp, "mobilenet")
            results = {}
            for mode, cfg in (("off", {"max_batch_size": 1}),
                              ("on", {"max_batch_size": 16, "max_queue_delay_us": 2000})):
                cfg.update({"instances": 1, "threads": 2, "queue_capacity": 64})
                repo = repo_with(os.path.join(tmp, "r3" + mode), "mobilenet_v2", dyn, cfg)
                s = Server(kiln, repo)
                try:
                    wrk(s.url, "/v2/models/mobilenet_v2/infer", body, hl, 16, 2)  # warm-up
                    results[mode] = wrk(s.url, "/v2/models/mobilenet_v2/infer", body, hl, 16,
                                        a.seconds)
                finally:
                    s.stop()
                w = results[mode]
                print(f"batching {mode:3s} mobilenet_v2, 16 clients: {w['rps']:.1f} req/s, p50 "
                      f"{w['latency_p50_us'] / 1000:.1f} ms, p99 {w['latency_p99_us'] / 1000:.1f} ms")
            ratio = results["on"]["rps"] / results["off"]["rps"]
            print(f"batching gain {ratio:.2f}x (need >= 1.5) {'PASS' if ratio >= 1.5 else 'FAIL'}")
            batch_gain_in_process(kiln, dyn, name, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
