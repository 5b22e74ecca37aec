"""The card size the named cards near a corner have, and which of a corner's size guesses are
read against it (a deck's cards are one size).
"""

from __future__ import annotations

import numpy as np

from dealerassist.vision.candidates import distances
from dealerassist.vision.second_look import JUNCTION_NEAR_NAMED, NEAREST_NAMED, PRINT_RESIZE, FirstLook


def near_named_size(unread: list[float], tried: list[float], named: float | None) -> list[float]:
    """The ``unread`` sizes within JUNCTION_NEAR_NAMED of the ``named`` cards' size, where no size
    ``tried`` lies within PRINT_RESIZE of it (none without a named size)."""
    if named is None or any(abs(size / named - 1.0) <= PRINT_RESIZE for size in tried):
        return []
    return [size for size in unread if abs(size / named - 1.0) <= JUNCTION_NEAR_NAMED]


def named_sizes_near(look: FirstLook, corners: np.ndarray, accept: float) -> list[float | None]:
    """The median card size of the NEAREST_NAMED named corners nearest each of ``corners``
    (None each where the first look named none)."""
    first = np.array(look.best)
    named = np.flatnonzero(look.probability[first] >= accept)
    if not len(named) or not len(corners):
        return [None] * len(corners)
    apart = distances(look.points[corners], look.points[named])
    nearest = np.argsort(apart, axis=1)[:, :NEAREST_NAMED]
    # ``np.median`` along the rows, the same values, without its checks' cost on a few short rows.
    near = np.sort(look.heights[first[named]][nearest], axis=1)
    middle = near.shape[1] // 2
    if near.shape[1] % 2:
        return near[:, middle].tolist()
    return ((near[:, middle - 1] + near[:, middle]) / 2.0).tolist()


def sizes_read(heights: list[float], first_look: int, widened: bool) -> list[float]:
    """A corner's size guesses that are read: the first ``first_look`` of them, or all of them
    where ``at_other_sizes`` reads the rest (``widened``)."""
    return heights if widened else heights[:first_look]
