"""A fan's middle card, read on the line between its neighbours' corners.

In a spread of cards each card's index shows in the strip its upper neighbour leaves. Where that
strip's corner is flush with the neighbours' corners, or stepped as theirs are, the paper outline
has no corner there and no finder reports one. The cards seen on either side (named, face down or
unread) say where it lies: on the line between their corners of the same side, a third to two
thirds of the way along. A few windows along that stretch are read; a name that two of them give
at the accept level, and that no other card of the frame bears, is the middle card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Where along the line between the neighbours' corners the middle card's corner is looked for:
# each step of a spread is a third to three fifths of a card's width.
ALONG = (0.36, 0.41, 0.46, 0.5, 0.54, 0.59, 0.64)
SPAN = (0.6, 1.3)  # card widths between the neighbours' corners that leave room for one card
SAME_TURN = float(np.cos(np.radians(8.0)))  # the neighbours turned this near alike ...
SAME_SIZE = 0.3  # ... this near one size (a read at a wrong size guess is often a fifth off) ...
OFF_LINE = 0.25  # ... and stepped along their edge by no more than this share of a card height
TAKEN = (0.2, 0.8)  # a corner this far along a stretch ...
TAKEN_BESIDE = 0.1  # ... and this near its line (card heights) is its middle card's, seen already
AGREEING = 2  # windows of one stretch that must name the card at the accept level


@dataclass(frozen=True)
class Stretches:
    """The windows along every stretch between two neighbours of a frame."""

    points: np.ndarray
    x_axes: np.ndarray
    y_axes: np.ndarray
    sizes: np.ndarray
    stretch: np.ndarray  # which stretch each window belongs to


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
    size, and one hidden card's step of a fan apart."""
    card, points, x_axes, y_axes, heights, widths = _corners(np.array(quads, float).reshape(-1, 4, 2))
    apart = points[None, :] - points[:, None]  # from each corner (rows) to each other (columns)
    along = np.einsum("ijk,ik->ij", apart, x_axes) / widths[:, None]
    off = np.abs(np.einsum("ijk,ik->ij", apart, y_axes)) / heights[:, None]
    alike = x_axes @ x_axes.T >= SAME_TURN
    near, far = np.nonzero(
        (card[:, None] != card[None, :])
        & alike
        & (np.abs(heights[None, :] / heights[:, None] - 1.0) <= SAME_SIZE)
        & (along >= SPAN[0])
        & (along <= SPAN[1])
        & (off <= OFF_LINE)
    )
    # A stretch where another card's corner, turned alike, lies already holds its middle card.
    line = apart[near, far]
    share = np.einsum("ijk,ik->ij", apart[near], line) / np.einsum("ik,ik->i", line, line)[:, None]
    beside = np.linalg.norm(apart[near] - share[..., None] * line[:, None], axis=2) / heights[near][:, None]
    taken = (
        alike[near]
        & (card[None, :] != card[near][:, None])
        & (card[None, :] != card[far][:, None])
        & (share > TAKEN[0])
        & (share < TAKEN[1])
        & (beside < TAKEN_BESIDE)
    ).any(axis=1)
    near, far = near[~taken], far[~taken]
    shares = np.array(ALONG)[None, :, None]
    across, down = x_axes[near] + x_axes[far], y_axes[near] + y_axes[far]
    count = len(near) * len(ALONG)
    return Stretches(
        (points[near][:, None] + shares * apart[near, far][:, None]).reshape(-1, 2),
        np.repeat(across / np.linalg.norm(across, axis=1, keepdims=True), len(ALONG), axis=0),
        np.repeat(down / np.linalg.norm(down, axis=1, keepdims=True), len(ALONG), axis=0),
        np.repeat((heights[near] + heights[far]) / 2, len(ALONG)),
        np.arange(count) // len(ALONG),
    )


def middle_cards(
    found: Stretches, names: list[str], probability: np.ndarray, accept: float, named: set[str]
) -> dict[str, tuple[int, float]]:
    """The cards named between neighbours, each with its surest agreeing window and the weaker
    probability of the ``AGREEING`` surest; a name already in ``named`` is another card's."""
    cards: dict[str, tuple[int, float]] = {}
    sure = probability.tolist()
    for stretch in np.unique(found.stretch).tolist():
        rows = np.flatnonzero(found.stretch == stretch).tolist()
        for name in {names[row] for row in rows if sure[row] >= accept} - named:
            agreeing = sorted(
                (row for row in rows if names[row] == name and sure[row] >= accept), key=sure.__getitem__
            )
            if len(agreeing) >= AGREEING and sure[agreeing[-AGREEING]] > cards.get(name, (0, -1.0))[1]:
                cards[name] = (agreeing[-1], sure[agreeing[-AGREEING]])
    return cards
