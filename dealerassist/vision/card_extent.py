"""How big the card at a corner is: how far the paper runs along its two edges, the card heights
that allows, the card's quad, and how much of a quad lies on paper."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dealerassist.vision.card_corner import MAX_CARD_HEIGHT, MIN_CARD_HEIGHT, Corner, CornerArrays, run_starts

_ARM_STEPS = int(MAX_CARD_HEIGHT * 1.5)  # one-pixel samples along an arm, the corner's own first
_ARM_START = 6  # samples next to the corner that never end an arm (the rounded corner)
_WALK_STRETCH = 96  # steps sampled at a time: most walks end within the first stretch
_GRID = np.stack(np.meshgrid(np.linspace(0.08, 0.92, 6), np.linspace(0.08, 0.92, 8)), axis=-1).reshape(-1, 2)
_GRID_ACROSS, _GRID_DOWN = _GRID[None, :, :1], _GRID[None, :, 1:]


def corner_arms(mask: np.ndarray, corners: CornerArrays) -> list[tuple[float, float]]:
    """How far the paper runs from each corner along its x and its y edge, each walked 4 px inside
    the other edge."""
    points, x_axes, y_axes = corners
    if not len(points):
        return []
    start = np.stack([points + y_axes * 4.0, points + x_axes * 4.0], axis=1).reshape(-1, 2)
    along = np.stack([x_axes, y_axes], axis=1).reshape(-1, 2)
    lengths = _walk_arms(mask, start, along)
    return list(zip(lengths[::2], lengths[1::2], strict=True))


def height_candidates(arms: Sequence[tuple[float, float]], aspect: float) -> list[list[float]]:
    """Card heights worth trying at each corner from its ``corner_arms``, most likely first: the long
    edge usually gives the height, but in a stepped fan the short edge steps out early and in cards
    touching end to end the long edge runs on, so the short edge's guess is kept as well."""
    return [distinct_heights(sorted((down, across * aspect))) for across, down in arms]


def distinct_heights(guesses: Sequence[float]) -> list[float]:
    """The guessed card heights in range, each more than 10 % from the ones kept before it."""
    heights: list[float] = []
    for height in guesses:
        if MIN_CARD_HEIGHT <= height <= MAX_CARD_HEIGHT and all(abs(height - h) > 0.1 * h for h in heights):
            heights.append(float(height))
    return heights


def card_quad(corner: Corner, height: float, aspect: float, long_across: bool = False) -> np.ndarray:
    """The card's four corners grown from ``corner``: across is the short edge unless ``long_across``."""
    across = height if long_across else height / aspect
    down = height / aspect if long_across else height
    px, py = corner.point.tolist()
    xx, xy = corner.x_axis.tolist()
    yx, yy = corner.y_axis.tolist()
    bx, by = px + xx * across, py + xy * across
    dx, dy = yx * down, yy * down
    return np.array([[px, py], [bx, by], [bx + dx, by + dy], [px + dx, py + dy]])


def paper_coverage(mask: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Share of a grid over each of the (k, 4, 2) quads that lies on card paper: a real card lies
    wholly on paper."""
    p0 = quads[:, 0, None, :]
    pts = p0 + _GRID_ACROSS * (quads[:, 1, None, :] - p0) + _GRID_DOWN * (quads[:, 3, None, :] - p0)
    hits = paper_at(mask, np.round(pts).astype(np.intp))
    return np.count_nonzero(hits, axis=1) / hits.shape[1]


def paper_at(mask: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The mask at integer (x, y) points, 0 for points off the frame."""
    h, w = mask.shape
    unsigned = at.view(np.uintp)  # a negative coordinate becomes huge: one test per axis
    inside = (unsigned[..., 0] < w) & (unsigned[..., 1] < h)
    values = np.take(mask, np.where(inside, at[..., 1] * w + at[..., 0], 0))
    if mask[0, 0]:  # points off the frame read the corner pixel, which is paper here
        values[~inside] = 0
    return values


def _walk_arms(mask: np.ndarray, start: np.ndarray, along: np.ndarray) -> list[float]:
    """How far the paper runs along each ``start`` + step * ``along`` walk: to the first of three
    samples in a row off it (or off the frame) from ``_ARM_START`` on, else to the last step. All
    walks are sampled a stretch at a time; only those still on paper go on to the next."""
    lengths = np.full(len(start), _ARM_STEPS - 1.0)
    walking = np.arange(len(start))
    first = _ARM_START
    while len(walking) and first < _ARM_STEPS - 2:
        last = min(first + _WALK_STRETCH + 2, _ARM_STEPS)  # two more: a run of three crosses over
        steps = np.arange(first, last, dtype=np.float64)
        points = np.rint(start[walking, None, :] + steps[None, :, None] * along[walking, None, :])
        ended = run_starts(paper_at(mask, points.astype(np.intp)) == 0, 3)
        stops = ended.any(axis=1)
        lengths[walking[stops]] = first + ended[stops].argmax(axis=1)
        walking, first = walking[~stops], last - 2
    return lengths.tolist()
