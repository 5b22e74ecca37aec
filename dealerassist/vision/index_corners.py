"""Card corners the outline does not show: a fanned card's index corner lying over the card below.

In a fan spread with a small step, each upper card's corner sits a few pixels inside the card below
(or juts out by only a few pixels), so the blob outline has no corner there, or one too small to
measure. The card's edges still show: where an edge lies over the felt it is a straight piece of
outline, and where it runs on over the card below it stays visible as a thin step line (the card's
border and its soft shadow). Each straight piece of outline is followed past its ends along that
line to where the line stops; there the card has a corner, whose second edge is the step line
leaving it at roughly a right angle (perspective leans it a few degrees).
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.card_corner import (
    MAX_CARD_HEIGHT,
    Corner,
    across_then_down,
    corner_arrays,
    face_up_axes,
    following,
    run_starts,
    sample,
)
from dealerassist.vision.card_extent import corner_arms, distinct_heights, height_candidates
from dealerassist.vision.outline_corners import first_visits

MIN_EDGE = 14.0  # pixels: a shorter piece of outline gives no reliable direction
CLEAN_ARM = 25.0  # a right-angle turn into an outline edge this long is a corner found elsewhere
LINE_STEP = 12.0  # grey levels across a card edge lying on another card (border line or shadow)
TRACE_SPAN = 160  # pixels a buried edge is followed past the end of its piece of outline
TRACE_GAP = 2  # samples in a row (2 px apart) below LINE_STEP that end a buried edge
EDGE_GAP = 2  # samples in a row (3 px apart) below LINE_STEP that end a card edge's run
TRACE_SKIP = 6  # pixels past an outline piece's end taken as edge whatever they show (the corner below)
TRACED_SLIDE = 6.0  # pixels the second edge may lie from where a traced buried edge stopped
SKEW_LIMIT = 14.0  # degrees the second edge may lean from square (perspective)
REPEAT_PX = 3.0  # a corner this close to a stronger one, turned the same way, repeats it
MAX_CANDIDATES = 30

_ACROSS = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])  # offsets across a line: both sides and the line itself
_TRACE_T = np.arange(0.0, TRACE_SPAN, 2.0)
_EDGE_T = np.arange(3.0, MAX_CARD_HEIGHT, 3.0)
_RAY_S = np.arange(4.0, 60.0, 3.0)
_SKEWS = np.deg2rad(np.arange(-SKEW_LIMIT, SKEW_LIMIT + 0.1, 2.8))
_DEPTHS = np.arange(2.5, 11.0, 1.5)
_SLIDE = np.arange(-8.0, 9.0)
_FIT_S = np.arange(6.0, 96.0, 3.0)
_WIDE = np.array([-5.0, -2.0, -1.0, 0.0, 1.0, 2.0, 5.0])  # a profile that tolerates 2 px of drift
_SHIFTS = np.arange(-5.0, 6.0)  # sideways offsets searched for a line that may drift a little
_SHIFTED = np.arange(5)[None, :] + np.array([0, 2, 3, 4, 6])[:, None]  # _ACROSS about each middle shift


def index_corner_candidates(
    gray: np.ndarray,
    filled: np.ndarray,
    aspect: float,
    outlines: list[np.ndarray],
    polygons: list[np.ndarray],
) -> list[tuple[Corner, list[float]]]:
    """Card corners at the far ends of straight outline pieces with their card height guesses,
    strongest first: ``filled`` is the paper mask with blob holes filled, ``outlines`` its
    ``blob_outlines`` and ``polygons`` their ``outline_polygon``."""
    ends, outs, normals = _edge_ends(outlines, polygons)
    if not len(ends):
        return []
    lengths = _traced_lengths(gray, filled, ends, outs, normals)
    keep = lengths >= 0
    ends, outs, normals, lengths = ends[keep], outs[keep], normals[keep], lengths[keep]
    if not len(ends):
        return []
    crossed, points, seconds, strengths = _second_edges(
        gray, ends + lengths[:, None] * outs, outs, normals, lengths > 0
    )
    good = np.flatnonzero(strengths >= LINE_STEP)
    if not len(good):
        return []
    points, seconds, strengths, firsts = points[good], seconds[good], strengths[good], -outs[crossed][good]
    edges = np.stack([firsts, seconds], axis=1).reshape(-1, 2)
    runs = _edge_lengths(gray, np.repeat(points, 2, axis=0), edges).reshape(-1, 2)
    x_axes, y_axes = face_up_axes(firsts, seconds)
    runs = np.where(across_then_down(firsts, seconds)[:, None], runs, runs[:, ::-1])  # across, down
    order = np.argsort(-strengths).tolist()
    corners = [Corner(point=points[k], x_axis=x_axes[k], y_axis=y_axes[k], blob=-1) for k in order]
    guesses = [distinct_heights([runs[k, 1], runs[k, 0] * aspect]) for k in order]
    # The edges run on into a neighbour's: how far the paper reaches may tell instead.
    unsure = [k for k, heights in enumerate(guesses) if len(heights) < 2]
    arms = corner_arms(filled, corner_arrays([corners[k] for k in unsure]))
    for k, reached in zip(unsure, height_candidates(arms, aspect), strict=True):
        guesses[k] = distinct_heights(guesses[k] + reached)
    found = [(corner, heights[:3]) for corner, heights in zip(corners, guesses, strict=True) if heights]
    return _strongest_apart(found)


def _strongest_apart(found: list[tuple[Corner, list[float]]]) -> list[tuple[Corner, list[float]]]:
    """The first ``MAX_CANDIDATES`` of ``found`` (strongest first) that repeat no stronger one kept;
    only pairs closer than ``REPEAT_PX`` on both axes can repeat, and only those are measured."""
    if not found:
        return []
    at = np.array([corner.point for corner, _ in found])
    close = (np.abs(at[:, None, :] - at[None, :, :]) < REPEAT_PX + 0.001).all(axis=2)
    taken: list[int] = []
    for i, (corner, _) in enumerate(found):
        if not any(
            np.linalg.norm(corner.point - found[j][0].point) < REPEAT_PX
            and float(corner.x_axis @ found[j][0].x_axis) > 0.99
            for j in taken
            if close[i, j]
        ):
            taken.append(i)
            if len(taken) >= MAX_CANDIDATES:
                break
    return [found[i] for i in taken]


def _edge_ends(
    outlines: list[np.ndarray], polygons: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """End points, outward directions and inward normals of the straight pieces of outline that do
    not turn square at that end (``_open_ends``). Each piece's line is fitted to the middle 80 % of
    its outline points, every piece of every outline in one pass of sums."""
    chains, firsts, spans, starts, stops, signs, windings = [], [], [], [], [], [], []
    offset = 0
    for contour, poly in zip(outlines, polygons, strict=True):
        n = len(poly)
        if len(contour) < 4 * MIN_EDGE or n < 3:
            continue
        vectors = (following(poly) - poly).astype(np.float64)
        index, ends_signs = _open_ends(vectors, np.hypot(vectors[:, 0], vectors[:, 1]))
        if not len(index):
            continue
        signs.append(ends_signs)
        pts = contour.reshape(-1, 2)
        count = len(pts)
        where = first_visits(contour, poly)  # vertices are outline points: where each piece's begin
        firsts.append(where[index] + offset)
        spans.append((where[(index + 1) % n] - where[index]) % count)
        starts.append(poly[index])
        stops.append(poly[(index + 1) % n])
        # The outline runs with the paper on one fixed side, given by its winding.
        windings.append(np.full(len(index), 1.0 if cv2.contourArea(poly, oriented=True) > 0 else -1.0))
        chains.append(np.concatenate([pts, pts]))  # twice over: a piece may run past the outline's start
        offset += 2 * count
    if not chains:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2))
    points = np.concatenate(chains).astype(np.float64)
    x, y = points[:, 0], points[:, 1]
    first, span = np.concatenate(firsts), np.concatenate(spans)
    lo = first + (0.1 * span).astype(int)
    hi = first + (0.9 * span).astype(int) + 1
    # One reduceat over (lo, hi) pairs sums each piece's rows; the sums between pieces are dropped.
    bounds = np.empty(2 * len(lo), np.intp)
    bounds[0::2], bounds[1::2] = lo, hi
    total = np.add.reduceat(np.stack([x, y, x * x, x * y, y * y], axis=1), bounds, axis=0)[0::2]
    size = (hi - lo).astype(np.float64)
    mean = total[:, :2] / size[:, None]
    cxx = total[:, 2] / size - mean[:, 0] ** 2
    cxy = total[:, 3] / size - mean[:, 0] * mean[:, 1]
    cyy = total[:, 4] / size - mean[:, 1] ** 2
    angle = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
    d = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    start, stop = np.concatenate(starts).astype(np.float64), np.concatenate(stops).astype(np.float64)
    d *= np.where(np.einsum("ij,ij->i", d, stop - start) >= 0, 1.0, -1.0)[:, None]
    sign = np.concatenate(signs)[:, None]
    vertex = np.where(sign > 0, stop, start)
    ends = mean + np.einsum("ij,ij->i", vertex - mean, d)[:, None] * d
    normals = np.concatenate(windings)[:, None] * np.stack([-d[:, 1], d[:, 0]], axis=1)
    return ends, sign * d, normals


def _open_ends(vectors: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ends of the polygon's long edges (``MIN_EDGE`` or more) where the outline does not turn
    square into an edge ``CLEAN_ARM`` long: each one's edge, and +1 for its far end or -1 for its
    near end. A rounded card corner is cut into a few short edges, so that edge may begin up to
    ``CLEAN_ARM`` on; a concave turn counts too, as no card corner of this edge can be there."""
    n = len(lengths)
    long = np.flatnonzero(lengths >= MIN_EDGE)
    edges, signs = np.repeat(long, 2), np.tile([1.0, -1.0], len(long))
    # The next five edges on from each end, and how far the outline has run at the end of each.
    steps = np.arange(5)
    next_edges = np.where(signs[:, None] > 0, edges[:, None] + 1 + steps, edges[:, None] - 1 - steps) % n
    ahead = lengths[next_edges]
    run = np.cumsum(ahead, axis=1)
    first = (ahead >= CLEAN_ARM).argmax(axis=1)  # the first long one, if any
    rows = np.arange(len(edges))
    reached = (ahead[rows, first] >= CLEAN_ARM) & ((first == 0) | (run[rows, first - 1] <= CLEAN_ARM))
    out = signs[:, None] * (vectors[edges] / lengths[edges, None])
    turn = vectors[next_edges[rows, first]]
    square = np.abs(out[:, 0] * turn[:, 1] - out[:, 1] * turn[:, 0]) > 0.7 * ahead[rows, first]
    open_end = ~(reached & square)
    return edges[open_end], signs[open_end]


def _traced_lengths(
    gray: np.ndarray, filled: np.ndarray, base: np.ndarray, out: np.ndarray, normal: np.ndarray
) -> np.ndarray:
    """How far each edge runs on past its end as a line with paper on both sides (-1: too far to tell)."""
    xs, ys = _grid(base, (_ACROSS, normal), (_TRACE_T, out))
    strength = _line_strength(sample(gray, xs, ys))
    paper = np.minimum(sample(filled, xs[0], ys[0]), sample(filled, xs[4], ys[4])) > 127
    alive = (strength >= LINE_STEP) & paper
    alive[:, _TRACE_T < TRACE_SKIP] = True
    run = run_starts(~alive, TRACE_GAP)
    lengths = np.where(run.any(axis=1), _TRACE_T[run.argmax(axis=1)], -1.0)
    lengths[lengths == TRACE_SKIP] = 0.0  # stopped at once: the corner is at the end (re-placed later)
    return lengths


def _second_edges(
    gray: np.ndarray, points: np.ndarray, out: np.ndarray, normal: np.ndarray, traced: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The card edge leaving ``points`` into the paper: which points have one, their corners, the
    edges' directions and strengths. The crossing is placed along the first edge (in a strip just
    inside it), the second edge's lean chosen among directions near square by the line strength
    along each, and a straight line fitted to where the edge lies over its first hundred pixels."""
    values = sample(gray, *_grid(points, (_DEPTHS, normal), (_SLIDE, out)))
    middle = len(_DEPTHS) // 2
    crossing = np.partition(np.abs(values[:, :, 2:] - values[:, :, :-2]), middle, axis=0)[middle]
    # A traced end is where the buried line stopped: the second edge is within a few pixels of it.
    crossing[traced[:, None] & (np.abs(_SLIDE[1:-1]) > TRACED_SLIDE)[None, :]] = 0.0
    crossed = np.flatnonzero(crossing.max(axis=1) >= LINE_STEP)
    points, out, normal, crossing = points[crossed], out[crossed], normal[crossed], crossing[crossed]
    # The card's edge is its outermost strong crossing: anything further in is print on the card.
    strong = crossing >= np.maximum(LINE_STEP, 0.6 * crossing.max(axis=1, keepdims=True))
    peak = strong & (crossing >= np.roll(crossing, 1, axis=1)) & (crossing >= np.roll(crossing, -1, axis=1))
    outermost = crossing.shape[1] - 1 - np.argmax(peak[:, ::-1], axis=1)
    # Past a traced end the line's shadow runs on a little: there the strongest crossing is the edge.
    slide = _SLIDE[1 + np.where(traced[crossed], crossing.argmax(axis=1), outermost)]
    mid = float(_DEPTHS.mean())
    pivot = points + slide[:, None] * out + mid * normal  # where the crossing was measured
    directions = (
        np.cos(_SKEWS)[None, :, None] * normal[:, None, :] + np.sin(_SKEWS)[None, :, None] * out[:, None, :]
    )
    across = np.stack([-directions[..., 1], directions[..., 0]], axis=-1)
    fan = np.broadcast_to(pivot[:, None, :], directions.shape)
    strength = _line_strength(sample(gray, *_grid(fan, (_ACROSS, across), (_RAY_S - mid, directions))))
    # A low quantile: the whole ray must follow a line, not just pass an index printed beside it.
    quantile = len(_RAY_S) // 4
    score = np.partition(strength, quantile, axis=2)[:, :, quantile]
    best = score.argmax(axis=1)
    rows = np.arange(len(points))
    v = directions[rows, best]
    score = np.minimum(score[rows, best], crossing.max(axis=1))
    v, pivot = _refined(gray, pivot, v)
    corner = pivot - (mid / np.einsum("ij,ij->i", v, normal))[:, None] * v
    return crossed, corner, v, score


def _refined(gray: np.ndarray, pivot: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each edge as the straight line through where it lies at many distances along it (the search
    for its lean is coarse): twice a least-squares fit of offset against distance, the second
    without the samples more than a pixel off the first."""
    across = np.stack([-v[:, 1], v[:, 0]], axis=1)
    profiles = sample(gray, *_grid(pivot, (_SHIFTS, across), (_FIT_S, v)))
    strength = _line_strength(profiles[_SHIFTED])  # at each of the middle five shifts
    offsets = strength.argmax(axis=0) - 2.0
    use = strength.max(axis=0) >= 2 * LINE_STEP
    s = _FIT_S[None, :]
    slope = np.zeros(len(v))
    shift = np.zeros(len(v))
    for _ in range(2):
        weight = use.astype(np.float64)
        count = weight.sum(axis=1)
        mean_s = (weight * s).sum(axis=1) / np.maximum(count, 1)
        mean_o = (weight * offsets).sum(axis=1) / np.maximum(count, 1)
        ds = s - mean_s[:, None]
        var = (weight * ds * ds).sum(axis=1)
        ok = (count >= 6) & (var > 0)
        slope = np.where(
            ok, (weight * ds * (offsets - mean_o[:, None])).sum(axis=1) / np.maximum(var, 1e-9), 0.0
        )
        shift = np.where(ok, mean_o - slope * mean_s, 0.0)
        use &= np.abs(offsets - (slope[:, None] * s + shift[:, None])) <= 1.0
    ok = use.sum(axis=1) >= 6
    refined = v + np.where(ok, slope, 0.0)[:, None] * across
    refined /= np.linalg.norm(refined, axis=1, keepdims=True)
    return refined, pivot + np.where(ok, shift, 0.0)[:, None] * across


def _edge_lengths(gray: np.ndarray, starts: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """How far a card edge runs from each start point along its direction as a visible line or step."""
    across = np.stack([-directions[:, 1], directions[:, 0]], axis=1)
    strength = _line_strength(sample(gray, *_grid(starts, (_WIDE, across), (_EDGE_T, directions))))
    run = run_starts(strength < LINE_STEP, EDGE_GAP)
    return np.where(run.any(axis=1), _EDGE_T[run.argmax(axis=1)], _EDGE_T[-1])


def _grid(
    base: np.ndarray, first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """x and y, as ``sample`` reads them, of ``base + second offsets * direction + first offsets *
    direction``: the first (offsets, directions) pair's offsets make the first axis, so that profiles
    across a line lie contiguous, the second's the last. ``base`` and the directions are (k, 2) or
    (k, m, 2); each point is summed in double precision and rounded once."""
    (first_offsets, first_directions), (second_offsets, second_directions) = first, second
    lead = (1,) * (base.ndim - 1)
    planes = []
    for axis in range(2):
        along = base[..., axis, None] + second_directions[..., axis, None] * second_offsets
        across = np.reshape(first_offsets, (-1, *lead, 1)) * first_directions[None, ..., axis, None]
        planes.append((along[None] + across).astype(np.float32))
    return planes[0], planes[1]


def _line_strength(v: np.ndarray) -> np.ndarray:
    """How clearly a line runs through the middle of profiles sampled across it (first axis, the
    two sides outermost): a card edge on another card is a step (shadow on one side) or a thin
    dark border line."""
    dip = 0.5 * (v[0] + v[-1]) - v[1:-1].min(axis=0)
    return np.maximum(np.abs(v[-1] - v[0]), dip)
