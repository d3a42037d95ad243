#!/usr/bin/python3
"""Calibration memory against the number of samples: `kiln quantize` on the
BERT-base-sized encoder (tools/export_models.py bert_encoder, sequence 128;
--model picks another exported model) with 100 and then 1,000 calibration
samples of random inputs (token ids, or standard normal floats), printing
each run's peak RSS and time per sample, and the RSS ratio (Kiln keeps one
fixed-size histogram per tensor, so it should stay near 1).

    /usr/bin/python3 bench/calib_memory.py [--build build] [--samples 100,1000]
        [--model NAME]

The model is exported into BUILD/models when missing (about a minute). The
CPU is printed with the figures.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import ratio_chart  # noqa: E402  (cpu_name)

VOCAB = 30522  # tools/export_models.py BERT_VOCAB
SEQ = 128


def input_specs(model):
    """(name, numpy dtype, shape) of each graph input; dynamic dims become 1,
    or SEQ for a sequence of token ids."""
    import onnx
    m = onnx.load(model, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    specs = []
    for v in m.graph.input:
        if v.name in inits:
            continue
        t = v.type.tensor_type
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        if np.issubdtype(dtype, np.integer) and len(dims) == 2 and dims[1] == 1:
            dims[1] = SEQ
        specs.append((v.name, dtype, tuple(dims)))
    return specs


def write_samples(folder, count, specs, seed=0):
    """Token ids for integer inputs, standard normal values for float ones."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        d = os.path.join(folder, "sample_%05d" % i)
        os.makedirs(d, exist_ok=True)
        for k, (name, dtype, shape) in enumerate(specs):
            if np.issubdtype(dtype, np.integer):
                value = rng.integers(0, VOCAB, size=shape).astype(dtype)
            else:
                value = rng.standard_normal(shape).astype(dtype)
            with open(os.path.join(d, "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(value, name).SerializeToString())


def quantize(kiln, model, calib, out):
    res = subprocess.run([kiln, "quantize", model, "-o", out, "--calib", calib],
                         capture_output=True, text=True, check=True)
    line = next(l for l in res.stdout.splitlines() if l.startswith("calibrated"))
    per = float(re.search(r"\(([\d.]+) ms per sample\)", line).group(1))
    rss = float(re.search(r"peak RSS ([\d.]+) MiB", line).group(1))
    return per, rss, line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--samples", default="100,1000")
    ap.add_argument("--model", default="bert_encoder")
    a = ap.parse_args()
    models = os.path.join(a.build, "models")
    model = os.path.join(models, a.model, "model.onnx")
    if not os.path.exists(model):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "export_models.py"), models,
                        "--models", a.model], check=True)
    counts = [int(n) for n in a.samples.split(",")]
    specs = input_specs(model)
    print("CPU: %s" % ratio_chart.cpu_name())
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            calib = os.path.join(tmp, "calib_%d" % n)
            write_samples(calib, n, specs)
            per, rss, line = quantize(os.path.join(a.build, "kiln"), model, calib,
                                      os.path.join(tmp, "q.onnx"))
            print("%5d samples: peak RSS %.1f MiB, %.1f ms per sample" % (n, rss, per),
                  flush=True)
            results.append((n, rss))
    if len(results) > 1:
        (n0, r0), (n1, r1) = results[0], results[-1]
        print("peak RSS %d vs %d samples: %.3fx (bar: at most 1.10x)" % (n1, n0, r1 / r0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
