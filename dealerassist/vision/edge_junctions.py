"""Corners of cards buried inside a blob: where a card edge lying on another card meets the blob's
outline, found as the strongest brightness step a few pixels inside the outline.

Along every long outline edge, a card edge running inward from it shows as a line of strong
brightness change across the whole strip just inside; where it meets the outline a card has a
corner, one edge along the outline and one along the buried line. All outlines' edges are scanned
at once, but every strip pixel is sampled and every edge's profile judged on its own, so the corners
are those each outline would give alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from dealerassist.vision.card_corner import Corner, face_up_axes, following, ragged, sample
from dealerassist.vision.card_extent import paper_at
from dealerassist.vision.outline_corners import fitted_directions

JUNCTION_DEPTH = (3, 16)  # pixels inside the outline where a buried card edge is looked for
MIN_EDGE_PX = 30.0  # outline edges this long are scanned
STRIP_END_PX = 8.0  # each strip leaves out this much of either end of its edge (the corners)
_DEPTHS = np.arange(*JUNCTION_DEPTH, dtype=np.float32)
_PEAK_REACH = 4  # samples either side within which a buried edge must be the strongest change
_PEAK_WINDOW = np.ones((1, 2 * _PEAK_REACH + 1), np.uint8)


def edge_junctions(
    gray: np.ndarray, filled: np.ndarray, outlines: Sequence[np.ndarray], polygons: Sequence[np.ndarray]
) -> list[list[Corner]]:
    """Corners of cards whose corner sits on another card's straight edge (fans, touching cards), by
    outline (the blob number of each is its place); ``polygons``: the outlines' ``outline_polygon``."""
    starts_of, segs_of, owners = [], [], []
    for k, polygon in enumerate(polygons):
        poly = polygon.astype(np.float64)
        seg_all = following(poly) - poly
        long = np.flatnonzero(np.hypot(seg_all[:, 0], seg_all[:, 1]) >= MIN_EDGE_PX)
        starts_of.append(poly[long])
        segs_of.append(seg_all[long])
        owners.append(np.full(len(long), k))
    found: list[list[Corner]] = [[] for _ in outlines]
    if not outlines or not sum(len(o) for o in owners):
        return found
    starts, segs, owner = np.concatenate(starts_of), np.concatenate(segs_of), np.concatenate(owners)
    lengths = np.hypot(segs[:, 0], segs[:, 1])
    # Each edge's direction fitted to its outline points, or the polygon edge's where under five
    # points leave too little straight outline to fit.
    directions = segs / lengths[:, None]
    near, bounds = _points_along(outlines, starts, segs, lengths, owner)
    fit = np.flatnonzero(np.diff(bounds) >= 5)
    directions[fit] = fitted_directions(near, bounds[fit], bounds[fit + 1], segs[fit])
    # The inward normal: the side where paper lies just off the middle of the edge.
    normals = np.stack([-directions[:, 1], directions[:, 0]], axis=1)
    probes = np.round(starts + directions * lengths[:, None] / 2 + normals * 5).astype(np.intp)
    normals[paper_at(filled, probes) == 0] *= -1
    # A sample a pixel, as ``np.arange(STRIP_END_PX, length - STRIP_END_PX)`` would place them.
    counts = np.maximum(np.ceil((lengths - STRIP_END_PX) - STRIP_END_PX), 0).astype(np.intp)
    kept = np.flatnonzero(counts >= 8)
    if not len(kept):
        return found
    counts = counts[kept]
    maps = _strip_maps(starts[kept], normals[kept], directions[kept], counts)
    joined = sample(gray, maps[0], maps[1])
    steps = np.abs(joined[:, 2:] - joined[:, :-2])
    profiles = np.partition(steps, len(_DEPTHS) // 2, axis=0)[len(_DEPTHS) // 2]  # each column's median
    # Each edge's profile: its own columns but the last two (their steps reach into the next edge).
    sizes = counts - 2
    strip, within = ragged(sizes)
    profile = profiles[(np.cumsum(counts) - counts)[strip] + within]
    levels = np.maximum(10.0, 4.0 * _medians(profile, strip, sizes).astype(np.float64))
    # A buried edge is the strongest change within _PEAK_REACH samples either side: a running
    # maximum, as a dilation of the profiles laid end to end with -1 (below any change) between.
    at = np.arange(len(strip)) + _PEAK_REACH * (strip + 1)
    spaced = np.full(len(strip) + _PEAK_REACH * (len(kept) + 1), -1.0, np.float32)
    spaced[at] = profile
    strongest = cv2.dilate(spaced[None], _PEAK_WINDOW).ravel()[at]
    peaks = np.flatnonzero((profile > levels[strip]) & (profile >= strongest))
    # Each junction both ways round, each ordered (across, down) as a card lies face up.
    edges = kept[strip[peaks]]
    ts = within[peaks] + STRIP_END_PX + 1.0  # a step's middle column: one past its place
    d, n = directions[edges], normals[edges]
    points = starts[edges] + d * ts[:, None]
    ahead_x, ahead_y = face_up_axes(d, n)
    back_x, back_y = face_up_axes(-d, n)
    for k, e in enumerate(edges.tolist()):
        outline = int(owner[e])
        found[outline] += [
            Corner(point=points[k], x_axis=ahead_x[k], y_axis=ahead_y[k], blob=outline),
            Corner(point=points[k], x_axis=back_x[k], y_axis=back_y[k], blob=outline),
        ]
    return found


def _points_along(
    outlines: Sequence[np.ndarray],
    starts: np.ndarray,
    segs: np.ndarray,
    lengths: np.ndarray,
    owner: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The points of each polygon edge's own outline (in outline order) that lie on the middle 70 %
    of the edge within 2 px of its line, edge after edge, and their bounds (edge e's are
    ``near[bounds[e] : bounds[e + 1]]``)."""
    sizes = np.array([len(outline) for outline in outlines], np.int64)
    points = np.concatenate([outline.reshape(-1, 2) for outline in outlines]).astype(np.float64)
    edge, within = ragged(sizes[owner])
    point = (np.cumsum(sizes) - sizes)[owner[edge]] + within
    rel, seg, length = points[point] - starts[edge], segs[edge], lengths[edge]
    t = (rel[:, 0] * seg[:, 0] + rel[:, 1] * seg[:, 1]) / (length * length)
    off = np.abs(rel[:, 0] * seg[:, 1] - rel[:, 1] * seg[:, 0]) / length
    kept = (0.15 < t) & (t < 0.85) & (off < 2.0)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(edge[kept], minlength=len(starts)))])
    return points[point[kept]], bounds


def _strip_maps(
    starts: np.ndarray, normals: np.ndarray, directions: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """(2, depths, samples) x and y of every edge's strip for ``sample``: edge e's ``counts[e]``
    columns in turn, each its start plus a depth along its normal plus its place along the edge
    (from ``STRIP_END_PX`` on), summed in that order in double precision and rounded once."""
    along = ragged(counts)[1] + STRIP_END_PX
    start, normal, step = (
        np.repeat(values, counts, axis=0).T[:, None, :] for values in (starts, normals, directions)
    )
    inward = start + _DEPTHS.astype(np.float64)[None, :, None] * normal
    return (inward + along.astype(np.float64) * step).astype(np.float32)


def _medians(values: np.ndarray, group: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The median of each group of float32 ``values`` (consecutive, none empty), all at once: groups
    are kept apart by adding a multiple of 1024 (the values, grey-level steps, are under 256), which
    float64 holds exactly; two middle values are averaged in float32, as ``np.median`` does."""
    ordered = np.sort(values.astype(np.float64) + 1024.0 * group)
    begin = np.cumsum(sizes) - sizes
    low = (ordered[begin + (sizes - 1) // 2] - 1024.0 * np.arange(len(sizes))).astype(np.float32)
    high = (ordered[begin + sizes // 2] - 1024.0 * np.arange(len(sizes))).astype(np.float32)
    return np.where(sizes % 2 == 1, high, (low + high) / np.float32(2))
