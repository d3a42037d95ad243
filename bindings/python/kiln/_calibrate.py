"""INT8 calibration from Python: kiln.Calibrator and kiln.quantize over the
C library's kiln_calibrator_* (docs/quantization.md).

    import kiln
    report = kiln.quantize("model.onnx", "model_int8.onnx",
                           ({"image": batch} for batch in calibration_batches))

Activations are tapped inside the runtime into fixed-size histograms, so
memory does not grow with the number of batches; the result is a standard
QDQ model that ONNX Runtime runs too.
"""
import ctypes
import os
from ctypes import byref
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _dtypes, _lib
from ._capi_gen import CalibMethod, CalibTensor, Option, Status, StringOption, kiln_calibrator
from ._core import Runtime, _create_from, _Handle, _make_options, _resolve_runtime, _source_bytes
from ._values import read_string

METHODS = {"minmax": CalibMethod.MINMAX, "percentile": CalibMethod.PERCENTILE,
           "entropy": CalibMethod.ENTROPY, "mse": CalibMethod.MSE}
_KINDS = {CalibTensor.ACTIVATION: "activation", CalibTensor.WEIGHT: "weight",
          CalibTensor.BIAS: "bias"}
# The C options behind Calibrator's settings (method=, symmetric=,
# percentile=, exclude= are spelled in Python terms).
CALIBRATOR_OPTIONS = {"calib_method": Option.CALIB_METHOD,
                      "calib_symmetric": Option.CALIB_SYMMETRIC,
                      "calib_weight_bits": Option.CALIB_WEIGHT_BITS}
CALIBRATOR_STRING_OPTIONS = {"calib_percentile": StringOption.CALIB_PERCENTILE,
                             "calib_keep_float": StringOption.CALIB_KEEP_FLOAT}
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


class ReportLine(NamedTuple):
    """One quantized tensor of the last write."""
    name: str
    kind: str          # 'activation', 'weight' or 'bias'
    min: float         # smallest value seen (activations) or present (weights)
    max: float
    threshold: float   # the chosen clipping magnitude
    scale: float       # a per-channel weight's first channel's
    zero_point: int
    sqnr_db: float     # signal-to-quantization-noise ratio against float32 (inf: exact)
    nonfinite: int     # NaN/Inf values left out of the histogram


def _settings(where: str, method: Optional[str], percentile: Optional[float],
              symmetric: Optional[bool], exclude: Optional[Sequence[str]],
              extra: Mapping[str, Any], weight_bits: Optional[int] = None) -> Any:
    """A kiln_options handle with the calibration settings (and model load
    options in extra: max_model_mb, use_dnnl)."""
    values: Dict[str, Any] = dict(extra)
    if method is not None:
        if method not in METHODS:
            raise _lib.fail(Status.INVALID_ARGUMENT, where, "unknown method %r; the methods are: "
                            "%s" % (method, ", ".join(METHODS)))
        values["calib_method"] = int(METHODS[method])
    if symmetric is not None:
        values["calib_symmetric"] = bool(symmetric)
    if weight_bits is not None:
        values["calib_weight_bits"] = int(weight_bits)
    if percentile is not None:
        values["calib_percentile"] = repr(float(percentile))
    if exclude is not None:
        if isinstance(exclude, str):
            exclude = [exclude]
        values["calib_keep_float"] = ",".join(exclude)
    ints = {**CALIBRATOR_OPTIONS, "max_model_mb": Option.MAX_MODEL_MB,
            "use_dnnl": Option.USE_DNNL}
    return _make_options(where, values, ints, CALIBRATOR_STRING_OPTIONS)


class Calibrator(_Handle):
    """Calibrates a model on batches and writes its INT8 QDQ form.

    Calibrator(path_or_bytes, runtime=None, *, method="mse", percentile=99.99,
               symmetric=False, weight_bits=8, exclude=(), threads=None,
               max_model_mb=None, use_dnnl=None)

    method: "minmax", "percentile", "entropy" or "mse" (how each activation's
    range is chosen); symmetric: int8 activations with zero point 0 instead
    of uint8 over the range seen; weight_bits: 8 (weights over [-127, 127])
    or 7 (over [-63, 63], so that ONNX Runtime on x86 without VNNI, whose
    uint8 x int8 products saturate, computes the model exactly); exclude:
    node names or op types left in float. add() one batch at a time, then write() or to_bytes(); report()
    describes each quantized tensor. configure() changes the settings and
    keeps the histograms, so one set of batches can be written every way.
    """

    def __init__(self, source: Source, runtime: Optional[Runtime] = None, *,
                 method: Optional[str] = None, percentile: Optional[float] = None,
                 symmetric: Optional[bool] = None, exclude: Optional[Sequence[str]] = None,
                 threads: Optional[int] = None, weight_bits: Optional[int] = None,
                 **options: Any) -> None:
        c = _lib.lib()
        runtime = _resolve_runtime("Calibrator", runtime, threads)
        data = _source_bytes(source)
        opts = _settings("Calibrator", method, percentile, symmetric, exclude, options,
                         weight_bits)
        handle = ctypes.POINTER(kiln_calibrator)()
        try:
            _create_from(source, data, runtime, opts, handle, c.kiln_calibrator_create,
                         c.kiln_calibrator_create_memory, "Calibrator")
        finally:
            c.kiln_options_destroy(opts)
        super().__init__(handle, c.kiln_calibrator_destroy, runtime)
        self.runtime = runtime

    def _live(self, where: str) -> Any:
        if self._handle is None:
            raise _lib.fail(Status.STATE, where, "the calibrator is closed")
        return self._handle

    def configure(self, *, method: Optional[str] = None, percentile: Optional[float] = None,
                  symmetric: Optional[bool] = None,
                  exclude: Optional[Sequence[str]] = None,
                  weight_bits: Optional[int] = None) -> None:
        """New settings for the next write (unset ones go back to the defaults)."""
        c = _lib.lib()
        opts = _settings("Calibrator.configure", method, percentile, symmetric, exclude, {},
                         weight_bits)
        try:
            _lib.check(c.kiln_calibrator_configure(self._live("Calibrator.configure"), opts),
                       "Calibrator.configure")
        finally:
            c.kiln_options_destroy(opts)

    def add(self, feeds: Mapping[str, Any]) -> None:
        """Runs one batch ({input name: array}) and adds every float tensor it
        computes to its histogram."""
        c = _lib.lib()
        where = "Calibrator.add"
        handle = self._live(where)
        if not isinstance(feeds, Mapping):
            raise _lib.fail(Status.INVALID_ARGUMENT, where, "feeds must be a dict {input name: "
                            "array}, got %s" % type(feeds).__name__)
        for name, value in feeds.items():
            arr = np.ascontiguousarray(value)
            code = _dtypes.FROM_NUMPY.get(arr.dtype.newbyteorder("="))
            if code is None:
                raise _lib.fail(Status.DTYPE, where, "input %r: arrays of dtype %s cannot be "
                                "calibration inputs" % (name, arr.dtype))
            arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
            dims = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
            _lib.check(c.kiln_calibrator_set_input(handle, str(name).encode(), code, dims,
                                                   arr.ndim, arr.ctypes.data, arr.nbytes), where)
        _lib.check(c.kiln_calibrator_add_batch(handle), where)

    @property
    def batches(self) -> int:
        """Batches added so far."""
        count = ctypes.c_int32(0)
        _lib.check(_lib.lib().kiln_calibrator_batch_count(self._live("Calibrator.batches"),
                                                          byref(count)), "Calibrator.batches")
        return count.value

    def write(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the QDQ model to a file."""
        path = os.fspath(path)
        st = _lib.lib().kiln_calibrator_write_file(self._live("Calibrator.write"),
                                                   os.fsencode(path))
        if st:
            raise _lib.file_error(st, "Calibrator.write(%r)" % path, path)

    def to_bytes(self) -> bytes:
        """The QDQ model's bytes."""
        c = _lib.lib()
        where = "Calibrator.to_bytes"
        handle = self._live(where)
        needed = ctypes.c_size_t(0)
        st = c.kiln_calibrator_write_memory(handle, None, 0, byref(needed))
        if st not in (Status.OK, Status.BUFFER_TOO_SMALL):
            raise _lib.error(st, where)
        buf = ctypes.create_string_buffer(max(needed.value, 1))
        _lib.check(c.kiln_calibrator_write_memory(handle, buf, len(buf), byref(needed)), where)
        return buf.raw[:needed.value]

    def report(self) -> List[ReportLine]:
        """One line per quantized tensor of the last write()/to_bytes()."""
        c = _lib.lib()
        where = "Calibrator.report"
        handle = self._live(where)
        count = ctypes.c_int32(0)
        _lib.check(c.kiln_calibrator_report_count(handle, byref(count)), where)
        lines = []
        stats = (ctypes.c_float * 5)()
        kind, zp, bad = ctypes.c_int32(0), ctypes.c_int32(0), ctypes.c_int64(0)
        for i in range(count.value):
            name = read_string(c.kiln_calibrator_report_name, where, handle, i)
            _lib.check(c.kiln_calibrator_report_stats(handle, i, byref(kind), byref(zp),
                                                      byref(bad), stats, ctypes.sizeof(stats)),
                       where)
            lines.append(ReportLine(name, _KINDS.get(kind.value, "activation"), stats[0],
                                    stats[1], stats[2], stats[3], zp.value, stats[4],
                                    bad.value))
        return lines

    def close(self) -> None:
        if self._handle is not None:
            self._destroy()

    def __repr__(self) -> str:
        return "kiln.Calibrator(%s)" % ("closed" if self.closed else "%d batches" % self.batches)


def quantize(model: Source, output: Union[str, "os.PathLike[str]"],
             batches: Iterable[Mapping[str, Any]], **settings: Any) -> List[ReportLine]:
    """Calibrates `model` on `batches` (dicts {input name: array}), writes the
    QDQ model to `output` and returns the report. settings: those of
    Calibrator (method, percentile, symmetric, exclude, threads, ...)."""
    with Calibrator(model, **settings) as calibrator:
        for feeds in batches:
            calibrator.add(feeds)
        calibrator.write(output)
        return calibrator.report()
