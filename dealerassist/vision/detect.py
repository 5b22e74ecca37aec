"""Find card corners on the felt, whatever its colour and however the light falls.

Cards are paper: brighter than the felt around them and without its tint. The felt's own
brightness is estimated at low resolution (an opening wipes the cards out of it), so a lighting
gradient divides away. Touching and fanned cards merge into one blob; every outer right-angle
corner of a blob is a candidate card corner, and how far a card-shaped quad can grow from it
inside the blob tells the card's size.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from dealerassist.compiled import compiled
from dealerassist.vision.indexnet import sampling_image

MIN_EDGE_PX = 7.0
MIN_BLOB_AREA = 900
MAX_CARD_HEIGHT = 360.0
MIN_CARD_HEIGHT = 45.0


@dataclass(frozen=True)
class Corner:
    """An outer card corner: the point and the unit edge directions (x across, y down the card)."""

    point: np.ndarray
    x_axis: np.ndarray
    y_axis: np.ndarray
    blob: int


def corner_arrays(corners: Sequence[Corner]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The corners' points, x axes and y axes as (k, 2) arrays: how the batched steps take them."""
    return (
        np.array([c.point for c in corners], float).reshape(-1, 2),
        np.array([c.x_axis for c in corners], float).reshape(-1, 2),
        np.array([c.y_axis for c in corners], float).reshape(-1, 2),
    )


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


_SCRATCH = threading.local()


def _scratch_planes(shape: tuple[int, int]) -> list[np.ndarray]:
    """Four frame-sized working images kept from frame to frame (per thread).

    A fresh frame-sized image costs more to fault into memory than the step that fills it; the
    working images never leave ``card_mask``, so reusing them changes nothing.
    """
    planes = getattr(_SCRATCH, "planes", None)
    if planes is None or planes[0].shape != shape:
        planes = [np.empty(shape, np.uint8) for _ in range(4)]
        _SCRATCH.planes = planes
    return planes


_POOL = threading.local()
_POOL_SIZE = 8  # frame-sized images kept per thread for reuse


def _reference_counts(images: list[np.ndarray]) -> list[int]:
    return [sys.getrefcount(image) for image in images]


# The count of an image held by nothing but the pool, measured here: interpreters count differently.
_UNHELD = _reference_counts([np.empty(1, np.uint8)])[0]


def frame_image(shape: tuple[int, int]) -> np.ndarray:
    """A uint8 image of ``shape`` with undefined contents: one from an earlier frame that nothing
    holds any more (not even a view of it), or a new one.

    A fresh frame-sized image costs more to fault into memory than the step that fills it: the
    three a frame's corner search returns cost about 2 ms a frame when new.
    """
    pool = getattr(_POOL, "images", None)
    if pool is None:
        pool = _POOL.images = []
    for image, count in zip(pool, _reference_counts(pool), strict=True):
        if count == _UNHELD and image.shape == shape:
            return image
    image = np.empty(shape, np.uint8)
    if len(pool) < _POOL_SIZE:
        pool.append(image)
    return image


def paper_against_felt(
    darkest: np.ndarray, brightest: np.ndarray, felt: np.ndarray, paper: np.ndarray
) -> tuple[int, int, int, int]:
    """255 in ``paper`` where a pixel's ``darkest`` and ``brightest`` channels make it paper over
    the ``felt`` brightness (at a lower resolution, blown up to the frame's), 0 elsewhere; and
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
    """255 where a pixel looks like card paper (face or the white border of a back), in a BGR
    frame or its BGRA ``sampling_image`` (the reader's: one conversion serves both); with
    ``gray``, the frame's grey written there too (``cv2.cvtColor``'s, to the bit).

    Every full-frame step writes into a working image already made (see ``_scratch_planes``), and
    the returned mask is one no earlier caller still holds (see ``frame_image``).
    """
    h, w = frame.shape[:2]
    darkest, brightest, paper, unwanted_gray = _scratch_planes((h, w))
    frame = sampling_image(frame)  # as given when it is one already
    small = np.empty((h // 8, w // 8), np.uint8)
    pixels = np.ascontiguousarray(frame).view(np.uint32)[..., 0]
    _extremes(pixels, darkest, brightest, unwanted_gray if gray is None else gray, small)
    if h % 8 or w % 8:  # cv2's mean of whole 8x8 blocks, as ``_extremes`` takes it, needs whole blocks
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


# cv2.cvtColor's grey of 8-bit colour: weights in 15-bit fixed point, rounded to nearest (checked
# against OpenCV for every one of the 2^24 colours by the tests).
_GRAY_WEIGHTS = (3735, 19235, 9798)  # blue, green, red
_GRAY_SHIFT = 15


@compiled()
def _extremes(
    pixels: np.ndarray, darkest: np.ndarray, brightest: np.ndarray, gray: np.ndarray, means: np.ndarray
) -> None:
    """Each pixel's darkest and brightest channel and its grey, and the darkest channel's mean
    over each whole 8x8 block (rounded half to even, as ``cv2.resize(INTER_AREA)`` rounds it), in
    one pass.

    ``pixels`` is a BGRA image seen as one 32-bit word a pixel: blue in the low byte (every
    processor the reader runs on keeps the low byte first). Read so, the pass takes about a third
    of the time of splitting the channels, comparing them in four more passes and converting the
    frame to grey.
    """
    h, w = darkest.shape
    # Worked in 32-bit integers throughout (numba's arithmetic widens to 64 bits unless told):
    # the compiler then does twice as many pixels an instruction.
    to_blue, to_green, to_red = (
        np.int32(_GRAY_WEIGHTS[0]),
        np.int32(_GRAY_WEIGHTS[1]),
        np.int32(_GRAY_WEIGHTS[2]),
    )
    half = np.int32(1 << (_GRAY_SHIFT - 1))
    sums = np.zeros(w // 8, np.int32)
    for y in range(h):
        row, row_darkest, row_brightest, row_gray = pixels[y], darkest[y], brightest[y], gray[y]
        for x in range(w):
            pixel = np.int32(row[x] & np.uint32(0xFFFFFF))  # the fourth byte is not read
            blue, green, red = np.int32(pixel & 255), np.int32((pixel >> 8) & 255), np.int32(pixel >> 16)
            row_darkest[x] = min(min(blue, green), red)
            row_brightest[x] = max(max(blue, green), red)
            weighted = np.int32(
                np.int32(blue * to_blue) + np.int32(green * to_green) + np.int32(red * to_red)
            )
            row_gray[x] = np.int32(np.int32(weighted + half) >> _GRAY_SHIFT)
        for block in range(w // 8):
            total = np.int32(0)
            for k in range(8):
                total += np.int32(row_darkest[8 * block + k])
            sums[block] += total
        if y % 8 == 7:
            for block in range(w // 8):
                means[y // 8, block] = np.uint8(np.rint(sums[block] / 64.0))
                sums[block] = 0


def blob_outlines(mask: np.ndarray) -> list[np.ndarray]:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in contours if cv2.contourArea(c) >= MIN_BLOB_AREA]


def following(items: np.ndarray) -> np.ndarray:
    """Each item's successor round a closed outline (``np.roll(items, -1, axis=0)``, cheaper)."""
    return np.concatenate([items[1:], items[:1]])


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to length 1 (a zero vector stays zero)."""
    return v / max(float(np.hypot(v[0], v[1])), 1e-9)


def turned(v: np.ndarray, angle: np.ndarray | float) -> np.ndarray:
    """Directions (x, y on the last axis) turned by ``angle`` radians, each by its own where
    ``angle`` holds one a direction."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


# An outline point further than STRAY_PX from a fitted line is taken for another edge's (a fan's
# next card, a corner's rounding) and does not pull on the line at all; nearer ones pull less the
# further they lie (Tukey's biweight).
STRAY_PX = 2.0


@compiled()
def _line_from(points: np.ndarray, first: int, last: int) -> tuple[float, float, float, int]:
    """The line through ``points[first:last]`` by least squares, then reweighted over all the
    points until it stops moving: its direction, the points' distances summed (each at most
    STRAY_PX), and how many lie STRAY_PX or further off."""
    n = points.shape[0]
    weight = np.zeros(n)
    weight[first:last] = 1.0
    vx, vy, cx, cy = 1.0, 0.0, 0.0, 0.0
    for step in range(30):
        total = mx = my = 0.0
        for i in range(n):
            total += weight[i]
            mx += weight[i] * points[i, 0]
            my += weight[i] * points[i, 1]
        if total <= 0.0:  # every point strays from the last line: keep it
            break
        mx /= total
        my /= total
        sxx = syy = sxy = 0.0
        for i in range(n):
            dx, dy = points[i, 0] - mx, points[i, 1] - my
            sxx += weight[i] * dx * dx
            syy += weight[i] * dy * dy
            sxy += weight[i] * dx * dy
        angle = 0.5 * np.arctan2(2.0 * sxy, sxx - syy)
        nx, ny = np.cos(angle), np.sin(angle)
        settled = abs(nx * vy - ny * vx) < 1e-6 and abs((mx - cx) * ny - (my - cy) * nx) < 1e-6
        vx, vy, cx, cy = nx, ny, mx, my
        if step > 0 and settled:
            break
        for i in range(n):
            off = abs((points[i, 0] - cx) * vy - (points[i, 1] - cy) * vx) / STRAY_PX
            weight[i] = (1.0 - off * off) ** 2 if off < 1.0 else 0.0
    loss, strays = 0.0, 0
    for i in range(n):
        off = abs((points[i, 0] - cx) * vy - (points[i, 1] - cy) * vx)
        loss += min(off, STRAY_PX)
        strays += off >= STRAY_PX
    return vx, vy, loss, strays


@compiled()
def _fitted_direction(points: np.ndarray) -> tuple[float, float]:
    """Direction of the line most of some outline points lie along, whatever a few strays do.

    Reweighting is fitted from the line through all the points; where some then lie off it, also
    from each half and from the middle half, and the line with the least loss is kept (the
    strays' side may have pulled the first start over to them). ``cv2.fitLine(DIST_HUBER)``
    costs ten times as much, and Huber's loss lets every stray keep a share of the pull.
    """
    n = points.shape[0]
    vx, vy, least, strays = _line_from(points, 0, n)
    if strays:
        for first, last in ((0, n // 2 + 1), (n // 2, n), (n // 4, n - n // 4)):
            x, y, loss, _ = _line_from(points, first, last)
            if loss < least:
                vx, vy, least = x, y, loss
    return vx, vy


@compiled()
def _local_directions(
    pts: np.ndarray, indices: np.ndarray, spans: np.ndarray, forward: np.ndarray, asked: np.ndarray
) -> np.ndarray:
    """Direction of the outline ``pts`` leaving each of ``indices`` (forward or backward), each
    fitted over its ``spans`` points: (k, 2), NaN where not ``asked``.

    Only the stretch next to the corner counts: in a fan the same outline edge goes on along other
    cards, which need not be in line with this one.
    """
    n = len(pts)
    found = np.full((len(indices), 2), np.nan)
    for k in range(len(indices)):
        if not asked[k]:
            continue
        index, reach = indices[k], max(spans[k], 12)
        if forward[k] and index + reach <= n:
            near = pts[index + 7 : index + reach]
        elif not forward[k] and index - reach >= 0:
            near = pts[index - 7 : index - reach : -1]
        else:  # the stretch wraps round the start of the outline
            near = np.empty((reach - 7, 2), pts.dtype)
            for j in range(reach - 7):
                near[j] = pts[(index + 7 + j) % n if forward[k] else (index - 7 - j) % n]
        vx, vy = _fitted_direction(near)
        tx, ty = near[-1, 0] - near[0, 0], near[-1, 1] - near[0, 1]
        found[k, 0], found[k, 1] = (vx, vy) if vx * tx + vy * ty > 0 else (-vx, -vy)
    return found


SHORT_ARM = 14
# A print touching a card's edge at its corner (an index set close to a dark border) bites a notch
# out of the paper there, and each side of the notch is an edge of its own: a corner's second edge
# may then start up to NOTCH_SIDES long edges further on. Such a corner stands where the notch
# lies inside it (within NOTCH_INSIDE px) and no corner of two neighbouring edges lies within
# NOTCH_APART px (a rounded corner cut into short edges already gives that one).
NOTCH_SIDES = 2
NOTCH_INSIDE = 1.5
NOTCH_APART = 6.0
# Two edges meet in a corner when they end at most CORNER_GAP px apart. The outline's polygon cuts
# a large card's rounded corner into up to ROUNDED_CHORDS chords, whose ends can lie further apart;
# with notches, two edges also meet across them when their gap is at most ROUNDED_GAP of the
# shorter edge and the outline between lies inside the corner, as a notch must (within
# ROUNDED_INSIDE px: the chords' ends and the edges' starts are the polygon's vertices, each up to
# its 2 px off the outline).
CORNER_GAP = 14.0
ROUNDED_GAP = 0.3
ROUNDED_CHORDS = 3
ROUNDED_INSIDE = 4.0


@compiled()
def _paired_corners(
    a0s: np.ndarray,
    a1s: np.ndarray,
    b0s: np.ndarray,
    b1s: np.ndarray,
    arms: np.ndarray,
    orientation: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The corner where edge a (``a0s`` to ``a1s``) meets edge b (``b0s`` to ``b1s``) of each pair,
    along the pair's fitted arms (``arms``: edge a's back along it, then every edge b's on along
    it; NaN where too short to fit, and then square to the other arm, leaning the rough edge's
    way): whether it is one (near a right angle, convex as the outline winds: ``orientation``),
    its point, and its x and y axes (arm a, arm b in the order across x down > 0)."""
    count = len(a0s)
    found = np.zeros(count, np.bool_)
    points = np.empty((count, 2))
    x_axes = np.empty((count, 2))
    y_axes = np.empty((count, 2))
    for k in range(count):
        back_x, back_y = arms[k, 0], arms[k, 1]
        ahead_x, ahead_y = arms[k + count, 0], arms[k + count, 1]
        has_back, has_ahead = not np.isnan(back_x), not np.isnan(ahead_x)
        if not (has_back or has_ahead):
            continue
        # A short arm (a card peeking out by a few pixels) is too short to fit: a card is square-cornered.
        if has_back:
            da0, da1 = -back_x, -back_y
        else:
            da0, da1 = _square_to(ahead_x, ahead_y, a1s[k, 0] - a0s[k, 0], a1s[k, 1] - a0s[k, 1])
        if has_ahead:
            db0, db1 = ahead_x, ahead_y
        else:
            db0, db1 = _square_to(da0, da1, b1s[k, 0] - b0s[k, 0], b1s[k, 1] - b0s[k, 1])
        cross = da0 * db1 - da1 * db0
        if abs(cross) < 0.7 or (1.0 if cross > 0 else -1.0) != orientation:
            continue  # not near 90 degrees, or a concave (inner) corner
        t = ((b0s[k, 0] - a0s[k, 0]) * db1 - (b0s[k, 1] - a0s[k, 1]) * db0) / cross
        found[k] = True
        points[k, 0], points[k, 1] = a0s[k, 0] + t * da0, a0s[k, 1] + t * da1
        if (-da0) * db1 - (-da1) * db0 > 0:
            x_axes[k, 0], x_axes[k, 1], y_axes[k, 0], y_axes[k, 1] = -da0, -da1, db0, db1
        else:
            x_axes[k, 0], x_axes[k, 1], y_axes[k, 0], y_axes[k, 1] = db0, db1, -da0, -da1
    return found, points, x_axes, y_axes


@compiled(inline=True)
def _square_to(other_x: float, other_y: float, rough_x: float, rough_y: float) -> tuple[float, float]:
    """The direction at right angles to ``other`` that points the way the rough edge (``rough``,
    made a unit vector first) does."""
    length = max(np.hypot(rough_x, rough_y), 1e-9)
    unit_x, unit_y = rough_x / length, rough_y / length
    px, py = -other_y, other_x
    return (px, py) if px * unit_x + py * unit_y >= 0 else (-px, -py)


def first_visits(contour: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Index of each point's first visit on the outline (an outline may pass a pixel twice).

    The simplified polygon's vertices are outline pixels: each is found by a scan from the
    outline's start (a few dozen points against a few hundred outline pixels, compiled); a point
    off the outline (never seen) gets the nearest outline point, the first of equals.
    """
    return _first_visits(contour.reshape(-1, 2), np.asarray(points, np.float64))


@compiled()
def _first_visits(outline: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``first_visits`` of an (n, 2) outline and (k, 2) whole-pixel points."""
    found = np.empty(len(points), np.int64)
    for k in range(len(points)):
        x, y = np.int64(points[k, 0]), np.int64(points[k, 1])
        found[k] = -1
        for i in range(len(outline)):
            if outline[i, 0] == x and outline[i, 1] == y:
                found[k] = i
                break
        if found[k] < 0:
            nearest = np.inf
            for i in range(len(outline)):
                dx, dy = outline[i, 0] - points[k, 0], outline[i, 1] - points[k, 1]
                if dx * dx + dy * dy < nearest:
                    nearest, found[k] = dx * dx + dy * dy, i
    return found


def outline_polygon(contour: np.ndarray) -> np.ndarray:
    """A blob outline simplified to within 2 px, as (k, 2) vertices: what every corner finder
    starts from, made once per outline by a caller running several of them."""
    return cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2)


def outline_corners(
    contour: np.ndarray, blob: int, polygon: np.ndarray | None = None, notches: bool = True
) -> list[Corner]:
    """Right-angle convex corners of a blob outline, with rounded card corners squared off
    (``polygon``: its ``outline_polygon`` when the caller has it), and with ``notches`` those
    found across a notch (NOTCH_SIDES) or across a large card's rounding (ROUNDED_GAP)."""
    poly = (outline_polygon(contour) if polygon is None else polygon).astype(np.float64)
    n = len(poly)
    if n < 3:
        return []
    nxt = following(poly)
    orientation = np.sign(float(np.sum(poly[:, 0] * nxt[:, 1] - nxt[:, 0] * poly[:, 1])))
    seg = nxt - poly
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    long = np.flatnonzero(lengths >= MIN_EDGE_PX)
    if not len(long):
        return []
    # Edge a is a long edge, edge b the next long one, or one across a notch (NOTCH_SIDES) or a
    # rounding's chords (ROUNDED_CHORDS); a corner needs them close together.
    sides = max(NOTCH_SIDES, ROUNDED_CHORDS) if notches else 0
    ahead_by = np.repeat(np.arange(1, sides + 2), len(long))
    firsts = np.tile(np.arange(len(long)), sides + 1)
    seconds = (firsts + ahead_by) % len(long)
    edge_starts, edge_ends, edge_lengths = poly[long], nxt[long], lengths[long]
    a0s, a1s, a_len = edge_starts[firsts], edge_ends[firsts], edge_lengths[firsts]
    b0s, b1s, b_len = edge_starts[seconds], edge_ends[seconds], edge_lengths[seconds]
    gap = b0s - a1s
    other_edge = (ahead_by == 1) | (ahead_by < len(long))  # a notch's far side is not its first edge
    gap_len = np.hypot(gap[:, 0], gap[:, 1])
    near = (gap_len <= CORNER_GAP) & (ahead_by <= NOTCH_SIDES + 1)
    rounded = (
        (gap_len > CORNER_GAP)
        & (gap_len <= ROUNDED_GAP * np.minimum(a_len, b_len))
        & (ahead_by <= ROUNDED_CHORDS + 1)
        & notches
    )
    pairs = np.flatnonzero((near | rounded) & other_edge)
    if not len(pairs):
        return []
    pts = contour.reshape(-1, 2).astype(np.float32)  # whole pixels: as fitted, made once per outline
    ends = first_visits(contour, np.concatenate([a1s[pairs], b0s[pairs]]))
    # Each corner's arms are fitted back along edge a and on along edge b, all in one call; an arm
    # shorter than SHORT_ARM is too short to fit.
    spans = np.minimum(0.85 * np.concatenate([a_len[pairs], b_len[pairs]]), 30).astype(np.int64)
    forward = np.arange(2 * len(pairs)) >= len(pairs)
    arms = _local_directions(pts, ends, spans, forward, spans >= SHORT_ARM)
    found, points, x_axes, y_axes = _paired_corners(
        a0s[pairs], a1s[pairs], b0s[pairs], b1s[pairs], arms, float(orientation)
    )
    corners: list[Corner] = []
    notches: list[Corner] = []
    pair_list = pairs.tolist()
    for k in np.flatnonzero(found).tolist():
        i, point, x_axis, y_axis = pair_list[k], points[k], x_axes[k], y_axes[k]
        corner = Corner(point=point, x_axis=x_axis, y_axis=y_axis, blob=blob)
        if ahead_by[i] == 1 and not rounded[i]:
            corners.append(corner)
            continue
        start = int(long[firsts[i]]) + 1  # the notch's outline: edge a's end to edge b's start
        inward = poly[np.arange(start, start + (long[seconds[i]] - start) % n + 1) % n] - point
        inside = ROUNDED_INSIDE if rounded[i] else NOTCH_INSIDE
        if ((inward @ x_axis >= -inside) & (inward @ y_axis >= -inside)).all():
            notches.append(corner)
    if notches and corners:
        seen = np.array([c.point for c in corners])
        notches = [c for c in notches if np.hypot(*(seen - c.point).T).min() >= NOTCH_APART]
    return corners + notches


JUNCTION_DEPTH = (3, 16)  # pixels inside the outline where a buried card edge is looked for


def _median(values: np.ndarray) -> float:
    """``np.median`` of a 1-D array without NaNs, same value, without its per-call overhead."""
    m = len(values)
    middle = np.partition(values, [(m - 1) // 2, m // 2])
    if m % 2:
        return middle[m // 2]
    return (middle[m // 2 - 1] + middle[m // 2]) / 2


_PEAK_REACH = 4  # samples either side within which a buried edge must be the strongest change
_PEAK_WINDOW = np.ones((1, 2 * _PEAK_REACH + 1), np.uint8)


def _points_along(
    outlines: Sequence[np.ndarray],
    starts: np.ndarray,
    segs: np.ndarray,
    lengths: np.ndarray,
    owner: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For each polygon edge, the points (in outline order) of its own outline lying along its
    middle: all edges' points, edge after edge, and their bounds (edge e's points are
    ``near[bounds[e] : bounds[e + 1]]``). ``owner`` is the outline of each edge; all outlines
    are measured in one compiled pass.
    """
    sizes = [len(outline) for outline in outlines]
    points = np.concatenate([outline.reshape(-1, 2) for outline in outlines]).astype(np.float64)
    firsts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return _along_edges(points, firsts, starts, segs, lengths, np.asarray(owner, np.int64))


@compiled()
def _along_edges(
    points: np.ndarray,
    firsts: np.ndarray,
    starts: np.ndarray,
    segs: np.ndarray,
    lengths: np.ndarray,
    owner: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``_points_along`` of outlines laid end to end (outline k is ``points[firsts[k] :
    firsts[k + 1]]``): a point lies along an edge's middle when it projects onto the middle 70 %
    of the edge, within 2 px of its line. Whole-pixel points: every product and sum is exact."""
    edges = len(starts)
    bounds = np.zeros(edges + 1, np.int64)
    room = 0
    for e in range(edges):
        room += firsts[owner[e] + 1] - firsts[owner[e]]
    near = np.empty((room, 2))
    count = 0
    for e in range(edges):
        seg_x, seg_y, length = segs[e, 0], segs[e, 1], lengths[e]
        for i in range(firsts[owner[e]], firsts[owner[e] + 1]):
            rel_x, rel_y = points[i, 0] - starts[e, 0], points[i, 1] - starts[e, 1]
            t = (rel_x * seg_x + rel_y * seg_y) / (length * length)
            off = abs(rel_x * seg_y - rel_y * seg_x) / length
            if 0.15 < t < 0.85 and off < 2.0:
                near[count, 0], near[count, 1] = points[i, 0], points[i, 1]
                count += 1
        bounds[e + 1] = count
    return near[:count], bounds


@compiled()
def _edge_directions(near: np.ndarray, bounds: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """Each polygon edge's direction (``segs``, its vector) fitted to its outline points
    ``near[bounds[e]:bounds[e + 1]]``, turned the edge's way; under five points are too little
    straight outline to fit, and the polygon edge itself is taken."""
    directions = np.empty((len(segs), 2))
    for e in range(len(segs)):
        sx, sy = segs[e, 0], segs[e, 1]
        if bounds[e + 1] - bounds[e] < 5:
            length = max(np.hypot(sx, sy), 1e-9)
            directions[e, 0], directions[e, 1] = sx / length, sy / length
            continue
        vx, vy = _fitted_direction(near[bounds[e] : bounds[e + 1]])
        directions[e, 0], directions[e, 1] = (vx, vy) if vx * sx + vy * sy > 0 else (-vx, -vy)
    return directions


def edge_junctions(gray: np.ndarray, filled: np.ndarray, contour: np.ndarray, blob: int) -> list[Corner]:
    """Corners of cards whose corner sits on another card's straight edge (fans, touching cards).

    Along every long outline edge, a card edge that runs inward from it shows as a line of strong
    brightness change across the whole strip just inside; where it meets the outline a card has
    a corner, with one edge along the outline and one along the buried line.
    """
    return edge_junctions_many(gray, filled, [contour], [blob])[0]


def edge_junctions_many(
    gray: np.ndarray,
    filled: np.ndarray,
    outlines: Sequence[np.ndarray],
    blobs: Sequence[int] | None = None,
    polygons: Sequence[np.ndarray] | None = None,
) -> list[list[Corner]]:
    """``edge_junctions`` of every outline (blob numbers: their places, unless given; polygons:
    their ``outline_polygon``, when the caller has them) in one pass.

    The same corners in the same order as outline by outline: every strip pixel is sampled on its
    own and every edge's profile is judged on its own, so joining them changes nothing.
    """
    blobs = list(range(len(outlines))) if blobs is None else list(blobs)
    starts_of, segs_of, owners = [], [], []
    for k, contour in enumerate(outlines):
        poly = (outline_polygon(contour) if polygons is None else polygons[k]).astype(np.float64)
        seg_all = following(poly) - poly
        long = np.flatnonzero(np.hypot(seg_all[:, 0], seg_all[:, 1]) >= 30.0)
        starts_of.append(poly[long])
        segs_of.append(seg_all[long])
        owners.append(np.full(len(long), k))
    found: list[list[Corner]] = [[] for _ in outlines]
    if not outlines or not sum(len(o) for o in owners):
        return found
    starts, segs, owner = np.concatenate(starts_of), np.concatenate(segs_of), np.concatenate(owners)
    lengths = np.hypot(segs[:, 0], segs[:, 1])
    depths = np.arange(*JUNCTION_DEPTH, dtype=np.float32)
    h, w = filled.shape
    directions = _edge_directions(*_points_along(outlines, starts, segs, lengths, owner), segs)
    # The inward normal: the side where paper lies just off the middle of the edge.
    normals = np.stack([-directions[:, 1], directions[:, 0]], axis=1)
    probes = np.round(starts + directions * lengths[:, None] / 2 + normals * 5).astype(np.intp)
    on_frame = (probes[:, 0] >= 0) & (probes[:, 0] < w) & (probes[:, 1] >= 0) & (probes[:, 1] < h)
    on_paper = filled[np.where(on_frame, probes[:, 1], 0), np.where(on_frame, probes[:, 0], 0)] != 0
    normals[~(on_frame & on_paper)] *= -1
    # Each edge's strip runs from 8 px past its start to 8 px before its end, a sample a pixel
    # (``np.arange(8.0, length - 8.0)`` of each, all at once: its count and its whole-number values).
    counts = np.maximum(np.ceil((lengths - 8.0) - 8.0), 0).astype(np.intp)
    kept = np.flatnonzero(counts >= 8)
    if not len(kept):
        return found
    counts = counts[kept]
    ts_all = (np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + 8).astype(
        np.float32
    )
    # Every strip's sample grid at once: each column carries its edge's start, normal and direction.
    maps = _strip_maps(starts[kept], normals[kept], directions[kept], counts, depths, ts_all)
    # One remap for all edges (in pieces narrower than remap allows): each pixel is sampled on its own.
    joined = np.concatenate(
        [
            cv2.remap(
                gray, maps[0][:, c : c + _REMAP_WIDTH], maps[1][:, c : c + _REMAP_WIDTH], cv2.INTER_LINEAR
            )
            for c in range(0, maps[0].shape[1], _REMAP_WIDTH)
        ],
        axis=1,
    ).astype(np.float32)
    steps = np.abs(joined[:, 2:] - joined[:, :-2])
    profiles = np.partition(steps, len(depths) // 2, axis=0)[len(depths) // 2]  # the median of each column
    # Each edge's profile: its own columns but the last two (their steps reach into the next edge).
    sizes = counts - 2
    first_step = np.cumsum(sizes) - sizes
    strip = np.repeat(np.arange(len(kept)), sizes)
    place = np.arange(int(sizes.sum()))
    profile = profiles[place + (np.cumsum(counts) - counts - first_step)[strip]]
    levels = np.maximum(10.0, 4.0 * _medians(profile, strip, sizes).astype(np.float64))
    # A buried edge is the strongest change within four samples either side (the ends see less):
    # the profiles laid end to end, four samples of -1 (below any change) before and after each.
    at = place + _PEAK_REACH * (strip + 1)
    spaced = np.full(len(place) + _PEAK_REACH * (len(kept) + 1), -1.0, np.float32)
    spaced[at] = profile
    # A running maximum is a dilation of the one-row image (the -1 padding keeps off its border).
    strongest = cv2.dilate(spaced[None], _PEAK_WINDOW).ravel()[at]
    peaks = np.flatnonzero((profile > levels[strip]) & (profile >= strongest))
    # Every junction's point and both ways round it at once: the same sums as peak by peak. Each
    # way is ordered (across, down) as a card lies face up: across x down > 0.
    edges = kept[strip[peaks]]
    ts = ts_all[(np.cumsum(counts) - counts - first_step)[strip[peaks]] + peaks + 1].astype(np.float64)
    d, n = directions[edges], normals[edges]
    points = starts[edges] + d * ts[:, None]
    back = -d
    d_first = (d[:, 0] * n[:, 1] - d[:, 1] * n[:, 0] > 0).tolist()
    back_first = (back[:, 0] * n[:, 1] - back[:, 1] * n[:, 0] > 0).tolist()
    for k, e in enumerate(edges.tolist()):
        outline = int(owner[e])
        for x_axis, y_axis in (
            (d[k], n[k]) if d_first[k] else (n[k], d[k]),
            (back[k], n[k]) if back_first[k] else (n[k], back[k]),
        ):
            found[outline].append(Corner(point=points[k], x_axis=x_axis, y_axis=y_axis, blob=blobs[outline]))
    return found


_REMAP_WIDTH = 32000  # remap's maps must stay under 32767 columns


@compiled()
def _strip_maps(
    starts: np.ndarray,
    normals: np.ndarray,
    directions: np.ndarray,
    counts: np.ndarray,
    depths: np.ndarray,
    along: np.ndarray,
) -> np.ndarray:
    """(2, depths, samples) single-precision x and y of every edge's strip: edge e's ``counts[e]``
    columns in turn, each its start plus a depth along its normal, plus its place ``along`` it,
    summed in double precision in that order and rounded once, as numpy's arrays summed them."""
    maps = np.empty((2, len(depths), len(along)), np.float32)
    for axis in range(2):
        for d in range(len(depths)):
            column = 0
            for e in range(len(counts)):
                inward, step = starts[e, axis] + np.float64(depths[d]) * normals[e, axis], directions[e, axis]
                for _ in range(counts[e]):
                    maps[axis, d, column] = np.float32(inward + np.float64(along[column]) * step)
                    column += 1
    return maps


def _medians(values: np.ndarray, group: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``_median`` of each group of float32 ``values`` (groups consecutive, none empty), all at once.

    Groups are kept apart by adding a multiple of 1024 (the values are grey-level steps, under 256),
    which float64 holds exactly; the two middle values are averaged in float32 as ``_median`` does.
    """
    ordered = np.sort(values.astype(np.float64) + 1024.0 * group)
    begin = np.cumsum(sizes) - sizes
    low = (ordered[begin + (sizes - 1) // 2] - 1024.0 * np.arange(len(sizes))).astype(np.float32)
    high = (ordered[begin + sizes // 2] - 1024.0 * np.arange(len(sizes))).astype(np.float32)
    return np.where(sizes % 2 == 1, high, (low + high) / np.float32(2))


def corner_arms(mask: np.ndarray, corner: Corner) -> tuple[float, float]:
    """How far the paper runs from the corner along its x and its y edge (shared by the size guesses)."""
    return corner_arms_at(mask, corner.point[None], corner.x_axis[None], corner.y_axis[None])[0]


def corner_arms_many(mask: np.ndarray, corners: Sequence[Corner]) -> list[tuple[float, float]]:
    """``corner_arms`` of many corners in one pass: the same lengths, without a pass per corner."""
    if not corners:
        return []
    return corner_arms_at(mask, *corner_arrays(corners))


def corner_arms_at(
    mask: np.ndarray, points: np.ndarray, x_axes: np.ndarray, y_axes: np.ndarray
) -> list[tuple[float, float]]:
    """``corner_arms_many`` of corners given as (k, 2) arrays of points and axes (a caller that
    has them as arrays need not make them again from the corners)."""
    if not len(points):
        return []
    # Two walks per corner, in turn: along x just inside the x edge, then along y inside the y edge.
    start = np.stack([points + y_axes * 4.0, points + x_axes * 4.0], axis=1).reshape(-1, 2)
    along = np.stack([x_axes, y_axes], axis=1).reshape(-1, 2)
    lengths = _walk_arms(mask, start, along)
    return list(zip(lengths[::2], lengths[1::2], strict=True))


def projected_corners(
    mask: np.ndarray, corner: Corner, aspect: float, arms: tuple[float, float] | None = None
) -> list[tuple[Corner, float]]:
    """The card's other index corners, reached from this corner along its edges.

    In a fan the corner of an upper card often lies inside the blob (over a lower card), where no
    outline can show it; another corner of the same card is on the outline. Read as a corner whose
    first edge is the long one (a top-right or bottom-left corner), the card's top-left corner is a
    card width along the second edge and its bottom-right corner a card height along the first;
    read the usual way round, the opposite corner is the other index.
    """
    a, b = corner.x_axis, corner.y_axis
    along_a, along_b = arms or corner_arms(mask, corner)
    found = []
    height = min(along_a, along_b * aspect)  # a along the long edge
    if MIN_CARD_HEIGHT <= height <= MAX_CARD_HEIGHT:
        width = height / aspect
        found.append((Corner(point=corner.point + width * b, x_axis=-b, y_axis=a, blob=corner.blob), height))
        found.append((Corner(point=corner.point + height * a, x_axis=b, y_axis=-a, blob=corner.blob), height))
    height = min(along_b, along_a * aspect)  # b along the long edge: the usual way round
    if MIN_CARD_HEIGHT <= height <= MAX_CARD_HEIGHT:
        far = corner.point + (height / aspect) * a + height * b
        found.append((Corner(point=far, x_axis=-a, y_axis=-b, blob=corner.blob), height))
    return found


def projected_many(
    corners: Sequence[Corner], arms: Sequence[tuple[float, float]], aspect: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``projected_corners`` of many corners at once, as arrays: points, x axes, y axes, card heights
    and the corner each was projected from, in the order corner by corner would give them."""
    if not corners:
        return projected_at(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), aspect)
    return projected_at(*corner_arrays(corners), np.array(arms, float), aspect)


def projected_at(
    p: np.ndarray, a: np.ndarray, b: np.ndarray, along: np.ndarray, aspect: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``projected_many`` of corners given as (k, 2) arrays: points, x axes, y axes and arms."""
    if not len(p):
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0, np.intp)
    along_a, along_b = along[:, 0], along[:, 1]
    turned = np.minimum(along_a, along_b * aspect)  # a along the long edge
    usual = np.minimum(along_b, along_a * aspect)  # b along the long edge: the usual way round
    points = np.stack(
        [
            p + (turned / aspect)[:, None] * b,
            p + turned[:, None] * a,
            p + (usual / aspect)[:, None] * a + usual[:, None] * b,
        ],
        axis=1,
    )
    x_axes = np.stack([-b, b, -a], axis=1)
    y_axes = np.stack([a, -a, -b], axis=1)
    heights = np.stack([turned, turned, usual], axis=1)
    keep = (heights >= MIN_CARD_HEIGHT) & (heights <= MAX_CARD_HEIGHT)
    source = np.repeat(np.arange(len(p))[:, None], 3, axis=1)
    return points[keep], x_axes[keep], y_axes[keep], heights[keep], source[keep]


def height_candidates_many(arms: Sequence[tuple[float, float]], aspect: float) -> list[list[float]]:
    """``height_candidates`` of many corners from their measured arms, all at once."""
    if not arms:
        return []
    along = np.array(arms, float)
    down, across = along[:, 1], along[:, 0] * aspect
    low, high = np.minimum(down, across), np.maximum(down, across)
    low_fits = (low >= MIN_CARD_HEIGHT) & (low <= MAX_CARD_HEIGHT)
    high_fits = (
        (high >= MIN_CARD_HEIGHT) & (high <= MAX_CARD_HEIGHT) & (~low_fits | (np.abs(high - low) > 0.1 * low))
    )
    return [
        ([lo] if lo_ok else []) + ([hi] if hi_ok else [])
        for lo, hi, lo_ok, hi_ok in zip(
            low.tolist(), high.tolist(), low_fits.tolist(), high_fits.tolist(), strict=True
        )
    ]


_EVIDENCE_SPAN = np.linspace(0.05, 0.25, 9)  # card heights from the corner where an edge is checked


def edge_evidence(gray: np.ndarray, mask: np.ndarray, corner: Corner, height: float) -> bool:
    """Whether both edges of a supposed corner are really there: felt beyond them, or a visible line.

    A corner reached along a card's edges may land inside another card's face; there no edge runs
    from it, and reading there would read that card's pips.
    """
    h, w = gray.shape
    xx, xy = corner.x_axis.tolist()
    yx, yy = corner.y_axis.tolist()
    base = corner.point + (_EVIDENCE_SPAN * height)[None, :, None] * np.array([[[xx, xy]], [[yx, yy]]])
    # Samples just inside and just outside both edges, (inside/outside, edge, step, xy), in one array.
    inward = [[yx * 2.5, yy * 2.5], [xx * 2.5, xy * 2.5]]
    outward = [[-yx * 2.5, -yy * 2.5], [-xx * 2.5, -xy * 2.5]]
    sides = np.round(base + np.array([inward, outward])[:, :, None, :]).astype(np.intp)
    xs, ys = sides[..., 0], sides[..., 1]
    ok = ((xs < w) & (ys < h) & ((xs | ys) >= 0)).all(axis=0)
    counts = ok.sum(axis=1)
    if counts.min() < 5:
        return False
    levels = np.take(gray, np.where(ok, ys * w + xs, 0)).astype(np.int16)
    step = np.abs(levels[0] - levels[1])
    seen = np.where(np.take(mask, np.where(ok, ys[1] * w + xs[1], 0)) == 0, 255, step)
    if counts.sum() == ok.size:
        middle = np.sort(seen, axis=1)[:, len(_EVIDENCE_SPAN) // 2]
        return bool((middle >= EDGE_STEP).all())
    for edge in range(2):
        if float(_median(seen[edge][ok[edge]])) < EDGE_STEP:
            return False
    return True


def edge_evidence_many(
    gray: np.ndarray, mask: np.ndarray, corners: Sequence[Corner], heights: Sequence[float]
) -> np.ndarray:
    """``edge_evidence`` of many corners (each with its card height) in one pass.

    The same answers as asking corner by corner, at a fraction of the cost when there are dozens.
    """
    if not corners:
        return np.zeros(0, bool)
    return edge_evidence_at(gray, mask, *corner_arrays(corners), np.array(heights, float))


def edge_evidence_at(
    gray: np.ndarray,
    mask: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
) -> np.ndarray:
    """``edge_evidence_many`` of corners given as (k, 2) arrays of points and axes, and heights."""
    if not len(points):
        return np.zeros(0, bool)
    h, w = gray.shape
    axes = np.stack([x_axes, y_axes], axis=1)  # (k, 2, 2)
    points = points[:, None, None, :]
    spans = _EVIDENCE_SPAN * heights[:, None]
    base = points + spans[:, None, :, None] * axes[:, :, None, :]  # (k, edge, step, xy)
    # Samples just inside and just outside both edges: inward along the other edge's direction.
    inward = axes[:, ::-1] * 2.5
    sides = np.round(base[None] + np.stack([inward, -inward])[:, :, :, None, :]).astype(np.intp)
    xs, ys = sides[..., 0], sides[..., 1]
    ok = ((xs < w) & (ys < h) & ((xs | ys) >= 0)).all(axis=0)  # (k, edge, step)
    counts = ok.sum(axis=2)
    levels = np.take(gray, np.where(ok, ys * w + xs, 0)).astype(np.int16)
    step = np.abs(levels[0] - levels[1])
    seen = np.where(np.take(mask, np.where(ok, ys[1] * w + xs[1], 0)) == 0, 255, step)
    middle = np.sort(seen, axis=2)[:, :, len(_EVIDENCE_SPAN) // 2].astype(float)
    for k, edge in zip(*np.nonzero(counts < len(_EVIDENCE_SPAN)), strict=True):
        # Some samples fell off the frame: the median of the rest (none when too few are left).
        middle[k, edge] = _median(seen[k, edge][ok[k, edge]]) if counts[k, edge] >= 5 else -1.0
    return (counts.min(axis=1) >= 5) & (middle >= EDGE_STEP).all(axis=1)


EDGE_STEP = 10  # grey levels across a card edge lying on another card (its border line and shadow)


def card_quad(corner: Corner, height: float, aspect: float, long_across: bool = False) -> np.ndarray:
    """The four card corners grown from ``corner``: across is the short edge unless ``long_across``."""
    across = height if long_across else height / aspect
    down = height / aspect if long_across else height
    px, py = corner.point.tolist()
    xx, xy = corner.x_axis.tolist()
    yx, yy = corner.y_axis.tolist()
    bx, by = px + xx * across, py + xy * across
    dx, dy = yx * down, yy * down
    return np.array([[px, py], [bx, by], [bx + dx, by + dy], [px + dx, py + dy]])


_ARM_STEPS = int(MAX_CARD_HEIGHT * 1.5)  # one-pixel samples along an arm, the corner's own first
_ARM_START = 6  # samples next to the corner that never end an arm (the rounded corner)


def _paper_at(mask: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The mask at integer (x, y) points, 0 for points off the frame."""
    h, w = mask.shape
    unsigned = at.view(np.uintp)  # a negative coordinate becomes huge: one test per axis
    inside = (unsigned[..., 0] < w) & (unsigned[..., 1] < h)
    values = np.take(mask, np.where(inside, at[..., 1] * w + at[..., 0], 0))
    if mask[0, 0]:  # points off the frame read the corner pixel, which is paper here
        values[~inside] = 0
    return values


def _walk_arms(mask: np.ndarray, start: np.ndarray, along: np.ndarray) -> list[float]:
    """How far the paper runs along each ``start`` + step * ``along`` walk ((r, 2) arrays).

    The paper ends at the first of three samples in a row off it (off the frame counts as off).
    A corner's size is asked for at every candidate corner, some two hundred walks a frame, each
    of up to 540 one-pixel steps that mostly end within a hundred: walked in compiled loops
    (``_paper_runs``), each stops where it ends, with the coordinates rounded as numpy rounds them.
    """
    lengths = _paper_runs(
        np.ascontiguousarray(mask),
        *(np.ascontiguousarray(v, np.float64) for v in (start[:, 0], start[:, 1], along[:, 0], along[:, 1])),
        _ARM_START,
        _ARM_STEPS,
    )
    return lengths.tolist()


@compiled()
def _paper_runs(
    mask: np.ndarray,
    start_x: np.ndarray,
    start_y: np.ndarray,
    along_x: np.ndarray,
    along_y: np.ndarray,
    first: int,
    steps: int,
) -> np.ndarray:
    """The step at which each walk's paper ends (``steps`` - 1 where it runs on to the last):
    the first step from ``first`` on of three in a row off the mask's paper."""
    h, w = mask.shape
    lengths = np.empty(len(start_x))
    for k in range(len(start_x)):
        lengths[k] = steps - 1
        off = 0
        for i in range(first, steps):
            x = int(np.rint(start_x[k] + np.float64(i) * along_x[k]))
            y = int(np.rint(start_y[k] + np.float64(i) * along_y[k]))
            if 0 <= x < w and 0 <= y < h and mask[y, x]:
                off = 0
            else:
                off += 1
                if off == 3:
                    lengths[k] = i - 2
                    break
    return lengths


_GRID = np.stack(np.meshgrid(np.linspace(0.08, 0.92, 6), np.linspace(0.08, 0.92, 8)), axis=-1).reshape(-1, 2)
_GRID_ACROSS, _GRID_DOWN = _GRID[None, :, :1], _GRID[None, :, 1:]


def paper_coverage(mask: np.ndarray, quad: np.ndarray) -> float:
    """Share of a grid over the quad that lies on card paper: a real card lies wholly on paper."""
    return float(paper_coverages(mask, quad[None])[0])


def paper_coverages(mask: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """``paper_coverage`` of several (k, 4, 2) quads in one pass over the mask."""
    p0 = quads[:, 0, None, :]
    pts = p0 + _GRID_ACROSS * (quads[:, 1, None, :] - p0) + _GRID_DOWN * (quads[:, 3, None, :] - p0)
    hits = _paper_at(mask, np.round(pts).astype(np.intp))
    return np.count_nonzero(hits, axis=1) / hits.shape[1]


def height_candidates(
    mask: np.ndarray, corner: Corner, aspect: float, arms: tuple[float, float] | None = None
) -> list[float]:
    """Card heights worth trying at this corner, most likely first.

    The long edge usually gives the height; in a stepped fan the short edge steps out early, and in
    cards touching end to end the long edge runs on, so the short edge's guess is kept as well.
    """
    along_x, down = arms or corner_arms(mask, corner)
    across = along_x * aspect
    found: list[float] = []
    for height in (min(down, across), max(down, across)):
        if MIN_CARD_HEIGHT <= height <= MAX_CARD_HEIGHT and all(abs(height - f) > 0.1 * f for f in found):
            found.append(height)
    return found
