"""The digits model through Python: right labels, bit-identical to the C CLI,
and the API's shapes (inputs/outputs, run forms, sessions, closing)."""
import os

import numpy as np
import pytest

import kiln
from conftest import (DIGITS_MODEL, bits_equal, cli_run, digit_samples)


def test_classifies_every_sample(digits):
    with digits.session() as session:
        for path, label, image in digit_samples():
            (logits,) = session.run({"image": image})
            assert logits.shape == (1, 10) and logits.dtype == np.float32
            assert int(logits.argmax()) == label, os.path.basename(path)


def test_bit_identical_to_kiln_run(digits):
    session = digits.session()
    samples = digit_samples()
    for path, _, image in samples:
        (got,) = session.run({"image": image})
        (want,) = cli_run(DIGITS_MODEL, [path])
        assert bits_equal(got, want), os.path.basename(path)
    print("digits: %d samples bit-identical to kiln run" % len(samples))


def test_declared_inputs_and_outputs(digits):
    (image,) = digits.inputs
    assert image.name == "image" and image.type == "float32"
    assert image.dtype == np.dtype(np.float32)
    assert image.shape == (None, 1, 8, 8) and image.kind == "tensor"
    (logits,) = digits.outputs
    assert (logits.name, logits.type, logits.shape) == ("logits", "float32", (None, 10))
    assert digits.input_names == ["image"] and digits.output_names == ["logits"]
    assert digits.get_inputs() == digits.inputs
    assert ("", 17) in digits.opsets
    nodes = digits.nodes
    assert nodes and all(n.supported for n in nodes)


def test_run_forms(digits):
    _, label, image = digit_samples()[0]
    session = kiln.Session(digits)
    (a,) = session.run({"image": image})
    (b,) = session.run({"image": image}, ["logits"])
    (c,) = session.run(None, {"image": image})  # ONNX Runtime's argument order
    d = session.run_dict({"image": image})
    assert list(d) == ["logits"]
    for other in (b, c, d["logits"]):
        assert bits_equal(a, other)
    # Outputs are copies the caller owns: the next run does not change them.
    keep = a.copy()
    session.run({"image": digit_samples()[1][2]})
    assert bits_equal(a, keep)
    # Lists are converted to the input's dtype; a batch of 3 works (dynamic dim).
    (e,) = session.run({"image": image.tolist()})
    assert bits_equal(a, e)
    batch = np.concatenate([image] * 3)
    (f,) = session.run({"image": batch})
    assert f.shape == (3, 10) and all(np.allclose(f[i:i + 1], a, atol=1e-5) for i in range(3))
    # A non-contiguous view and a big-endian copy give the same result.
    wide = np.zeros((1, 1, 8, 16), np.float32)
    wide[..., ::2] = image
    (g,) = session.run({"image": wide[..., ::2]})
    assert bits_equal(a, g)
    (h,) = session.run({"image": image.astype(">f4")})
    assert bits_equal(a, h)
    # Rebinding the same array object after changing it in place sees the change.
    x = image.copy()
    session.run({"image": x})
    x[:] = digit_samples()[1][2]
    (i,) = session.run({"image": x})
    (j,) = session.run({"image": digit_samples()[1][2]})
    assert bits_equal(i, j) and not bits_equal(i, a)
    assert int(a.argmax()) == label


def test_model_from_bytes_runtime_threads_and_options():
    with open(DIGITS_MODEL, "rb") as handle:
        data = handle.read()
    image = digit_samples()[0][2]
    with kiln.Model(DIGITS_MODEL) as reference:
        (want,) = reference.session().run({"image": image})
    with kiln.Runtime(threads=2) as runtime, kiln.Model(data, runtime, optimize=0) as model:
        with model.session(plan_cache=2, max_arena_mb=64, profile=False) as session:
            (got,) = session.run({"image": image})
        assert np.allclose(got, want, atol=1e-5)
    with kiln.Model(DIGITS_MODEL, threads=2, optimize=2, use_dnnl=False) as model:
        (got,) = model.session().run({"image": image})
        assert bits_equal(got, want) or np.allclose(got, want, atol=1e-5)
    session = kiln.InferenceSession(DIGITS_MODEL, optimize=1, plan_cache=4)
    (got,) = session.run(None, {"image": image})
    assert np.allclose(got, want, atol=1e-5)


def test_close_is_deterministic_and_idempotent():
    image = digit_samples()[0][2]
    model = kiln.Model(DIGITS_MODEL)
    session = model.session()
    other = model.session()
    session.close()
    session.close()
    assert session.closed and not other.closed
    with pytest.raises(kiln.StateError, match=r"^Session\.run: the session is closed"):
        session.run({"image": image})
    model.close()  # closes `other` as well
    model.close()
    assert other.closed and model.closed
    with pytest.raises(kiln.StateError, match="closed"):
        other.run({"image": image})
    with pytest.raises(kiln.StateError, match="model is closed"):
        model.session()
    with pytest.raises(kiln.StateError):
        model.memory_info()
    # A session made from a model nobody references keeps the model alive.
    s = kiln.Model(DIGITS_MODEL).session()
    import gc
    gc.collect()
    (out,) = s.run({"image": image})
    assert out.shape == (1, 10)
    runtime = kiln.Runtime()
    m = kiln.Model(DIGITS_MODEL, runtime)
    s = m.session()
    runtime.close()  # closes its models and their sessions first
    assert m.closed and s.closed


def test_tensor_files_round_trip(tmp_path):
    path, _, image = digit_samples()[0]
    assert image.dtype == np.float32 and image.shape == (1, 1, 8, 8)
    for arr in (image, np.arange(6, dtype=np.int64).reshape(2, 3), np.array([True, False]),
                np.float64(2.5)):
        out = tmp_path / "t.pb"
        kiln.save_tensor(out, arr, name="x")
        back = kiln.load_tensor(out)
        assert bits_equal(np.asarray(arr), back)
    assert bits_equal(kiln.decode_tensor(kiln.encode_tensor(image)), image)


def test_library_and_versions():
    assert kiln.version() == "0.1.0" or kiln.version()
    assert os.path.basename(kiln.library_path()).startswith("libkiln")
    assert kiln.ABI_VERSION == 1
