"""Kiln element types <-> NumPy dtypes.

Types NumPy has natively map to themselves. Types it lacks (bfloat16, the
float8 formats) travel as their raw bits in uint16 / uint8 arrays: an
output of such a type comes back as those bits, and an input the model
declares with such a type takes an array of the carrier dtype. Packed
sub-byte types (int4, uint4, float4e2m1, int2, uint2) are not supported by
the Python binding.
"""
from typing import Dict, Optional, Union

import numpy as np

from ._capi_gen import DType

# Kiln dtype -> NumPy dtype of the array that holds it.
NUMPY: Dict[int, np.dtype] = {
    DType.FLOAT: np.dtype(np.float32), DType.UINT8: np.dtype(np.uint8),
    DType.INT8: np.dtype(np.int8), DType.UINT16: np.dtype(np.uint16),
    DType.INT16: np.dtype(np.int16), DType.INT32: np.dtype(np.int32),
    DType.INT64: np.dtype(np.int64), DType.BOOL: np.dtype(np.bool_),
    DType.FLOAT16: np.dtype(np.float16), DType.DOUBLE: np.dtype(np.float64),
    DType.UINT32: np.dtype(np.uint32), DType.UINT64: np.dtype(np.uint64),
    DType.STRING: np.dtype(object),
    # Raw bits: NumPy has no such type.
    DType.BFLOAT16: np.dtype(np.uint16), DType.FLOAT8E4M3FN: np.dtype(np.uint8),
    DType.FLOAT8E4M3FNUZ: np.dtype(np.uint8), DType.FLOAT8E5M2: np.dtype(np.uint8),
    DType.FLOAT8E5M2FNUZ: np.dtype(np.uint8), DType.FLOAT8E8M0: np.dtype(np.uint8),
}
RAW_BITS = frozenset((DType.BFLOAT16, DType.FLOAT8E4M3FN, DType.FLOAT8E4M3FNUZ,
                      DType.FLOAT8E5M2, DType.FLOAT8E5M2FNUZ, DType.FLOAT8E8M0))
PACKED = frozenset((DType.UINT4, DType.INT4, DType.FLOAT4E2M1, DType.UINT2, DType.INT2))

# NumPy dtype -> Kiln dtype (the native types only).
FROM_NUMPY: Dict[np.dtype, int] = {
    dt: code for code, dt in NUMPY.items() if code not in RAW_BITS and code != DType.STRING}


def name(code: int) -> Optional[str]:
    """The user's name of a Kiln dtype: NumPy's where it has one ('float32'),
    else the ONNX one ('bfloat16'); None for a type the model leaves open."""
    if code == 0:
        return None
    if code in NUMPY and code not in RAW_BITS:
        return "str" if code == DType.STRING else NUMPY[code].name
    try:
        return DType(code).name.lower()
    except ValueError:
        return "dtype%d" % code


# The names name() gives -> Kiln dtype.
CODES: Dict[str, int] = {str(name(code)): int(code) for code in DType}


def describe(dtype: Union[np.dtype, int]) -> str:
    return dtype.name if isinstance(dtype, np.dtype) else str(name(dtype))
