"""The index window: where on a card the classifier looks, and every corner's window sampled from
the frame at a fixed size in one ``cv2.remap`` call, so a frame's cost does not grow with Python
work per corner.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WINDOW_PX = (24, 48)  # width, height of a sampled index window
MARGIN = 0.02  # card heights sampled beyond the corner along both edges: the edge itself shows
LARGEST_SAMPLED = 220.0  # card height in pixels above which a window is sampled from a halved image
REMAP_WINDOWS = 600  # windows (map rows) per remap call: OpenCV refuses maps of 32767 rows or more


@dataclass(frozen=True)
class IndexWindow:
    """Where a design prints its index, in card heights from the corner (x across, y down)."""

    across: float
    down: float


def sampling_image(frame: np.ndarray) -> np.ndarray:
    """A BGR frame with a fourth, unused channel: remap reads four channels in about half the time
    of three, the same values. Made once, it serves every sampling of the frame; other images pass
    as given."""
    return cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA) if frame.ndim == 3 and frame.shape[2] == 3 else frame


def sample_windows(
    image: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
    window: IndexWindow,
) -> np.ndarray:
    """(n, WINDOW_PX[1], WINDOW_PX[0], 4) uint8 windows of n corners: blue, green, red and the
    ``sampling_image``'s unused fourth channel, which the features skip.

    A card larger than ``LARGEST_SAMPLED`` pixels is sampled from the image halved (again as
    needed), so a close-up card is smoothed the way a smaller one is, not aliased.
    """
    n = len(points)
    heights = np.asarray(heights, np.float64)
    # One row per corner: x, y, the across axis, the down axis, the card height.
    corners = np.column_stack([*(np.reshape(v, (n, 2)) for v in (points, x_axes, y_axes)), heights])
    out = np.empty((n, WINDOW_PX[1], WINDOW_PX[0], 4), np.uint8)
    left = np.ones(n, bool)  # corners not sampled yet
    scale = 1.0  # of the image read against the one given
    while left.any():
        here = left if min(image.shape[:2]) < 64 else left & (heights * scale <= LARGEST_SAMPLED)
        if here.any():
            out[here] = _remap_windows(image, corners[here] * [scale, scale, 1, 1, 1, 1, scale], window)
        left &= ~here
        if left.any():
            image = cv2.pyrDown(image)
            scale *= 0.5
    return out


def _remap_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow) -> np.ndarray:
    """Windows of corner rows (see ``sample_windows``) from one image, each window's map laid out
    as one row: remap samples every pixel on its own, and many short rows cost it a fifth more."""
    n = len(corners)
    maps_x, maps_y = (m.reshape(n, -1) for m in _window_maps(corners, window))
    source = sampling_image(image)
    sampled = [
        cv2.remap(
            source,
            maps_x[k : k + REMAP_WINDOWS],
            maps_y[k : k + REMAP_WINDOWS],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        for k in range(0, n, REMAP_WINDOWS)
    ]
    return np.concatenate(sampled).reshape(n, WINDOW_PX[1], WINDOW_PX[0], 4)


def _window_maps(corners: np.ndarray, window: IndexWindow) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y of every window pixel of corner rows, as (n * rows, cols) remap maps.

    In single precision, as the decks' windows were sampled: the step across rounded once made and
    again once added, the step down once made. Each window's row across is repeated down it and the
    steps down added, faster than a broadcast sum a window row at a time.
    """
    points, x_axes, y_axes, heights = corners[:, :2], corners[:, 2:4], corners[:, 4:6], corners[:, 6]
    cols, rows = WINDOW_PX
    u = (-MARGIN + (np.arange(cols) + 0.5) / cols * (window.across + MARGIN)).astype(np.float32)
    v = (-MARGIN + (np.arange(rows) + 0.5) / rows * (window.down + MARGIN)).astype(np.float32)
    step_x = (heights[:, None] * x_axes).astype(np.float32)  # image step per card height across
    step_y = (heights[:, None] * y_axes).astype(np.float32)  # and down the card
    points = points.astype(np.float32)
    maps = []
    for axis in range(2):
        across = np.repeat(points[:, axis, None] + step_x[:, axis, None] * u, rows, axis=0)
        across += (step_y[:, axis, None] * v).reshape(-1, 1)
        maps.append(across)
    return maps[0], maps[1]
