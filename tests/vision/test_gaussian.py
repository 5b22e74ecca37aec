"""The compiled Gaussian blur against ``cv2.GaussianBlur``, bit for bit."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.gaussian import gaussian_blurred, gaussian_taps

SHAPES = [
    (90, 160),  # the felt level of a 1280x720 frame
    (135, 240),  # and of a 1920x1080 one
    (8, 8),  # the smallest frame the reader takes: the kernel reflects many times over
    (1, 1),
    (1, 30),
    (30, 1),
    (2, 3),
    (13, 7),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("sigma", [1.0, 2.5, 4.0])
def test_blurs_as_opencv_does(shape: tuple[int, int], sigma: float) -> None:
    rng = np.random.default_rng(sum(shape) + int(10 * sigma))
    for smooth in (False, True):
        for _ in range(4):
            if smooth:  # felt-like: near values, where a rounding slip shows as an off-by-one
                image = np.clip(rng.normal(120, 30, shape), 0, 255).astype(np.uint8)
            else:
                image = rng.integers(0, 256, shape, dtype=np.uint8)
            assert np.array_equal(gaussian_blurred(image, sigma), cv2.GaussianBlur(image, (0, 0), sigma))


def test_flat_images_stay_flat_at_both_ends() -> None:
    for level in (0, 1, 128, 254, 255):
        assert (gaussian_blurred(np.full((20, 30), level, np.uint8), 4.0) == level).all()


def test_a_view_into_a_larger_image_blurs_as_a_copy_of_it() -> None:
    image = np.random.default_rng(5).integers(0, 256, (60, 90), dtype=np.uint8)
    view = image[5:50, 7:80]
    assert np.array_equal(gaussian_blurred(view, 4.0), cv2.GaussianBlur(view.copy(), (0, 0), 4.0))


def test_the_taps_are_opencvs_fixed_point_kernel() -> None:
    taps = gaussian_taps(4.0)
    assert len(taps) == 25 and taps.sum() == 256
    assert np.array_equal(taps, taps[::-1])  # symmetric
    expected = cv2.getGaussianKernel(25, 4.0).ravel() * 256
    assert np.abs(taps - expected).max() <= 1.0  # the float kernel in 256ths, near enough


def test_a_kernel_it_cannot_read_is_refused() -> None:
    with pytest.raises(ValueError, match="sigma"):
        gaussian_taps(0.3)  # a tap above half the unit


def test_only_single_channel_8_bit_images_are_taken() -> None:
    with pytest.raises(ValueError, match="single-channel 8-bit"):
        gaussian_blurred(np.zeros((4, 4, 3), np.uint8), 4.0)
    with pytest.raises(ValueError, match="single-channel 8-bit"):
        gaussian_blurred(np.zeros((4, 4), np.float32), 4.0)
