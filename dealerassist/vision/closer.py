"""A closer look at a card seen but not read.

Its outline is mostly right, but the corner it was read at, or its size guess, is a few hundredths
of a card off and the print sits across the window's edge. Such cards are few, so each gets a dense
grid of windows at both index corners, and a name many of them read surely, with hardly any rival,
names it.
"""

from __future__ import annotations

import itertools

import numpy as np

from dealerassist.vision.second_look import Windows

# Each index corner's windows: moved by these shares of the card height along either edge, at
# these shares of its size.
MOVES = (-0.04, -0.02, 0.0, 0.02, 0.04)
SIZES = (0.92, 0.96, 1.0, 1.04, 1.08)
_GRID = np.array(list(itertools.product(MOVES, MOVES, SIZES)))
WINDOWS = 2 * len(_GRID)  # per card looked at
NEEDED = 5  # windows that must read the name at the accept level
RIVAL_SHARE = 0.25  # windows reading any other name surely, at most this share of the name's


def closer_windows(quads: list[np.ndarray]) -> Windows:
    """The grid of windows at both index corners (the first and third) of each quad."""
    points, x_axes, y_axes, sizes = [], [], [], []
    for quad in quads:
        q = np.asarray(quad, float)
        for k in (0, 2):
            across, down = q[(k + 1) % 4] - q[k], q[(k + 3) % 4] - q[k]
            height = float(np.linalg.norm(down))
            x, y = across / np.linalg.norm(across), down / height
            points.append(q[k] + (_GRID[:, :1] * x + _GRID[:, 1:2] * y) * height)
            x_axes.append(np.broadcast_to(x, (len(_GRID), 2)))
            y_axes.append(np.broadcast_to(y, (len(_GRID), 2)))
            sizes.append(_GRID[:, 2] * height)
    if not points:
        empty = np.zeros((0, 2))
        return Windows(empty, empty, empty, np.zeros(0))
    return Windows(*(np.concatenate(part) for part in (points, x_axes, y_axes, sizes)))


def closer_names(
    names: list[str], probability: np.ndarray, accept: float, named: set[str]
) -> list[tuple[str, float] | None]:
    """For each card looked at (``WINDOWS`` reads in a row), the name read at ``accept`` by the
    most windows and its ``NEEDED``-th surest read, when ``NEEDED`` or more read it, other names
    in at most ``RIVAL_SHARE`` as many, and no card of the frame bears it (``named``, which it
    joins); else None."""
    found: list[tuple[str, float] | None] = []
    sure = probability.tolist()
    for start in range(0, len(names), WINDOWS):
        end = start + WINDOWS
        votes: dict[str, list[float]] = {}
        for name, value in zip(names[start:end], sure[start:end], strict=True):
            if value >= accept:
                votes.setdefault(name, []).append(value)
        name, values = max(votes.items(), key=lambda vote: len(vote[1]), default=("", []))
        rivals = sum(len(v) for other, v in votes.items() if other != name)
        if len(values) < NEEDED or rivals > RIVAL_SHARE * len(values) or name in named:
            found.append(None)
        else:
            named.add(name)
            found.append((name, sorted(values, reverse=True)[NEEDED - 1]))
    return found
