"""The card size the named cards near a corner have (a deck's cards are one size)."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.candidates import distances
from dealerassist.vision.second_look import NEAREST_NAMED, FirstLook


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
