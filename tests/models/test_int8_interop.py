#!/usr/bin/python3
"""A QDQ model written by `kiln quantize` runs in ONNX Runtime and agrees with
Kiln's int8 result within one quantization step on at least 99 % of the
output elements.

    test_int8_interop.py BUILD_DIR SRC_DIR

Models: the trained digits classifier (examples/digits, its 20 real samples
as calibration and evaluation data) and, when present, the trained MNIST nets
of tests/data/quant_nets (200 held-out images each) and the exported
squeezenet1_1 (BUILD_DIR/models, random weights, its one input).

"One quantization step" is the step the output would have if it were
quantized to uint8 over its float range on the same inputs: (max - min) /
255 of the float model's outputs. Both engines run fused integer kernels
(Kiln's oneDNN int8 convolutions and matrix products, ORT's QDQ fusions);
their roundings of a value at a tie can differ, which then moves later
layers by a step or so, never by much more on a trained network.

Prints per model the share within one step, the largest difference in steps
and how often the two engines' top-1 agree. Exit 77 (skip) when
onnxruntime-node (tools/ort) or python3-onnx is missing.
"""
import glob
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from onnx import TensorProto, load as load_onnx, numpy_helper
except ImportError as e:
    print(f"SKIP: python3-onnx / numpy missing ({e})")
    sys.exit(77)

# Kiln through its Python binding, loading the library of the build under
# test (argv[1]).
if len(sys.argv) == 3:
    os.environ.setdefault("KILN_LIBRARY", os.path.join(os.path.abspath(sys.argv[1]), "libkiln.so"))
    sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[2]), "bindings", "python"))
import kiln  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import ort_exact_reference  # noqa: E402


def load(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def save(array, name, path):
    t = numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
    return proc.stdout


def outputs(folder):
    return [load(p) for p in sorted(glob.glob(os.path.join(folder, "*.pb")))]


def kiln_runs(model, inputs):
    """Kiln's outputs for each input file, in one session (the Python
    binding over this build's libkiln): hundreds of `kiln run` processes
    would spend most of the test starting up."""
    session = kiln.Session(kiln.Model(model))
    name = session.inputs[0].name
    return [session.run({name: load(inp)}) for inp in inputs]


def ort_runs(src, model, inputs, out):
    """ONNX Runtime's outputs for each input file, one Node process."""
    run(["node", os.path.join(src, "tools", "ort", "run_ort.mjs"), "--each", model, out] + inputs)
    return [outputs(os.path.join(out, f"{k:04d}")) for k in range(len(inputs))]


def digits_case(src, work):
    samples = sorted(glob.glob(os.path.join(src, "examples", "digits", "samples", "*.pb")))
    calib = os.path.join(work, "digits_calib")
    for i, s in enumerate(samples):
        os.makedirs(os.path.join(calib, f"s{i:02d}"), exist_ok=True)
        os.link(s, os.path.join(calib, f"s{i:02d}", "input_0.pb"))
    return os.path.join(src, "examples", "digits", "digits.onnx"), calib, samples


def npz_case(src, name, work, count=200):
    """A trained MNIST net of tests/data/quant_nets: calibration images from
    the training side, evaluation images from the held-out split."""
    folder = os.path.join(src, "tests", "data", "quant_nets")
    model, data = os.path.join(folder, name + ".onnx"), os.path.join(folder, "mnist.npz")
    if not (os.path.exists(model) and os.path.exists(data)):
        return None
    z = np.load(data)
    keys = {k.lower(): k for k in z.files}
    calib_key = next((keys[k] for k in keys if "calib" in k and "label" not in k), None)
    test_key = next((keys[k] for k in keys if "test" in k and "label" not in k), None)
    if not calib_key or not test_key:
        return None
    def tensor(image):  # uint8 [H, W] -> float32 [1, 1, H, W] in [0, 1], as trained
        return (image.astype(np.float32) / np.float32(255))[None, None]

    calib = os.path.join(work, name + "_calib")
    for i, image in enumerate(z[calib_key][:100]):
        os.makedirs(os.path.join(calib, f"s{i:03d}"), exist_ok=True)
        save(tensor(image), "", os.path.join(calib, f"s{i:03d}", "input_0.pb"))
    evals = []
    for i, image in enumerate(z[test_key][:count]):
        path = os.path.join(work, f"{name}_eval_{i:03d}.pb")
        save(tensor(image), "", path)
        evals.append(path)
    return model, calib, evals


def exported_case(build, name, work):
    folder = os.path.join(build, "models", name)
    if not os.path.exists(os.path.join(folder, "model.onnx")):
        return None
    calib = os.path.join(work, name + "_calib", "s0")
    os.makedirs(calib)
    os.link(os.path.join(folder, "input_0.pb"), os.path.join(calib, "input_0.pb"))
    return os.path.join(folder, "model.onnx"), os.path.dirname(calib), [os.path.join(folder, "input_0.pb")]


def check(build, src, name, case, work):
    model, calib, evals = case
    kiln = os.path.join(build, "kiln")
    qdq = os.path.join(work, name + "_int8.onnx")
    run([kiln, "quantize", model, "-o", qdq, "--calib", calib])
    floats, kilns = kiln_runs(model, evals), kiln_runs(qdq, evals)
    # ORT always runs Kiln's file as written; where its uint8 x int8
    # products saturate (no VNNI), the judged reference is the same function
    # with uint8 weights, and the file's own agreement is printed beside it
    orts = ort_runs(src, qdq, evals, os.path.join(work, name + "_ort"))
    ref_model, note = ort_exact_reference.reference_model(qdq, os.path.join(work, name + "_u8w.onnx"))
    exact = ort_runs(src, ref_model, evals, os.path.join(work, name + "_ort_u8w")) if note else orts
    floats, kilns, orts, exact = ([a for run_outputs in runs for a in run_outputs]
                                  for runs in (floats, kilns, orts, exact))
    f = np.concatenate([a.ravel() for a in floats]).astype(np.float64)
    k = np.concatenate([a.ravel() for a in kilns]).astype(np.float64)
    step = (f.max() - f.min()) / 255 or 1.0

    def agreement(outs):
        o = np.concatenate([a.ravel() for a in outs]).astype(np.float64)
        steps = np.abs(k - o) / step
        top1 = np.mean([np.argmax(a) == np.argmax(b) for a, b in zip(kilns, outs)])
        return float(np.mean(steps <= 1.0)), steps.max(), top1

    within, worst, top1 = agreement(exact)
    ok = within >= 0.99
    against = "ONNX Runtime (uint8 weights)" if note else "ONNX Runtime"
    print(f"{'ok  ' if ok else 'FAIL'} - {name}: {100 * within:.2f} % of {k.size} output elements "
          f"within one step ({step:.3g}) of {against}, worst {worst:.2f} steps, "
          f"top-1 agreement {100 * top1:.1f} % over {len(kilns)} inputs")
    if note:
        within, worst, top1 = agreement(orts)
        print(f"       {name}: ONNX Runtime on Kiln's file as written (saturating): "
              f"{100 * within:.2f} % within one step, worst {worst:.2f} steps, "
              f"top-1 agreement {100 * top1:.1f} %")
    return ok


def int8_weight_range(path):
    """The largest |value| among the model's int8 initializers (the weights
    kiln quantize writes; its activations are uint8)."""
    m = load_onnx(path)
    ints = [numpy_helper.to_array(t) for t in m.graph.initializer
            if t.data_type == TensorProto.INT8]
    return max((int(np.abs(a.astype(np.int16)).max()) for a in ints if a.size), default=0)


def check_7bit(build, src, name, case, work):
    """`kiln quantize --weight-bits 7`: weights within [-63, 63], so that ORT
    computes the file as written exactly on every x86 CPU (no saturating
    pairs without VNNI); judged against ORT on the file itself."""
    model, calib, evals = case
    kiln = os.path.join(build, "kiln")
    qdq = os.path.join(work, name + "_int8_w7.onnx")
    run([kiln, "quantize", model, "-o", qdq, "--calib", calib, "--weight-bits", "7"])
    widest = int8_weight_range(qdq)
    floats, kilns = kiln_runs(model, evals), kiln_runs(qdq, evals)
    orts = ort_runs(src, qdq, evals, os.path.join(work, name + "_ort_w7"))
    floats, kilns, orts = ([a for run_outputs in runs for a in run_outputs]
                           for runs in (floats, kilns, orts))
    f = np.concatenate([a.ravel() for a in floats]).astype(np.float64)
    k = np.concatenate([a.ravel() for a in kilns]).astype(np.float64)
    o = np.concatenate([a.ravel() for a in orts]).astype(np.float64)
    step = (f.max() - f.min()) / 255 or 1.0
    steps = np.abs(k - o) / step
    within = float(np.mean(steps <= 1.0))
    top1 = np.mean([np.argmax(a) == np.argmax(b) for a, b in zip(kilns, floats)])
    ok = within >= 0.99 and 0 < widest <= 63
    print(f"{'ok  ' if ok else 'FAIL'} - {name} with 7-bit weights (largest |w| {widest}): "
          f"{100 * within:.2f} % of {k.size} output elements within one step of ONNX Runtime "
          f"on the file as written, worst {steps.max():.2f} steps; Kiln int8 top-1 = float32's "
          f"on {100 * top1:.1f} % of {len(kilns)} inputs")
    return ok


def main():
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.isdir(os.path.join(src, "tools", "ort", "node_modules", "onnxruntime-node")):
        print("SKIP: onnxruntime-node is not installed in tools/ort (npm install there)")
        return 77
    if ort_exact_reference.ort_saturates_u8s8():
        print(ort_exact_reference.note())
    failures = 0
    with tempfile.TemporaryDirectory(prefix="kiln-int8-interop-") as work:
        cases = {"digits": digits_case(src, work)}
        for name in ("mnist_cnn", "mnist_vit"):
            cases[name] = npz_case(src, name, work)
        cases["squeezenet1_1"] = exported_case(build, "squeezenet1_1", work)
        for name, case in cases.items():
            if case is None:
                print(f"note: {name} not available here, left out")
                continue
            failures += not check(build, src, name, case, work)
            failures += not check_7bit(build, src, name, case, work)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
