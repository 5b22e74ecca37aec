"""The paper stage: what counts as card paper against the felt, and the box round it."""

from __future__ import annotations

import numpy as np
import pytest

from dealerassist.vision.paper import BRIGHTER_BY, card_mask, paper_against_felt

FRAME = (720, 1280)


def _paper_of(darkest: np.ndarray, brightest: np.ndarray, felt_level: int) -> np.ndarray:
    felt = np.full((darkest.shape[0] // 8 or 1, darkest.shape[1] // 8 or 1), felt_level, np.uint8)
    paper = np.full(darkest.shape, 7, np.uint8)
    paper_against_felt(darkest, brightest, felt, paper)
    return paper


@pytest.mark.parametrize(
    ("felt_level", "first_paper"),
    [
        (0, BRIGHTER_BY + 1),  # a black felt: brighter by BRIGHTER_BY
        (60, 60 + BRIGHTER_BY + 1),  # 1.5 x 60 = 90 < 105: still the difference rules
        (100, 151),  # 1.5 x 100 = 150 > 145: half as bright again rules
        (167, 251),  # 1.5 x 167 = 250.5, rounded to the even 250: paper from 251
    ],
)
def test_grey_paper_must_be_brighter_than_the_felt_by_a_margin_and_a_half(
    felt_level: int, first_paper: int
) -> None:
    levels = np.repeat(np.arange(256, dtype=np.uint8)[None], 16, axis=0)
    paper = _paper_of(levels, levels, felt_level)
    assert set(np.unique(paper)) <= {0, 255}
    assert (paper[:, first_paper:] == 255).all() and not paper[:, :first_paper].any()


def test_nothing_is_paper_on_a_felt_too_bright_to_outshine() -> None:
    levels = np.repeat(np.arange(256, dtype=np.uint8)[None], 16, axis=0)
    assert not _paper_of(levels, levels, 211).any()  # 211 + 45 > 255


def test_tinted_pixels_are_not_paper() -> None:
    """Paper is nearly colourless: its brightest channel exceeds its darkest by under 38 % of it."""
    brightest = np.full((8, 160), 240, np.uint8)
    darkest = (240 - np.arange(160)).astype(np.uint8)[None].repeat(8, axis=0)
    paper = _paper_of(darkest, brightest, 30)
    # 0.38 x 240 = 91.2, rounded to 91: a spread of 90 is pale enough, 91 is a colour
    assert (paper[:, :91] == 255).all() and not paper[:, 91:].any()


def test_a_frame_with_no_paper_has_no_box() -> None:
    darkest = np.full((64, 96), 40, np.uint8)
    paper = np.empty_like(darkest)
    assert paper_against_felt(darkest, darkest, np.full((8, 12), 40, np.uint8), paper) == (0, 0, 0, 0)
    assert not paper.any()


def test_a_single_paper_pixel_is_boxed_alone() -> None:
    darkest = np.full((64, 96), 40, np.uint8)
    darkest[50, 3] = 230
    paper = np.empty_like(darkest)
    assert paper_against_felt(darkest, darkest, np.full((8, 12), 40, np.uint8), paper) == (3, 50, 1, 1)


def test_cards_are_found_on_a_felt_lit_unevenly() -> None:
    """The felt level is the felt's own, cards opened away: on a grey felt lit from dim to bright
    across the frame, a white card in the dim part (darker than the felt's lit part) and one in
    the lit part are paper edge to edge, and the felt nowhere."""
    h, w = FRAME
    light = np.linspace(0.5, 1.4, w, dtype=np.float32)[None, :, None]
    frame = np.clip(np.float32(100) * light, 0, 255).repeat(h, axis=0).repeat(3, axis=2)
    cards = [(100, 80, 180, 250), (1000, 400, 180, 250)]  # x, y, width, height: one dim, one lit
    for x, y, cw, ch in cards:
        frame[y : y + ch, x : x + cw] = np.clip(235 * light[:, x : x + cw], 0, 255)
    assert frame[80, 100, 0] < frame[0, -1, 0]  # the dim card is darker than the lit felt
    mask = card_mask(frame.astype(np.uint8))
    expected = np.zeros(FRAME, np.uint8)
    for x, y, cw, ch in cards:
        expected[y : y + ch, x : x + cw] = 255
    assert np.array_equal(mask, expected)
