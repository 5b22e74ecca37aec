"""Finding a corner's printed index (rank above suit), as enrollment does on each clean card."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.corner import PATCH_SIZE, PX_PER_H, find_glyphs, ink_map


def _patch() -> np.ndarray:
    """The ink of a white patch with a bar for the rank and a square suit below it."""
    bgr = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    bgr[8:27, 8:13] = 20
    bgr[32:42, 8:18] = 20
    return ink_map(bgr)


def test_a_rank_and_the_suit_below_it_are_found() -> None:
    found = find_glyphs(_patch())
    assert found is not None
    rank, suit = found
    assert round(rank[1] * PX_PER_H) == 8 and round(rank[3] * PX_PER_H) == 27
    assert round(suit[1] * PX_PER_H) == 32 and round(suit[3] * PX_PER_H) == 42


def test_a_blank_corner_has_no_index() -> None:
    blank = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    assert find_glyphs(ink_map(blank)) is None


def test_ink_touching_the_corner_edge_is_not_an_index() -> None:
    """Print cut by the patch's edge started before this "corner": another card's, not this one's."""
    bgr = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    bgr[8:27, 0:6] = 20
    bgr[32:42, 0:10] = 20
    assert find_glyphs(ink_map(bgr)) is None
