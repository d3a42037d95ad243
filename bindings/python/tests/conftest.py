"""Shared by the tests: paths (from ctest's environment, else this checkout),
the `kiln run` CLI as the C reference, digit samples."""
import glob
import os
import re
import subprocess
import sys
import tempfile
from typing import List

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("KILN_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", "..", ".."))
BUILD_DIR = os.environ.get("KILN_BUILD_DIR") or os.path.join(SOURCE_DIR, "build")
CLI = os.environ.get("KILN_CLI") or os.path.join(BUILD_DIR, "kiln")
DIGITS_MODEL = os.path.join(SOURCE_DIR, "examples", "digits", "digits.onnx")
DIGITS_SAMPLES = os.path.join(SOURCE_DIR, "examples", "digits", "samples")
if not os.environ.get("KILN_LIBRARY"):
    os.environ["KILN_LIBRARY"] = os.path.join(BUILD_DIR, "libkiln.so")
if not os.environ.get("KILN_PYTHON_INSTALLED"):
    sys.path.insert(0, os.path.dirname(HERE))  # the package from this checkout

import kiln  # noqa: E402


def digit_samples():
    """[(path, label, array)] for every sample, sorted."""
    out = []
    for path in sorted(glob.glob(os.path.join(DIGITS_SAMPLES, "*.pb"))):
        label = int(re.search(r"_label_(\d)", path).group(1))
        out.append((path, label, kiln.load_tensor(path)))
    assert out, "no digit samples in " + DIGITS_SAMPLES
    return out


def read_pb(path: str) -> np.ndarray:
    """A TensorProto file decoded by the onnx package when it is there (an
    independent decoder), else by kiln."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return kiln.load_tensor(path)
    tensor = onnx.TensorProto()
    with open(path, "rb") as handle:
        tensor.ParseFromString(handle.read())
    return numpy_helper.to_array(tensor)


def cli_run(model: str, inputs: List[str]) -> List[np.ndarray]:
    """`kiln run` (the C API through the CLI): its outputs in output order."""
    if not os.path.exists(CLI):
        pytest.skip("the kiln CLI is not built (%s)" % CLI)
    with tempfile.TemporaryDirectory(prefix="kiln-py-ref-") as out:
        args = [CLI, "run", model, "-o", out]
        for path in inputs:
            args += ["-i", path]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        outputs = []
        k = 0
        while os.path.exists(os.path.join(out, "output_%d.pb" % k)):
            outputs.append(read_pb(os.path.join(out, "output_%d.pb" % k)))
            k += 1
        return outputs


def locate_model(name: str):
    """(model path, [input .pb files]) of a model exported by tools/export_models.py
    into $KILN_MODELS_DIR or BUILD/models; skips when it is not there."""
    for root in (os.environ.get("KILN_MODELS_DIR"), os.path.join(BUILD_DIR, "models")):
        if not root:
            continue
        model = os.path.join(root, name, "model.onnx")
        if os.path.exists(model):
            inputs = sorted(glob.glob(os.path.join(root, name, "input_*.pb")))
            return model, inputs
    pytest.skip("%s is not exported (run the export_models ctest fixture, which needs "
                "python3-torch)" % name)


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture
def digits():
    model = kiln.Model(DIGITS_MODEL)
    yield model
    model.close()
