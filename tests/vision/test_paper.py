"""The one-pass paper test against the OpenCV calls it stands for, bit for bit."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.paper import paper_against_felt, upscaled


def _image(rng: np.random.Generator, shape: tuple[int, int], smooth: bool) -> np.ndarray:
    image = rng.integers(0, 256, shape, dtype=np.uint8)
    return cv2.GaussianBlur(image, (0, 0), 4) if smooth else image


def _opencv_paper(darkest: np.ndarray, brightest: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """The paper test as OpenCV's calls make it: felt blown up, the brightness and colour tests."""
    h, w = darkest.shape
    felt = cv2.resize(felt, (w, h), interpolation=cv2.INTER_LINEAR)
    needed = cv2.max(cv2.add(felt, 45), cv2.convertScaleAbs(felt, alpha=1.5))
    pale = cv2.compare(
        cv2.subtract(brightest, darkest), cv2.convertScaleAbs(brightest, alpha=0.38), cv2.CMP_LT
    )
    return cv2.bitwise_and(cv2.compare(darkest, needed, cv2.CMP_GT), pale)


SIZES = [
    ((90, 160), (720, 1280)),  # the reader's frames
    ((135, 240), (1080, 1920)),
    ((90, 160), (721, 1283)),  # a frame of part blocks: not eight times over
    ((4, 5), (37, 45)),
    ((1, 1), (9, 17)),
    ((1, 2), (1, 2)),
    ((3, 1), (40, 7)),
]


@pytest.mark.parametrize(("small", "shape"), SIZES)
@pytest.mark.parametrize("smooth", [False, True])
def test_the_felt_is_blown_up_as_opencv_does_it(
    small: tuple[int, int], shape: tuple[int, int], smooth: bool
) -> None:
    rng = np.random.default_rng(sum(small) * 7 + sum(shape))
    for _ in range(3):
        image = _image(rng, small, smooth)
        expected = cv2.resize(image, shape[::-1], interpolation=cv2.INTER_LINEAR)
        assert np.array_equal(upscaled(image, shape), expected)


def test_the_brightest_and_darkest_felt_blow_up_whole() -> None:
    for level in (0, 1, 254, 255):
        assert (upscaled(np.full((9, 16), level, np.uint8), (72, 128)) == level).all()


@pytest.mark.parametrize(("small", "shape"), SIZES)
def test_paper_is_found_as_opencv_finds_it(small: tuple[int, int], shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    felt = _image(rng, small, smooth=True) // 3  # dark enough that some pixels are paper
    darkest = rng.integers(0, 256, shape, dtype=np.uint8)
    brightest = np.maximum(darkest, rng.integers(0, 256, shape, dtype=np.uint8))
    darkest[-1, 0] = brightest[-1, 0] = 255  # white paper, whatever the draw gave
    paper = np.full(shape, 7, np.uint8)
    box = paper_against_felt(darkest, brightest, felt, paper)
    expected = _opencv_paper(darkest, brightest, felt)
    assert np.array_equal(paper, expected)
    assert expected[-1, 0] and box == cv2.boundingRect(expected)


def test_every_level_meets_the_tests_as_opencv_rounds_them() -> None:
    """Every darkest and brightest level against every felt level: each threshold's rounding
    (a half going to the even side) is met at its edge."""
    levels = np.arange(256, dtype=np.uint8)
    darkest, brightest = np.meshgrid(levels, levels)
    brightest = np.maximum(darkest, brightest)  # a pixel's brightest channel is never below its darkest
    for felt_level in range(256):
        felt = np.full((32, 32), felt_level, np.uint8)
        paper = np.empty((256, 256), np.uint8)
        paper_against_felt(darkest, brightest, felt, paper)
        assert np.array_equal(paper, _opencv_paper(darkest, brightest, felt))


def test_a_frame_with_no_paper_has_no_box() -> None:
    darkest = np.full((64, 96), 40, np.uint8)
    paper = np.empty_like(darkest)
    assert paper_against_felt(darkest, darkest, np.full((8, 12), 40, np.uint8), paper) == (0, 0, 0, 0)
    assert not paper.any()


def test_a_single_paper_pixel_is_boxed_alone() -> None:
    darkest = np.full((64, 96), 40, np.uint8)
    darkest[50, 3] = 230
    paper = np.empty_like(darkest)
    assert paper_against_felt(darkest, darkest, np.full((8, 12), 40, np.uint8), paper) == (3, 50, 1, 1)


def test_an_image_is_not_shrunk() -> None:
    with pytest.raises(ValueError, match="larger"):
        upscaled(np.zeros((10, 10), np.uint8), (20, 9))
