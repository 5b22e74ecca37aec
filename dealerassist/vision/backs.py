"""Face-down cards: a corner unread as an index whose look matches the enrolled back's, at the
largest card size that lies on paper."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.card_corner import MAX_CARD_HEIGHT, MIN_CARD_HEIGHT, Corner
from dealerassist.vision.card_extent import card_quad, paper_coverage
from dealerassist.vision.deck import DeckModel, back_feature
from dealerassist.vision.sighting import CardSighting

MIN_COVERAGE = 0.9  # share of a back's outline that must lie on card paper


def backs_at(
    frame: np.ndarray,
    filled: np.ndarray,
    corners: list[tuple[Corner, list[float]]],
    deck: DeckModel,
    back_distance: float,
) -> list[CardSighting | None]:
    """A face-down card at each corner (with its card heights), or None: the largest card on
    paper whose corner looks like the enrolled back's (either edge may be the long one)."""
    aspect = deck.aspect
    choices = []
    for _, heights in corners:
        options = [(h, False) for h in heights] + [(h * aspect, True) for h in heights]
        choices.append(
            sorted(((h, lng) for h, lng in options if MIN_CARD_HEIGHT <= h <= MAX_CARD_HEIGHT), reverse=True)
        )
    quads = [
        card_quad(corner, h, aspect, lng)
        for (corner, _), options in zip(corners, choices, strict=True)
        for h, lng in options
    ]
    on_paper = (paper_coverage(filled, np.array(quads)) >= MIN_COVERAGE).tolist() if quads else []
    fit = iter(on_paper)
    found: list[CardSighting | None] = []
    for (corner, _), options in zip(corners, choices, strict=True):
        fitting = [option for option in options if next(fit)]
        found.append(_back_of_size(frame, corner, *fitting[0], deck, back_distance) if fitting else None)
    return found


def _back_of_size(
    frame: np.ndarray, corner: Corner, full: float, long_across: bool, deck: DeckModel, back_distance: float
) -> CardSighting | None:
    """A face-down card of this size at this corner, or None when its corner is unlike the back's."""
    feature = back_feature(frame, corner.point, corner.x_axis, corner.y_axis, full)
    distance = float(np.abs(deck.back_features - feature).mean(axis=1).min())
    if distance > back_distance:
        return None
    return CardSighting(
        None,
        float(max(0.0, 1.0 - distance / (2 * back_distance))),
        False,
        card_quad(corner, full, deck.aspect, long_across),
        votes=[("back", 1.0)],
    )
