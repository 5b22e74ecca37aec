"""A card corner as the reader carries it, the card sizes it believes, and the plane
vector helpers every geometry stage shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_EDGE_PX = 7.0
MIN_BLOB_AREA = 900
MAX_CARD_HEIGHT = 360.0
MIN_CARD_HEIGHT = 45.0


@dataclass(frozen=True)
class Corner:
    """An outer card corner: the point and the unit edge directions (x across, y down the card)."""

    point: np.ndarray
    x_axis: np.ndarray
    y_axis: np.ndarray
    blob: int


def corner_arrays(corners: Sequence[Corner]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The corners' points, x axes and y axes as (k, 2) arrays: how the batched steps take them."""
    return (
        np.array([c.point for c in corners], float).reshape(-1, 2),
        np.array([c.x_axis for c in corners], float).reshape(-1, 2),
        np.array([c.y_axis for c in corners], float).reshape(-1, 2),
    )


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
