"""image_to_tensor against NumPy's own arithmetic, strided rows, errors."""
import numpy as np
import pytest

import kiln


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
