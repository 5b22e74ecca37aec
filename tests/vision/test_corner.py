"""Splitting a corner's print into rank and suit, including print whose thin strokes broke apart."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.corner import PATCH_SIZE, PX_PER_H, CornerPatch, find_glyphs, ink_map

RANK_BOX = (0.035, 0.035, 0.095, 0.135)


def _patch(gap: bool) -> CornerPatch:
    """A white patch with a bar for the rank (cut by a one-pixel gap when asked) and a square suit."""
    bgr = np.full((PATCH_SIZE[1], PATCH_SIZE[0], 3), 250, np.uint8)
    bgr[8:27, 8:13] = 20
    if gap:
        bgr[16, 8:13] = 250
    bgr[32:42, 8:18] = 20
    return CornerPatch(bgr=bgr, ink=ink_map(bgr))


def test_a_whole_rank_and_its_suit_are_found_either_way() -> None:
    for join in (False, True):
        found = find_glyphs(_patch(gap=False), RANK_BOX, join=join)
        assert found is not None
        rank, suit = found
        assert round(rank.box[1] * PX_PER_H) == 8 and round(rank.box[3] * PX_PER_H) == 27
        assert round(suit.box[1] * PX_PER_H) == 32


def test_a_broken_rank_is_mended_only_when_joining() -> None:
    broken = find_glyphs(_patch(gap=True), RANK_BOX)
    assert broken is not None and round(broken[0].box[3] * PX_PER_H) == 16  # the top half alone
    mended = find_glyphs(_patch(gap=True), RANK_BOX, join=True)
    assert mended is not None
    rank, suit = mended
    assert round(rank.box[1] * PX_PER_H) == 8 and round(rank.box[3] * PX_PER_H) == 27
    assert round(suit.box[1] * PX_PER_H) == 32 and round(suit.box[3] * PX_PER_H) == 42
