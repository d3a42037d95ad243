"""The generated ctypes layer covers the library, and the hand-written layer
covers the generated constants."""

import kiln
from kiln import _capi_gen as capi
from kiln import _calibrate, _core, _dtypes, _lib


def test_every_function_is_bound():
    c = _lib.lib()
    for name, (restype, argtypes) in capi.SIGNATURES.items():
        fn = getattr(c, name)
        assert fn.restype is restype and list(fn.argtypes) == argtypes, name
    assert "kiln_session_run" in capi.STATUS_FUNCTIONS
    assert set(capi.HANDLE_DESTROY.values()) <= set(capi.SIGNATURES)
    assert c.kiln_abi_version() == capi.ABI_VERSION


def test_every_option_is_exposed():
    named = {**_core.RUNTIME_OPTIONS, **_core.MODEL_OPTIONS, **_core.SESSION_OPTIONS,
             **_calibrate.CALIBRATOR_OPTIONS}
    assert sorted(named.values()) == sorted(kiln.Option)
    for key, option in named.items():
        assert key == option.name.lower()
    strings = {**_core.SESSION_STRING_OPTIONS, **_calibrate.CALIBRATOR_STRING_OPTIONS}
    assert sorted(strings.values()) == sorted(kiln.StringOption)
    for key, option in strings.items():
        assert key == option.name.lower()


def test_every_dtype_has_a_name_and_most_a_numpy_dtype():
    for code in kiln.DType:
        name = _dtypes.name(code)
        assert name and _dtypes.CODES[name] == code
        assert code in _dtypes.NUMPY or code in _dtypes.PACKED
    assert _dtypes.name(kiln.DType.FLOAT) == "float32"
    assert _dtypes.name(kiln.DType.DOUBLE) == "float64"
    assert _dtypes.name(kiln.DType.BFLOAT16) == "bfloat16"


def test_generated_file_is_current():
    import os
    import subprocess
    import sys
    from conftest import SOURCE_DIR
    gen = os.path.join(SOURCE_DIR, "bindings", "gen", "generate.py")
    out = subprocess.run([sys.executable, gen, "--list"], capture_output=True, text=True)
    assert "bindings/python/kiln/_capi_gen.py" in out.stdout
