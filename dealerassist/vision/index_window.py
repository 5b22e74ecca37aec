"""The index window: where on a card the classifier looks, and every candidate corner's window
sampled from the frame at a fixed size in one ``cv2.remap`` call, so the per-frame cost does not
grow with Python work per corner.
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
    """A BGR frame with a fourth, unused channel, as remap reads it fastest (four channels in
    about half the time of three, the same values); made once, it serves every sampling of the
    frame. Other images pass as given."""
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
    ``sampling_image``'s unused fourth channel, which the features skip (dropping it would cost a
    pass over every window).

    Corners of cards larger than ``LARGEST_SAMPLED`` pixels are sampled from the image halved
    (again as needed), so a close-up card is smoothed the way a smaller one is, not aliased.
    """
    n = len(points)
    heights = np.asarray(heights, np.float64)
    # One row per corner: x, y, the across axis, the down axis, the card height.
    corners = np.column_stack([*(np.reshape(v, (n, 2)) for v in (points, x_axes, y_axes)), heights])
    if n and ((heights <= LARGEST_SAMPLED).all() or min(image.shape[:2]) < 64):
        return _remap_windows(image, corners, window)  # every window from the image itself, in order
    out = np.empty((n, WINDOW_PX[1], WINDOW_PX[0], 4), np.uint8)
    left = np.ones(n, bool)  # corners not sampled yet
    scale = 1.0  # of the image read against the one given
    top = 0  # the row of the whole image, at this scale, that the image read starts at
    while True:
        scaled = corners * [scale, scale, 1, 1, 1, 1, scale]
        small = left if min(image.shape[:2]) < 64 else left & (scaled[:, 6] <= LARGEST_SAMPLED)
        if small.any():
            out[small] = _remap_windows(image, scaled[small], window, top)
        left &= ~small
        if not left.any():
            return out
        first, last = 0, image.shape[0]
        fits_once_halved = (scaled[left, 6] <= 2 * LARGEST_SAMPLED).all()
        if top == 0 and fits_once_halved and np.isfinite(scaled[left]).all():
            # Every card left is read once halved: halve only the band of rows they reach (a
            # window lies well within a card height of its corner). From an even row, a band halves
            # to the very rows the whole image does, but for two at either end no window reaches.
            reach = scaled[left, 1:2] + scaled[left, 6:7] * [-1, 1]  # rows, from the whole image's first
            first = max(0, int(reach[:, 0].min()) - 4) // 2 * 2
            last = min(image.shape[0], int(reach[:, 1].max()) + 6)
        image = cv2.pyrDown(image[first:last])
        top = first // 2
        scale *= 0.5


def _remap_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow, top: int = 0) -> np.ndarray:
    """Windows of corner rows (see ``sample_windows``) from one image, each window's map laid out
    as one row: remap samples every pixel on its own, the same values, and many short rows cost
    it about a fifth more. ``image`` starts at row ``top`` of the one the corners lie in: the
    maps are moved up in single precision, exactly, so they sample the very points they would."""
    n = len(corners)
    if not n:
        return np.zeros((0, WINDOW_PX[1], WINDOW_PX[0], 4), np.uint8)
    maps_x, maps_y = (m.reshape(n, -1) for m in _window_maps(corners, window))
    if top:
        maps_y -= np.float32(top)
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
    joined = sampled[0] if len(sampled) == 1 else np.concatenate(sampled)
    return joined.reshape(n, WINDOW_PX[1], WINDOW_PX[0], 4)


def _window_maps(corners: np.ndarray, window: IndexWindow) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y of every window pixel of corner rows, as (n * rows, cols) remap maps."""
    points, x_axes, y_axes, heights = corners[:, :2], corners[:, 2:4], corners[:, 4:6], corners[:, 6]
    cols, rows = WINDOW_PX
    u = (-MARGIN + (np.arange(cols) + 0.5) / cols * (window.across + MARGIN)).astype(np.float32)
    v = (-MARGIN + (np.arange(rows) + 0.5) / rows * (window.down + MARGIN)).astype(np.float32)
    step_x = (heights[:, None] * x_axes).astype(np.float32)  # image step per card height across
    step_y = (heights[:, None] * y_axes).astype(np.float32)  # and down the card
    points = points.astype(np.float32)
    # In single precision: the step across rounded once made and again once added, the step down
    # rounded once made, as the decks' windows were sampled. Each window's row across is repeated
    # down it and the steps down added: faster than a broadcast sum a window row at a time.
    maps = []
    for axis in range(2):
        across = np.repeat(points[:, axis, None] + step_x[:, axis, None] * u, rows, axis=0)
        across += (step_y[:, axis, None] * v).reshape(-1, 1)
        maps.append(across)
    return maps[0], maps[1]
