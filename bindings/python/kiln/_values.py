"""Reading C values (kiln_tensor handles, session outputs) into NumPy arrays."""
import ctypes
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from . import _dtypes
from . import _lib
from ._capi_gen import DType, Kind, Status, kiln_tensor

byref = ctypes.byref


def read_string(fn: Callable[..., int], where: str, *args: Any) -> str:
    """A string read by the two-call pattern: fn(*args, buf, cap, &needed)."""
    needed = ctypes.c_int32(0)
    st = fn(*args, None, 0, byref(needed))
    if st not in (Status.OK, Status.BUFFER_TOO_SMALL):
        raise _lib.error(st, where)
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    _lib.check(fn(*args, buf, len(buf), byref(needed)), where)
    return buf.value.decode("utf-8", "replace")


def read_shape(fn: Callable[..., int], where: str, *args: Any) -> Optional[Tuple[int, ...]]:
    """A shape read by fn(*args, dims, cap, &rank); None for an unknown rank."""
    rank = ctypes.c_int32(0)
    dims = (ctypes.c_int64 * 8)()
    st = fn(*args, dims, 8, byref(rank))
    if st == Status.BUFFER_TOO_SMALL:
        dims = (ctypes.c_int64 * rank.value)()
        st = fn(*args, dims, rank.value, byref(rank))
    _lib.check(st, where)
    if rank.value < 0:
        return None
    return tuple(dims[:rank.value])


def numpy_dtype(code: int, where: str) -> np.dtype:
    dt = _dtypes.NUMPY.get(code)
    if dt is None:
        raise _lib.fail(Status.UNSUPPORTED, where, "%s tensors are not supported by the Python "
                        "binding" % _dtypes.name(code))
    return dt


def tensor_array(handle: Any, where: str) -> np.ndarray:
    """A copy of a kiln_tensor holding a plain tensor."""
    c = _lib.lib()
    dtype = ctypes.c_int32(0)
    rank = ctypes.c_int32(0)
    dims = (ctypes.c_int64 * 8)()
    st = c.kiln_tensor_info(handle, byref(dtype), dims, 8, byref(rank))
    if st == Status.BUFFER_TOO_SMALL:
        dims = (ctypes.c_int64 * rank.value)()
        st = c.kiln_tensor_info(handle, byref(dtype), dims, rank.value, byref(rank))
    _lib.check(st, where)
    shape = tuple(dims[:rank.value])
    dt = numpy_dtype(dtype.value, where)
    if dtype.value == DType.STRING:
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        items = []
        for i in range(count):
            needed = ctypes.c_int32(0)
            st = c.kiln_tensor_string(handle, i, None, 0, byref(needed))
            if st not in (Status.OK, Status.BUFFER_TOO_SMALL):
                raise _lib.error(st, where)
            buf = ctypes.create_string_buffer(needed.value)
            _lib.check(c.kiln_tensor_string(handle, i, buf, needed.value, byref(needed)), where)
            items.append(buf.raw[:needed.value - 1])
        out = np.empty(count, dtype=object)
        out[:] = items
        return out.reshape(shape)
    data = ctypes.c_void_p()
    nbytes = ctypes.c_size_t(0)
    _lib.check(c.kiln_tensor_data(handle, byref(data), byref(nbytes)), where)
    out = np.empty(shape, dt)
    if out.nbytes != nbytes.value:
        raise _lib.fail(Status.INTERNAL, where, "tensor holds %d bytes, its shape needs %d"
                        % (nbytes.value, out.nbytes))
    if nbytes.value:
        ctypes.memmove(out.ctypes.data, data.value, nbytes.value)
    return out


def value(handle: Any, where: str) -> Any:
    """A kiln_tensor handle's value: an array, a list (sequence) or None/value (optional)."""
    c = _lib.lib()
    kind = ctypes.c_int32(0)
    _lib.check(c.kiln_tensor_kind(handle, byref(kind)), where)
    if kind.value == Kind.TENSOR:
        return tensor_array(handle, where)
    count = ctypes.c_int32(0)
    _lib.check(c.kiln_tensor_element_count(handle, byref(count)), where)
    elements: List[Any] = []
    for i in range(count.value):
        element = ctypes.POINTER(kiln_tensor)()
        _lib.check(c.kiln_tensor_element(handle, i, byref(element)), where)
        try:
            elements.append(value(element, where))
        finally:
            c.kiln_tensor_destroy(element)
    if kind.value == Kind.SEQUENCE:
        return elements
    return elements[0] if elements else None


def decode(data: bytes, where: str, kind: int = Kind.TENSOR) -> Any:
    c = _lib.lib()
    handle = ctypes.POINTER(kiln_tensor)()
    buf = bytes(data)
    _lib.check(c.kiln_tensor_decode_value(buf, len(buf), kind, byref(handle)), where)
    try:
        return value(handle, where)
    finally:
        c.kiln_tensor_destroy(handle)
