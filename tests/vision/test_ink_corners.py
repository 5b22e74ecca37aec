"""Index corners on a shared outline edge, proposed where the print starts along it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.card_corner import Corner, corner_arrays, sample
from dealerassist.vision.card_extent import corner_arms
from dealerassist.vision.ink_corners import ink_corners, on_paper_edge
from dealerassist.vision.outline_corners import outline_corners
from dealerassist.vision.paper import blob_outlines, card_mask

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
    at = corner_arrays(corners)
    arms = np.array(corner_arms(filled, at), float).reshape(-1, 2)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return ink_corners(gray, at, arms, RANK_BOX, EXTENT, aspect)


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


def _wide_suited_card(shape: tuple[int, ...], side_line: bool) -> np.ndarray:
    """A plain card whose suit, below the rank, reaches nearer the card's side than the rank does
    (so the margin beside the index holds ink), printed at both index corners; with
    ``side_line``, a grey line round the card's edge, as a card's cut edge shows on the paper
    of a card under it."""
    height, width = shape[:2]
    card = np.full((height, width, 4), 255, np.uint8)
    x0, y0, x1, y1 = (np.array(RANK_BOX) * height).astype(int)
    card[y0:y1, x0:x1, :3] = 20
    card[int(0.15 * height) : int(0.22 * height), int(0.012 * height) : x1, :3] = 20
    card = np.minimum(card, card[::-1, ::-1])
    if side_line:
        line = int(0.012 * height)
        card[:line, :, :3] = card[-line:, :, :3] = card[:, :line, :3] = card[:, -line:, :3] = 60
    return card


@pytest.mark.parametrize("angle", [0.0, 180.0, 30.0])
def test_a_print_start_bounded_by_the_cards_side_is_proposed_though_its_margin_holds_ink(
    design: dict[str, np.ndarray], angle: float
) -> None:
    # The margin beside this index is not plain paper (the suit reaches into it), but the blank
    # run before the rank is no longer than the margin the deck prints: the card's side ends it.
    odd = {**design, "7H": _wide_suited_card(design["7H"].shape, side_line=True)}
    frame, corners, aspect = _row(odd, ("7H", "KS", "4D"), angle)
    assert _near(_proposals(frame, aspect), *corners[0])


def test_a_print_start_with_ink_in_its_margin_and_nothing_at_its_side_is_not_proposed(
    design: dict[str, np.ndarray],
) -> None:
    # Turned half round, the top card's shadow falls away from its index corner: the blank run
    # before the rank goes on over the paper of the card under it, and the margin holds ink.
    odd = {**design, "7H": _wide_suited_card(design["7H"].shape, side_line=False)}
    frame, corners, aspect = _row(odd, ("7H", "KS", "4D"), 180.0)
    assert not _near(_proposals(frame, aspect), *corners[0])


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
    from dealerassist.vision import card_corner

    gray = (np.arange(720 * 1280) % 251).astype(np.uint8).reshape(720, 1280)
    points = np.random.default_rng(1).integers(0, 700, (5000, 2)).astype(np.float32)
    whole = sample(gray, points[:, 0], points[:, 1])
    np.testing.assert_array_equal(whole, gray[points[:, 1].astype(int), points[:, 0].astype(int)])
    monkeypatch.setattr(card_corner, "_REMAP_ROWS", 2)
    np.testing.assert_array_equal(sample(gray, points[:, 0], points[:, 1]), whole)


def _stepped_paper(edge_y: int) -> np.ndarray:
    """A paper mask whose paper starts at row ``edge_y`` and runs down: the bottom card of a
    stepped row seen turned half round is the same, its index corner on that edge."""
    filled = np.zeros((400, 600), np.uint8)
    filled[edge_y:] = 255
    return filled


def _proposal_at(y: float) -> tuple[Corner, float]:
    """An index corner proposed at (300, y), its card running down from there (y axis down)."""
    return Corner(
        point=np.array([300.0, y]), x_axis=np.array([1.0, 0.0]), y_axis=np.array([0.0, 1.0]), blob=-1
    ), 120.0


@pytest.mark.parametrize("found_at", [193.0, 207.0])
def test_a_corner_found_off_its_cards_edge_is_proposed_again_where_the_paper_starts(found_at: float) -> None:
    # Found 7 px above or below the card's own edge (row 200): the felt beside the print shows
    # where the edge is, and the corner is proposed again there, the first proposal kept.
    (moved, height), *rest = on_paper_edge(_stepped_paper(200), [_proposal_at(found_at)], RANK_BOX)
    assert not rest
    assert abs(moved.point[1] - 200.0) <= 1.0 and moved.point[0] == 300.0
    assert height == 120.0
    np.testing.assert_array_equal(moved.y_axis, [0.0, 1.0])


def test_a_corner_on_its_cards_edge_or_with_no_felt_near_it_is_not_proposed_again() -> None:
    on_edge = on_paper_edge(_stepped_paper(200), [_proposal_at(200.0)], RANK_BOX)
    on_paper = on_paper_edge(_stepped_paper(0), [_proposal_at(200.0)], RANK_BOX)
    beyond_reach = on_paper_edge(_stepped_paper(200), [_proposal_at(200.0 - 0.12 * 120.0)], RANK_BOX)
    assert on_edge == [] and on_paper == [] and beyond_reach == []
