"""kiln.Calibrator and kiln.quantize on the digits model and its 20 real
samples: the QDQ model gives the float model's classes, ONNX-shaped report
lines, settings changed without recalibrating, and the mistakes a user
makes reported in Python's terms."""
import os

import numpy as np
import pytest

from conftest import DIGITS_MODEL, digit_samples, kiln


def batches():
    return [{"image": arr} for _, _, arr in digit_samples()]


def top1(model_source, samples):
    with kiln.Model(model_source) as model, model.session() as session:
        return [int(np.argmax(session.run({"image": arr})[0])) for _, _, arr in samples]


def test_quantize_writes_a_model_with_the_float_models_answers(tmp_path):
    out = tmp_path / "digits_int8.onnx"
    report = kiln.quantize(DIGITS_MODEL, out, batches())
    samples = digit_samples()
    assert top1(str(out), samples) == top1(DIGITS_MODEL, samples)
    kinds = [line.kind for line in report]
    assert kinds.count("weight") == 3 and kinds.count("bias") == 3
    assert kinds.count("activation") == 5
    image = next(line for line in report if line.name == "image")
    assert image.min == 0 and image.zero_point == 0 and image.max <= 1
    assert all(line.scale > 0 and line.sqnr_db > 20 and line.nonfinite == 0 for line in report)


def test_calibrator_every_method_from_one_set_of_batches():
    samples = digit_samples()
    float_top1 = top1(DIGITS_MODEL, samples)
    with kiln.Calibrator(DIGITS_MODEL) as cal:
        for feeds in batches():
            cal.add(feeds)
        assert cal.batches == 20
        for method in ("minmax", "percentile", "entropy", "mse"):
            cal.configure(method=method, symmetric=method == "entropy", percentile=99.9)
            data = cal.to_bytes()
            agree = sum(a == b for a, b in zip(top1(data, samples), float_top1))
            assert agree >= 19, "%s: %d of 20" % (method, agree)
        zero_points = {line.zero_point for line in cal.report() if line.kind == "activation"}
        assert zero_points == {0}, "the last write was symmetric int8: zero points 0"


def test_seven_bit_weights_lose_one_bit_and_keep_the_answers(tmp_path):
    eight = kiln.quantize(DIGITS_MODEL, tmp_path / "w8.onnx", batches())
    seven = kiln.quantize(DIGITS_MODEL, tmp_path / "w7.onnx", batches(), weight_bits=7)
    samples = digit_samples()
    agree = sum(a == b for a, b in zip(top1(str(tmp_path / "w7.onnx"), samples),
                                        top1(DIGITS_MODEL, samples)))
    assert agree >= 19
    sqnr8 = {line.name: line.sqnr_db for line in eight if line.kind == "weight"}
    sqnr7 = {line.name: line.sqnr_db for line in seven if line.kind == "weight"}
    assert sqnr7.keys() == sqnr8.keys() and len(sqnr7) == 3
    for name in sqnr8:  # one bit: about 6 dB
        assert 4 < sqnr8[name] - sqnr7[name] < 8, (name, sqnr8[name], sqnr7[name])
    with pytest.raises(kiln.InvalidArgumentError, match="must be 8 or 7, got 6"):
        kiln.Calibrator(DIGITS_MODEL, weight_bits=6)


def test_exclude_keeps_an_op_type_in_float(tmp_path):
    report = kiln.quantize(DIGITS_MODEL, tmp_path / "q.onnx", batches(), exclude=["Gemm"])
    assert "classifier.weight" not in [line.name for line in report]


def test_mistakes_are_clear_errors(tmp_path):
    with pytest.raises(kiln.FileReadError, match="No such file or directory"):
        kiln.Calibrator(str(tmp_path / "missing.onnx"))
    with pytest.raises(kiln.InvalidArgumentError, match="unknown method 'kl'"):
        kiln.Calibrator(DIGITS_MODEL, method="kl")
    with kiln.Calibrator(DIGITS_MODEL) as cal:
        with pytest.raises(kiln.StateError, match="no calibration batch"):
            cal.to_bytes()
        with pytest.raises(kiln.NotFoundError, match="'imgae'.*inputs are: 'image'"):
            cal.add({"imgae": np.zeros((1, 1, 8, 8), np.float32)})
        with pytest.raises(kiln.DTypeError, match="float64"):
            cal.add({"image": np.zeros((1, 1, 8, 8))})
        with pytest.raises(kiln.InvalidArgumentError, match=r"in \(0, 100\]"):
            cal.configure(method="percentile", percentile=120)
        nan_batch = np.zeros((1, 1, 8, 8), np.float32)
        nan_batch[0, 0, 0, 0] = np.nan
        cal.add({"image": nan_batch})
        cal.add(batches()[0])
        cal.to_bytes()
        image = next(line for line in cal.report() if line.name == "image")
        assert image.nonfinite == 1
    with pytest.raises(kiln.StateError, match="closed"):
        cal.add(batches()[0])
