"""Card corners on a blob's outline: every outer right angle of the paper outline, and the
notches where one card's edge meets another's.

Straight edges are fitted robustly to the outline's points (a fan's next card or a corner's
rounding does not pull on them); two long edges meeting at a right angle make a corner.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.compiled import compiled
from dealerassist.vision.card_corner import Corner, following

# An outline point further than STRAY_PX from a fitted line is taken for another edge's (a fan's
# next card, a corner's rounding) and does not pull on the line at all; nearer ones pull less the
# further they lie (Tukey's biweight).
STRAY_PX = 2.0
MIN_EDGE_PX = 7.0  # a shorter polygon edge is a chord of a rounding or a notch, not a card edge


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
def fitted_direction(points: np.ndarray) -> tuple[float, float]:
    """Direction of the line most of some outline points lie along, whatever a few strays do.

    Fitted from the line through all the points; where some then lie off it, also from each half
    and from the middle half (the strays may have pulled the first start over to them), keeping
    the least loss. ``cv2.fitLine(DIST_HUBER)`` costs ten times as much, and lets strays pull.
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
    found = np.full((len(indices), 2), np.nan)
    for k in range(len(indices)):
        if not asked[k]:
            continue
        way = 1 if forward[k] else -1
        near = pts[(indices[k] + way * np.arange(7, max(spans[k], 12))) % len(pts)]
        vx, vy = fitted_direction(near)
        tx, ty = near[-1, 0] - near[0, 0], near[-1, 1] - near[0, 1]
        found[k, 0], found[k, 1] = (vx, vy) if vx * tx + vy * ty > 0 else (-vx, -vy)
    return found


SHORT_ARM = 14  # px: an arm shorter than this (a card peeking out) is squared to the other arm
CORNER_GAP = 14.0  # px: two long edges ending at most this far apart meet in a corner
# A print touching a card's edge at its corner bites a notch out of the paper, each side an edge of
# its own: a corner's second edge may start up to NOTCH_SIDES long edges on, where the notch lies
# inside the corner and no plain corner lies within NOTCH_APART px (a rounding cut into short
# edges gives that one already).
NOTCH_SIDES = 2
NOTCH_INSIDE = 1.5
NOTCH_APART = 6.0
# A large card's rounding is cut into up to ROUNDED_CHORDS chords whose ends lie further apart:
# edges also meet across them when the gap is at most ROUNDED_GAP of the shorter edge and the
# outline between lies inside the corner (within ROUNDED_INSIDE px: vertices lie up to 2 px off).
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

    The simplified polygon's vertices are outline pixels: each is found among the outline's (a
    few dozen points against a few hundred outline pixels); a point off the outline (never seen)
    gets the nearest outline point, the first of equals.
    """
    outline = contour.reshape(-1, 2)
    points = np.asarray(points, np.float64).reshape(-1, 2)
    whole = points.astype(np.int64)
    seen = (outline[None, :, 0] == whole[:, None, 0]) & (outline[None, :, 1] == whole[:, None, 1])
    found = seen.argmax(axis=1)
    unseen = np.flatnonzero(~seen.any(axis=1))
    if len(unseen):
        offsets = outline[None, :, :] - points[unseen, None, :]
        found[unseen] = (offsets[..., 0] * offsets[..., 0] + offsets[..., 1] * offsets[..., 1]).argmin(axis=1)
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
