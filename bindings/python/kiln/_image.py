"""image_to_tensor: 8-bit pixels to a normalized float32 NCHW tensor, by the C
library's kiln_image_to_tensor (bilinear resize with half-pixel centres, like
ONNX Resize, then (pixel / 255 - mean[c]) / std[c]; RGB, BGR or luma).
decode_image: an encoded image (PNG, JPEG, WebP, JPEG 2000, BMP, PNM, TIFF) to
8-bit pixels, by kiln_image_decode."""
import ctypes
import os
from typing import Any, Optional, Sequence, Union

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


def _encoded_bytes(source: Any) -> bytes:
    """The bytes of a path (str or os.PathLike; OSError if unreadable) or of a
    bytes-like object."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    raise _lib.fail(Status.INVALID_ARGUMENT, "decode_image",
                    "expected a path or bytes, got %s" % type(source).__name__)


def decode_image(source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
                 channels: int = 3) -> np.ndarray:
    """Decodes an image file (a path) or its bytes into a uint8 array of shape
    (height, width, channels): channels 3 gives R, G, B; 1 gives luma (ITU-R
    601 weights, as PIL's convert("L")). Alpha is dropped. The format (PNG,
    JPEG, WebP, JPEG 2000, BMP, PNM or TIFF) is told by the first bytes.

    Raises InvalidArgumentError for a corrupt or unrecognised image (the
    message names the format and the defect), UnsupportedError for a format
    this build of libkiln has no library for (naming the library),
    LimitError past 2**28 pixels; OSError when a path cannot be read.
    """
    if channels not in (1, 3) or isinstance(channels, bool):
        raise _lib.fail(Status.INVALID_ARGUMENT, "decode_image",
                        "channels must be 1 or 3, got %r" % (channels,))
    data = _encoded_bytes(source)
    buf = ctypes.create_string_buffer(data, max(len(data), 1))  # never NULL: "empty" says why
    needed = ctypes.c_size_t(0)
    width, height = ctypes.c_int32(0), ctypes.c_int32(0)
    capi = _lib.lib()
    st = capi.kiln_image_decode(buf, len(data), channels, None, 0, ctypes.byref(needed),
                                ctypes.byref(width), ctypes.byref(height))
    if st:
        raise _lib.error(st, "decode_image")
    out = np.empty((height.value, width.value, channels), np.uint8)
    st = capi.kiln_image_decode(buf, len(data), channels, out.ctypes.data, out.nbytes,
                                ctypes.byref(needed), ctypes.byref(width), ctypes.byref(height))
    if st:
        raise _lib.error(st, "decode_image")
    return out


def image_to_tensor(pixels: Any, out_width: Optional[int] = None,
                    out_height: Optional[int] = None, *, out_channels: int = 3,
                    mean: Optional[Sequence[float]] = None, std: Optional[Sequence[float]] = None,
                    bgr: bool = False) -> np.ndarray:
    """Converts an 8-bit image into a float32 array of shape
    (1, out_channels, out_height, out_width), ready to feed a CNN.

    pixels: a uint8 array (height, width) for gray or (height, width, channels)
    with 1 (gray), 3 (RGB) or 4 (RGBA; alpha ignored) channels, e.g.
    np.asarray(PIL.Image.open(path)); or an image file's path or bytes, decoded
    first by decode_image. Rows may be strided (a crop of a bigger
    image); pixels within a row must be contiguous. out_width/out_height
    default to the image's size. out_channels 1 takes luma (0.299 R + 0.587 G
    + 0.114 B), 3 takes R, G, B (B, G, R with bgr=True; a gray image is
    repeated). mean and std have out_channels values each (defaults 0 and 1),
    applied to pixel / 255.
    """
    if isinstance(pixels, (str, os.PathLike, bytes, bytearray, memoryview)):
        pixels = decode_image(pixels, 3)
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
