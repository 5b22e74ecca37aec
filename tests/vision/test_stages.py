"""The first stages alone, on cards drawn to a known answer: no deck, no network, no rendered design."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.card_corner import corner_arrays
from dealerassist.vision.card_extent import corner_arms, height_candidates
from dealerassist.vision.edge_junctions import edge_junctions
from dealerassist.vision.index_window import MARGIN, WINDOW_PX, IndexWindow, sample_windows, sampling_image
from dealerassist.vision.outline_corners import outline_corners, outline_polygon
from dealerassist.vision.paper import blob_outlines, card_mask

ASPECT = 1.4  # a poker card's height over its width
FELT = (40, 110, 30)  # BGR green


def _felt() -> np.ndarray:
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = FELT
    return frame


def _drawn_card(frame: np.ndarray, centre: tuple[float, float], height: float, degrees: float) -> np.ndarray:
    """A white card drawn on ``frame``; its four corners, as drawn (float, image pixels)."""
    corners = cv2.boxPoints(((centre[0], centre[1]), (height / ASPECT, height), degrees))
    cv2.fillPoly(frame, [np.round(corners * 16).astype(np.int32)], (235, 235, 235), cv2.LINE_AA, 4)
    return corners


@pytest.mark.parametrize("degrees", [0.0, 17.0, 33.0, 61.0])
def test_a_drawn_cards_corners_and_height_are_found_where_it_was_drawn(degrees: float) -> None:
    frame = _felt()
    drawn = _drawn_card(frame, (320, 240), 180.0, degrees)
    mask = card_mask(frame)
    outlines = blob_outlines(mask)
    assert len(outlines) == 1
    found = outline_corners(outlines[0], 0)
    assert len(found) == 4
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    for k, point in enumerate(drawn):
        corner = min(found, key=lambda c: float(np.hypot(*(c.point - point))))
        assert np.hypot(*(corner.point - point)) < 2.0, (degrees, point, corner.point)
        # The corner's edges are the drawn card's: each along one of the two edges that meet there.
        edges = [drawn[(k + 1) % 4] - point, drawn[(k - 1) % 4] - point]
        along_x = max(edges, key=lambda e: abs(float(corner.x_axis @ e)))
        along_y = max(edges, key=lambda e: abs(float(corner.y_axis @ e)))
        assert float(corner.x_axis @ along_x) > np.cos(np.radians(2)) * np.hypot(*along_x)
        assert float(corner.y_axis @ along_y) > np.cos(np.radians(2)) * np.hypot(*along_y)
        # The paper runs from it as far as the drawn edges do.
        arms = corner_arms(filled, corner_arrays([corner]))[0]
        assert np.allclose(arms, (np.hypot(*along_x), np.hypot(*along_y)), atol=3.0), (degrees, arms)
        # A corner with its x edge across the card (as at an index) guesses the drawn height.
        if np.hypot(*along_x) < np.hypot(*along_y):
            heights = height_candidates([arms], ASPECT)[0]
            assert any(abs(h - 180.0) < 0.03 * 180.0 for h in heights), (degrees, heights)


def test_nothing_drawn_is_no_card() -> None:
    assert blob_outlines(card_mask(_felt())) == []


def test_a_card_lying_flush_on_another_has_its_corner_where_its_edge_meets_the_outline() -> None:
    # Two cards with their tops flush: one outline, with the upper card's left edge buried inside
    # it (a border line a few grey levels darker marks it, as a real card's edge and shadow do).
    frame = _felt()
    cv2.rectangle(frame, (200, 120), (329, 301), (225, 225, 225), cv2.FILLED)
    cv2.rectangle(frame, (270, 120), (399, 301), (245, 245, 245), cv2.FILLED)
    cv2.line(frame, (270, 120), (270, 301), (200, 200, 200), 1)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    mask = card_mask(frame)
    outlines = blob_outlines(mask)
    assert len(outlines) == 1
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    found = edge_junctions(gray, filled, outlines, [outline_polygon(outlines[0])])[0]
    at_top = [c for c in found if np.hypot(*(c.point - (270, 120))) < 3.0]
    assert at_top, [c.point for c in found]
    # Its edges: one along the outline's top, one down the buried line.
    corner = at_top[0]
    directions = sorted((abs(float(corner.x_axis[0])), abs(float(corner.y_axis[0]))))
    assert directions[0] < np.sin(np.radians(3)) and directions[1] > np.cos(np.radians(3))
    # Nothing is found on the outline's edges away from a buried edge.
    assert all(abs(c.point[0] - 270) < 3.0 for c in found), [c.point for c in found]


@pytest.mark.parametrize("degrees", [0.0, 23.0, -38.0])
def test_a_glyph_drawn_at_a_tilted_cards_index_lies_where_its_window_says(degrees: float) -> None:
    """The corner the geometry finds, sampled as an index window, shows the drawn ink at the
    place in the window where it was drawn on the card, however the card lies."""
    height = 200.0
    width = height / ASPECT
    card = np.full((int(height), int(width), 3), 235, np.uint8)
    # A solid "glyph" 0.05-0.13 of the card height across and 0.05-0.25 down from the top-left corner.
    glyph_across, glyph_down = (0.05, 0.13), (0.05, 0.25)
    card[
        int(glyph_down[0] * height) : int(glyph_down[1] * height),
        int(glyph_across[0] * height) : int(glyph_across[1] * height),
    ] = 30
    frame = _felt()
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    turn[:, 2] += (320 - width / 2, 240 - height / 2)
    cv2.warpAffine(card, turn, (640, 480), frame, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT)
    top_left = turn @ np.array([0.0, 0.0, 1.0])
    found = outline_corners(blob_outlines(card_mask(frame))[0], 0)
    corner = min(found, key=lambda c: float(np.hypot(*(c.point - top_left))))
    assert np.hypot(*(corner.point - top_left)) < 2.0
    window = IndexWindow(across=0.2, down=0.3)
    # Whichever way the outline runs at this corner, the card's own x edge is the shorter one here.
    x_axis, y_axis = corner.x_axis, corner.y_axis
    if abs(float(x_axis @ (turn[:, :2] @ (1.0, 0.0)))) < 0.5:
        x_axis, y_axis = y_axis, x_axis
    sampled = sample_windows(
        sampling_image(frame), corner.point[None], x_axis[None], y_axis[None], np.array([height]), window
    )[0, :, :, :3].mean(axis=2)
    cols, rows = WINDOW_PX
    u = -MARGIN + (np.arange(cols) + 0.5) / cols * (window.across + MARGIN)
    v = -MARGIN + (np.arange(rows) + 0.5) / rows * (window.down + MARGIN)
    inside = (
        (v[:, None] > glyph_down[0] + 0.01)
        & (v[:, None] < glyph_down[1] - 0.01)
        & (u[None, :] > glyph_across[0] + 0.01)
        & (u[None, :] < glyph_across[1] - 0.01)
    )
    outside = (
        (v[:, None] > 0.01)
        & (u[None, :] > 0.01)
        & ~(
            (v[:, None] > glyph_down[0] - 0.01)
            & (v[:, None] < glyph_down[1] + 0.01)
            & (u[None, :] > glyph_across[0] - 0.01)
            & (u[None, :] < glyph_across[1] + 0.01)
        )
    )
    assert sampled[inside].max() < 80, degrees  # the drawn ink
    assert sampled[outside].min() > 180, degrees  # the card's paper around it
