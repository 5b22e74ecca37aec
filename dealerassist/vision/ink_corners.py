"""Index corners lying on another card's outline edge, found where their print begins.

Where a row of cards shares an outer edge (a fan's bottom edge, a stepped column's side), a lower
card's index corner sits on that edge with no felt to mark it. Its index does: walking along the
shared edge, a blank margin of the card's own paper, then the rank, as far from the card's side as
the deck prints it. A start of ink proposes a corner when the margin beside and above it is plain
paper, or when the blank run before it is no longer than the printed margin (then the card's own
side ended the run, and the margin test often catches the glyph of a corner fitted that far out).
In a stepped row a card's edge lies a few pixels off the straight edge scanned, so
``on_paper_edge`` proposes the corner again where felt shows its edge. The classifier decides.
"""

from __future__ import annotations

import numpy as np

from dealerassist.vision.card_corner import (
    MAX_CARD_HEIGHT,
    MIN_CARD_HEIGHT,
    Corner,
    CornerArrays,
    across_then_down,
    corner_arrays,
    ragged,
    sample,
)

INK = 0.72  # darker than this share of the edge band's paper is print
BAND_ROWS = 6  # samples across the band where the rank is printed
SHARED = 1.15  # an edge this many card edges long is shared by more than one card
MARGIN = 0.78  # the margin beside and above an index is at least this share of its brightest part
MARGIN_DEPTH = 0.6  # where the margin is looked at: this share of the way from the card edge to the print
BOUNDED = 1.2  # printed margins: a blank run before the print no longer than this ends at the card's side
EDGE_REACH = 0.1  # card heights either side of a proposed corner searched for the paper's own edge
_EDGE_SAMPLES = np.linspace(-EDGE_REACH, EDGE_REACH, 41)  # where, in card heights (1 px apart at 200 px)
_SHARE = np.linspace(0.0, 1.0, BAND_ROWS, dtype=np.float32)[:, None]  # band rows, edge to print

Box = tuple[float, float, float, float]


def ink_corners(
    gray: np.ndarray,
    corners: CornerArrays,
    arms: np.ndarray,
    rank_box: Box,
    extent: tuple[float, float],
    aspect: float,
) -> list[tuple[Corner, float]]:
    """Corners, each with the card height it was found at, where an index starts along the edges
    running from the outline ``corners`` (``arms``: how far the paper runs along their x and y).
    ``extent``: how far the index reaches across and down, in card heights."""
    origin, along, depth, x_axis, y_axis, length, height, band, offset, ahead = _scans(
        corners, arms, rank_box, aspect
    )
    if not len(origin):
        return []
    steps = np.ceil(length).astype(int)
    owner, t = ragged(steps)  # each sample's scan, and how many pixels along its edge
    # Every scan's band, as (band row, sample) planes of x and y, in one remap.
    depth_px = (band[:, 0][owner] + (band[:, 1] - band[:, 0])[owner] * _SHARE).astype(np.float32)
    planes = []
    for axis in (0, 1):
        base = (origin[owner, axis] + along[owner, axis] * t).astype(np.float32)
        planes.append(base[None, :] + depth[owner, axis].astype(np.float32)[None, :] * depth_px)
    values = sample(gray, planes[0], planes[1])  # (BAND_ROWS, total)
    # Paper white per scan: the brightest stretch across the band (a lone bright pixel does not count).
    brightest = values.max(axis=0).astype(np.float32)
    steady = np.minimum(np.minimum(brightest, np.roll(brightest, 1)), np.roll(brightest, -1))
    paper = np.maximum.reduceat(steady, np.cumsum(steps) - steps)
    ink = values.min(axis=0) < INK * paper[owner]
    # The blank samples just before (or, where the print lies back along the edge, after) each one.
    gap = np.maximum(1, np.round(0.5 * offset)).astype(int)
    before = _blank_run(ink, t)
    after = _blank_run(ink[::-1], (steps[owner] - 1 - t)[::-1])[::-1]
    forward = ahead[owner]
    blank = np.where(forward, before, after)
    onset = np.flatnonzero(ink & (blank >= gap[owner]))
    k = owner[onset]
    along_px = np.where(forward[onset], t[onset] - offset[k], t[onset] + offset[k])
    inside = (along_px >= 0) & (along_px <= length[k])
    k, along_px, onset = k[inside], along_px[inside], onset[inside]
    if not len(k):
        return []
    points = origin[k] + along[k] * along_px[:, None]
    bounded = blank[onset] <= BOUNDED * offset[k]
    sure = bounded | _margin_blank(gray, (points, x_axis[k], y_axis[k]), height[k], rank_box, extent)
    k = k[sure]
    return _proposals(points[sure], x_axis[k], y_axis[k], height[k])


def on_paper_edge(
    filled: np.ndarray, proposals: list[tuple[Corner, float]], rank_box: Box
) -> list[tuple[Corner, float]]:
    """Each proposed corner moved along its y axis to where the card's paper starts, where felt
    shows level with the rank within ``EDGE_REACH`` of it (``filled``: the paper mask). Proposed
    besides the first, not instead: where no felt shows, or another card's, the first is better."""
    if not proposals:
        return []
    points, x_axes, y_axes = corner_arrays([corner for corner, _ in proposals])
    heights = np.array([height for _, height in proposals], float)
    x0, _, x1, _ = rank_box
    level_with_rank = points + x_axes * (0.5 * (x0 + x1) * heights)[:, None]
    offsets = heights[:, None] * _EDGE_SAMPLES[None, :]  # (proposal, sample) in pixels along y
    at = level_with_rank[:, None, :] + offsets[..., None] * y_axes[:, None, :]
    cols = np.clip(np.rint(at[..., 0]).astype(int), 0, filled.shape[1] - 1)
    rows = np.clip(np.rint(at[..., 1]).astype(int), 0, filled.shape[0] - 1)
    paper = filled[rows, cols] > 0
    # Paper from the last felt sample on, into the card: its edge lies half a step past that sample.
    felt_seen = paper[:, -1] & ~paper.all(axis=1)
    last_felt = paper.shape[1] - 1 - np.argmax(~paper[:, ::-1], axis=1)
    step = heights * (_EDGE_SAMPLES[1] - _EDGE_SAMPLES[0])
    shift = offsets[np.arange(len(proposals)), last_felt] + 0.5 * step
    moved = felt_seen & (np.abs(shift) >= 1.0)
    y_axes = y_axes[moved]
    return _proposals(points[moved] + y_axes * shift[moved, None], x_axes[moved], y_axes, heights[moved])


def _proposals(
    points: np.ndarray, x_axes: np.ndarray, y_axes: np.ndarray, heights: np.ndarray
) -> list[tuple[Corner, float]]:
    return [
        (Corner(point=point, x_axis=x, y_axis=y, blob=-1), size)
        for point, x, y, size in zip(points, x_axes, y_axes, heights.tolist(), strict=True)
    ]


def _margin_blank(
    gray: np.ndarray,
    corners: CornerArrays,
    heights: np.ndarray,
    rank_box: Box,
    extent: tuple[float, float],
) -> np.ndarray:
    """Whether the card's own margin beside the index and above it is plain paper at each corner
    (points, x axes, y axes): a start of print with anything else between it and the corner is
    not an index."""
    points, x_axes, y_axes = corners
    x0, y0, _, _ = rank_box
    across, down = extent
    fx = np.concatenate([np.full(7, MARGIN_DEPTH * x0), np.linspace(0.5 * x0, across, 4)])[:, None, None]
    fy = np.concatenate([np.linspace(0.5 * y0, down, 7), np.full(4, MARGIN_DEPTH * y0)])[:, None, None]
    at = points[None] + (x_axes[None] * fx + y_axes[None] * fy) * heights[None, :, None]
    values = sample(gray, at[..., 0], at[..., 1])
    return values.min(axis=0) > MARGIN * values.max(axis=0)


def _blank_run(ink: np.ndarray, t: np.ndarray) -> np.ndarray:
    """For each sample, how many blank samples precede it in its scan (``t``: its place in it)."""
    index = np.arange(len(ink))
    last_ink = np.maximum.accumulate(np.where(ink, index, -1))
    previous = np.concatenate([[-1], last_ink[:-1]])
    return index - np.maximum(previous + 1, index - t)


def _scans(corners: CornerArrays, arms: np.ndarray, rank_box: Box, aspect: float) -> tuple[np.ndarray, ...]:
    """One scan per corner edge and way round, in corner order, x edge first, each edge first as
    the cards' short edge (the index corner's x axis along it), then as their long edge (its y
    axis along it). A row each: where the scan starts and runs, which way is into the card, the
    index corner's axes, how far the scan runs, the card height, the band (pixels from the edge)
    the rank is printed in, how far from the card's side the rank starts, and whether the print
    lies ahead along the edge (the axes' handedness says which way). Cards sharing an edge in a row
    are as deep as the card at its end: the corner's other edge gives their height or width."""
    points, x_axes, y_axes = corners
    x0, y0, x1, y1 = rank_box
    # (corner, edge): the edge's direction, the direction into the card, its length and depth.
    along = np.stack([x_axes, y_axes], axis=1)
    inward = np.stack([y_axes, x_axes], axis=1)
    length = arms
    short = arms[:, ::-1]  # the shared edge as the cards' short edge: the index's y axis points inward
    long = short * aspect  # the shared edge as their long edge: the index's x axis points inward
    # An edge no longer than one card's is that card's own: its corners are outline corners.
    short_ok = (MIN_CARD_HEIGHT <= short) & (short <= MAX_CARD_HEIGHT) & (length > SHARED * short / aspect)
    long_ok = (MIN_CARD_HEIGHT <= long) & (long <= MAX_CARD_HEIGHT) & (length > SHARED * long)
    ahead = np.stack([across_then_down(along, inward), across_then_down(inward, along)], axis=2)
    x_for_short = np.where(ahead[..., 0, None], along, -along)
    y_for_long = np.where(ahead[..., 1, None], along, -along)
    # (corner, edge, way round), then the rows kept in that order.
    rows = (
        np.broadcast_to(points[:, None, None, :], (*ahead.shape, 2)),
        np.stack([along, along], axis=2),
        np.stack([inward, inward], axis=2),
        np.stack([x_for_short, inward], axis=2),
        np.stack([inward, y_for_long], axis=2),
        np.stack([length, length], axis=2),
        np.stack([short, long], axis=2),
        np.stack(
            [np.stack([y0 * short, y1 * short], axis=-1), np.stack([x0 * long, x1 * long], axis=-1)], axis=2
        ),
        np.stack([x0 * short, y0 * long], axis=2),
        ahead,
    )
    keep = np.stack([short_ok, long_ok], axis=2)
    return tuple(v[keep] for v in rows)
