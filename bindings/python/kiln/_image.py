"""image_to_tensor: 8-bit pixels to a normalized float32 NCHW tensor, by the C
library's kiln_image_to_tensor (bilinear resize with half-pixel centres, like
ONNX Resize, then (pixel / 255 - mean[c]) / std[c]; RGB, BGR or luma)."""
from typing import Any, Optional, Sequence

import numpy as np

from . import _lib
from ._capi_gen import ImageFlag, Status

_WHERE = "image_to_tensor"


def _fail(message: str) -> Exception:
    return _lib.fail(Status.INVALID_ARGUMENT, _WHERE, message)


def _per_channel(name: str, values: Optional[Sequence[float]], channels: int) -> Any:
    if values is None:
        return None, None
    arr = np.asarray(values, dtype=np.float32, order="C").reshape(-1)
    if arr.size != channels:
        raise _fail("%s has %d values; out_channels is %d" % (name, arr.size, channels))
    return arr, arr.ctypes.data


def image_to_tensor(pixels: Any, out_width: Optional[int] = None,
                    out_height: Optional[int] = None, *, out_channels: int = 3,
                    mean: Optional[Sequence[float]] = None, std: Optional[Sequence[float]] = None,
                    bgr: bool = False) -> np.ndarray:
    """Converts an 8-bit image into a float32 array of shape
    (1, out_channels, out_height, out_width), ready to feed a CNN.

    pixels: a uint8 array (height, width) for gray or (height, width, channels)
    with 1 (gray), 3 (RGB) or 4 (RGBA; alpha ignored) channels, e.g.
    np.asarray(PIL.Image.open(path)). Rows may be strided (a crop of a bigger
    image); pixels within a row must be contiguous. out_width/out_height
    default to the image's size. out_channels 1 takes luma (0.299 R + 0.587 G
    + 0.114 B), 3 takes R, G, B (B, G, R with bgr=True; a gray image is
    repeated). mean and std have out_channels values each (defaults 0 and 1),
    applied to pixel / 255.
    """
    arr = np.asarray(pixels)
    if arr.dtype != np.uint8:
        raise _lib.fail(Status.DTYPE, _WHERE, "pixels must be uint8, got %s" % arr.dtype)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3:
        raise _fail("pixels must have shape (height, width) or (height, width, channels), "
                    "got %s" % (arr.shape,))
    height, width, channels = arr.shape
    if channels not in (1, 3, 4):
        raise _fail("pixels have %d channels; expected 1, 3 or 4" % channels)
    if arr.strides[2] != 1 or arr.strides[1] != channels or arr.strides[0] < width * channels:
        arr = np.asarray(arr, order="C")
    stride = arr.strides[0]
    out_width = width if out_width is None else out_width
    out_height = height if out_height is None else out_height
    for key, value in (("out_width", out_width), ("out_height", out_height),
                       ("out_channels", out_channels)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise _fail("%s must be a positive int, got %r" % (key, value))
        if value >= 2**31:
            raise _fail("%s=%d is too big" % (key, value))
    mean_arr, mean_ptr = _per_channel("mean", mean, out_channels)
    std_arr, std_ptr = _per_channel("std", std, out_channels)
    out = np.empty((1, out_channels, out_height, out_width), np.float32)
    # The buffer must hold (height - 1) * stride + width * channels bytes:
    # it does, the array's own shape and strides say so.
    st = _lib.lib().kiln_image_to_tensor(
        arr.ctypes.data, width, height, stride, channels, out_width, out_height, out_channels,
        mean_ptr, std_ptr, int(ImageFlag.BGR) if bgr else 0, out.ctypes.data, out.nbytes)
    if st:
        raise _lib.error(st, _WHERE)
    del mean_arr, std_arr
    return out
