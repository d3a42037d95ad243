"""Shared helpers for the `kiln serve` tests: a model repository built in a
temporary folder from the repository's own models, and a real server
process on a loopback port chosen by the system (--port 0)."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
KILN = os.environ.get("KILN_EXE", os.path.join(SOURCE, "build", "kiln"))
DIGITS = os.path.join(SOURCE, "examples", "digits", "digits.onnx")
DIGIT_SAMPLES = os.path.join(SOURCE, "examples", "digits", "samples")


def slow_model(path, rounds=12, width=768):
    """A model that takes tens of milliseconds per run on any CPU (a chain
    of MatMul + Tanh on [batch, width]), so tests can fill queues and catch
    requests in flight. Input "x" float [batch, width], output "y"."""
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    nodes, last = [], "x"
    for i in range(rounds):
        nodes.append(helper.make_node("MatMul", [last, "w"], [f"m{i}"]))
        nodes.append(helper.make_node("Tanh", [f"m{i}"], [f"t{i}"]))
        last = f"t{i}"
    nodes.append(helper.make_node("Identity", [last], ["y"]))
    graph = helper.make_graph(
        nodes, "slow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def strings_model(path):
    """BYTES in and out: Identity on a string tensor, plus its length as
    INT64 through Shape. Inputs "text" string [n]; outputs "same", "count"."""
    graph = helper.make_graph(
        [helper.make_node("Identity", ["text"], ["same"]),
         helper.make_node("Shape", ["text"], ["count"])],
        "strings",
        [helper.make_tensor_value_info("text", TensorProto.STRING, ["n"])],
        [helper.make_tensor_value_info("same", TensorProto.STRING, ["n"]),
         helper.make_tensor_value_info("count", TensorProto.INT64, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_repository(root, config=None, extra=()):
    """REPO/digits/{1,2}, REPO/slow/1, REPO/strings/1, REPO/broken/1 (a file
    that is not a model, listed as unavailable). config: {model: dict} for
    config.json files. extra: (name, builder(path)) pairs."""
    def put(name, version, build):
        folder = os.path.join(root, name, str(version))
        os.makedirs(folder, exist_ok=True)
        build(os.path.join(folder, "model.onnx"))
    put("digits", 1, lambda p: shutil.copy(DIGITS, p))
    put("digits", 2, lambda p: shutil.copy(DIGITS, p))
    put("slow", 1, slow_model)
    put("strings", 1, strings_model)
    put("broken", 1, lambda p: open(p, "wb").write(b"this is not an ONNX model"))
    for name, build in extra:
        put(name, 1, build)
    for name, settings in (config or {}).items():
        with open(os.path.join(root, name, "config.json"), "w") as f:
            import json
            json.dump(settings, f)
    return root


class Server:
    """`kiln serve REPO --port 0 ARGS...`; .url is its address once started.
    stop() sends SIGTERM and returns the exit code."""

    def __init__(self, repo, *args, env=None):
        self.repo, self.args = repo, list(args)
        self.env = dict(os.environ, **(env or {}))
        self.proc = None
        self.url = None

    def __enter__(self):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([KILN, "serve", self.repo, "--port", "0", *self.args],
                                     stdout=subprocess.PIPE, stderr=self.stderr,
                                     env=self.env, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            self.stderr.seek(0)
            raise RuntimeError(f"kiln serve did not start: {line!r} "
                               f"{self.stderr.read().decode(errors='replace')}")
        self.url = line.strip().rsplit(" ", 1)[-1]
        return self

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def wait_until(predicate, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False
