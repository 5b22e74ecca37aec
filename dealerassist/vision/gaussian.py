"""OpenCV's Gaussian blur of an 8-bit image, to the bit, at a quarter of its time on a small image.

``cv2.GaussianBlur`` of an 8-bit image works in fixed point: each pass multiplies by whole
taps in 256ths that sum to 256, and the two passes' sum, in 65536ths, is rounded half up.
Integers are exact, so the order of the sums does not matter, and the felt level's blur (an
image an eighth of the frame's size, a 25-tap kernel) takes a compiled loop a quarter of
OpenCV's time. The taps are OpenCV's own, read off a blur of one bright column, so nothing of
its kernel arithmetic is restated here; the tests check every result against it.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from dealerassist.vision.compiled import compiled

_UNIT = 256  # the taps' sum: OpenCV's 8-bit kernels carry 8 fraction bits
_HALF = 1 << 15  # half of the two passes' unit, 256 * 256


@lru_cache(maxsize=8)
def gaussian_taps(sigma: float) -> np.ndarray:
    """The fixed-point taps (int32, summing to 256) of ``cv2.GaussianBlur(image, (0, 0), sigma)``
    on 8-bit images; a ValueError for a kernel this cannot read off (a tap above 128).

    A one-row image of a single 255 column blurs to 255 x tap x 256 / 65536 at each column, which
    rounds back to the tap itself while no tap exceeds 128 (half the unit): their sum tells.
    """
    size = round(sigma * 6 + 1) | 1  # OpenCV's kernel size for 8-bit images
    probe = np.zeros((1, 2 * size + 1), np.uint8)
    probe[0, size] = 255
    blurred = cv2.GaussianBlur(probe, (0, 0), sigma)
    taps = blurred[0, size - size // 2 : size + size // 2 + 1].astype(np.int32)
    if int(taps.sum()) != _UNIT or int(taps.max()) > _UNIT // 2:
        raise ValueError(f"cannot read OpenCV's 8-bit Gaussian kernel for sigma {sigma}")
    return taps


def gaussian_blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    """``cv2.GaussianBlur(image, (0, 0), sigma)`` of a single-channel uint8 image, to the bit
    (borders reflected without repeating the edge, OpenCV's default)."""
    if image.dtype != np.uint8 or image.ndim != 2:
        raise ValueError("gaussian_blurred takes a single-channel 8-bit image")
    return _blurred(np.ascontiguousarray(image), gaussian_taps(sigma))


@compiled(inline=True)
def _reflected(at: int, size: int) -> int:
    """``cv2.borderInterpolate`` for BORDER_REFLECT_101: mirrored about the edge pixel, as often
    as a small image needs."""
    if size == 1:
        return 0
    while at < 0 or at >= size:
        at = -at if at < 0 else 2 * size - at - 2
    return at


@compiled()
def _blurred(image: np.ndarray, taps: np.ndarray) -> np.ndarray:
    """Rows blurred into whole 256ths, then columns into 65536ths, rounded half up."""
    h, w = image.shape
    reach = len(taps) // 2
    across = np.zeros((h, w), np.int32)
    line = np.empty(w + 2 * reach, np.int32)
    for y in range(h):
        for x in range(w + 2 * reach):
            line[x] = image[y, _reflected(x - reach, w)]
        row = across[y]
        for i in range(len(taps)):
            tap = taps[i]
            for x in range(w):
                row[x] += line[x + i] * tap
    out = np.empty((h, w), np.uint8)
    total = np.empty(w, np.int32)
    for y in range(h):
        total[:] = _HALF
        for j in range(len(taps)):
            source, tap = across[_reflected(y + j - reach, h)], taps[j]
            for x in range(w):
                total[x] += source[x] * tap
        for x in range(w):
            out[y, x] = total[x] >> 16
    return out
