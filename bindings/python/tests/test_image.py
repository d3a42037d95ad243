"""image_to_tensor against NumPy's own arithmetic, strided rows, errors;
decode_image on the committed test images (tests/data/images)."""
import os

import numpy as np
import pytest

import kiln
from conftest import DIGITS_MODEL, SOURCE_DIR


def test_gray_identity_size_is_pixel_over_255():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (8, 8), dtype=np.uint8)
    out = kiln.image_to_tensor(img, out_channels=1)
    assert out.shape == (1, 1, 8, 8) and out.dtype == np.float32
    assert np.allclose(out[0, 0], img / 255.0, atol=1e-6)


def test_rgb_mean_std_bgr_and_strided_rows():
    rng = np.random.default_rng(2)
    big = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    crop = big[2:18, 5:25]  # strided rows
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    out = kiln.image_to_tensor(crop, mean=mean, std=std)
    assert out.shape == (1, 3, 16, 20)
    want = (crop.transpose(2, 0, 1) / 255.0 - np.array(mean)[:, None, None]) / \
        np.array(std)[:, None, None]
    assert np.allclose(out[0], want, atol=1e-5)
    assert np.array_equal(out, kiln.image_to_tensor(np.ascontiguousarray(crop), mean=mean,
                                                    std=std))
    bgr = kiln.image_to_tensor(crop, bgr=True)
    assert np.array_equal(bgr[0], kiln.image_to_tensor(crop)[0, ::-1])
    rgba = np.concatenate([crop, np.full(crop.shape[:2] + (1,), 7, np.uint8)], axis=2)
    assert np.array_equal(kiln.image_to_tensor(rgba), kiln.image_to_tensor(crop))


def test_resize_and_luma():
    img = np.full((64, 48, 3), 200, np.uint8)
    out = kiln.image_to_tensor(img, 8, 8, out_channels=1)
    assert out.shape == (1, 1, 8, 8)
    assert np.allclose(out, 200 / 255.0, atol=1e-5)


def test_errors():
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(kiln.InvalidArgumentError, match=r"^image_to_tensor: mean has 2 values; "
                       r"out_channels is 3$"):
        kiln.image_to_tensor(img, mean=[0.5, 0.5])
    with pytest.raises(kiln.DTypeError, match=r"^image_to_tensor: pixels must be uint8, got "
                       r"float32$"):
        kiln.image_to_tensor(img.astype(np.float32))
    with pytest.raises(kiln.InvalidArgumentError, match="channels"):
        kiln.image_to_tensor(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(kiln.InvalidArgumentError, match="out_width must be a positive int"):
        kiln.image_to_tensor(img, 0, 4)
    with pytest.raises(kiln.InvalidArgumentError, match=r"^image_to_tensor: .*std"):
        kiln.image_to_tensor(img, std=[1, 0, 1])


IMAGES = os.path.join(SOURCE_DIR, "tests", "data", "images")


def pattern():
    """The 7x5 RGB pattern tests/data/images/make_images.py draws."""
    y, x = np.mgrid[0:5, 0:7]
    return np.stack([37 * x % 256, 53 * y % 256, (11 * x * y + 7) % 256], axis=2).astype(np.uint8)


@pytest.mark.parametrize("name", ["pattern.png", "pattern.bmp", "pattern.ppm", "pattern.tif",
                                  "pattern.webp", "pattern.jp2"])
def test_decode_image_lossless_formats_from_path_and_bytes(name):
    path = os.path.join(IMAGES, name)
    try:
        got = kiln.decode_image(path)
    except kiln.UnsupportedError as e:  # a build without that format's library
        assert "Kiln was built without lib" in str(e)
        pytest.skip(str(e))
    assert got.shape == (5, 7, 3) and got.dtype == np.uint8
    assert np.array_equal(got, pattern())
    with open(path, "rb") as f:
        assert np.array_equal(kiln.decode_image(f.read()), got)


def test_decode_image_gray_is_pil_luma():
    rgb = pattern().astype(np.uint32)
    want = (rgb[..., 0] * 19595 + rgb[..., 1] * 38470 + rgb[..., 2] * 7471 + 0x8000) >> 16
    got = kiln.decode_image(os.path.join(IMAGES, "pattern.bmp"), channels=1)
    assert got.shape == (5, 7, 1)
    assert np.array_equal(got[..., 0], want)


def test_image_to_tensor_accepts_a_path_and_the_digit_is_a_5():
    path = os.path.join(IMAGES, "digit_00_label_5.png")
    try:
        x = kiln.image_to_tensor(path, out_channels=1)
    except kiln.UnsupportedError as e:
        pytest.skip(str(e))
    assert x.shape == (1, 1, 8, 8)
    assert np.array_equal(x, kiln.image_to_tensor(kiln.decode_image(path), out_channels=1))
    with kiln.Model(DIGITS_MODEL).session() as session:
        (logits,) = session.run({"image": x})
    assert int(np.argmax(logits)) == 5


def test_decode_image_errors():
    with pytest.raises(kiln.InvalidArgumentError, match="unrecognised image format"):
        kiln.decode_image(b"GIF89a....")
    with pytest.raises(kiln.InvalidArgumentError, match="empty"):
        kiln.decode_image(b"")
    with open(os.path.join(IMAGES, "pattern.bmp"), "rb") as f:
        bmp = f.read()
    with pytest.raises(kiln.InvalidArgumentError, match=r"^decode_image: BMP image: truncated"):
        kiln.decode_image(bmp[:100])
    with pytest.raises(kiln.InvalidArgumentError, match="channels must be 1 or 3"):
        kiln.decode_image(bmp, channels=4)
    with pytest.raises(kiln.InvalidArgumentError, match="expected a path or bytes"):
        kiln.decode_image(42)
    with pytest.raises(FileNotFoundError):
        kiln.decode_image(os.path.join(IMAGES, "no_such_image.png"))
