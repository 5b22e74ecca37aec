"""Find the paper on the felt, whatever its colour and however the light falls.

Cards are paper: brighter than the felt around them and without its tint. The felt's own
brightness is estimated at low resolution (an opening wipes the cards out of it), so a lighting
gradient divides away. Touching and fanned cards merge into one blob, whose outline the corner
finders follow.
"""

from __future__ import annotations

import sys
import threading

import cv2
import numpy as np

from dealerassist.vision.index_window import sampling_image

MIN_BLOB_AREA = 900  # px: a smaller blob is no card
_SPECKLE = np.ones((3, 3), np.uint8)
_MEND = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
# Wider than any card at an eighth of the frame's size: the opening leaves only the felt.
_FELT_OPENING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (35, 35))
_FELT_SIGMA = 4.0  # the felt level's blur, in eighths of the frame
# Paper is at least this much brighter than the felt under the same light, and at least half as
# bright again; its brightest channel differs from its darkest by less than this share of it.
BRIGHTER_BY = 45
BRIGHTER_TIMES = 1.5
COLOUR_SHARE = 0.38
# Opening then closing reaches 1 + 2 pixels out from the paper, and the closing's erosion looks 2 further.
_CLEANUP_REACH = 5
_POOL = threading.local()
# Frame-sized images kept per thread for reuse: card_mask's seven, the candidate search's grey and
# paper, and those of the frame before, which the reader may still hold.
_POOL_SIZE = 12


def _reference_counts(images: list[np.ndarray]) -> list[int]:
    return [sys.getrefcount(image) for image in images]


# The count of an image held by nothing but the pool, measured here: interpreters count differently.
_UNHELD = _reference_counts([np.empty(1, np.uint8)])[0]


def frame_image(shape: tuple[int, int]) -> np.ndarray:
    """A uint8 image of ``shape`` with undefined contents: one from an earlier frame that nothing
    holds any more (not even a view of it), or a new one; a fresh frame-sized image costs more to
    fault into memory than the step that fills it."""
    pool = getattr(_POOL, "images", None)
    if pool is None:
        pool = _POOL.images = []
    unheld = [count == _UNHELD for count in _reference_counts(pool)]
    for image, free in zip(pool, unheld, strict=True):
        if free and image.shape == shape:
            return image
    # Free images of another shape make room: a camera's frames keep one shape.
    pool[:] = [image for image, free in zip(pool, unheld, strict=True) if not free]
    image = np.empty(shape, np.uint8)
    if len(pool) < _POOL_SIZE:
        pool.append(image)
    return image


def paper_against_felt(
    darkest: np.ndarray, brightest: np.ndarray, felt: np.ndarray, paper: np.ndarray
) -> tuple[int, int, int, int]:
    """255 in ``paper`` where a pixel's ``darkest`` and ``brightest`` channels make it paper over
    the ``felt`` brightness (at a lower resolution, blown up to the frame's), 0 elsewhere; returns
    the box round the paper: x, y, width, height (all 0 if none)."""
    h, w = darkest.shape
    felt = cv2.resize(felt, (w, h), interpolation=cv2.INTER_LINEAR)
    needed = cv2.max(cv2.add(felt, BRIGHTER_BY), cv2.convertScaleAbs(felt, alpha=BRIGHTER_TIMES))
    tint = cv2.subtract(brightest, darkest)
    pale = cv2.compare(tint, cv2.convertScaleAbs(brightest, alpha=COLOUR_SHARE), cv2.CMP_LT, dst=tint)
    bright = cv2.compare(darkest, needed, cv2.CMP_GT, dst=needed)
    cv2.bitwise_and(bright, pale, dst=paper)
    return cv2.boundingRect(paper)


def card_mask(frame: np.ndarray, gray: np.ndarray | None = None) -> np.ndarray:
    """255 where a pixel looks like card paper (face or the white border of a back), in a BGR frame
    or its BGRA ``sampling_image``, in a ``frame_image``; with ``gray``, the frame's grey written
    there too (``cv2.cvtColor``'s, to the bit)."""
    h, w = frame.shape[:2]
    darkest, brightest, paper, blue, green, red = (frame_image((h, w)) for _ in range(6))
    frame = sampling_image(frame)  # as given when it is one already
    cv2.split(frame, [blue, green, red, paper])  # the fourth channel is not read: paper is made later
    cv2.min(cv2.min(blue, green, dst=darkest), red, dst=darkest)
    cv2.max(cv2.max(blue, green, dst=brightest), red, dst=brightest)
    if gray is not None:
        cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY, dst=gray)
    small = cv2.resize(darkest, (w // 8, h // 8), interpolation=cv2.INTER_AREA)
    felt = cv2.GaussianBlur(cv2.morphologyEx(small, cv2.MORPH_OPEN, _FELT_OPENING), (0, 0), _FELT_SIGMA)
    x, y, box_w, box_h = paper_against_felt(darkest, brightest, felt, paper)
    # The clean-up only changes pixels within a few of some paper: it runs on the box round the paper.
    cleaned = frame_image((h, w))
    cleaned.fill(0)
    if box_w == 0:
        return cleaned
    x0, y0 = max(x - _CLEANUP_REACH, 0), max(y - _CLEANUP_REACH, 0)
    x1, y1 = min(x + box_w + _CLEANUP_REACH, w), min(y + box_h + _CLEANUP_REACH, h)
    despeckled = cv2.morphologyEx(paper[y0:y1, x0:x1], cv2.MORPH_OPEN, _SPECKLE, dst=brightest[y0:y1, x0:x1])
    # Index ink printed close to the edge can cut the thin white margin; closing mends the outline.
    cv2.morphologyEx(despeckled, cv2.MORPH_CLOSE, _MEND, dst=cleaned[y0:y1, x0:x1])
    return cleaned


def blob_outlines(mask: np.ndarray) -> list[np.ndarray]:
    """The outer outlines of the paper's blobs that are large enough to be cards."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in contours if cv2.contourArea(c) >= MIN_BLOB_AREA]
