"""Every place in a frame where a card's index corner may be, with the card sizes worth trying.

Shared by the reader and by enrollment, so the classifier is trained on the corners the reader
will really show it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dealerassist.vision.card_corner import Corner, corner_arrays
from dealerassist.vision.card_extent import corner_arms, height_candidates
from dealerassist.vision.edge_junctions import edge_junctions
from dealerassist.vision.index_corners import index_corner_candidates
from dealerassist.vision.index_window import IndexWindow, sample_windows
from dealerassist.vision.ink_corners import ink_corners, on_paper_edge
from dealerassist.vision.outline_corners import outline_corners, outline_polygon
from dealerassist.vision.paper import blob_outlines, card_mask, frame_image

OUTLINE, JUNCTION, TRACED, INK = "outline", "junction", "traced", "ink"


@dataclass(frozen=True)
class Candidate:
    """A possible card corner: seen on an outline, where an edge meets an outline, where a buried
    edge traced from the outline turns, or where an index starts along an outline edge shared by
    several cards."""

    corner: Corner
    heights: list[float]
    source: str


@dataclass(frozen=True)
class FrameGeometry:
    """A frame's candidates, with the grey image and the paper mask (blob holes filled) they were
    found on, which the reader's later stages look at again."""

    gray: np.ndarray
    filled: np.ndarray
    candidates: list[Candidate]


def find_candidates(
    frame: np.ndarray,
    aspect: float,
    rank_box: tuple[float, float, float, float] | None = None,
    window: IndexWindow | None = None,
    notches: bool = True,
) -> FrameGeometry:
    """Every corner candidate in a BGR frame or its ``sampling_image``: outline corners (with
    ``notches``, those across a notch too: ``outline_corners``), junctions and traced corners;
    given where the deck prints its rank (``rank_box``) and how far its index reaches
    (``window``), ink corners too. How far the paper runs from each corner is measured in one pass.
    """
    gray = frame_image(frame.shape[:2])
    paper = card_mask(frame, gray)
    outlines = blob_outlines(paper)
    filled = frame_image(paper.shape)
    filled.fill(0)
    cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
    polygons = [outline_polygon(outline) for outline in outlines]
    junctions = edge_junctions(gray, filled, outlines, polygons=polygons)
    corners: list[Corner] = []
    sources: list[str] = []
    for blob, (outline, polygon) in enumerate(zip(outlines, polygons, strict=True)):
        direct = outline_corners(outline, blob, polygon, notches)
        corners += direct + junctions[blob]
        sources += [OUTLINE] * len(direct) + [JUNCTION] * len(junctions[blob])
    corner_at = corner_arrays(corners)
    arms = corner_arms(filled, *corner_at)
    found = [
        Candidate(corner, heights, source)
        for corner, heights, source in zip(corners, height_candidates(arms, aspect), sources, strict=True)
    ]
    traced = index_corner_candidates(gray, filled, aspect, outlines, polygons)
    found += [Candidate(corner, heights, TRACED) for corner, heights in traced]
    if rank_box is not None and window is not None:
        direct = [k for k, source in enumerate(sources) if source == OUTLINE]
        proposals = ink_corners(
            gray,
            *(v[direct] for v in corner_at),
            np.array(arms, float).reshape(-1, 2)[direct],
            rank_box,
            (window.across, window.down),
            aspect,
        )
        proposals += on_paper_edge(filled, proposals, rank_box)
        traced_at = corner_arrays([corner for corner, _ in traced])
        known = tuple(np.concatenate(pair) for pair in zip(corner_at, traced_at, strict=True))
        found += [Candidate(corner, [height], INK) for corner, height in _unseen(proposals, known)]
    return FrameGeometry(gray, filled, [c for c in found if c.heights])


REPEAT = 0.03  # card heights: a corner this close to a known one, turned the same way, repeats it


def _unseen(
    proposals: list[tuple[Corner, float]], known: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> list[tuple[Corner, float]]:
    """Proposed corners that repeat neither a known candidate (``known``: the points, x axes and
    y axes of all of them) nor an earlier proposal."""
    if not proposals:
        return []
    points, x_axes, y_axes = corner_arrays([c for c, _ in proposals])
    near = REPEAT * np.array([h for _, h in proposals], float)
    fresh = np.ones(len(proposals), bool)
    if len(known[0]):
        fresh = ~_same_spot_same_way(points, x_axes, y_axes, near, *known).any(axis=1)
    clash = np.tril(
        _same_spot_same_way(points, x_axes, y_axes, near, points, x_axes, y_axes) & fresh[None, :], -1
    )
    # Each is dropped when it repeats an earlier one kept; only the few that clash are looked at.
    kept = fresh.copy()
    for i in np.flatnonzero(fresh & clash.any(axis=1)).tolist():
        kept[i] = not (clash[i] & kept).any()  # rows before i are settled by now
    return [proposals[i] for i in np.flatnonzero(kept).tolist()]


def _same_spot_same_way(
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    near: np.ndarray,
    others: np.ndarray,
    other_x: np.ndarray,
    other_y: np.ndarray,
) -> np.ndarray:
    """[i, j]: corner i lies within ``near[i]`` of corner j with both axes turned the same way
    (only the few pairs that lie that close are compared for their axes)."""
    same = distances(points, others) < near[:, None]
    i, j = np.nonzero(same)
    turned = ~(
        (np.einsum("ik,ik->i", x_axes[i], other_x[j]) > 0.95)
        & (np.einsum("ik,ik->i", y_axes[i], other_y[j]) > 0.95)
    )
    same[i[turned], j[turned]] = False
    return same


def distances(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Every point's distance to every other point: ``np.linalg.norm`` of the differences, the same
    sums in the same order, without its cost over an axis of two."""
    points, others = np.asarray(points), np.asarray(others)
    dx = points[:, None, 0] - others[None, :, 0]
    dy = points[:, None, 1] - others[None, :, 1]
    return np.sqrt(dx * dx + dy * dy).astype(np.float64, copy=False)  # single precision kept in double


def windows_of(
    frame: np.ndarray,
    candidates: list[Candidate],
    window: IndexWindow,
    corners: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    sizes: list[list[float]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sampled windows of every (candidate, height) pair, which candidate each row belongs to,
    and the height it was sampled at (``corners``: the candidates' ``corner_arrays``, when the
    caller has them; ``sizes``: the heights to read each candidate at, when not all of its own)."""
    sizes = sizes if sizes is not None else [c.heights for c in candidates]
    owner = np.repeat(np.arange(len(candidates)), [len(heights) for heights in sizes])
    heights = np.array([h for each in sizes for h in each], float)
    points, x_axes, y_axes = corners or corner_arrays([c.corner for c in candidates])
    windows = sample_windows(frame, points[owner], x_axes[owner], y_axes[owner], heights, window)
    return windows, owner, heights
