"""Kiln: an ONNX inference runtime, from Python (ctypes over libkiln, NumPy in and out).

    import kiln, numpy as np
    model = kiln.Model("digits.onnx")
    with model.session() as session:
        (logits,) = session.run({"image": image})   # image: float32 (1, 1, 8, 8)

The library is found through $KILN_LIBRARY, else the copy inside this
package, else the system's (see kiln._lib). Errors raise kiln.KilnError
subclasses carrying the C status (`code`) and its name (`status`).
"""
from typing import Optional

from ._calibrate import Calibrator, ReportLine, quantize
from ._capi_gen import (ABI_VERSION, CalibMethod, CalibTensor, DType, ImageFlag, InputFlag, Kind,
                        Option, Precision, Status, StringOption)
from ._core import (CacheInfo, DeviceBuffer, MemoryInfo, Model, NodeInfo, PlanBytes,
                    ProfileStep, Runtime, Session, ValueInfo, default_runtime)
from ._image import decode_image, image_to_tensor
from ._lib import LibraryError, library_path
from ._tensor_io import decode_tensor, encode_tensor, load_tensor, save_tensor
from .errors import (BufferTooSmallError, CancelledError, DTypeError, FileReadError,
                     InternalError, InvalidArgumentError, InvalidModelError, KilnError,
                     LimitError, NotFoundError, OutOfMemoryError, ShapeError, StateError,
                     UnsupportedError)

__version__ = "0.1.0"


def version() -> str:
    """The release version of the loaded libkiln ("0.1.0")."""
    from ._lib import lib
    return lib().kiln_version().decode()


def InferenceSession(path_or_bytes, runtime: Optional[Runtime] = None, **options) -> Session:  # noqa: N802
    """A Session on a new Model, as ONNX Runtime's InferenceSession(path) makes one.
    Model options (optimize, threads, ...) and session options (profile, ...)
    may be mixed; closing the session does not close the model."""
    from ._core import MODEL_OPTIONS
    model_keys = set(MODEL_OPTIONS) | {"threads"}
    model_opts = {k: v for k, v in options.items() if k in model_keys}
    session_opts = {k: v for k, v in options.items() if k not in model_keys}
    model = Model(path_or_bytes, runtime, **model_opts)
    return model.session(**session_opts)


__all__ = [
    "ABI_VERSION", "DType", "ImageFlag", "InputFlag", "Kind", "Option", "Status", "StringOption",
    "CacheInfo", "DeviceBuffer", "MemoryInfo", "Model", "NodeInfo", "PlanBytes", "ProfileStep",
    "Runtime", "Session", "ValueInfo", "default_runtime", "decode_image", "image_to_tensor", "LibraryError",
    "library_path", "decode_tensor", "encode_tensor", "load_tensor", "save_tensor",
    "BufferTooSmallError", "CancelledError", "DTypeError", "FileReadError", "InternalError",
    "InvalidArgumentError", "InvalidModelError", "KilnError", "LimitError", "NotFoundError",
    "OutOfMemoryError", "ShapeError", "StateError", "UnsupportedError", "version",
    "InferenceSession", "Calibrator", "ReportLine", "quantize", "CalibMethod", "CalibTensor", "Precision",
]
