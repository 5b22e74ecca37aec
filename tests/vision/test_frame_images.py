"""The corner search reuses frame-sized images between frames, and finds all junctions in one pass:
neither may change what a caller sees."""

from __future__ import annotations

import weakref

import cv2
import numpy as np

from dealerassist.vision.candidates import find_candidates
from dealerassist.vision.edge_junctions import edge_junctions
from dealerassist.vision.index_window import sampling_image
from dealerassist.vision.outline_corners import outline_polygon
from dealerassist.vision.paper import blob_outlines, card_mask, frame_image

from .conftest import lay_cards

SHAPE = (72, 128)


def test_a_frame_image_is_handed_out_again_only_once_nothing_holds_it() -> None:
    first = frame_image(SHAPE)
    held = frame_image(SHAPE)
    assert held is not first
    seen = weakref.ref(first)
    del first
    assert frame_image(SHAPE) is seen()  # let go: reused
    band = held[10:20]  # a view keeps its image held
    seen = weakref.ref(held)
    del held
    again = frame_image(SHAPE)
    assert again is not seen() and not np.shares_memory(again, band)
    assert frame_image((SHAPE[0] + 1, SHAPE[1])).shape == (SHAPE[0] + 1, SHAPE[1])


def test_a_kept_frame_geometry_is_not_overwritten_by_the_next_frame(design) -> None:
    fan = lay_cards(design, [("QC", (500, 360), 0, True), ("7H", (540, 370), 8, True)])
    other = lay_cards(design, [("AS", (300, 200), 30, True)], felt=(120, 40, 40))
    kept = find_candidates(fan, 1.4)
    gray, filled, mask = kept.gray.copy(), kept.filled.copy(), card_mask(fan)
    mask_copy = mask.copy()
    later = find_candidates(other, 1.4)
    card_mask(other)
    assert later.gray is not kept.gray and later.filled is not kept.filled
    assert np.array_equal(kept.gray, gray) and np.array_equal(kept.filled, filled)
    assert np.array_equal(mask, mask_copy) and mask.any()


def test_junctions_of_all_outlines_at_once_are_those_of_each_outline(design) -> None:
    frame = lay_cards(
        design,
        [
            ("QC", (300, 300), 0, True),
            ("7H", (340, 310), 10, True),  # a fan: its corners meet the card below's edges
            ("2D", (900, 400), -20, True),
            ("KS", (940, 420), -5, False),
        ],
    )
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    outlines = blob_outlines(card_mask(frame))
    filled = np.zeros_like(gray)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    assert len(outlines) == 2
    polygons = [outline_polygon(outline) for outline in outlines]
    together = edge_junctions(gray, filled, outlines, polygons)
    alone = [edge_junctions(gray, filled, [o], [p])[0] for o, p in zip(outlines, polygons, strict=True)]
    assert sum(len(found) for found in together) > 0
    for blob, (joint, single) in enumerate(zip(together, alone, strict=True)):
        assert len(joint) == len(single)
        for a, b in zip(joint, single, strict=True):
            assert a.blob == blob and np.array_equal(a.point, b.point)
            assert np.array_equal(a.x_axis, b.x_axis) and np.array_equal(a.y_axis, b.y_axis)
    assert edge_junctions(gray, filled, [], []) == []


def test_a_frame_and_its_sampling_image_give_the_same_corner_search(design) -> None:
    """The reader searches the BGRA image it samples windows from; it must find what the frame shows."""
    frame = lay_cards(
        design,
        [("QC", (300, 300), 0, True), ("7H", (340, 310), 10, True), ("KS", (900, 420), -25, False)],
        felt=(40, 110, 30),
    )
    bgra = sampling_image(frame)
    assert bgra.shape[2] == 4
    assert np.array_equal(card_mask(bgra), card_mask(frame)) and card_mask(frame).any()
    from_bgr, from_bgra = find_candidates(frame, 1.4), find_candidates(bgra, 1.4)
    assert np.array_equal(from_bgra.gray, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert np.array_equal(from_bgra.gray, from_bgr.gray) and np.array_equal(from_bgra.filled, from_bgr.filled)
    assert len(from_bgra.candidates) == len(from_bgr.candidates) > 0
    for a, b in zip(from_bgra.candidates, from_bgr.candidates, strict=True):
        assert a.source == b.source and a.heights == b.heights
        assert np.array_equal(a.corner.point, b.corner.point)
        assert np.array_equal(a.corner.x_axis, b.corner.x_axis)
