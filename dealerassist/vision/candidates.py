"""Every place in a frame where a card's index corner may be, with the card heights worth trying.

Shared by the reader and by enrollment, so that the classifier is trained on the corners the reader
will show it. Four finders propose corners, each a ``source``: OUTLINE, a right angle of a paper
blob's outline; JUNCTION, where a card edge buried in a blob meets its outline; TRACED, where a
buried edge followed on from the outline ends; INK, where an index starts along an outline edge
that several cards share.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dealerassist.vision.card_corner import Corner, CornerArrays, corner_arrays
from dealerassist.vision.card_extent import corner_arms, height_candidates
from dealerassist.vision.edge_junctions import edge_junctions
from dealerassist.vision.index_corners import index_corner_candidates
from dealerassist.vision.index_window import IndexWindow, sample_windows
from dealerassist.vision.ink_corners import ink_corners, on_paper_edge
from dealerassist.vision.outline_corners import outline_corners, outline_polygon
from dealerassist.vision.paper import blob_outlines, card_mask, frame_image

OUTLINE, JUNCTION, TRACED, INK = "outline", "junction", "traced", "ink"
REPEAT = 0.03  # card heights: an ink corner this close to a known one, turned the same way, repeats it


@dataclass(frozen=True)
class Candidate:
    """A possible card corner, the card heights to read it at, and the finder that proposed it."""

    corner: Corner
    heights: list[float]
    source: str


@dataclass(frozen=True)
class FrameGeometry:
    """A frame's candidates with the grey image and the paper mask (blob holes filled) they were
    found on: the reader's later stages look at both again."""

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
    """Every corner candidate in a BGR frame or its ``sampling_image``. Ink corners need where the
    deck prints its rank (``rank_box``) and how far its index reaches (``window``); ``notches``
    adds outline corners across a notch (``outline_corners``)."""
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
    arms = corner_arms(filled, corner_at)  # how far the paper runs from each corner, in one pass
    found = [
        Candidate(corner, heights, source)
        for corner, heights, source in zip(corners, height_candidates(arms, aspect), sources, strict=True)
    ]
    traced = index_corner_candidates(gray, filled, aspect, outlines, polygons)
    found += [Candidate(corner, heights, TRACED) for corner, heights in traced]
    if rank_box is not None and window is not None:
        direct = [k for k, source in enumerate(sources) if source == OUTLINE]
        outline_at = tuple(v[direct] for v in corner_at)
        extent = (window.across, window.down)
        proposals = ink_corners(
            gray, outline_at, np.array(arms, float).reshape(-1, 2)[direct], rank_box, extent, aspect
        )
        proposals += on_paper_edge(filled, proposals, rank_box)
        traced_at = corner_arrays([corner for corner, _ in traced])
        known = tuple(np.concatenate(pair) for pair in zip(corner_at, traced_at, strict=True))
        found += [Candidate(corner, [height], INK) for corner, height in _unseen(proposals, known)]
    return FrameGeometry(gray, filled, [c for c in found if c.heights])


def _unseen(proposals: list[tuple[Corner, float]], known: CornerArrays) -> list[tuple[Corner, float]]:
    """The proposed corners that repeat neither a ``known`` one (points, x axes, y axes) nor an
    earlier proposal kept."""
    if not proposals:
        return []
    corners = corner_arrays([c for c, _ in proposals])
    near = REPEAT * np.array([h for _, h in proposals], float)
    fresh = ~_same_spot_same_way(corners, near, known).any(axis=1)
    clash = np.tril(_same_spot_same_way(corners, near, corners) & fresh[None, :], -1)
    kept = fresh.copy()
    for i in np.flatnonzero(fresh & clash.any(axis=1)).tolist():
        kept[i] = not (clash[i] & kept).any()  # rows before i are settled by now
    return [proposals[i] for i in np.flatnonzero(kept).tolist()]


def _same_spot_same_way(corners: CornerArrays, near: np.ndarray, others: CornerArrays) -> np.ndarray:
    """[i, j]: corner i lies within ``near[i]`` of corner j of ``others``, both axes turned the same
    way (the axes are compared only for the few pairs that close)."""
    (points, x_axes, y_axes), (others, other_x, other_y) = corners, others
    same = distances(points, others) < near[:, None]
    i, j = np.nonzero(same)
    turned = ~(
        (np.einsum("ik,ik->i", x_axes[i], other_x[j]) > 0.95)
        & (np.einsum("ik,ik->i", y_axes[i], other_y[j]) > 0.95)
    )
    same[i[turned], j[turned]] = False
    return same


def distances(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Every point's distance to every other: ``np.linalg.norm`` of the differences to the bit (the
    same sums in the same order), without its cost over an axis of two."""
    points, others = np.asarray(points), np.asarray(others)
    dx = points[:, None, 0] - others[None, :, 0]
    dy = points[:, None, 1] - others[None, :, 1]
    return np.sqrt(dx * dx + dy * dy).astype(np.float64, copy=False)  # single precision kept in double


def windows_of(
    frame: np.ndarray,
    candidates: list[Candidate],
    window: IndexWindow,
    corners: CornerArrays | None = None,
    sizes: list[list[float]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The index windows of every (candidate, height) pair, the candidate of each row and the height
    it was sampled at. ``corners``: the candidates' ``corner_arrays`` if made already; ``sizes``:
    the heights to read each at, if not all of its own."""
    sizes = sizes if sizes is not None else [c.heights for c in candidates]
    owner = np.repeat(np.arange(len(candidates)), [len(heights) for heights in sizes])
    heights = np.array([h for each in sizes for h in each], float)
    points, x_axes, y_axes = corners or corner_arrays([c.corner for c in candidates])
    windows = sample_windows(frame, points[owner], x_axes[owner], y_axes[owner], heights, window)
    return windows, owner, heights
