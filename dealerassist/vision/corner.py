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
# A rank's size in patch pixels before the design is known (0.16 H). The designs differ by up to
# that much in where they start it, so the rank is the first blob starting within twice it across
# and once it down (4 pixels more for blur).
RANK_PX = 0.16 * PX_PER_H

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
    labels, blobs, cut_off = _blobs((ink > level).astype(np.uint8))
    first = next((b for b in blobs if b.left <= 2 * RANK_PX + 4 and b.top <= RANK_PX + 4), None)
    if first is None:
        return None
    # A rank can be several blobs ("10"): everything starting level with the first blob and close to it.
    height = first.bottom - first.top
    rank = [first] + [
        b
        for b in blobs
        if b is not first
        and abs(b.top - first.top) <= 0.25 * height + 2
        and b.left <= first.right + 0.6 * height
        and b.right <= 3 * RANK_PX + 4
    ]
    gx0, gy0, gx1, gy1 = _bounds(rank)
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
        if gx1 - gx0 > 1.5 * RANK_PX or not _margin_clear(blobs + cut_off, rank, gx0, gy0, gx1, gy1):
            return None
        return _split_merged(labels, [b.label for b in rank], (gx0, gy0, gx1, gy1))
    top = below[0]
    suit = [
        b for b in below if b.top <= top.bottom and abs(b.top - top.top) <= 0.3 * (top.bottom - top.top) + 2
    ]
    sx0, sy0, sx1, sy1 = _bounds(suit)
    if sy1 - sy0 < 5:
        return None
    # An index sits in the corner with nothing but paper between it and the card's edges; ink there
    # means this is not the card's corner (a junction inside another card).
    if not _margin_clear(blobs + cut_off, rank + suit, gx0, gy0, gx1, sy1):
        return None
    return _in_card_heights((gx0, gy0, gx1, gy1)), _in_card_heights((sx0, sy0, sx1, sy1))


def _blobs(mask: np.ndarray) -> tuple[np.ndarray, list[Blob], list[Blob]]:
    """The connected-components image of an ink ``mask``, its blobs clear of the patch's edges in
    reading order, and the blobs its left or top edge cuts (print that started before this corner).

    Many designs draw a border line just inside the card edge; where print comes close it would join
    the index to the patch edge, so lines running the patch's length along its top and left are
    erased, and what lies beyond one (felt in the rounded corner) counts as off the card.
    """
    line_cols = np.flatnonzero(mask[:, :EDGE_BAND].mean(axis=0) > 0.6)
    line_rows = np.flatnonzero(mask[:EDGE_BAND, :].mean(axis=1) > 0.6)
    left = int(line_cols.max()) + 1 if len(line_cols) else 0
    top = int(line_rows.max()) + 1 if len(line_rows) else 0
    mask[:, :left] = 0
    mask[:top, :] = 0
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    blobs, cut_off = [], []
    for i, (x, y, bw, bh, area) in enumerate(stats.tolist()[1:], start=1):  # plain ints: a Python walk
        if area < MIN_GLYPH_PX:
            continue
        # Print may touch an erased border line (small cards): only the patch's own edge cuts it off.
        at_left = x == 0 if left == 0 else x < left or (x == left and y <= top)
        at_top = y == 0 if top == 0 else y < top or (y == top and x <= left)
        blob = Blob(y, x, x + bw, y + bh, i)
        if not (at_left or at_top or x + bw >= w or y + bh >= h):
            blobs.append(blob)
        elif at_left != at_top and min(bw, bh) > 3 and bh < 0.6 * h and bw < 0.6 * w:
            cut_off.append(blob)  # cut by one edge only: not the felt in the rounded corner itself
    return labels, sorted(blobs), cut_off


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
    labels: np.ndarray, ids: list[int], box: tuple[int, int, int, int]
) -> tuple[Box, Box] | None:
    """Small or blurred print can join rank and suit into one blob: cut it at its thinnest row."""
    x0, y0, x1, y1 = box
    if y1 - y0 < 1.6 * RANK_PX:
        return None
    member = np.isin(labels[y0:y1, x0:x1], ids)
    lo, hi = round(0.7 * RANK_PX), min(round(1.35 * RANK_PX), y1 - y0 - 4)
    if hi <= lo:
        return None
    cut = lo + int(np.argmin(member.sum(axis=1)[lo:hi]))
    parts = []
    for top, part in ((y0, member[:cut]), (y0 + cut, member[cut:])):
        ys, xs = np.nonzero(part)
        if len(ys) < MIN_GLYPH_PX:
            return None
        parts.append(
            (x0 + int(xs.min()), top + int(ys.min()), x0 + int(xs.max()) + 1, top + int(ys.max()) + 1)
        )
    rank, suit = parts
    if suit[3] - suit[1] < 5:
        return None
    return _in_card_heights(rank), _in_card_heights(suit)


def _ink_threshold(ink: np.ndarray) -> float | None:
    """Otsu level between paper and ink, or None when the patch is blank paper."""
    if float(ink.max()) < 0.25:
        return None
    scaled = np.clip(ink * 255.0, 0, 255).astype(np.uint8)
    level, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return float(np.clip(0.6 * level / 255.0, 0.15, 0.3))


def _in_card_heights(box: tuple[int, int, int, int]) -> Box:
    x0, y0, x1, y1 = box
    return x0 / PX_PER_H, y0 / PX_PER_H, x1 / PX_PER_H, y1 / PX_PER_H
