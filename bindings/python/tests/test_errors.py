"""Every failure is a KilnError subclass with the C status code and a message
in the user's terms: the Python method first, NumPy dtype names, the names
and counts involved; never a crash."""
import os
import re

import numpy as np
import pytest

import kiln
from kiln import Status
from conftest import DIGITS_MODEL, SOURCE_DIR, digit_samples


def image():
    return digit_samples()[0][2]


def raises(cls, code, pattern):
    ctx = pytest.raises(cls, match=pattern)

    class Check:
        def __enter__(self):
            self.info = ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = ctx.__exit__(*exc)
            err = self.info.value
            assert isinstance(err, kiln.KilnError)
            assert err.code == code, (err.code, str(err))
            assert err.status and isinstance(err.status, str)
            # C functions are kiln_<object>_<verb>; node names the optimizer
            # made (".../kiln_opt_5") are not among them
            assert not re.search(r"\bkiln_(runtime|options|model|session|tensor|last|calibrator)_",
                                 str(err)), "names a C function: %s" % err
            return handled
    return Check()


def test_unknown_input_names_the_key_and_the_inputs(digits):
    session = digits.session()
    with raises(kiln.NotFoundError, Status.NOT_FOUND,
                r"^Session\.run: unknown input 'nope'; the model's inputs are: 'image'$"):
        session.run({"image": image(), "nope": image()})
    # a misspelling alone is reported as such, not as the input it misses
    with raises(kiln.NotFoundError, Status.NOT_FOUND,
                r"^Session\.run: unknown input 'imgae'; the model's inputs are: 'image'$"):
        session.run({"imgae": image()})
    with raises(kiln.NotFoundError, Status.NOT_FOUND,
                r"^Session\.run: unknown output 'probs'; the model's outputs are: 'logits'$"):
        session.run({"image": image()}, ["probs"])
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT,
                r"^Session\.run: input 'image' \(float32, shape \?x1x8x8\) is missing from the "
                r"feeds$"):
        session.run({})
    assert issubclass(kiln.NotFoundError, LookupError)
    (out,) = session.run({"image": image()})  # the session still works
    assert out.shape == (1, 10)


def test_wrong_dtype_names_numpy_dtypes(digits):
    session = digits.session()
    with raises(kiln.DTypeError, Status.DTYPE,
                r"^Session\.run: input 'image' expects float32, got float64"):
        session.run({"image": image().astype(np.float64)})
    with raises(kiln.DTypeError, Status.DTYPE, r"expects float32, got int32"):
        session.run({"image": image().astype(np.int32)})
    assert issubclass(kiln.DTypeError, TypeError)


def test_wrong_element_count_counts_elements(digits):
    session = digits.session()
    # (digits has a dynamic batch dim: C checks the rank and the static dims.)
    with raises(kiln.ShapeError, Status.SHAPE, r"^Session\.run: input 'image' expects shape "
                r"\?x1x8x8, got 1x1x8x9 \(dim 3 must be 8\)$"):
        session.run({"image": np.zeros((1, 1, 8, 9), np.float32)})
    with raises(kiln.ShapeError, Status.SHAPE, r"^Session\.run: input 'image' expects shape "
                r"\?x1x8x8 \(rank 4\), got 8x8 \(rank 2\)$"):
        session.run({"image": np.zeros((8, 8), np.float32)})


def test_element_count_on_a_static_input(tmp_path):
    # A model whose inputs are all static: Python counts the elements.
    model_path = os.path.join(SOURCE_DIR, "tests", "data", "models", "add_relu.onnx")
    model = kiln.Model(model_path)
    info = model.inputs[0]
    if info.shape is None or any(d is None for d in info.shape):
        pytest.skip("add_relu.onnx has dynamic dims")
    n = int(np.prod(info.shape))
    session = model.session()
    declared = "x".join(str(d) for d in info.shape)
    with raises(kiln.ShapeError, Status.SHAPE, r"^Session\.run: input '%s': %d %s elements given "
                r"\(shape %d\), the model's shape %s needs %d$"
                % (info.name, n - 1, info.type, n - 1, declared, n)):
        session.run({i.name: np.zeros(n - 1, i.dtype) for i in model.inputs})
    with raises(kiln.ShapeError, Status.SHAPE, r"same %d elements: reshape it" % n):
        session.run({i.name: np.zeros(n, i.dtype) for i in model.inputs})


def test_missing_file_names_it_and_the_os_reason(tmp_path):
    missing = str(tmp_path / "nope.onnx")
    with raises(kiln.FileReadError, Status.IO, r"^Model\('.*nope\.onnx'\): cannot open "
                r"'.*nope\.onnx': No such file or directory$") as info:
        kiln.Model(missing)
    assert info.value.filename == missing
    assert isinstance(info.value, OSError)
    with raises(kiln.FileReadError, Status.IO, r"^Model\('.*'\): cannot read '.*': Is a directory$"):
        kiln.Model(str(tmp_path))


def test_a_file_that_is_not_a_model(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not an ONNX model\n")
    with raises(kiln.InvalidModelError, Status.INVALID_MODEL,
                r"^Model\('.*notes\.txt'\): '.*notes\.txt' is not a valid ONNX model: ."):
        kiln.Model(str(bad))
    with open(DIGITS_MODEL, "rb") as handle:
        data = handle.read()
    half = tmp_path / "half.onnx"
    half.write_bytes(data[: len(data) // 2])
    with raises(kiln.InvalidModelError, Status.INVALID_MODEL,
                r"^Model\('.*half\.onnx'\): '.*half\.onnx' is not a valid ONNX model: ."):
        kiln.Model(str(half))
    with raises(kiln.InvalidModelError, Status.INVALID_MODEL,
                r"^Model\(<\d+ bytes>\): the model bytes are not a valid ONNX model: ."):
        kiln.Model(data[: len(data) // 2])


def test_a_tensor_file_is_not_a_model():
    sample = digit_samples()[0][0]
    with raises(kiln.InvalidModelError, Status.INVALID_MODEL,
                r"^Model\('.*'\): '.*\.pb' is an ONNX tensor file, not a model$"):
        kiln.Model(sample)


def test_unsupported_op():
    path = os.path.join(SOURCE_DIR, "tests", "data", "models", "unsupported_op.onnx")
    if not os.path.exists(path):
        pytest.skip("no unsupported_op.onnx")
    with raises(kiln.UnsupportedError, Status.UNSUPPORTED,
                r"^Model\('.*'\): unsupported op \w+ \(domain '[\w.]*', opset \d+\) at node '"):
        kiln.Model(path)
    with kiln.Model(path, allow_unsupported=True) as model:
        assert not all(n.supported for n in model.nodes)
        with raises(kiln.UnsupportedError, Status.UNSUPPORTED, r"^Session: "):
            model.session()


def test_bad_options_and_arguments():
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT,
                r"^Model: optimize must be 0, 1 or 2, got 7$"):
        kiln.Model(DIGITS_MODEL, optimize=7)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT,
                r"^Runtime: threads must be 1\.\.1024, got 0$"):
        kiln.Runtime(threads=0)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT,
                r"^Model: unknown option 'optimise'; the options are: allow_unsupported, "
                r"max_model_mb, optimize, use_dnnl$"):
        kiln.Model(DIGITS_MODEL, optimise=1)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT, r"^Session: unknown option"):
        kiln.Model(DIGITS_MODEL).session(plans=3)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT, r"plan_cache"):
        kiln.Model(DIGITS_MODEL).session(plan_cache=0)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT, r"must be an int"):
        kiln.Model(DIGITS_MODEL, optimize="all")
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT, r"file path or the model's"):
        kiln.Model(42)
    with raises(kiln.InvalidArgumentError, Status.INVALID_ARGUMENT, r"feeds must be a dict"):
        kiln.Model(DIGITS_MODEL).session().run([image()])


def test_limit():
    with raises(kiln.LimitError, Status.LIMIT, r"^Session"):
        model = kiln.Model(os.path.join(SOURCE_DIR, "examples", "digits", "digits.onnx"))
        session = model.session(max_arena_mb=1)
        session.run({"image": np.zeros((100000, 1, 8, 8), np.float32)})


def test_every_status_has_its_class_and_the_library_names_match():
    from kiln import _lib
    from kiln.errors import ERROR_CLASSES, STATUS_NAMES, error_for
    c = _lib.lib()
    classes = set()
    for status in Status:
        assert STATUS_NAMES[status] == c.kiln_status_name(status).decode(), status
        if status == Status.OK:
            continue
        cls = ERROR_CLASSES[status]
        classes.add(cls)
        err = error_for(status, "X: y")
        assert type(err) is cls and err.code == status and str(err) == "X: y"
        import pickle
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is cls and str(again) == "X: y" and again.code == status
    assert len(classes) == len(Status) - 1
    assert type(error_for(99, "z")) is kiln.KilnError


def test_c_messages_lose_c_function_names():
    from kiln.errors import user_message
    assert user_message("kiln_options_set_int: options is NULL") == "options is NULL"
    # the library's dtype names are NumPy's; an input called 'float' stays so
    assert user_message("input 'float' expects float32, got float64") == \
        "input 'float' expects float32, got float64"
