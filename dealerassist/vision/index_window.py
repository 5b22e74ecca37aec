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
JOIN_PX = 2000  # halved pixels of extra area worth halving to save a separate piece
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
    while True:
        scaled = corners * [scale, scale, 1, 1, 1, 1, scale]
        small = left if min(image.shape[:2]) < 64 else left & (heights * scale <= LARGEST_SAMPLED)
        if small.any():
            out[small] = _remap_windows(image, scaled[small], window)
        left &= ~small
        if not left.any():
            break
        if (heights[left] * scale <= 2 * LARGEST_SAMPLED).all() and np.isfinite(corners[left]).all():
            out[left] = _halved_windows(image, scaled[left], window)  # every card left fits once halved
            break
        image = cv2.pyrDown(image)
        scale *= 0.5
    return out


def _halved_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow) -> np.ndarray:
    """``_remap_windows`` of ``cv2.pyrDown(image)``, halving only the pieces of the image read.

    A few large cards seldom cover the frame, and halving all of it costs more than reading the
    windows. A piece starting at an even column and row halves to exactly the pixels the whole
    image gives, but for a pixel at its edges where the image goes on; each piece reaches two
    halved pixels past its samples' neighbours and only the pixels inside it are kept, in a
    halved image whose other pixels are never read.
    """
    half = _halved_size(image.shape)
    maps_x, maps_y = _window_maps(corners * [0.5, 0.5, 1, 1, 1, 1, 0.5], window)
    per_window = WINDOW_PX[1] * WINDOW_PX[0]
    boxes = np.stack(
        [np.floor(m.reshape(len(corners), per_window).min(axis=1)) - 1 for m in (maps_x, maps_y)]
        + [np.floor(m.reshape(len(corners), per_window).max(axis=1)) + 3 for m in (maps_x, maps_y)],
        axis=1,
    )
    boxes[:, :2] = np.clip(boxes[:, :2], 0, np.array(half[::-1]) - 1)
    boxes[:, 2:] = np.clip(boxes[:, 2:], boxes[:, :2] + 1, half[::-1])
    halved = np.empty((*half, *image.shape[2:]), image.dtype)
    for x0, y0, x1, y1 in _joined_boxes(boxes.astype(np.intp)):
        left, top = max(2 * x0 - 2, 0), max(2 * y0 - 2, 0)
        piece = cv2.pyrDown(
            image[top : min(2 * y1 + 2, image.shape[0]), left : min(2 * x1 + 2, image.shape[1])]
        )
        halved[y0:y1, x0:x1] = piece[y0 - top // 2 : y1 - top // 2, x0 - left // 2 : x1 - left // 2]
    return _remap(halved, maps_x, maps_y, len(corners))


def _halved_size(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of ``cv2.pyrDown`` of an image of this shape."""
    return (shape[0] + 1) // 2, (shape[1] + 1) // 2


def _joined_boxes(boxes: np.ndarray) -> list[list[int]]:
    """Pixel boxes (x0, y0, x1, y1) gathered into fewer: two join when the box round both is not
    much larger than the two apart (a call on a small piece costs about as much as its pixels)."""
    joined: list[list[int]] = []
    for x0, y0, x1, y1 in boxes.tolist():
        for box in joined:
            a0, b0, a1, b1 = min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3])
            apart = (x1 - x0) * (y1 - y0) + (box[2] - box[0]) * (box[3] - box[1])
            if (a1 - a0) * (b1 - b0) <= apart + JOIN_PX:
                box[:] = [a0, b0, a1, b1]
                break
        else:
            joined.append([x0, y0, x1, y1])
    return joined


def _remap_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow) -> np.ndarray:
    """Windows of corner rows (see ``sample_windows``) from one image, through one remap."""
    maps_x, maps_y = _window_maps(corners, window)
    return _remap(image, maps_x, maps_y, len(corners))


def _remap(image: np.ndarray, maps_x: np.ndarray, maps_y: np.ndarray, n: int) -> np.ndarray:
    """The windows of ``_window_maps`` maps, each window's map laid out as one row: remap samples
    every pixel on its own, the same values, and many short rows cost it about a fifth more."""
    if not len(maps_x):
        return np.zeros((0, WINDOW_PX[1], WINDOW_PX[0], 4), np.uint8)
    maps_x, maps_y = maps_x.reshape(n, -1), maps_y.reshape(n, -1)
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
