"""Card corners on a blob's outline: its outer right angles, squared off where a card's corner is
rounded, and the corners across a notch where one card's edge meets another's.

The outline is simplified to a polygon; two long polygon edges ending close together make a corner
where their arms, fitted robustly to the outline's own points next to it, meet at a right angle.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.compiled import compiled
from dealerassist.vision.card_corner import Corner, following, ragged

MIN_EDGE_PX = 7.0  # a shorter polygon edge is a chord of a rounding or a notch, not a card edge
CORNER_GAP = 14.0  # px: two long edges ending at most this far apart meet in a corner
SHORT_ARM = 14  # px: an arm shorter than this (a card peeking out) is squared to the other arm
# An outline point further than STRAY_PX from a fitted line is another edge's (a fan's next card, a
# corner's rounding) and does not pull on the line; nearer ones pull less the further they lie
# (Tukey's biweight).
STRAY_PX = 2.0
# A print touching a card's edge at its corner bites a notch out of the paper, each side an edge of
# its own: a corner's second edge may start up to NOTCH_SIDES long edges on, where the notch lies
# inside the corner (within NOTCH_INSIDE px) and no plain corner lies within NOTCH_APART px.
NOTCH_SIDES = 2
NOTCH_INSIDE = 1.5
NOTCH_APART = 6.0
# A large card's rounding is cut into up to ROUNDED_CHORDS chords whose ends lie further apart:
# edges also meet across them when the gap is at most ROUNDED_GAP of the shorter edge and the
# outline between lies inside the corner (within ROUNDED_INSIDE px: vertices lie up to 2 px off).
ROUNDED_GAP = 0.3
ROUNDED_CHORDS = 3
ROUNDED_INSIDE = 4.0


def outline_polygon(contour: np.ndarray) -> np.ndarray:
    """A blob outline simplified to within 2 px, as (k, 2) vertices (each an outline pixel): what
    every corner finder starts from."""
    return cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2)


def first_visits(contour: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Where on the outline each of ``points`` (outline pixels, as polygon vertices are) lies, at
    its first visit: an outline may pass a pixel twice."""
    outline = contour.reshape(-1, 2)
    whole = np.asarray(points).reshape(-1, 2).astype(np.int64)
    seen = (outline[None, :, 0] == whole[:, None, 0]) & (outline[None, :, 1] == whole[:, None, 1])
    return seen.argmax(axis=1)


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
    met, points, x_axes, y_axes = _paired_corners(
        a0s[pairs], a1s[pairs], b0s[pairs], b1s[pairs], arms, float(orientation)
    )
    corners: list[Corner] = []
    across_gaps: list[Corner] = []
    for i, point, x_axis, y_axis in zip(pairs[met].tolist(), points, x_axes, y_axes, strict=True):
        corner = Corner(point=point, x_axis=x_axis, y_axis=y_axis, blob=blob)
        if ahead_by[i] == 1 and not rounded[i]:
            corners.append(corner)
            continue
        start = int(long[firsts[i]]) + 1  # the notch's outline: edge a's end to edge b's start
        inward = poly[np.arange(start, start + (long[seconds[i]] - start) % n + 1) % n] - point
        inside = ROUNDED_INSIDE if rounded[i] else NOTCH_INSIDE
        if ((inward @ x_axis >= -inside) & (inward @ y_axis >= -inside)).all():
            across_gaps.append(corner)
    if across_gaps and corners:
        seen = np.array([c.point for c in corners])
        across_gaps = [c for c in across_gaps if np.hypot(*(seen - c.point).T).min() >= NOTCH_APART]
    return corners + across_gaps


def _paired_corners(
    a0s: np.ndarray, a1s: np.ndarray, b0s: np.ndarray, b1s: np.ndarray, arms: np.ndarray, orientation: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where edge a (``a0s`` to ``a1s``) meets edge b (``b0s`` to ``b1s``) of each pair in a corner:
    near a right angle and convex as the outline winds (``orientation``). ``arms``: the fitted
    directions back along each edge a, then on along each edge b, NaN where too short to fit.
    Returns the pairs that meet, their corner points, x axes and y axes (x × y > 0)."""
    count = len(a0s)
    back, ahead = arms[:count], arms[count:]
    has_back, has_ahead = ~np.isnan(back[:, 0]), ~np.isnan(ahead[:, 0])
    # An arm too short to fit (a card peeking out by a few pixels) is square to the other arm.
    da = np.where(has_back[:, None], -back, _square_to(ahead, a1s - a0s))
    db = np.where(has_ahead[:, None], ahead, _square_to(da, b1s - b0s))
    cross = da[:, 0] * db[:, 1] - da[:, 1] * db[:, 0]
    met = np.flatnonzero(
        (has_back | has_ahead) & (np.abs(cross) >= 0.7) & (np.where(cross > 0, 1.0, -1.0) == orientation)
    )
    da, db, a0s, gap = da[met], db[met], a0s[met], b0s[met] - a0s[met]
    t = (gap[:, 0] * db[:, 1] - gap[:, 1] * db[:, 0]) / cross[met]
    points = a0s + t[:, None] * da
    a_across = ((-da[:, 0]) * db[:, 1] - (-da[:, 1]) * db[:, 0] > 0)[:, None]
    return met, points, np.where(a_across, -da, db), np.where(a_across, db, -da)


def _square_to(other: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """The directions at right angles to ``other`` that point the way ``rough`` does."""
    length = np.maximum(np.hypot(rough[:, 0], rough[:, 1]), 1e-9)
    unit = rough / length[:, None]
    square = np.stack([-other[:, 1], other[:, 0]], axis=1)
    return np.where((square[:, 0] * unit[:, 0] + square[:, 1] * unit[:, 1] >= 0)[:, None], square, -square)


def _local_directions(
    pts: np.ndarray, indices: np.ndarray, spans: np.ndarray, forward: np.ndarray, asked: np.ndarray
) -> np.ndarray:
    """Direction of the outline ``pts`` leaving each of ``indices`` (forward or backward), fitted
    over its ``spans`` points only: in a fan the same outline edge goes on along other cards, which
    need not be in line with this one. (k, 2), NaN where not ``asked``."""
    found = np.full((len(indices), 2), np.nan)
    asked = np.flatnonzero(asked)
    counts = np.maximum(spans[asked], 12) - 7  # from 7 points off the corner, past its rounding
    arm, step = ragged(counts)
    way = np.where(forward[asked], 1, -1)[arm]
    near = pts[(indices[asked][arm] + way * (step + 7)) % len(pts)]
    starts = np.cumsum(counts) - counts
    ends = starts + counts
    found[asked] = fitted_directions(near, starts, ends, near[ends - 1] - near[starts])
    return found


@compiled()
def fitted_directions(
    points: np.ndarray, starts: np.ndarray, ends: np.ndarray, towards: np.ndarray
) -> np.ndarray:
    """The ``fitted_direction`` of each run ``points[starts[k]:ends[k]]``, turned the way
    ``towards[k]`` points: (k, 2)."""
    found = np.empty((len(starts), 2))
    for k in range(len(starts)):
        vx, vy = fitted_direction(points[starts[k] : ends[k]])
        found[k, 0], found[k, 1] = (vx, vy) if vx * towards[k, 0] + vy * towards[k, 1] > 0 else (-vx, -vy)
    return found


@compiled()
def fitted_direction(points: np.ndarray) -> tuple[float, float]:
    """Direction of the line most of some outline points lie along, whatever a few strays do:
    fitted from the line through all of them and, where some then lie off it, also from each half
    and the middle half (the strays may have pulled the first start over), keeping the least loss.
    ``cv2.fitLine(DIST_HUBER)`` costs ten times as much, and lets strays pull."""
    n = points.shape[0]
    vx, vy, least, strays = _line_from(points, 0, n)
    if strays:
        for first, last in ((0, n // 2 + 1), (n // 2, n), (n // 4, n - n // 4)):
            x, y, loss, _ = _line_from(points, first, last)
            if loss < least:
                vx, vy, least = x, y, loss
    return vx, vy


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
