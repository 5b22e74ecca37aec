"""Finding a corner's printed index (rank above suit), as enrollment does on each clean card."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.corner import PATCH_SIZE, PX_PER_H, CornerPatch, find_glyphs, ink_map

RANK_BOX = (0.035, 0.035, 0.095, 0.135)


def _patch() -> CornerPatch:
    """A white patch with a bar for the rank and a square suit below it."""
    bgr = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    bgr[8:27, 8:13] = 20
    bgr[32:42, 8:18] = 20
    return CornerPatch(bgr=bgr, ink=ink_map(bgr))


def test_a_rank_and_the_suit_below_it_are_found() -> None:
    found = find_glyphs(_patch(), RANK_BOX)
    assert found is not None
    rank, suit = found
    assert round(rank.box[1] * PX_PER_H) == 8 and round(rank.box[3] * PX_PER_H) == 27
    assert round(suit.box[1] * PX_PER_H) == 32 and round(suit.box[3] * PX_PER_H) == 42


def test_a_blank_corner_has_no_index() -> None:
    blank = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    assert find_glyphs(CornerPatch(bgr=blank, ink=ink_map(blank)), RANK_BOX) is None


def test_ink_touching_the_corner_edge_is_not_an_index() -> None:
    """Print cut by the patch's edge started before this "corner": another card's, not this one's."""
    bgr = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    bgr[8:27, 0:6] = 20
    bgr[32:42, 0:10] = 20
    assert find_glyphs(CornerPatch(bgr=bgr, ink=ink_map(bgr)), RANK_BOX) is None
