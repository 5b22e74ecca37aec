"""A fan's middle card, read on the line between its neighbours' corners.

In a spread each card's index shows in the strip its upper neighbour leaves. Where that strip's
corner is flush or stepped with the neighbours' corners, the outline has no corner there and no
finder reports one. The cards on either side (named, face down or unread) say where it lies: on the
line between their corners of the same side. A name that ``AGREEING`` windows around one hidden
card's place read at the ``fan_middle`` level (under a single read's: two windows agree), and that
no other card of the frame bears, is that card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dealerassist.vision.second_look import Windows

# Each hidden card's windows, as shares of the way between its neighbours' corners: one hidden
# card (a spread steps a third to three fifths of a card's width); two, a third of the way from
# either end; three, a quarter, half and three quarters of the way.
ALONG = (0.36, 0.41, 0.46, 0.5, 0.54, 0.59, 0.64)
THIRD = (0.27, 0.3, 0.333, 0.36, 0.39)
QUARTER = (0.19, 0.22, 0.25, 0.28, 0.31)
HALF = (0.44, 0.47, 0.5, 0.53, 0.56)
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
    """The same places measured from the other neighbour, nearest first."""
    return tuple(1.0 - share for share in reversed(shares))


# Four steps span 1.33 deck widths or more, but a tilted camera shows cards up to a fifth narrower,
# and an end named at its far print has its index corner grown at the deck's width, short by as much.
SPREADS = (
    Spread(span=(0.6, 1.3), taken=(0.2, 0.8), hidden=(ALONG,)),
    Spread(span=(0.95, 1.9), taken=(0.12, 0.88), hidden=(THIRD, from_the_far_end(THIRD))),
    Spread(span=(1.15, 2.5), taken=(0.09, 0.91), hidden=(QUARTER, HALF, from_the_far_end(QUARTER))),
)


@dataclass(frozen=True)
class Stretches(Windows):
    """The windows around every hidden card's place between two neighbours of a frame."""

    stretch: np.ndarray  # which hidden card's place each window belongs to


def _corners(quads: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each card's two corners that an index may mark (turned as a face-up card's index corners
    are, however its quad was grown), as arrays: the card, the point, the axes (x across the short
    edge, y down the long one), the height and the width."""
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
    """Windows between every two cards turned alike, of one size, one to three hidden cards' steps
    of a fan apart, with no third card's corner turned alike on the line between them (that
    stretch holds its hidden card already)."""
    card, points, x_axes, y_axes, heights, widths = _corners(np.array(quads, float).reshape(-1, 4, 2))
    apart = points[None, :] - points[:, None]  # from each corner (rows) to each other (columns)
    along = np.einsum("ijk,ik->ij", apart, x_axes) / widths[:, None]
    off = np.abs(np.einsum("ijk,ik->ij", apart, y_axes)) / heights[:, None]
    alike = x_axes @ x_axes.T >= SAME_TURN
    bigger, smaller = np.maximum.outer(heights, heights), np.minimum.outer(heights, heights)
    neighbours = (card[:, None] != card[None, :]) & alike & (bigger <= (1.0 + SAME_SIZE) * smaller)
    parts: list[tuple[np.ndarray, ...]] = []
    places = 0  # each hidden card's place is a stretch of its own: only its windows agree
    for spread in SPREADS:
        steps = len(spread.hidden) + 1  # a spread steps down as far at each card
        near, far = np.nonzero(
            neighbours & (along >= spread.span[0]) & (along <= spread.span[1]) & (off <= OFF_LINE * steps)
        )
        line = apart[near, far]
        with np.errstate(divide="ignore", invalid="ignore"):  # two corners at one point: no line
            share = np.einsum("ijk,ik->ij", apart[near], line) / np.einsum("ik,ik->i", line, line)[:, None]
        beside = (
            np.linalg.norm(apart[near] - share[..., None] * line[:, None], axis=2) / heights[near][:, None]
        )
        taken = (
            alike[near]
            & (card[None, :] != card[near][:, None])
            & (card[None, :] != card[far][:, None])
            & (share > spread.taken[0])
            & (share < spread.taken[1])
            & (beside < TAKEN_BESIDE)
        ).any(axis=1)
        near, far, line = near[~taken], far[~taken], line[~taken]
        across, down = x_axes[near] + x_axes[far], y_axes[near] + y_axes[far]
        across /= np.linalg.norm(across, axis=1, keepdims=True)
        down /= np.linalg.norm(down, axis=1, keepdims=True)
        for shares in spread.hidden:
            at = points[near][:, None] + np.array(shares)[None, :, None] * line[:, None]
            each = (across, down, (heights[near] + heights[far]) / 2, places + np.arange(len(near)))
            parts.append((at.reshape(-1, 2), *(np.repeat(v, len(shares), axis=0) for v in each)))
            places += len(near)
    return Stretches(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def middle_cards(
    found: Stretches, names: list[str], probability: np.ndarray, level: float, named: set[str]
) -> dict[str, tuple[int, float]]:
    """The cards named between neighbours (``AGREEING`` windows of one stretch read the name at
    ``level`` or more, not in ``named``), each with its surest agreeing window and the
    ``AGREEING``-th surest probability."""
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
