"""Index corners on a shared outline edge, proposed where the print starts along it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.detect import (
    blob_outlines,
    card_mask,
    corner_arms_many,
    outline_corners,
)
from dealerassist.vision.ink_corners import ink_corners

from .conftest import lay_cards

HEIGHT = 150.0
RANK_BOX = (0.035, 0.035, 0.095, 0.135)  # where the Kennard decks print the rank (card heights)
EXTENT = (0.125, 0.25)  # and how far their index reaches across and down


def _proposals(frame: np.ndarray, aspect: float) -> list:
    """What ``ink_corners`` proposes from the outline corners, as the candidate finder calls it."""
    outlines = blob_outlines(card_mask(frame))
    filled = np.zeros(frame.shape[:2], np.uint8)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    corners = [c for i, outline in enumerate(outlines) for c in outline_corners(outline, i)]
    arms = corner_arms_many(filled, corners)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return ink_corners(gray, corners, arms, RANK_BOX, EXTENT, aspect)


def _row(
    design: dict[str, np.ndarray], codes: tuple[str, ...], angle: float
) -> tuple[np.ndarray, list, float]:
    """Cards in a row sharing their bottom edge, each left card on top of the next; the index
    corners at their bottom right (the card turned half round) with their axes."""
    aspect = design["AS"].shape[0] / design["AS"].shape[1]
    width = HEIGHT / aspect
    rad = np.deg2rad(angle)
    turn = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    centres = [np.array([520.0, 360.0]) + turn @ np.array([i * 0.5 * width, 0.0]) for i in range(len(codes))]
    laid = [(code, (float(c[0]), float(c[1])), angle, True) for code, c in zip(codes, centres, strict=True)]
    frame = lay_cards(design, laid[::-1], height=HEIGHT)  # the last laid lies on top
    corners = [(c + turn @ np.array([width / 2, HEIGHT / 2]), turn @ np.array([-1.0, 0.0])) for c in centres]
    return frame, corners, aspect


def _near(found: list, point: np.ndarray, x_axis: np.ndarray) -> bool:
    return any(
        np.linalg.norm(corner.point - point) <= 0.03 * HEIGHT
        and float(corner.x_axis @ x_axis) >= np.cos(np.deg2rad(5.0))
        and abs(height - HEIGHT) <= 0.15 * HEIGHT
        for corner, height in found
    )


@pytest.mark.parametrize("angle", [0.0, 180.0, 30.0])
def test_a_corner_lying_on_the_next_card_is_proposed(design: dict[str, np.ndarray], angle: float) -> None:
    # The first card's bottom-right corner lies on the paper of the card under it: no outline
    # corner marks it, only where its index starts along the shared bottom edge.
    frame, corners, aspect = _row(design, ("7H", "KS", "4D"), angle)
    found = _proposals(frame, aspect)
    point, x_axis = corners[0]
    assert _near(found, point, x_axis)
    assert _near(found, *corners[1])


def test_proposals_follow_the_index_corner_handedness(design: dict[str, np.ndarray]) -> None:
    frame, _, aspect = _row(design, ("7H", "KS", "4D"), 0.0)
    for corner, _ in _proposals(frame, aspect):
        assert float(corner.x_axis[0] * corner.y_axis[1] - corner.x_axis[1] * corner.y_axis[0]) > 0


def test_blank_cards_propose_nothing(design: dict[str, np.ndarray]) -> None:
    blank = {**design, "7H": np.full_like(design["7H"], 255), "KS": np.full_like(design["KS"], 255)}
    blank["7H"][..., :3] = 240
    blank["KS"][..., :3] = 240
    frame, _, aspect = _row(blank, ("7H", "KS"), 0.0)
    assert _proposals(frame, aspect) == []


def test_sampling_more_points_than_one_remap_takes_gives_the_same_values(monkeypatch) -> None:
    # OpenCV refuses remap maps of 32767 rows: very many points are sampled in several calls.
    from dealerassist.vision import ink_corners as module

    gray = (np.arange(720 * 1280) % 251).astype(np.uint8).reshape(720, 1280)
    points = np.random.default_rng(1).integers(0, 700, (5000, 2)).astype(float)
    whole = module._sample(gray, points)
    np.testing.assert_array_equal(whole, gray[points[:, 1].astype(int), points[:, 0].astype(int)])
    monkeypatch.setattr(module, "_MAP_ROWS", 2)
    np.testing.assert_array_equal(module._sample(gray, points), whole)
