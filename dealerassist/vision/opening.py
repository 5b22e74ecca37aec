"""An opening by a large ellipse, worked run by run rather than point by point.

OpenCV erodes by a structuring element that is not a rectangle point by point: the felt's
35-pixel ellipse costs some 940 comparisons a pixel. Every row of an ellipse is one run centred
on its middle column, so the least value under it is the least, over its rows, of each row's
run: the runs' minima of every width are grown one pixel a side at a time, and each pixel then
takes the least of one run a row. Minima are exact, so the values are ``cv2.morphologyEx``'s to
the bit, pixels beyond the image left out as OpenCV leaves them out by default; a dilation is
the erosion of the image turned over (255 less each value).
"""

from __future__ import annotations

import numpy as np

from dealerassist.vision.compiled import compiled


def centred_runs(kernel: np.ndarray) -> np.ndarray:
    """How far each row of a structuring element reaches either side of its middle column (-1
    for an empty row); a ValueError when a row is not one run centred there, which this opening
    cannot take."""
    rows, cols = kernel.shape
    if rows % 2 == 0 or cols % 2 == 0:
        raise ValueError("a structuring element of centred runs has an odd width and height")
    middle = cols // 2
    reach = []
    for row in (kernel != 0).tolist():
        set_at = [x for x, on in enumerate(row) if on]
        half = (len(set_at) - 1) // 2
        if set_at and set_at != list(range(middle - half, middle + half + 1)):
            raise ValueError("every row of the structuring element must be one run centred on its middle")
        reach.append(half if set_at else -1)
    return np.array(reach, np.int64)


def opened(image: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """``cv2.morphologyEx(image, cv2.MORPH_OPEN, kernel)`` of an 8-bit single-channel image, the
    kernel given by its ``centred_runs``."""
    eroded = _eroded(np.ascontiguousarray(image), runs)
    return 255 - _eroded(255 - eroded, runs)


@compiled()
def _eroded(image: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """The least value under the kernel of ``centred_runs`` round every pixel of ``image``.

    Each row is worked with ``widest`` pixels of 255 either side, which a run of that reach never
    passes: so every step is one long loop over the whole image, rows one after another.
    """
    rows, cols = image.shape
    middle = len(runs) // 2
    widest = max(runs.max(), 0)
    wide = cols + 2 * widest
    size = rows * wide
    padded = np.full((rows, wide), 255, np.uint8)
    padded[:, widest : widest + cols] = image
    flat = padded.ravel()
    # Each pixel's least along its row from w before it to w after it, for w growing by one; every
    # kernel row of reach w takes it then (one such plane kept, not one for every reach).
    least = flat.copy()
    out = np.full(size, 255, np.uint8)
    for w in range(widest + 1):
        if w:
            _lower(least[w:], flat[: size - w])
            _lower(least[: size - w], flat[w:])
        for k in range(len(runs)):
            at = k - middle
            first, last = max(0, -at), min(rows, rows - at)
            if runs[k] == w and first < last:
                _lower(out[first * wide : last * wide], least[(first + at) * wide : (last + at) * wide])
    return np.ascontiguousarray(out.reshape(rows, wide)[:, widest : widest + cols])


@compiled(inline=True)
def _lower(values: np.ndarray, other: np.ndarray) -> None:
    """Each of ``values`` lowered to ``other``'s value at its place where that is less: a loop of
    the plainest kind, which the compiler works many values at a time."""
    for x in range(len(values)):
        values[x] = min(values[x], other[x])
