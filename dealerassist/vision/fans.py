"""A fan's middle card, read on the line between its neighbours' corners.

In a spread of cards each card's index shows in the strip its upper neighbour leaves. Where that
strip's corner is flush with the neighbours' corners, or stepped as theirs are, the paper outline
has no corner there and no finder reports one. The cards seen on either side (named, face down or
unread) say where it lies: on the line between their corners of the same side, a third to two
thirds of the way along; where two cards hide between them, a third and two thirds of the way;
where three do (a spread of five with only its ends read), a quarter, half and three quarters.
A few windows around each hidden card's place are read; a name that two of them give at the
reader's level for a middle card (0.8, under the accept level of a single read: two windows
agree), and that no other card of the frame bears, is that card.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dealerassist.compiled import compiled

# Where along the line between the neighbours' corners the middle card's corner is looked for:
# each step of a spread is a third to three fifths of a card's width.
ALONG = (0.36, 0.41, 0.46, 0.5, 0.54, 0.59, 0.64)
SPAN = (0.6, 1.3)  # card widths between the neighbours' corners that leave room for one card
TAKEN = (0.2, 0.8)  # a corner this far along such a stretch is its middle card's, seen already
# Two hidden cards: neighbours three steps apart, each hidden corner looked for around a third of
# the way from either end (fewer windows each: the two together read more than one card's 7).
THIRD = (0.27, 0.3, 0.333, 0.36, 0.39)
SPAN_TWO = (0.95, 1.9)
TAKEN_TWO = (0.12, 0.88)
# Three hidden cards: neighbours four steps apart, the hidden corners around a quarter, half and
# three quarters of the way. Four steps span 1.33 widths or more, but a width here is the deck's
# (the card height over its aspect), and the camera's tilt can show cards a fifth narrower: such a
# spread measures fewer widths, and an end named at its far print has its index corner grown at
# the deck's width, short by as much. One was seen at 1.2.
QUARTER = (0.19, 0.22, 0.25, 0.28, 0.31)
HALF = (0.44, 0.47, 0.5, 0.53, 0.56)
SPAN_THREE = (1.15, 2.5)
TAKEN_THREE = (0.09, 0.91)
SAME_TURN = float(np.cos(np.radians(8.0)))  # the neighbours turned this near alike ...
SAME_SIZE = 0.3  # ... the larger at most this share larger (a wrong size guess is often a fifth off) ...
OFF_LINE = 0.15  # ... and stepped along their edge by no more than this share of a card height a step
TAKEN_BESIDE = 0.1  # card heights from a stretch's line within which a corner lies on it
AGREEING = 2  # windows of one stretch that must name the card at the level


@dataclass(frozen=True)
class Spread:
    """How neighbours with hidden cards between them are looked at."""

    span: tuple[float, float]  # card widths between the neighbours' corners
    taken: tuple[float, float]  # how far along the line a seen corner means a hidden card is seen
    hidden: tuple[tuple[float, ...], ...]  # for each hidden card, its windows' shares of the way


def from_the_far_end(shares: tuple[float, ...]) -> tuple[float, ...]:
    """The same places measured from the other neighbour, nearest first: a hidden card's windows
    near one end mirror those near the other."""
    return tuple(1.0 - share for share in reversed(shares))


SPREADS = (
    Spread(SPAN, TAKEN, (ALONG,)),
    Spread(SPAN_TWO, TAKEN_TWO, (THIRD, from_the_far_end(THIRD))),
    Spread(SPAN_THREE, TAKEN_THREE, (QUARTER, HALF, from_the_far_end(QUARTER))),
)


@dataclass(frozen=True)
class Stretches:
    """The windows around every hidden card's place between two neighbours of a frame."""

    points: np.ndarray
    x_axes: np.ndarray
    y_axes: np.ndarray
    sizes: np.ndarray
    stretch: np.ndarray  # which hidden card's place each window belongs to


def _corners(quads: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each card's two corners that an index may mark (a named card's index corners, or the same
    two of a back however its quad was grown), as arrays: the card, the point, the axes (x across
    the short edge, y down the long one, turned as every card seen from above is), the height and
    the width."""
    following, preceding = np.roll(quads, -1, axis=1) - quads, np.roll(quads, 1, axis=1) - quads
    short_first = np.linalg.norm(following, axis=2) < np.linalg.norm(preceding, axis=2)
    across = np.where(short_first[..., None], following, preceding)
    down = np.where(short_first[..., None], preceding, following)
    turned = across[..., 0] * down[..., 1] - across[..., 1] * down[..., 0] > 0
    card, corner = np.nonzero(turned)
    width, height = np.linalg.norm(across[turned], axis=1), np.linalg.norm(down[turned], axis=1)
    x_axes, y_axes = across[turned] / width[:, None], down[turned] / height[:, None]
    return card, quads[card, corner], x_axes, y_axes, height, width


def stretches(quads: list[np.ndarray]) -> Stretches:
    """Windows between every two cards (quads as the reader outlines them) turned alike, of one
    size, and one to three hidden cards' steps of a fan apart."""
    card, points, x_axes, y_axes, heights, widths = _corners(np.array(quads, float).reshape(-1, 4, 2))
    alike = x_axes @ x_axes.T >= SAME_TURN
    found = _stretch_windows(card, points, x_axes, y_axes, heights, widths, alike, *_spread_tables(SPREADS))
    return Stretches(*found)


@lru_cache(maxsize=4)
def _spread_tables(spreads: tuple[Spread, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Spreads as arrays for ``_stretch_windows``: each spread's span, taken and off-line limits
    (a spread steps down as far at each card); each hidden card's spread and the first of its
    shares; all the shares."""
    limits = np.array([[*s.span, *s.taken, OFF_LINE * (len(s.hidden) + 1)] for s in spreads], np.float64)
    hidden = [(k, shares) for k, s in enumerate(spreads) for shares in s.hidden]
    firsts = np.cumsum([0] + [len(shares) for _, shares in hidden]).astype(np.int64)
    shares = np.array([share for _, each in hidden for share in each], np.float64)
    return limits, np.array([k for k, _ in hidden], np.int64), firsts, shares


@compiled()
def _stretch_windows(
    card: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
    widths: np.ndarray,
    alike: np.ndarray,
    limits: np.ndarray,
    hidden_spread: np.ndarray,
    hidden_first: np.ndarray,
    shares: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``Stretches``' arrays: for each spread, every two corners of other cards turned alike, of
    one size, their span and step in its limits, and no third card's corner turned alike lying on
    the line between them (within TAKEN_BESIDE heights, between its taken shares of the way); then
    for each hidden card of each spread, in order, the windows at its shares of every such line.

    Each product and sum is the one numpy's whole-array passes make, in their order (a two-term
    dot product is its two products added), so the windows lie where those passes put them, to
    the bit (the tests compare the two).
    """
    n = len(card)
    spreads = len(limits)
    near = np.empty((spreads, n * n), np.int64)
    far = np.empty((spreads, n * n), np.int64)
    pairs = np.zeros(spreads, np.int64)
    for s in range(spreads):
        for i in range(n):
            for j in range(n):
                low, high = min(heights[i], heights[j]), max(heights[i], heights[j])
                if card[i] == card[j] or not alike[i, j] or not high <= (1.0 + SAME_SIZE) * low:
                    continue
                line_x, line_y = points[j, 0] - points[i, 0], points[j, 1] - points[i, 1]
                if widths[i] == 0.0 or heights[i] == 0.0:
                    continue  # a quad with no size: no span measures it
                along = (line_x * x_axes[i, 0] + line_y * x_axes[i, 1]) / widths[i]
                off = abs(line_x * y_axes[i, 0] + line_y * y_axes[i, 1]) / heights[i]
                if not (along >= limits[s, 0] and along <= limits[s, 1] and off <= limits[s, 4]):
                    continue
                if not _taken(card, points, heights, alike, i, j, line_x, line_y, limits[s, 2], limits[s, 3]):
                    near[s, pairs[s]], far[s, pairs[s]] = i, j
                    pairs[s] += 1
    total = 0
    for h in range(len(hidden_spread)):
        total += pairs[hidden_spread[h]] * (hidden_first[h + 1] - hidden_first[h])
    out_points = np.empty((total, 2))
    out_across = np.empty((total, 2))
    out_down = np.empty((total, 2))
    sizes = np.empty(total)
    stretch = np.empty(total, np.int64)
    at, places = 0, 0
    for h in range(len(hidden_spread)):
        s = hidden_spread[h]
        for p in range(pairs[s]):
            i, j = near[s, p], far[s, p]
            across_x, across_y = x_axes[i, 0] + x_axes[j, 0], x_axes[i, 1] + x_axes[j, 1]
            down_x, down_y = y_axes[i, 0] + y_axes[j, 0], y_axes[i, 1] + y_axes[j, 1]
            across_length = np.sqrt(across_x * across_x + across_y * across_y)
            down_length = np.sqrt(down_x * down_x + down_y * down_y)
            line_x, line_y = points[j, 0] - points[i, 0], points[j, 1] - points[i, 1]
            for k in range(hidden_first[h], hidden_first[h + 1]):
                out_points[at, 0] = points[i, 0] + shares[k] * line_x
                out_points[at, 1] = points[i, 1] + shares[k] * line_y
                out_across[at, 0], out_across[at, 1] = (
                    _over(across_x, across_length),
                    _over(across_y, across_length),
                )
                out_down[at, 0], out_down[at, 1] = _over(down_x, down_length), _over(down_y, down_length)
                sizes[at] = (heights[i] + heights[j]) / 2
                stretch[at] = places + p
                at += 1
        places += pairs[s]
    return out_points, out_across, out_down, sizes, stretch


@compiled(inline=True)
def _over(value: float, length: float) -> float:
    """``value / length`` as numpy divides (NaN for a length of 0, where the compiled loop would
    raise): two cards turned alike never sum to a zero axis, but a loop must not stop on it."""
    return value / length if length != 0.0 else np.nan


@compiled(inline=True)
def _taken(
    card: np.ndarray,
    points: np.ndarray,
    heights: np.ndarray,
    alike: np.ndarray,
    i: int,
    j: int,
    line_x: float,
    line_y: float,
    first: float,
    last: float,
) -> bool:
    """Whether another card's corner turned alike lies on the line from corner i to corner j:
    between ``first`` and ``last`` of the way along, within TAKEN_BESIDE heights of it. Such a
    stretch already holds its hidden card."""
    squared = line_x * line_x + line_y * line_y
    if squared == 0.0:
        return False
    for m in range(len(card)):
        if not alike[i, m] or card[m] == card[i] or card[m] == card[j]:
            continue
        to_x, to_y = points[m, 0] - points[i, 0], points[m, 1] - points[i, 1]
        share = (to_x * line_x + to_y * line_y) / squared
        if not (share > first and share < last):
            continue
        beside_x, beside_y = to_x - share * line_x, to_y - share * line_y
        if np.sqrt(beside_x * beside_x + beside_y * beside_y) / heights[i] < TAKEN_BESIDE:
            return True
    return False


def middle_cards(
    found: Stretches, names: list[str], probability: np.ndarray, level: float, named: set[str]
) -> dict[str, tuple[int, float]]:
    """The cards named between neighbours (``AGREEING`` windows of one stretch read the name at
    ``level`` or more), each with its surest agreeing window and the weaker probability of the
    ``AGREEING`` surest; a name already in ``named`` is another card's."""
    cards: dict[str, tuple[int, float]] = {}
    sure = probability.tolist()
    for stretch in np.unique(found.stretch).tolist():
        rows = np.flatnonzero(found.stretch == stretch).tolist()
        for name in {names[row] for row in rows if sure[row] >= level} - named:
            agreeing = sorted(
                (row for row in rows if names[row] == name and sure[row] >= level), key=sure.__getitem__
            )
            if len(agreeing) >= AGREEING and sure[agreeing[-AGREEING]] > cards.get(name, (0, -1.0))[1]:
                cards[name] = (agreeing[-1], sure[agreeing[-AGREEING]])
    return cards
