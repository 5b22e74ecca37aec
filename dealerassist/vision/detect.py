"""Find card corners on the felt, whatever its colour and however the light falls.

Cards are paper: brighter than the felt around them and without its tint. The felt's own
brightness is estimated at low resolution (an opening wipes the cards out of it), so a lighting
gradient divides away. Touching and fanned cards merge into one blob; every outer right-angle
corner of a blob is a candidate card corner, and how far a card-shaped quad can grow from it
inside the blob tells the card's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

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


def card_mask(frame: np.ndarray) -> np.ndarray:
    """255 where a pixel looks like card paper (face or the white border of a back)."""
    blue, green, red = cv2.split(frame)
    darkest = cv2.min(cv2.min(blue, green), red)
    brightest = cv2.max(cv2.max(blue, green), red)
    h, w = darkest.shape
    small = cv2.resize(darkest, (w // 8, h // 8), interpolation=cv2.INTER_AREA)
    felt = cv2.morphologyEx(small, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (35, 35)))
    felt = cv2.resize(cv2.GaussianBlur(felt, (0, 0), 4), (w, h), interpolation=cv2.INTER_LINEAR)
    # Paper is clearly brighter than the felt under the same light, and nearly colourless.
    needed = cv2.max(cv2.add(felt, 45), cv2.convertScaleAbs(felt, alpha=1.5))
    bright = cv2.compare(darkest, needed, cv2.CMP_GT)
    pale = cv2.compare(
        cv2.subtract(brightest, darkest), cv2.convertScaleAbs(brightest, alpha=0.38), cv2.CMP_LT
    )
    paper = cv2.morphologyEx(cv2.bitwise_and(bright, pale), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Index ink printed close to the edge can cut the thin white margin; closing mends the outline.
    return cv2.morphologyEx(paper, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))


def blob_outlines(mask: np.ndarray) -> list[np.ndarray]:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in contours if cv2.contourArea(c) >= MIN_BLOB_AREA]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.hypot(v[0], v[1])), 1e-9)


def _edge_direction(contour: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Direction of a straight stretch of outline, fitted to its middle so rounded ends do not tilt it."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    seg = end - start
    length = float(np.hypot(*seg))
    rel = pts - start
    t = rel @ seg / (length * length)
    off = np.abs(rel[:, 0] * seg[1] - rel[:, 1] * seg[0]) / length
    near = pts[(t > 0.15) & (t < 0.85) & (off < 2.0)]
    if len(near) < 5:
        return _unit(seg)
    vx, vy = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()[:2]
    direction = np.array([vx, vy], float)
    return direction if direction @ seg > 0 else -direction


def _local_direction(pts: np.ndarray, index: int, span: int, forward: bool) -> np.ndarray | None:
    """Direction of the outline leaving ``index`` (forward or backward), fitted over ``span`` points.

    Only the stretch next to the corner counts: in a fan the same outline edge goes on along other
    cards, which need not be in line with this one.
    """
    n = len(pts)
    offsets = np.arange(7, max(span, 12))
    idx = (index + offsets) % n if forward else (index - offsets) % n
    near = pts[idx]
    if len(near) < 4:
        return None
    vx, vy = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()[:2]
    direction = np.array([vx, vy], float)
    travel = near[-1] - near[0]
    return direction if direction @ travel > 0 else -direction


SHORT_ARM = 14


def _square_to(other: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """The direction at right angles to ``other`` that points the way ``rough`` does."""
    perpendicular = np.array([-other[1], other[0]])
    return perpendicular if perpendicular @ rough >= 0 else -perpendicular


def outline_corners(contour: np.ndarray, blob: int) -> list[Corner]:
    """Right-angle convex corners of a blob outline, with rounded card corners squared off."""
    poly = cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    if n < 3:
        return []
    nxt = np.roll(poly, -1, axis=0)
    orientation = np.sign(float(np.sum(poly[:, 0] * nxt[:, 1] - nxt[:, 0] * poly[:, 1])))
    edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    long_edges = [e for e in edges if np.hypot(*(e[1] - e[0])) >= MIN_EDGE_PX]
    corners = []
    for i, (a0, a1) in enumerate(long_edges):
        b0, b1 = long_edges[(i + 1) % len(long_edges)]
        if np.hypot(*(b0 - a1)) > 14.0:
            continue  # a long stretch of short edges between them: not one corner
        pts = contour.reshape(-1, 2).astype(np.float64)
        ia = int(np.argmin(np.sum((pts - a1) ** 2, axis=1)))
        ib = int(np.argmin(np.sum((pts - b0) ** 2, axis=1)))
        span_a = int(min(0.85 * np.hypot(*(a1 - a0)), 30))
        span_b = int(min(0.85 * np.hypot(*(b1 - b0)), 30))
        back = _local_direction(pts, ia, span_a, forward=False) if span_a >= SHORT_ARM else None
        ahead = _local_direction(pts, ib, span_b, forward=True) if span_b >= SHORT_ARM else None
        if back is None and ahead is None:
            continue
        # A short arm (a card peeking out by a few pixels) is too short to fit: a card is square-cornered.
        da = -back if back is not None else _square_to(ahead, _unit(a1 - a0))
        db = ahead if ahead is not None else _square_to(da, _unit(b1 - b0))
        cross = da[0] * db[1] - da[1] * db[0]
        if abs(cross) < 0.7 or np.sign(cross) != orientation:
            continue  # not near 90 degrees, or a concave (inner) corner
        denom = da[0] * db[1] - da[1] * db[0]
        t = ((b0[0] - a0[0]) * db[1] - (b0[1] - a0[1]) * db[0]) / denom
        point = a0 + t * da
        arm_a, arm_b = -da, db
        if arm_a[0] * arm_b[1] - arm_a[1] * arm_b[0] > 0:
            x_axis, y_axis = arm_a, arm_b
        else:
            x_axis, y_axis = arm_b, arm_a
        corners.append(Corner(point=point, x_axis=x_axis, y_axis=y_axis, blob=blob))
    return corners


def _handed(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order two edge directions as (across, down) the way a card lies face up: across x down > 0."""
    return (a, b) if a[0] * b[1] - a[1] * b[0] > 0 else (b, a)


JUNCTION_DEPTH = (3, 16)  # pixels inside the outline where a buried card edge is looked for


def edge_junctions(gray: np.ndarray, filled: np.ndarray, contour: np.ndarray, blob: int) -> list[Corner]:
    """Corners of cards whose corner sits on another card's straight edge (fans, touching cards).

    Along every long outline edge, a card edge that runs inward from it shows as a line of strong
    brightness change across the whole strip just inside; where it meets the outline a card has
    a corner, with one edge along the outline and one along the buried line.
    """
    poly = cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2).astype(np.float64)
    corners = []
    depths = np.arange(*JUNCTION_DEPTH, dtype=np.float32)
    h, w = filled.shape
    for i in range(len(poly)):
        a0, a1 = poly[i], poly[(i + 1) % len(poly)]
        length = float(np.hypot(*(a1 - a0)))
        if length < 30.0:
            continue
        d = _edge_direction(contour, a0, a1)
        n = np.array([-d[1], d[0]])
        probe = np.round(a0 + d * length / 2 + n * 5).astype(int)
        if not (0 <= probe[0] < w and 0 <= probe[1] < h) or filled[probe[1], probe[0]] == 0:
            n = -n
        ts = np.arange(8.0, length - 8.0, dtype=np.float32)
        if len(ts) < 8:
            continue
        map_x = (a0[0] + np.outer(depths, n[0] * np.ones_like(ts)) + ts[None] * d[0]).astype(np.float32)
        map_y = (a0[1] + np.outer(depths, n[1] * np.ones_like(ts)) + ts[None] * d[1]).astype(np.float32)
        strip = cv2.remap(gray, map_x, map_y, cv2.INTER_LINEAR).astype(np.float32)
        step = np.abs(strip[:, 2:] - strip[:, :-2])
        profile = np.median(step, axis=0)
        level = max(10.0, 4.0 * float(np.median(profile)))
        for k in np.flatnonzero(profile > level):
            window = profile[max(0, k - 4) : k + 5]
            if profile[k] < window.max():
                continue
            point = a0 + d * float(ts[k + 1])
            for x_axis, y_axis in (_handed(d, n), _handed(-d, n)):
                corners.append(Corner(point=point, x_axis=x_axis, y_axis=y_axis, blob=blob))
    return corners


def corner_arms(mask: np.ndarray, corner: Corner) -> tuple[float, float]:
    """How far the paper runs from the corner along its x and its y edge (shared by the size guesses)."""
    return (
        _arm_length(mask, corner, corner.x_axis, corner.y_axis),
        _arm_length(mask, corner, corner.y_axis, corner.x_axis),
    )


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


def edge_evidence(gray: np.ndarray, mask: np.ndarray, corner: Corner, height: float) -> bool:
    """Whether both edges of a supposed corner are really there: felt beyond them, or a visible line.

    A corner reached along a card's edges may land inside another card's face; there no edge runs
    from it, and reading there would read that card's pips.
    """
    h, w = gray.shape
    t = np.linspace(0.05, 0.25, 9) * height
    for along, inward in ((corner.x_axis, corner.y_axis), (corner.y_axis, corner.x_axis)):
        base = corner.point + np.outer(t, along)
        inside = np.round(base + 2.5 * inward).astype(int)
        outside = np.round(base - 2.5 * inward).astype(int)
        ok = (
            (inside[:, 0] >= 0)
            & (inside[:, 0] < w)
            & (inside[:, 1] >= 0)
            & (inside[:, 1] < h)
            & (outside[:, 0] >= 0)
            & (outside[:, 0] < w)
            & (outside[:, 1] >= 0)
            & (outside[:, 1] < h)
        )
        if ok.sum() < 5:
            return False
        inside, outside = inside[ok], outside[ok]
        step = np.abs(
            gray[inside[:, 1], inside[:, 0]].astype(int) - gray[outside[:, 1], outside[:, 0]].astype(int)
        )
        felt = mask[outside[:, 1], outside[:, 0]] == 0
        if float(np.median(np.where(felt, 255, step))) < EDGE_STEP:
            return False
    return True


EDGE_STEP = 10  # grey levels across a card edge lying on another card (its border line and shadow)


def card_quad(corner: Corner, height: float, aspect: float, long_across: bool = False) -> np.ndarray:
    """The four card corners grown from ``corner``: across is the short edge unless ``long_across``."""
    across = height if long_across else height / aspect
    down = height / aspect if long_across else height
    p = corner.point
    return np.array(
        [
            p,
            p + corner.x_axis * across,
            p + corner.x_axis * across + corner.y_axis * down,
            p + corner.y_axis * down,
        ]
    )


_ARM_STEPS = np.arange(0.0, MAX_CARD_HEIGHT * 1.5)


def _arm_length(mask: np.ndarray, corner: Corner, along: np.ndarray, beside: np.ndarray) -> float:
    """How far the paper runs from the corner along one edge (sampled just inside the edge)."""
    h, w = mask.shape
    start = corner.point + beside * 4.0
    xs = np.rint(start[0] + _ARM_STEPS * along[0]).astype(np.intp)
    ys = np.rint(start[1] + _ARM_STEPS * along[1]).astype(np.intp)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    paper = np.zeros(len(_ARM_STEPS), bool)
    paper[inside] = mask[ys[inside], xs[inside]] > 0
    # The paper ends where three samples in a row are off it (past the first few, near the corner).
    off = ~paper
    gaps = np.flatnonzero(off[6:-2] & off[7:-1] & off[8:])
    return float(_ARM_STEPS[gaps[0] + 6]) if len(gaps) else float(_ARM_STEPS[-1])


_GRID = np.stack(np.meshgrid(np.linspace(0.08, 0.92, 6), np.linspace(0.08, 0.92, 8)), axis=-1).reshape(-1, 2)


def paper_coverage(mask: np.ndarray, quad: np.ndarray) -> float:
    """Share of a grid over the quad that lies on card paper: a real card lies wholly on paper."""
    return float(paper_coverages(mask, quad[None])[0])


def paper_coverages(mask: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """``paper_coverage`` of several (k, 4, 2) quads in one pass over the mask."""
    p0, p1, p3 = quads[:, 0, None, :], quads[:, 1, None, :], quads[:, 3, None, :]
    pts = p0 + _GRID[None, :, :1] * (p1 - p0) + _GRID[None, :, 1:] * (p3 - p0)
    xs, ys = np.round(pts[..., 0]).astype(int), np.round(pts[..., 1]).astype(int)
    h, w = mask.shape
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    hits = np.zeros(xs.shape, bool)
    hits[inside] = mask[ys[inside], xs[inside]] > 0
    return hits.mean(axis=1)


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
