"""ONNX TensorProto files (the .pb files of ONNX test data) to and from arrays."""
import ctypes
import os
from typing import Any, Optional, Union

import numpy as np

from . import _dtypes
from . import _lib
from . import _values
from ._capi_gen import Kind, Status


def decode_tensor(data: Union[bytes, bytearray, memoryview], kind: str = "tensor") -> Any:
    """Decodes a serialized TensorProto into an array (kind="sequence": a
    SequenceProto into a list; kind="optional": an OptionalProto into None or
    its value)."""
    kinds = {"tensor": Kind.TENSOR, "sequence": Kind.SEQUENCE, "optional": Kind.OPTIONAL}
    if kind not in kinds:
        raise _lib.fail(Status.INVALID_ARGUMENT, "decode_tensor", "kind must be 'tensor', "
                        "'sequence' or 'optional', got %r" % (kind,))
    return _values.decode(bytes(data), "decode_tensor", kinds[kind])


def load_tensor(path: Union[str, "os.PathLike[str]"], kind: str = "tensor") -> Any:
    """Reads a TensorProto .pb file into an array (see decode_tensor)."""
    with open(path, "rb") as handle:
        return decode_tensor(handle.read(), kind)


def encode_tensor(array: Any, name: Optional[str] = None) -> bytes:
    """Serializes an array as a TensorProto (raw_data form)."""
    arr = np.asarray(array, order="C")
    code = _dtypes.FROM_NUMPY.get(arr.dtype.newbyteorder("="))
    if code is None:
        raise _lib.fail(Status.DTYPE, "encode_tensor", "arrays of dtype %s cannot be encoded"
                        % arr.dtype)
    arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
    c = _lib.lib()
    dims = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    cname = None if name is None else name.encode()
    needed = ctypes.c_size_t(0)
    st = c.kiln_tensor_encode(cname, code, dims, arr.ndim, arr.ctypes.data, arr.nbytes, None, 0,
                              ctypes.byref(needed))
    if st not in (Status.OK, Status.BUFFER_TOO_SMALL):
        raise _lib.error(st, "encode_tensor")
    buf = ctypes.create_string_buffer(needed.value)
    _lib.check(c.kiln_tensor_encode(cname, code, dims, arr.ndim, arr.ctypes.data, arr.nbytes,
                                    buf, needed.value, ctypes.byref(needed)), "encode_tensor")
    return buf.raw[:needed.value]


def save_tensor(path: Union[str, "os.PathLike[str]"], array: Any,
                name: Optional[str] = None) -> None:
    """Writes an array as a TensorProto .pb file."""
    data = encode_tensor(array, name)
    with open(path, "wb") as handle:
        handle.write(data)


__all__ = ["decode_tensor", "load_tensor", "encode_tensor", "save_tensor"]
