"""A card corner as the reader carries it, the card heights it may have, and the plane geometry
every corner finder shares: axes' handedness, sampling a frame at many points, runs along a walk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

MAX_CARD_HEIGHT = 360.0  # px: the card heights a corner's card may have
MIN_CARD_HEIGHT = 45.0
_REMAP_COLS = 1024  # sample points are laid out in rows of this many,
_REMAP_ROWS = 30000  # at most this many rows a remap call: OpenCV refuses 32767

CornerArrays = tuple[np.ndarray, np.ndarray, np.ndarray]  # points, x axes, y axes: (k, 2) each


@dataclass(frozen=True)
class Corner:
    """An outer card corner: its point, the unit directions of its edges (x across, y down the
    card, x × y > 0 as a card lies face up) and the blob whose outline shows it (-1: none)."""

    point: np.ndarray
    x_axis: np.ndarray
    y_axis: np.ndarray
    blob: int


def corner_arrays(corners: Sequence[Corner]) -> CornerArrays:
    """The corners' points, x axes and y axes as (k, 2) arrays, as the batched steps take them."""
    return (
        np.array([c.point for c in corners], float).reshape(-1, 2),
        np.array([c.x_axis for c in corners], float).reshape(-1, 2),
        np.array([c.y_axis for c in corners], float).reshape(-1, 2),
    )


def across_then_down(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether each ``first`` direction is a corner's x axis when ``second`` is its y axis (x × y > 0)."""
    return first[..., 0] * second[..., 1] - first[..., 1] * second[..., 0] > 0


def face_up_axes(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y axes of corners whose edges run along ``first`` and ``second`` ((k, 2) each)."""
    swap = ~across_then_down(first, second)[:, None]
    return np.where(swap, second, first), np.where(swap, first, second)


def following(items: np.ndarray) -> np.ndarray:
    """Each item's successor round a closed outline (``np.roll(items, -1, axis=0)``, cheaper)."""
    return np.concatenate([items[1:], items[:1]])


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to length 1 (a zero vector stays zero)."""
    return v / max(float(np.hypot(v[0], v[1])), 1e-9)


def turned(v: np.ndarray, angle: np.ndarray | float) -> np.ndarray:
    """Directions (x, y on the last axis) turned by ``angle`` radians, each by its own where
    ``angle`` holds one a direction."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


def sample(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``image`` at the float32 points ``xs``, ``ys`` (any one shape) as
    float32, 0 off the frame: all of a stage's points in one remap (or a few: OpenCV limits a map's
    size)."""
    count = xs.size
    if not count:
        return np.zeros(xs.shape, np.float32)
    rows = -(-count // _REMAP_COLS)
    maps = np.zeros((2, rows * _REMAP_COLS), np.float32)
    maps[0, :count] = xs.ravel()
    maps[1, :count] = ys.ravel()
    maps = maps.reshape(2, rows, _REMAP_COLS)
    values = np.concatenate(
        [
            cv2.remap(image, maps[0, k : k + _REMAP_ROWS], maps[1, k : k + _REMAP_ROWS], cv2.INTER_LINEAR)
            for k in range(0, rows, _REMAP_ROWS)
        ]
    )
    return values.reshape(-1)[:count].reshape(xs.shape).astype(np.float32)


def ragged(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For groups of ``counts`` items laid end to end: each item's group, and its place in it."""
    group = np.repeat(np.arange(len(counts)), counts)
    return group, np.arange(len(group)) - (np.cumsum(counts) - counts)[group]


def run_starts(flags: np.ndarray, length: int) -> np.ndarray:
    """Where a run of ``length`` true flags begins along each row of ``flags``: where a walk's line
    or paper has ended."""
    count = flags.shape[1] - length + 1
    run = flags[:, :count].copy()
    for k in range(1, length):
        run &= flags[:, k : k + count]
    return run
