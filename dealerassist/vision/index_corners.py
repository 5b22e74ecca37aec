"""Card corners the outline does not show: a fanned card's index corner lying over the card below.

In a fan spread with a small step, each upper card's corner sits a few pixels inside the card below
(or juts out by only a few pixels), so the blob outline either has no corner there or one too small
to measure. The card's edges still show: the stretch of an edge that lies over the felt is a
straight piece of outline, and where the edge runs on over the card below it stays visible as a
thin step line (the card's border and its soft shadow). Every straight piece of outline is followed
past its ends along that line to where the line stops; there the card has a corner, whose second
edge is the step line leaving it at roughly a right angle (perspective leans it a few degrees).
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.compiled import compiled
from dealerassist.vision.card_corner import (
    MAX_CARD_HEIGHT,
    Corner,
    across_then_down,
    corner_arrays,
    following,
    run_starts,
    sample,
)
from dealerassist.vision.card_extent import corner_arms, distinct_heights, height_candidates
from dealerassist.vision.outline_corners import first_visits, outline_polygon

MIN_EDGE = 14.0  # pixels: a shorter piece of outline gives no reliable direction
CLEAN_ARM = 25.0  # a right-angle turn into an outline edge this long is a corner found elsewhere
LINE_STEP = 12.0  # grey levels across a card edge lying on another card (border line or shadow)
TRACE_SPAN = 160  # pixels a buried edge is followed past the end of its piece of outline
TRACE_GAP = 2  # samples in a row (2 px apart) below LINE_STEP that end a buried edge
EDGE_GAP = 2  # samples in a row (3 px apart) below LINE_STEP that end a card edge's run
TRACE_SKIP = 6  # pixels past the end of an outline piece taken as edge whatever they show
TRACED_SLIDE = 6.0  # pixels the second edge may lie from where a traced buried edge stopped
SKEW_LIMIT = 14.0  # degrees the second edge may lean from square (perspective)
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


def _line_strength(v: np.ndarray) -> np.ndarray:
    """How clearly a line runs through the middle of profiles sampled across it (first axis, the
    two sides outermost): a card edge on another card is a step (shadow on one side) or a thin
    dark border line."""
    dip = 0.5 * (v[0] + v[-1]) - v[1:-1].min(axis=0)
    return np.maximum(np.abs(v[-1] - v[0]), dip)


_SHIFTED = np.arange(5)[None, :] + np.array([0, 2, 3, 4, 6])[:, None]  # _ACROSS about each middle shift


def _grid(
    base: np.ndarray, first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """x and y of ``base + second offsets * direction + first offsets * direction`` over a grid of
    offsets, in single precision (what ``sample`` reads).

    ``base`` and both directions share the leading shape (k, 2) or (k, m, 2). The first step's
    offsets become the first grid axis, so that profiles across a line lie contiguous; the
    second's the last axis. Each point is summed in double precision, then rounded once.
    """
    (first_offsets, first_directions), (second_offsets, second_directions) = first, second
    lead = (1,) * (base.ndim - 1)
    planes = []
    for axis in range(2):
        along = base[..., axis, None] + second_directions[..., axis, None] * second_offsets
        across = np.reshape(first_offsets, (-1, *lead, 1)) * first_directions[None, ..., axis, None]
        planes.append((along[None] + across).astype(np.float32))
    return planes[0], planes[1]


@compiled()
def _open_ends(vectors: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each end of every long polygon edge (``MIN_EDGE`` or more) where the outline does not turn
    a clean right angle into another long edge (``_turns_square``): the edges' indices, and for
    each, +1 for its far end or -1 for its near end, in the order edge, far end, near end."""
    n = len(lengths)
    edges = np.empty(2 * n, np.int64)
    signs = np.empty(2 * n)
    count = 0
    for i in range(n):
        if lengths[i] < MIN_EDGE:
            continue
        rough_x, rough_y = vectors[i, 0] / lengths[i], vectors[i, 1] / lengths[i]
        for sign in (1.0, -1.0):
            start, step = ((i + 1) % n, 1) if sign > 0 else (i, -1)
            if not _turns_square(vectors, lengths, start, step, sign * rough_x, sign * rough_y):
                edges[count], signs[count] = i, sign
                count += 1
    return edges[:count], signs[:count]


@compiled(inline=True)
def _turns_square(
    vectors: np.ndarray, lengths: np.ndarray, start: int, step: int, out_x: float, out_y: float
) -> bool:
    """Whether the outline turns a right angle at vertex ``start`` and runs on straight from there.

    Rounded card corners are cut into a few short polygon edges: the next long edge counts if it
    begins within ``CLEAN_ARM`` of the vertex. Inward or outward does not matter: an outward turn
    is a concave corner, where no card corner of this edge can be.
    """
    n = len(lengths)
    travelled = 0.0
    for k in range(5):
        edge = (start + k) % n if step > 0 else (start - k - 1) % n
        length = lengths[edge]
        if length >= CLEAN_ARM:
            return abs(out_x * vectors[edge, 1] - out_y * vectors[edge, 0]) > 0.7 * length
        travelled += length
        if travelled > CLEAN_ARM:
            return False
    return False


def _edge_ends(
    outlines: list[np.ndarray], polygons: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """End points, outward directions and inward normals of the straight pieces of blob outline.

    Ends where the outline turns a clean right angle into another long edge are left out: those
    are corners the outline already shows. Each piece's line is fitted to the middle 80 % of its
    outline points; one pass of sums over all outlines fits every piece at once.
    """
    chains, firsts, spans, starts, stops, signs, windings = [], [], [], [], [], [], []
    offset = 0
    for k, contour in enumerate(outlines):
        poly = polygons[k]
        if len(contour) < 4 * MIN_EDGE:
            continue
        n = len(poly)
        if n < 3:
            continue
        vectors = (following(poly) - poly).astype(np.float64)
        index, ends_signs = _open_ends(vectors, np.hypot(vectors[:, 0], vectors[:, 1]))  # the pieces
        if not len(index):
            continue
        signs.append(ends_signs)
        pts = contour.reshape(-1, 2)
        count = len(pts)
        # Polygon vertices are outline points: their places in the outline give each piece's points.
        where = first_visits(contour, poly)
        firsts.append(where[index] + offset)
        spans.append((where[(index + 1) % n] - where[index]) % count)
        starts.append(poly[index])
        stops.append(poly[(index + 1) % n])
        # The outline runs with the paper on one fixed side, given by its winding.
        windings.append(np.full(len(index), 1.0 if cv2.contourArea(poly, oriented=True) > 0 else -1.0))
        chains.append(np.concatenate([pts, pts]))
        offset += 2 * count
    if not chains:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2))
    points = np.concatenate(chains).astype(np.float64)
    x, y = points[:, 0], points[:, 1]
    first, span = np.concatenate(firsts), np.concatenate(spans)
    lo = first + (0.1 * span).astype(int)
    hi = first + (0.9 * span).astype(int) + 1
    # One reduceat over (lo, hi) pairs sums each piece's rows (the sums between pieces are dropped);
    # each piece ends within its outline's second copy, so every bound is a row.
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


def _traced_lengths(
    gray: np.ndarray, filled: np.ndarray, base: np.ndarray, out: np.ndarray, normal: np.ndarray
) -> np.ndarray:
    """How far each edge runs on past its end as a line with paper on both sides (-1: too far to tell)."""
    xs, ys = _grid(base, (_ACROSS, normal), (_TRACE_T, out))
    strength = _line_strength(sample(gray, xs, ys))
    paper = np.minimum(sample(filled, xs[0], ys[0]), sample(filled, xs[4], ys[4])) > 127
    alive = (strength >= LINE_STEP) & paper
    # The first pixels pass the rounded corner of the card below; the crossing search re-places a short trace.
    alive[:, _TRACE_T < TRACE_SKIP] = True
    run = run_starts(~alive, TRACE_GAP)
    lengths = np.where(run.any(axis=1), _TRACE_T[run.argmax(axis=1)], -1.0)
    lengths[lengths == TRACE_SKIP] = 0.0
    return lengths


def _edge_lengths(gray: np.ndarray, starts: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """How far a card edge runs from each start point along its direction as a visible line or step."""
    across = np.stack([-directions[:, 1], directions[:, 0]], axis=1)
    xs, ys = _grid(starts, (_WIDE, across), (_EDGE_T, directions))
    run = run_starts(_line_strength(sample(gray, xs, ys)) < LINE_STEP, EDGE_GAP)
    return np.where(run.any(axis=1), _EDGE_T[run.argmax(axis=1)], _EDGE_T[-1])


def _second_edges(
    gray: np.ndarray, points: np.ndarray, out: np.ndarray, normal: np.ndarray, traced: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The card edge leaving points into the paper: which points have one, corners, directions, strengths.

    The crossing is first placed along the first edge (a strip just inside it), then the lean of
    the second edge is chosen among directions near square by the line strength along it, and
    last a straight line is fitted to where the edge lies along its first hundred pixels.
    """
    xs, ys = _grid(points, (_DEPTHS, normal), (_SLIDE, out))
    values = sample(gray, xs, ys)
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
    # Rays pivot about the strip's middle depth, where the crossing was measured.
    pivot = points + slide[:, None] * out + mid * normal
    directions = (
        np.cos(_SKEWS)[None, :, None] * normal[:, None, :] + np.sin(_SKEWS)[None, :, None] * out[:, None, :]
    )
    across = np.stack([-directions[..., 1], directions[..., 0]], axis=-1)
    fan = np.broadcast_to(pivot[:, None, :], directions.shape)
    xs, ys = _grid(fan, (_ACROSS, across), (_RAY_S - mid, directions))
    strength = _line_strength(sample(gray, xs, ys))
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
    """Straight lines fitted to where each edge lies at many distances along it (the search is coarse)."""
    across = np.stack([-v[:, 1], v[:, 0]], axis=1)
    xs, ys = _grid(pivot, (_SHIFTS, across), (_FIT_S, v))
    strength = _line_strength(sample(gray, xs, ys)[_SHIFTED])  # at each of the middle five shifts
    offsets = strength.argmax(axis=0) - 2.0
    use = strength.max(axis=0) >= 2 * LINE_STEP
    s = _FIT_S[None, :]
    slope = np.zeros(len(v))
    shift = np.zeros(len(v))
    for _ in range(2):
        # Least squares of offset against distance, per edge, over the samples in use.
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


def index_corner_candidates(
    gray: np.ndarray,
    filled: np.ndarray,
    aspect: float,
    outlines: list[np.ndarray],
    polygons: list[np.ndarray] | None = None,
) -> list[tuple[Corner, list[float]]]:
    """Card corners at the far ends of straight outline pieces, each with its card height guesses,
    strongest first: ``filled`` is the paper mask with blob holes filled, ``outlines`` its blob
    outlines (``paper.blob_outlines``), ``polygons`` their ``outline_polygon`` when made already."""
    if polygons is None:
        polygons = [outline_polygon(outline) for outline in outlines]
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
    first_across = across_then_down(firsts, seconds)
    corners: list[Corner] = []
    guesses: list[list[float]] = []
    for k in np.argsort(-strengths).tolist():
        across_axis, down_axis = (firsts[k], seconds[k]) if first_across[k] else (seconds[k], firsts[k])
        across, down = runs[k] if first_across[k] else runs[k, ::-1]
        corners.append(Corner(point=points[k], x_axis=across_axis, y_axis=down_axis, blob=-1))
        guesses.append(distinct_heights([down, across * aspect]))
    # The edges run on into a neighbour's: how far the paper reaches may tell instead.
    unsure = [k for k, heights in enumerate(guesses) if len(heights) < 2]
    arms = corner_arms(filled, *corner_arrays([corners[k] for k in unsure]))
    for k, reached in zip(unsure, height_candidates(arms, aspect), strict=True):
        guesses[k] = distinct_heights(guesses[k] + reached)
    found = [(corner, heights[:3]) for corner, heights in zip(corners, guesses, strict=True) if heights]
    if not found:
        return []
    # Corners within 3 px of each other, the same way round, repeat the stronger one: only pairs
    # closer than 3 px on both axes can be, and only those are measured.
    at = np.array([corner.point for corner, _ in found])
    close = (np.abs(at[:, None, 0] - at[None, :, 0]) < 3.001) & (
        np.abs(at[:, None, 1] - at[None, :, 1]) < 3.001
    )
    kept: list[tuple[Corner, list[float]]] = []
    taken: list[int] = []
    for i, (corner, heights) in enumerate(found):
        if any(
            np.linalg.norm(corner.point - found[j][0].point) < 3.0
            and float(corner.x_axis @ found[j][0].x_axis) > 0.99
            for j in taken
            if close[i, j]
        ):
            continue
        kept.append((corner, heights))
        taken.append(i)
        if len(kept) >= MAX_CANDIDATES:
            break
    return kept
