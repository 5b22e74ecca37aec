"""The ink the second looks match index windows by: where in each window the print lies.

Ink is 1 less each pixel's darkest channel over the window's own paper white, at least 0: felt
colour, light level and tint cancel, and a window of felt or shadow is not read as all ink.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.index_window import MARGIN, WINDOW_PX, IndexWindow, sampling_image

INK_CELL = 3  # pixels per cell of the pooled ink
# A window's paper white is the darkest-channel level PAPER_SHARE of its samples stay below, and at
# least DARKEST_PAPER, so a window of felt or shadow is not read as all ink.
PAPER_SHARE = 0.85
DARKEST_PAPER = 30.0


def ink_maps(windows: np.ndarray) -> np.ndarray:
    """Each sampled window's ink pooled by ``INK_CELL``, as (n, rows, cols) maps: where in each
    window the print lies."""
    n, rows, cols = windows.shape[:3]
    ink = _ink(_darkest(windows).reshape(n, rows * cols)).reshape(n, rows, cols)
    return ink.reshape(n, rows // INK_CELL, INK_CELL, cols // INK_CELL, INK_CELL).mean(axis=(2, 4))


def _darkest(pixels: np.ndarray) -> np.ndarray:
    """Each BGR(A) pixel's darkest colour channel (two ``np.minimum`` calls: a third of the time
    of a ``min`` over the last axis)."""
    return np.minimum(np.minimum(pixels[..., 0], pixels[..., 1]), pixels[..., 2])


def _ink(darkest: np.ndarray) -> np.ndarray:
    """(n, samples) float32 ink of each row's darkest channels, against the row's paper white:
    the level ``PAPER_SHARE`` of its samples stay below, at least ``DARKEST_PAPER``."""
    n, samples = darkest.shape
    if not n:
        return np.zeros((0, samples), np.float32)
    wanted = int(PAPER_SHARE * (samples - 1))
    level = np.partition(darkest, wanted, axis=1)[:, wanted]
    paper = np.maximum(level.astype(np.float32), np.float32(DARKEST_PAPER))
    return np.maximum(np.float32(1.0) - darkest.astype(np.float32) / paper[:, None], np.float32(0.0))


def ink_cell(window: IndexWindow) -> tuple[float, float]:
    """How far apart, in card heights, the cells of ``ink_maps`` lie across and down the card."""
    cols, rows = WINDOW_PX
    return (window.across + MARGIN) / (cols // INK_CELL), (window.down + MARGIN) / (rows // INK_CELL)


def ink_around(
    image: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
    window: IndexWindow,
    pad: tuple[int, int],
) -> np.ndarray:
    """Ink at the middle of every ``ink_maps`` cell of corners' index windows, and of ``pad``
    (across, down) cells more on every side: (n, rows + 2 * down, cols + 2 * across) maps, for
    finding a print that lies partly outside its window. Ink is measured as ``ink_maps``
    measures it, against the map's own paper; one point a cell, all corners in one remap.
    """
    cols, rows = WINDOW_PX
    across, down = pad
    cell_across, cell_down = ink_cell(window)
    u = -MARGIN + (np.arange(-across, cols // INK_CELL + across) + 0.5) * cell_across
    v = -MARGIN + (np.arange(-down, rows // INK_CELL + down) + 0.5) * cell_down
    step_x = heights[:, None] * x_axes  # (n, 2): image step per card height across
    step_y = heights[:, None] * y_axes
    # Each corner's map laid out as one row: remap samples each pixel on its own, so the values
    # are the same, and rows a map wide cost it some four times more than one long row a map.
    at = np.asarray(points, np.float64)[:, None, None, :] + step_x[:, None, None, :] * u[None, None, :, None]
    at = (at + step_y[:, None, None, :] * v[None, :, None, None]).astype(np.float32)
    maps = at.reshape(len(points), len(v) * len(u), 2)  # x and y of a point as one two-channel map
    sampled = cv2.remap(sampling_image(image), maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ink = _ink(_darkest(sampled.reshape(len(points), len(v) * len(u), 4)))
    return ink.reshape(len(points), len(v), len(u))
