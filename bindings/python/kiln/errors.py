"""KilnError and its subclasses: one per C status code (KILN_ERR_*).

Every failure the binding reports is a KilnError carrying `code` (a
kiln.Status) and `status` (the C library's short name for it, e.g. "shape
mismatch"). Each subclass also derives from the built-in exception a Python
user would catch for that kind of failure (ValueError, TypeError, OSError,
LookupError, MemoryError, NotImplementedError, RuntimeError).
"""
import re
from typing import Dict, Optional, Type

from ._capi_gen import Status

__all__ = [
    "KilnError", "InvalidArgumentError", "OutOfMemoryError", "FileReadError",
    "InvalidModelError", "UnsupportedError", "ShapeError", "DTypeError", "NotFoundError",
    "StateError", "CancelledError", "InternalError", "BufferTooSmallError", "LimitError",
]

# kiln_status_name()'s texts, so that errors can be made (and pickled) before
# the library is loaded; the test suite checks they equal the library's.
STATUS_NAMES: Dict[int, str] = {
    Status.OK: "ok", Status.INVALID_ARGUMENT: "invalid argument",
    Status.OUT_OF_MEMORY: "out of memory", Status.IO: "i/o error",
    Status.INVALID_MODEL: "invalid model", Status.UNSUPPORTED: "unsupported",
    Status.SHAPE: "shape mismatch", Status.DTYPE: "dtype mismatch",
    Status.NOT_FOUND: "not found", Status.STATE: "wrong call order",
    Status.CANCELLED: "cancelled", Status.INTERNAL: "internal error",
    Status.BUFFER_TOO_SMALL: "buffer too small", Status.LIMIT: "resource limit exceeded",
}


class KilnError(Exception):
    """A failure reported by libkiln, or found by the binding before calling it."""

    code: int = Status.INTERNAL

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = Status(code) if code in Status._value2member_map_ else code
        self.message = message

    @property
    def status(self) -> str:
        """The C library's short name of the code ("shape mismatch")."""
        return STATUS_NAMES.get(self.code, "status %d" % self.code)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # type: ignore[override]
        return (error_for, (int(self.code), self.message))


class InvalidArgumentError(KilnError, ValueError):
    """KILN_ERR_INVALID_ARGUMENT: a bad argument or option value."""
    code = Status.INVALID_ARGUMENT


class OutOfMemoryError(KilnError, MemoryError):
    """KILN_ERR_OUT_OF_MEMORY."""
    code = Status.OUT_OF_MEMORY


class FileReadError(KilnError, OSError):
    """KILN_ERR_IO: a model or data file cannot be read. `filename` names it."""
    code = Status.IO
    filename: Optional[str] = None

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        KilnError.__init__(self, message, code)


class InvalidModelError(KilnError, ValueError):
    """KILN_ERR_INVALID_MODEL: not an ONNX model, or a corrupt or inconsistent one."""
    code = Status.INVALID_MODEL


class UnsupportedError(KilnError, NotImplementedError):
    """KILN_ERR_UNSUPPORTED: an op, opset, dtype or feature Kiln does not support."""
    code = Status.UNSUPPORTED


class ShapeError(KilnError, ValueError):
    """KILN_ERR_SHAPE: an input has the wrong shape (or element count)."""
    code = Status.SHAPE


class DTypeError(KilnError, TypeError):
    """KILN_ERR_DTYPE: an input has the wrong element type."""
    code = Status.DTYPE


class NotFoundError(KilnError, LookupError):
    """KILN_ERR_NOT_FOUND: no input or output with that name."""
    code = Status.NOT_FOUND


class StateError(KilnError, RuntimeError):
    """KILN_ERR_STATE: a call made in the wrong order (or on a closed object)."""
    code = Status.STATE


class CancelledError(KilnError):
    """KILN_ERR_CANCELLED: the run was stopped by Session.cancel()."""
    code = Status.CANCELLED


class InternalError(KilnError, RuntimeError):
    """KILN_ERR_INTERNAL."""
    code = Status.INTERNAL


class BufferTooSmallError(KilnError, ValueError):
    """KILN_ERR_BUFFER_TOO_SMALL."""
    code = Status.BUFFER_TOO_SMALL


class LimitError(KilnError, RuntimeError):
    """KILN_ERR_LIMIT: a configured resource limit (max_model_mb, max_arena_mb) was exceeded."""
    code = Status.LIMIT


ERROR_CLASSES: Dict[int, Type[KilnError]] = {
    cls.code: cls for cls in (
        InvalidArgumentError, OutOfMemoryError, FileReadError, InvalidModelError,
        UnsupportedError, ShapeError, DTypeError, NotFoundError, StateError, CancelledError,
        InternalError, BufferTooSmallError, LimitError)
}

# A C function name leading a message ("kiln_options_set_int: options is NULL").
_C_PREFIX = re.compile(r"^kiln_[a-z0-9_]+: ")


def user_message(text: str) -> str:
    """The C library's message in Python terms: no C function names. (Its
    dtype names, float32 and float64, are already NumPy's.)"""
    return _C_PREFIX.sub("", text)


def error_for(code: int, message: str) -> KilnError:
    """A KilnError of the subclass for `code` (KilnError itself for an unknown code)."""
    cls = ERROR_CLASSES.get(code, KilnError)
    return cls(message, code)
