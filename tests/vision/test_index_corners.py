"""Index corners hidden inside a paper blob: a stepped fan's upper cards, proposed from the outline."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.index_corners import _open_ends, index_corner_candidates
from dealerassist.vision.outline_corners import outline_polygon
from dealerassist.vision.paper import blob_outlines, card_mask

from .conftest import lay_cards

HEIGHT = 150.0


def _inputs(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """The grey image, the filled paper mask, the blob outlines and their polygons, as the reader
    makes them."""
    outlines = blob_outlines(card_mask(frame))
    filled = np.zeros(frame.shape[:2], np.uint8)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return gray, filled, outlines, [outline_polygon(outline) for outline in outlines]


def _stepped_fan(
    design: dict[str, np.ndarray], angle: float, drop: float
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, float]:
    """Three cards fanned across with each a step ``drop`` (card heights) further down; their corners."""
    aspect = design["AS"].shape[0] / design["AS"].shape[1]
    width = HEIGHT / aspect
    rad = np.deg2rad(angle)
    turn = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    centres = [
        np.array([560.0, 330.0]) + turn @ np.array([i * 0.45 * width, i * drop * HEIGHT]) for i in range(3)
    ]
    cards = [
        (code, (float(c[0]), float(c[1])), angle, True)
        for code, c in zip(("7H", "KS", "4D"), centres, strict=True)
    ]
    top_lefts = [c + turn @ np.array([-width / 2, -HEIGHT / 2]) for c in centres]
    return lay_cards(design, cards, height=HEIGHT), top_lefts, turn @ np.array([1.0, 0.0]), aspect


def _proposed(candidates: list, point: np.ndarray, x_axis: np.ndarray, height: float = HEIGHT) -> bool:
    """Some candidate is where a reader tolerating small errors can read this index corner."""
    return any(
        np.linalg.norm(corner.point - point) <= 0.03 * height
        and float(corner.x_axis @ x_axis) >= np.cos(np.deg2rad(5.0))
        and any(abs(h - height) <= 0.15 * height for h in heights)
        for corner, heights in candidates
    )


@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_middle_card_of_a_stepped_fan_is_proposed(design: dict[str, np.ndarray], angle: float) -> None:
    # The middle card's top-left corner lies inside the card below it: no outline corner is there.
    frame, top_lefts, x_axis, aspect = _stepped_fan(design, angle, drop=0.07)
    gray, filled, outlines, polygons = _inputs(frame)
    candidates = index_corner_candidates(gray, filled, aspect, outlines, polygons)
    assert _proposed(candidates, top_lefts[1], x_axis)
    assert _proposed(candidates, top_lefts[2], x_axis)
    assert len(candidates) <= 10


def test_single_cards_add_next_to_nothing(design: dict[str, np.ndarray]) -> None:
    # Every corner of a lone card is a clean outline corner, found elsewhere.
    frame = lay_cards(
        design,
        [("QH", (600, 350), 30, True), ("2C", (300, 200), -70, True), ("9D", (950, 480), 100, False)],
        height=120,
    )
    gray, filled, outlines, polygons = _inputs(frame)
    assert len(index_corner_candidates(gray, filled, 1.4, outlines, polygons)) <= 3


def test_bare_felt_gives_nothing(design: dict[str, np.ndarray]) -> None:
    frame = lay_cards(design, [])
    gray, filled, outlines, polygons = _inputs(frame)
    assert index_corner_candidates(gray, filled, 1.4, outlines, polygons) == []


def _ends(vertices: list[tuple[float, float]]) -> list[tuple[int, float]]:
    polygon = np.array(vertices, float)
    vectors = np.roll(polygon, -1, axis=0) - polygon
    edges, signs = _open_ends(vectors, np.hypot(vectors[:, 0], vectors[:, 1]))
    return list(zip(edges.tolist(), signs.tolist(), strict=True))


def test_an_outline_piece_is_followed_on_only_where_it_does_not_turn_square() -> None:
    # A card's outline with one corner rounded into three short chords: every end turns square.
    assert _ends([(0, 0), (90, 0), (96, 3), (99, 8), (100, 14), (100, 140), (0, 140)]) == []
    # Its bottom edge bends 30 degrees where it runs on under another card: the two ends at the
    # bend are open (edge 2's far end, edge 3's near end); the others still turn square.
    bend = 140 - 50 * np.tan(np.radians(30))
    assert _ends([(0, 0), (100, 0), (100, 140), (50, 140), (0, bend)]) == [(2, 1.0), (3, -1.0)]
