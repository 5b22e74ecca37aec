"""Find a card corner's printed index: where the rank and the suit below it are.

Enrollment runs it on each clean card image to learn where a design prints its index, which
sets the window the index classifier looks at. All geometry is in card heights ``H``: the patch
covers ``PATCH_SPAN`` of the card from the corner, sampled at ``PX_PER_H`` pixels per H.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

PX_PER_H = 200.0
PATCH_SPAN = (0.30, 0.50)  # across, down (in card heights)
PATCH_SIZE = (round(PATCH_SPAN[0] * PX_PER_H), round(PATCH_SPAN[1] * PX_PER_H))
MIN_GLYPH_PX = 10  # ink pixels in the patch below which a blob is dirt
EDGE_BAND = 8  # patch pixels along the top and left edges searched for a printed border line

# Where a rank is looked for, the design not yet known: the first blob starting in this box (card
# heights), widened by RANK_SLACK of its size each way, which absorbs the designs' differences.
RANK_SEARCH = (0.0, 0.0, 0.16, 0.16)
RANK_SLACK = 1.0

Box = tuple[float, float, float, float]  # a glyph's x0, y0, x1, y1 in card heights from the corner


class Blob(NamedTuple):
    """A connected part of a patch's ink, in patch pixels; blobs sort top to bottom, then left to right."""

    top: int
    left: int
    right: int
    bottom: int
    label: int  # in the connected-components image


def corner_region(
    image: np.ndarray,
    corner: np.ndarray,
    x_axis: np.ndarray,
    y_axis: np.ndarray,
    steps: tuple[float, float],
    size: tuple[int, int],
) -> np.ndarray:
    """The region inside a card's ``corner`` sampled into ``size`` (width, height) pixels,
    ``steps`` (across, down) image pixels apart along the unit axes of the card's edges."""
    across, down = steps
    matrix = np.array(
        [[x_axis[0] * across, y_axis[0] * down, corner[0]], [x_axis[1] * across, y_axis[1] * down, corner[1]]]
    )
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpAffine(image, matrix, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)


def corner_ink(
    image: np.ndarray, corner: np.ndarray, x_axis: np.ndarray, y_axis: np.ndarray, height_px: float
) -> np.ndarray:
    """The ``ink_map`` of a card corner's ``PATCH_SPAN``, for a card ``height_px`` high."""
    step = height_px / PX_PER_H
    return ink_map(corner_region(image, corner, x_axis, y_axis, (step, step), PATCH_SIZE))


def ink_map(bgr: np.ndarray) -> np.ndarray:
    """Ink strength (0 paper .. 1 full ink) against the patch's own paper white, so felt colour and
    light cancel out."""
    blue, green, red = cv2.split(bgr)
    darkest = cv2.min(cv2.min(blue, green), red)
    flat = darkest[::2, ::2].ravel()  # every fourth pixel is plenty for the paper level
    k = int(0.9 * (flat.size - 1))
    paper = float(np.partition(flat, k)[k])
    if paper < 40.0:
        return np.zeros(darkest.shape, np.float32)
    return cv2.max(1.0 - darkest.astype(np.float32) * (1.0 / paper), 0.0)


def find_glyphs(ink: np.ndarray) -> tuple[Box, Box] | None:
    """The boxes of rank and suit in a corner's ``ink_map``, or None when it holds no index."""
    level = _ink_threshold(ink)
    if level is None:
        return None
    mask = (ink > level).astype(np.uint8)
    # Many designs draw a border line just inside the card edge; where print comes close it would join
    # the index to the patch edge. Lines running the length of the patch along its edges are erased.
    # What lies beyond such a line (felt in the rounded corner) counts as off the card: the new edge.
    line_cols = np.flatnonzero(mask[:, :EDGE_BAND].mean(axis=0) > 0.6)
    line_rows = np.flatnonzero(mask[:EDGE_BAND, :].mean(axis=1) > 0.6)
    left = int(line_cols.max()) + 1 if len(line_cols) else 0
    top = int(line_rows.max()) + 1 if len(line_rows) else 0
    mask[:, :left] = 0
    mask[:top, :] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    blobs = []
    cut_off = []  # ink cut by the patch's left or top edge: print that started before this "corner"
    rows = stats.tolist()  # plain ints: a few hundred parts per patch are walked in Python
    for i in range(1, count):
        x, y, bw, bh, area = rows[i]
        if area < MIN_GLYPH_PX:
            continue
        # Print may touch an erased border line (small cards): only the patch's own edge cuts it off.
        at_left = x == 0 if left == 0 else x < left or (x == left and y <= top)
        at_top = y == 0 if top == 0 else y < top or (y == top and x <= left)
        if at_left or at_top or x + bw >= w or y + bh >= h:
            lone_edge = at_left != at_top  # not the felt in the rounded corner itself
            if lone_edge and min(bw, bh) > 3 and bh < 0.6 * h and bw < 0.6 * w:
                cut_off.append(Blob(y, x, x + bw, y + bh, i))
            continue
        blobs.append(Blob(y, x, x + bw, y + bh, i))
    blobs.sort()
    rx0, ry0, rx1, ry1 = (v * PX_PER_H for v in RANK_SEARCH)
    rank_w, rank_h = rx1 - rx0, ry1 - ry0
    lo_x, hi_x = rx0 - RANK_SLACK * rank_w - 4, rx1 + RANK_SLACK * rank_w + 4
    lo_y, hi_y = ry0 - RANK_SLACK * rank_h - 4, ry0 + RANK_SLACK * rank_h + 4
    first = next((b for b in blobs if lo_x <= b.left <= hi_x and lo_y <= b.top <= hi_y), None)
    if first is None:
        return None
    # A rank can be several blobs ("10"): everything starting level with the first blob and close to it.
    height = first.bottom - first.top
    group = [first] + [
        b
        for b in blobs
        if b is not first
        and abs(b.top - first.top) <= 0.25 * height + 2
        and b.left <= first.right + 0.6 * height
        and b.right <= hi_x + rank_w
    ]
    gx0, gy0, gx1, gy1 = _bounds(group)
    if gy1 - gy0 < 6:
        return None
    below = [
        b
        for b in blobs
        if b.top >= gy1 - 1
        and b.left < gx1 + 2
        and b.right > gx0 - 2
        and b.top - gy1 <= 0.8 * (gy1 - gy0) + 3
    ]
    if not below:
        if gx1 - gx0 > 1.5 * rank_w or not _margin_clear(blobs + cut_off, group, gx0, gy0, gx1, gy1):
            return None
        return _split_merged(labels, count, [b.label for b in group], (gx0, gy0, gx1, gy1), rank_h)
    suit = below[0]
    suit_group = [
        b
        for b in below
        if b.top <= suit.bottom and abs(b.top - suit.top) <= 0.3 * (suit.bottom - suit.top) + 2
    ]
    sx0, sy0, sx1, sy1 = _bounds(suit_group)
    if sy1 - sy0 < 5:
        return None
    # An index sits in the corner with nothing but paper between it and the card's edges; ink there
    # means this is not the card's corner (a junction inside another card).
    if not _margin_clear(blobs + cut_off, group + suit_group, gx0, gy0, gx1, sy1):
        return None
    return _in_card_heights((gx0, gy0, gx1, gy1)), _in_card_heights((sx0, sy0, sx1, sy1))


def _bounds(blobs: list[Blob]) -> tuple[int, int, int, int]:
    """The box round ``blobs``: x0, y0, x1, y1."""
    tops, lefts, rights, bottoms, _ = zip(*blobs, strict=True)
    return min(lefts), min(tops), max(rights), max(bottoms)


def _margin_clear(blobs: list[Blob], index: list[Blob], x0: int, y0: int, x1: int, y1: int) -> bool:
    """No ink but the ``index`` blobs between the index (x0, y0, x1, y1) and the card's top and
    side edges."""
    used = {b.label for b in index}
    return not any(
        b.label not in used and b.top < y1 and (b.right <= x0 + 1 or b.bottom <= y0 + 1) and b.left < x1
        for b in blobs
    )


def _split_merged(
    labels: np.ndarray,
    count: int,
    ids: list[int],
    box: tuple[int, int, int, int],
    rank_h: float,
) -> tuple[Box, Box] | None:
    """Small or blurred print can join rank and suit into one blob: cut it at its thinnest row."""
    x0, y0, x1, y1 = box
    if y1 - y0 < 1.6 * rank_h:
        return None
    member = np.isin(labels[y0:y1, x0:x1], ids)
    rows = member.sum(axis=1)
    lo, hi = round(0.7 * rank_h), min(round(1.35 * rank_h), y1 - y0 - 4)
    if hi <= lo:
        return None
    cut = y0 + lo + int(np.argmin(rows[lo:hi]))
    split = labels.copy()
    lower = split[cut:y1, x0:x1]
    lower[np.isin(lower, ids)] = count
    parts = []
    for part_ids, top, bottom in ((ids, y0, cut), ([count], cut, y1)):
        ys, xs = np.nonzero(np.isin(split[top:bottom, x0:x1], part_ids))
        if len(ys) < MIN_GLYPH_PX:
            return None
        parts.append(
            (x0 + int(xs.min()), top + int(ys.min()), x0 + int(xs.max()) + 1, top + int(ys.max()) + 1)
        )
    rank_box, suit_box = parts
    if suit_box[3] - suit_box[1] < 5:
        return None
    return _in_card_heights(rank_box), _in_card_heights(suit_box)


def _ink_threshold(ink: np.ndarray) -> float | None:
    """Otsu level between paper and ink, or None when the patch is blank paper."""
    peak = float(ink.max())
    if peak < 0.25:
        return None
    scaled = np.clip(ink * 255.0, 0, 255).astype(np.uint8)
    level, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return float(np.clip(0.6 * level / 255.0, 0.15, 0.3))


def _in_card_heights(box: tuple[int, int, int, int]) -> Box:
    x0, y0, x1, y1 = box
    return x0 / PX_PER_H, y0 / PX_PER_H, x1 / PX_PER_H, y1 / PX_PER_H
