"""The run-by-run opening against OpenCV's own, on images of every shape the felt can take."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.opening import centred_runs, opened


def _opens_as_opencv_does(image: np.ndarray, kernel: np.ndarray) -> bool:
    return np.array_equal(
        opened(image, centred_runs(kernel)), cv2.morphologyEx(image, cv2.MORPH_OPEN, kernel)
    )


def _image(rng: np.random.Generator, shape: tuple[int, int], smooth: bool) -> np.ndarray:
    image = rng.integers(0, 256, shape, dtype=np.uint8)
    return cv2.GaussianBlur(image, (0, 0), 3) if smooth else image


@pytest.mark.parametrize("size", [(35, 35), (5, 5), (11, 7), (3, 3), (1, 1)])
@pytest.mark.parametrize("shape", [(90, 160), (8, 8), (5, 40), (40, 5), (36, 35), (1, 1)])
@pytest.mark.parametrize("smooth", [False, True])
def test_an_ellipse_opens_as_opencv_opens_it(
    size: tuple[int, int], shape: tuple[int, int], smooth: bool
) -> None:
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, size)
    rng = np.random.default_rng(sum(size) * 1000 + sum(shape))
    for _ in range(5):
        assert _opens_as_opencv_does(_image(rng, shape, smooth), kernel)


def test_a_cross_and_a_rectangle_are_centred_runs_too() -> None:
    rng = np.random.default_rng(7)
    for shape in (cv2.MORPH_CROSS, cv2.MORPH_RECT):
        kernel = cv2.getStructuringElement(shape, (9, 9))
        assert _opens_as_opencv_does(_image(rng, (60, 80), smooth=False), kernel)


def test_an_opening_leaves_the_image_it_is_given_as_it_was() -> None:
    image = _image(np.random.default_rng(3), (30, 50), smooth=False)
    before = image.copy()
    opened(image, centred_runs(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))))
    assert np.array_equal(image, before)


@pytest.mark.parametrize(
    "kernel",
    [
        np.ones((4, 5), np.uint8),  # no middle row
        np.array([[1, 0, 1], [1, 1, 1], [0, 1, 0]], np.uint8),  # a row of two runs
        np.array([[1, 1, 0], [1, 1, 1], [0, 1, 0]], np.uint8),  # a run off the middle
    ],
)
def test_a_kernel_not_of_centred_runs_is_refused(kernel: np.ndarray) -> None:
    with pytest.raises(ValueError, match="centred"):
        centred_runs(kernel)
