"""Which pixels of a frame look like card paper against the felt, in one pass over the frame.

The felt's brightness is known at an eighth of the frame's size. Blown up to full size (as
``cv2.resize`` does it with INTER_LINEAR) it sets how bright paper must be at each pixel, and paper
must also be nearly colourless. Done with OpenCV's calls that is ten passes over the frame (the
resize, three for the brightness threshold and one for the colour's, the two tests, their
joining and the box round the paper); here each pixel is worked once, to the same bit: the
resize's fixed-point weights and rounding are OpenCV's own, and the tests check them against it.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from dealerassist.vision.compiled import compiled

# Paper is at least this much brighter than the felt under the same light, and at least half as
# bright again; its brightest channel differs from its darkest by less than this share of it.
BRIGHTER_BY = 45
COLOUR_SHARE = np.float32(0.38)

# Added to and taken from a float32 below 2^22, this leaves it rounded half to even.
_ROUNDER = np.float32(1.5 * 2**23)
_WEIGHT_ONE = 1 << 11  # OpenCV's INTER_RESIZE_COEF_SCALE: weights in 2048ths


@lru_cache(maxsize=8)
def linear_weights(source: int, size: int, held: bool) -> np.ndarray:
    """For ``size`` output pixels along an axis of ``source`` pixels, the two source pixels each
    lies between (kept inside the axis) and their weights in 2048ths, as ``cv2.resize`` works them
    out for INTER_LINEAR: each output pixel's centre mapped back in double precision, its fraction
    in single precision, rounded half to even. Across the rows (``held``) a pixel beyond the first
    or last centre takes that pixel's value whole; down the columns only its rows are kept inside.
    A (4, size) int32 table: first pixel, second pixel, first weight, second weight.
    """
    scale = 1.0 / (size / source)
    at = ((np.arange(size) + 0.5) * scale - 0.5).astype(np.float32)
    first = np.floor(at).astype(np.int32)
    fraction = (at - first.astype(np.float32)).astype(np.float32)
    if held:
        fraction[(first < 0) | (first >= source - 1)] = 0.0
    one = np.float32(_WEIGHT_ONE)
    return np.stack(
        [
            np.clip(first, 0, source - 1),
            np.clip(first + 1, 0, source - 1),
            np.rint((np.float32(1.0) - fraction) * one).astype(np.int32),
            np.rint(fraction * one).astype(np.int32),
        ]
    ).astype(np.int32)


def upscaled(small: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)`` of a uint8
    image no larger than ``shape``, to the bit."""
    out = np.empty(shape, np.uint8)
    _upscaled(*_resized_across(small, shape), out)
    return out


def paper_against_felt(
    darkest: np.ndarray, brightest: np.ndarray, felt: np.ndarray, paper: np.ndarray
) -> tuple[int, int, int, int]:
    """255 in ``paper`` where a pixel's ``darkest`` and ``brightest`` channels make it paper over
    the ``felt`` brightness (at a lower resolution, ``upscaled`` to the frame's), 0 elsewhere; and
    the box round the paper as ``cv2.boundingRect`` gives it: x, y, width, height (all 0 if none).
    """
    in_row, in_column = np.zeros(darkest.shape[0], np.uint8), np.zeros(darkest.shape[1], np.uint8)
    _paper(darkest, brightest, *_resized_across(felt, darkest.shape), paper, in_row, in_column)
    found_rows, found_columns = np.flatnonzero(in_row), np.flatnonzero(in_column)
    if not len(found_rows):
        return 0, 0, 0, 0
    x, y = int(found_columns[0]), int(found_rows[0])
    return x, y, int(found_columns[-1]) + 1 - x, int(found_rows[-1]) + 1 - y


def _resized_across(small: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``small`` resized across to ``shape``'s width, in 2048ths (OpenCV's first
    pass, exact) and shifted down 4 bits, as OpenCV's vector code holds them in 16 bits; and the
    ``linear_weights`` down. Worked a column at a time, which the compiler vectorises, then
    turned back by ``cv2.transpose``."""
    if small.shape[0] > shape[0] or small.shape[1] > shape[1]:  # cv2.resize shrinks by other rules
        raise ValueError(
            f"a {small.shape[1]}x{small.shape[0]} image is larger than {shape[1]}x{shape[0]} on a side"
        )
    across = linear_weights(small.shape[1], shape[1], True)
    columns = np.empty((shape[1], small.shape[0]), np.int32)
    _across(np.ascontiguousarray(small.T), across, columns)
    return cv2.transpose(columns), linear_weights(small.shape[0], shape[0], False)


@compiled()
def _across(small_columns: np.ndarray, across: np.ndarray, out: np.ndarray) -> None:
    """Each output column's value in every row, from the two source columns it lies between."""
    for x in range(across.shape[1]):
        first, second = small_columns[across[0, x]], small_columns[across[1, x]]
        weight_first, weight_second = across[2, x], across[3, x]
        for r in range(len(first)):
            level = np.int32(np.int32(first[r]) * weight_first + np.int32(second[r]) * weight_second)
            out[x, r] = np.int32(level >> 4)


@compiled()
def _row(rows: np.ndarray, down: np.ndarray, y: int, out: np.ndarray) -> None:
    """Row ``y`` of the resized image, from the ``_resized_across`` rows, into ``out``: each of its
    two rows' values times its weight, shifted down 16 bits (the high half of the 16-bit products
    OpenCV's vector code keeps), the two added and rounded off their last 2 bits."""
    upper, lower = rows[down[0, y]], rows[down[1, y]]
    weight_upper, weight_lower = down[2, y], down[3, y]
    for x in range(len(out)):
        high = np.int32(np.int32(upper[x] * weight_upper) >> 16)
        low = np.int32(np.int32(lower[x] * weight_lower) >> 16)
        out[x] = min(np.int32(np.int32(high + low + 2) >> 2), np.int32(255))


@compiled()
def _upscaled(rows: np.ndarray, down: np.ndarray, out: np.ndarray) -> None:
    level = np.empty(out.shape[1], np.int32)
    for y in range(out.shape[0]):
        _row(rows, down, y, level)
        for x in range(out.shape[1]):
            out[y, x] = level[x]


@compiled()
def _paper(
    darkest: np.ndarray,
    brightest: np.ndarray,
    felt_rows: np.ndarray,
    down: np.ndarray,
    paper: np.ndarray,
    in_row: np.ndarray,
    in_column: np.ndarray,
) -> None:
    """The paper test, a row at a time, over the felt's ``_resized_across`` rows; ``in_row`` and
    ``in_column`` get 255 where any paper is.

    The felt's threshold is the larger of felt + BRIGHTER_BY and felt x 1.5 (rounded half to
    even, as ``cv2.convertScaleAbs`` rounds it), at most 255; the colour limit is brightest x
    COLOUR_SHARE in single precision, rounded the same way.
    """
    felt = np.empty(paper.shape[1], np.int32)
    for y in range(paper.shape[0]):
        _row(felt_rows, down, y, felt)
        seen = np.uint8(0)
        for x in range(paper.shape[1]):
            level = felt[x]
            half_again = np.int32(level + np.int32(level >> 1))
            half_again = np.int32(half_again + (level & half_again & 1))  # x.5 goes to the even side
            needed = min(max(np.int32(level + BRIGHTER_BY), half_again), np.int32(255))
            dark, bright = np.int32(darkest[y, x]), np.int32(brightest[y, x])
            limit = (np.float32(bright) * COLOUR_SHARE + _ROUNDER) - _ROUNDER
            found = (dark > needed) & (np.float32(bright - dark) < limit)
            value = np.uint8(255) if found else np.uint8(0)
            paper[y, x] = value
            in_column[x] |= value
            seen |= value
        in_row[y] = seen
