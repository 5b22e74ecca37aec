"""What the classifier sees of an index window, one feature row per window: gradient orientations
per cell, the ink, and the ink's colour; and the ink maps the second looks match windows by.

Ink is measured against the window's own paper white (its brighter pixels), which cancels felt
colour, light level and tint; colour is the ink's opponent colour relative to the paper's.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.compiled import is_compiled
from dealerassist.vision.index_window import MARGIN, WINDOW_PX, IndexWindow, sampling_image
from dealerassist.vision.window_kernel import BLANK_INK, DARKEST_PAPER, LANES, PAPER_SHARE, feature_columns

CELL = 6  # pixels per orientation cell
INK_CELL = 3  # pixels per cell of the pooled ink
COLOUR_CELL = 6  # pixels per cell of the pooled ink colour
BINS = 8  # signed gradient orientations per cell
# (cos, sin) of the gradient directions, each measured along and against.
_ANGLES = np.arange(BINS // 2) * np.pi / (BINS // 2)
_DIRECTIONS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)
# A feature row: the orientation histograms, then the pooled ink, then the two pooled colours.
_HISTOGRAM_SIZE = (WINDOW_PX[1] // CELL) * (WINDOW_PX[0] // CELL) * BINS
_INK_SHAPE = (WINDOW_PX[1] // INK_CELL, WINDOW_PX[0] // INK_CELL)
_COLOUR_SIZE = (WINDOW_PX[1] // COLOUR_CELL) * (WINDOW_PX[0] // COLOUR_CELL)


def window_features(windows: np.ndarray) -> np.ndarray:
    """Feature rows of sampled BGR or BGRA windows (the fourth channel is not read), by the compiled
    ``window_kernel`` or, without numba (whose loops as plain Python take seconds a frame), by
    ``features_by_passes``: the same to the bit."""
    if not len(windows):
        return np.zeros((0, feature_size()), np.float32)
    if not is_compiled():
        return features_by_passes(windows)
    n, rows, cols = windows.shape[:3]
    # The kernel reads a pixel as a 32-bit word, and needs LANES windows at least: blank ones fill up.
    colours = windows.reshape(n, rows * cols, -1)
    if colours.shape[2] == 3:
        colours = cv2.cvtColor(np.ascontiguousarray(colours), cv2.COLOR_BGR2BGRA)
    if n < LANES:
        colours = np.concatenate([colours, np.zeros((LANES - n, *colours.shape[1:]), np.uint8)])
    words = _in_batches(colours)
    columns = feature_columns(words, len(colours), rows, cols, _DIRECTIONS, CELL, INK_CELL, COLOUR_CELL)
    return cv2.transpose(columns)[:n]


def _pooled(stacked: np.ndarray, block: int) -> np.ndarray:
    height, width = stacked.shape[:2]
    return cv2.resize(stacked, (width // block, height // block), interpolation=cv2.INTER_AREA)


def _paper_white(darkest: np.ndarray) -> np.ndarray:
    """Each row's paper white, from its samples' darkest channels: the level ``PAPER_SHARE`` of
    them stay below, at least ``DARKEST_PAPER`` so that felt or shadow is not read as all ink."""
    wanted = int(PAPER_SHARE * (darkest.shape[1] - 1))
    level = np.partition(darkest, wanted, axis=1)[:, wanted].astype(np.float32)
    return np.maximum(level, np.float32(DARKEST_PAPER))


def features_by_passes(windows: np.ndarray) -> np.ndarray:
    """``window_features``'s rows, each step one OpenCV or numpy call over all windows stacked
    into one tall image: the definition the decks were trained on, which the kernel equals to the bit."""
    n, rows, cols = windows.shape[:3]
    area = rows * cols
    blue, green, red = cv2.split(np.ascontiguousarray(windows).reshape(n * rows, cols, -1))[:3]
    darkest = cv2.min(cv2.min(blue, green), red)
    paper = _paper_white(darkest.reshape(n, area)[:, ::4])
    per_pixel = np.repeat(1.0 / paper, area).reshape(n * rows, cols)
    ink = cv2.multiply(darkest, per_pixel, dtype=cv2.CV_32F)
    cv2.max(np.subtract(1.0, ink, out=ink), 0.0, dst=ink)
    red_green = cv2.subtract(red, green, dtype=cv2.CV_32F) * per_pixel
    yellow_blue = cv2.subtract(
        cv2.addWeighted(red, 0.5, green, 0.5, 0.0, dtype=cv2.CV_32F), blue, dtype=cv2.CV_32F
    )
    yellow_blue *= per_pixel
    blank = (ink < BLANK_INK).astype(np.float32)
    count = np.maximum(blank.reshape(n, area).sum(axis=1), 1.0)
    coarse = _pooled(ink, COLOUR_CELL)
    colours = []
    for plane in (red_green, yellow_blue):
        paper_colour = (plane * blank).reshape(n, area).sum(axis=1) / count
        colours.append(
            _pooled(plane * ink, COLOUR_CELL) - np.repeat(paper_colour, rows // COLOUR_CELL)[:, None] * coarse
        )
    gx = np.zeros_like(ink)
    gx[:, 1:-1] = ink[:, 2:] - ink[:, :-2]
    gy = np.zeros_like(ink)
    gy[1:-1] = ink[2:] - ink[:-2]
    gy.reshape(n, rows, cols)[:, :: rows - 1] = 0.0
    cells = []
    for cos, sin in _DIRECTIONS.tolist():
        along = cv2.addWeighted(gx, cos, gy, sin, 0.0)
        cells.append(_pooled(cv2.max(along, 0.0), CELL))
        cells.append(-_pooled(cv2.min(along, 0.0), CELL) + 0.0)
    hist = np.sqrt(np.stack(cells, axis=-1).reshape(n, -1))
    hist /= np.maximum(np.sqrt((hist * hist).sum(axis=1, keepdims=True)), 1e-3)
    return np.concatenate(
        [hist, _pooled(ink, INK_CELL).reshape(n, -1), *(c.reshape(n, -1) for c in colours)], axis=1
    )


def _in_batches(colours: np.ndarray) -> np.ndarray:
    """``feature_columns``'s words from (n, pixels, 4) colours, n at least LANES: batch by batch of
    LANES windows, pixel-major within a batch (one run in memory); a last batch that would run
    short starts early, overlapping the one before."""
    n, area = colours.shape[:2]
    each = np.ascontiguousarray(colours).view(np.int32).reshape(n, area)  # cv2 moves int32, not uint32
    words = np.empty(((n + LANES - 1) // LANES, area, LANES), np.int32)
    for batch, first in enumerate(range(0, n, LANES)):
        first = min(first, n - LANES)
        cv2.transpose(each[first : first + LANES], words[batch])
    return words.view(np.uint32)


def ink_maps(features: np.ndarray) -> np.ndarray:
    """The pooled ink of each feature row, as (n, rows, cols) maps: where in each window the print lies."""
    ink = features[:, _HISTOGRAM_SIZE : _HISTOGRAM_SIZE + _INK_SHAPE[0] * _INK_SHAPE[1]]
    return ink.reshape(-1, *_INK_SHAPE)


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
    """Ink at the middle of every ``ink_maps`` cell of corners' index windows and of ``pad``
    (across, down) cells more on every side, for finding a print that lies partly outside its
    window: (n, rows + 2 * down, cols + 2 * across) maps, each against its own paper white.
    """
    cols, rows = WINDOW_PX
    across, down = pad
    cell_across, cell_down = ink_cell(window)
    u = -MARGIN + (np.arange(-across, cols // INK_CELL + across) + 0.5) * cell_across
    v = -MARGIN + (np.arange(-down, rows // INK_CELL + down) + 0.5) * cell_down
    step_x = heights[:, None] * x_axes  # (n, 2): image step per card height across
    step_y = heights[:, None] * y_axes
    # Each corner's map one row of a single remap (rows a map wide cost it four times more): the
    # corner plus its steps across and down, in double precision, then rounded to single.
    points = np.asarray(points, np.float64)
    maps = (points[:, :, None, None] + step_x[:, :, None, None] * u) + step_y[:, :, None, None] * v[:, None]
    flat = maps.astype(np.float32).reshape(len(points), 2, -1)
    maps_x, maps_y = np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1])
    sampled = cv2.remap(
        sampling_image(image), maps_x, maps_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    sampled = sampled.reshape(len(points), len(v) * len(u), 4)
    darkest = np.minimum(np.minimum(sampled[..., 0], sampled[..., 1]), sampled[..., 2])  # 4x min(axis=2)
    paper = _paper_white(darkest)[:, None]
    ink = np.maximum(np.float32(1.0) - darkest.astype(np.float32) / paper, np.float32(0.0))
    return ink.reshape(len(points), len(v), len(u))


def feature_size() -> int:
    return _HISTOGRAM_SIZE + _INK_SHAPE[0] * _INK_SHAPE[1] + 2 * _COLOUR_SIZE
