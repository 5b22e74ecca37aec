"""The second-look cascade: windows placed after a frame's first look, to amend it.

Where the first look is unsure or names nothing, the cause is mostly geometry, not print: a fitted
corner a pixel or a degree off, a corner hidden in a fan found a few hundredths of a card away, or
a size guess from an outline that runs on past the card. So the passes move and resize windows,
never the classifier's levels. ``look_again`` runs them in this order:

1. ``around_unsure_reads`` -> ``confirm_around``: windows around an unsure read confirm its name.
2. ``at_the_print`` -> ``take_new_names``: an unnamed corner moved onto a named neighbour's print.
3. ``at_named_size`` -> ``take_new_names``: an unnamed corner read at the nearest named cards' size.
4. ``around_unsure_new_names`` -> ``confirm_around``: windows around an unsure new name of 2 or 3.
5. ``name_at_both_prints``: unsure reads of one name at one card's two prints name it.

Passes 1-3 place their windows from the first look alone, so they are read in one batch; then each
decides in turn, a later one only for rows still unnamed. Every threshold of the cascade (levels
from ``Thresholds``; geometry in card heights):

| pass | threshold | value | meaning |
|---|---|---|---|
| all | ``Thresholds.accept`` | 0.9 | a read this sure names a card |
| 1, 4 | ``Thresholds.unsure`` | 0.3 | a read from this up to ``accept`` is looked at again |
| 3 | ``Thresholds.unsure`` | 0.3 | a corner's own read of another name from this blocks it |
| 1, 4 | ``second_look.AROUND_STEP``, ``AROUND_SIZES`` | 0.015; 0.96, 1, 1.04 | 5 places x 3 sizes |
| 1 | ``Thresholds.confirm_windows`` | 4 of 15 | windows at ``accept`` that confirm a name |
| 4 | ``Thresholds.confirm_new_name_windows`` | 5 of 15 | the same for a new name |
| 2, 5 | ``second_look.SAME_WAY`` | 0.9 | cosine of both edges: corners turned alike (or half round) |
| 2 | ``PRINT_REACH`` | 1.5 | the farthest neighbour that lends its print |
| 2 | ``PRINT_MOVE`` | 0.02 | the least move to the print worth a window |
| 2, 3 | ``PRINT_RESIZE`` | 0.06 | a size guess this far from the named size is off |
| 2, 3 | ``Thresholds.new_name`` | 0.9 | a window there brings a new name this sure |
| 3 | ``NEAREST_NAMED`` | 3 | named corners whose median size is the named size |
| 5 | ``Thresholds.both_prints`` | 0.5 | unsure reads from this take part |
| 5 | ``BOTH_PRINTS_REACH`` | 0.1 | the second corner this near the first's far corner |
| 5 | ``BOTH_PRINTS_SIZE`` | 0.15 | and its card size this near the first's |
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dealerassist.vision.candidates import INK, OUTLINE, TRACED, distances
from dealerassist.vision.index_features import ink_around, ink_cell
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import Committee
from dealerassist.vision.print_match import PRINT_PAD, print_offsets
from dealerassist.vision.second_look import (
    AROUND_MIDDLE,
    AROUND_WINDOWS,
    SAME_WAY,
    FirstLook,
    SecondLook,
    joined,
    no_windows,
    read_second_looks,
    surest,
    unsure_rows,
    windows_around,
)
from dealerassist.vision.thresholds import Thresholds

PRINT_REACH = 1.5
PRINT_MOVE = 0.02
PRINT_RESIZE = 0.06
NEAREST_NAMED = 3
BOTH_PRINTS_REACH = 0.1
BOTH_PRINTS_SIZE = 0.15

# Corners whose size guesses come from their own card's edges (an ink corner's from the edge it is on).
_OWN_CARD = frozenset({OUTLINE, TRACED, INK})


def look_again(look: FirstLook, net: Committee, window: IndexWindow, aspect: float, t: Thresholds) -> None:
    """The cascade, amending ``look`` in place."""
    around_unsure = around_unsure_reads(look, t.unsure, t.accept)
    at_print = at_the_print(look, t.accept, window)
    named_size = at_named_size(look, t.accept, at_print)
    read_second_looks(look, [around_unsure, at_print, named_size], net, window, t.accept)
    confirm_around(look, around_unsure, t.accept, t.confirm_windows)
    take_new_names(look, at_print, t.new_name, t.accept)
    take_new_names(look, named_size, t.new_name, t.accept, contrary=t.unsure)
    around_new_names = around_unsure_new_names(look, [at_print, named_size], t.unsure, t.new_name, t.accept)
    read_second_looks(look, [around_new_names], net, window, t.accept)
    confirm_around(look, around_new_names, t.accept, t.confirm_new_name_windows)
    name_at_both_prints(look, aspect, t.both_prints, t.accept)


def around_unsure_reads(look: FirstLook, unsure: float, accept: float) -> SecondLook:
    """Windows around every corner whose best read is unsure, read for the card it names: a corner
    a pixel or a degree out moves a small card's print further than any training window was moved."""
    rows = unsure_rows(look, unsure, accept)
    corner = look.owner[rows]
    middle = SecondLook(
        rows, look.points[corner], look.x_axes[corner], look.y_axes[corner], look.heights[rows]
    )
    return windows_around(middle, [look.names[row] for row in rows.tolist()])


def around_unsure_new_names(
    look: FirstLook, steps: list[SecondLook], unsure: float, level: float, accept: float
) -> SecondLook:
    """Windows around the surest new name of each row still unnamed that ``steps`` read from
    ``unsure`` up to ``level``, read for that name: a window placed from a neighbour's print or
    size can lie a little off, as a fitted corner can."""
    together = joined(steps)
    names = [name for step in steps for name in step.names]
    sure = np.concatenate([step.probability for step in steps]).tolist()
    chosen: dict[int, tuple[float, int]] = {}  # row: the level and window of its surest unsure name
    for i, (row, value) in enumerate(zip(together.rows.tolist(), sure, strict=True)):
        unnamed = look.probability[row] < accept
        if unnamed and unsure <= value < level and value > chosen.get(row, (0.0,))[0]:
            chosen[row] = (value, i)
    picks = [i for _, i in chosen.values()]
    where = (together.points[picks], together.x_axes[picks], together.y_axes[picks], together.sizes[picks])
    return windows_around(SecondLook(np.array(list(chosen), int), *where), [names[i] for i in picks])


def confirm_around(look: FirstLook, around: SecondLook, accept: float, needed: int) -> list[int]:
    """Name each still unnamed row whose ``needed``-th surest window around reaches ``accept`` (several
    windows, not one lucky one), at the middle window's place and size; the rows named."""
    if not len(around.rows):
        return []
    middle = slice(AROUND_MIDDLE, None, AROUND_WINDOWS)
    read = SecondLook(
        around.rows[middle],
        around.points[middle],
        around.x_axes[middle],
        around.y_axes[middle],
        around.sizes[middle],
        names=(around.cards or [])[middle],
        probability=surest(around, needed),
    )
    return take_new_names(look, read, accept, accept)


def at_the_print(look: FirstLook, accept: float, window: IndexWindow) -> SecondLook:
    """A window where the print lies, for every unnamed corner beside a named one turned alike.

    In a fan a lower card's corner is often hidden or marked only by its neighbour's faint edge, so
    the corner found is a little off and its print partly outside its window. The ink around the
    window (at the nearest named card's size) is matched with the mean ink of the frame's named
    windows, and the corner moved by the best match, unless that lands on a named corner turned
    alike (its print again) or leaves it in place at a size near the named size already.

    The plain match is drawn to the heaviest ink, which beside a court figure is not the print; the
    zero-mean match follows the print's shape but finds fewer prints. Where they disagree both are
    read, the plain one first (``take_new_names`` takes a row's first name).
    """
    first, named = look.named_best(accept)
    unnamed = np.flatnonzero(~named)
    if not named.any() or not len(unnamed):
        return no_windows()
    points, x_axes, y_axes = look.points, look.x_axes, look.y_axes
    corners, lenders = look.owner[first[unnamed]], look.owner[first[named]]
    lender_sizes = look.heights[first[named]]
    alike = (x_axes[corners] @ x_axes[lenders].T > SAME_WAY) & (
        y_axes[corners] @ y_axes[lenders].T > SAME_WAY
    )
    apart = np.where(alike, distances(points[corners], points[lenders]), np.inf)
    nearest = np.argmin(apart, axis=1)
    beside = np.flatnonzero(apart[np.arange(len(corners)), nearest] < PRINT_REACH * lender_sizes[nearest])
    if not len(beside):
        return no_windows()
    rows, corners, size = first[unnamed[beside]], corners[beside], lender_sizes[nearest[beside]]
    around = ink_around(look.bgra, points[corners], x_axes[corners], y_axes[corners], size, window, PRINT_PAD)
    print_map = look.ink[first[named]].mean(axis=0)  # where the frame's named indices print
    cell = np.array(ink_cell(window)) * size[:, None]
    plain = print_offsets(around, print_map)
    shaped = print_offsets(around, print_map, zero_mean=True)
    resized = _sizes_all_off([look.candidates[corner].heights for corner in corners.tolist()], size)
    placed = []
    for offsets, own_place in ((plain, True), (shaped, np.any(shaped != plain, axis=1))):
        moves = offsets * cell
        at = points[corners] + moves[:, :1] * x_axes[corners] + moves[:, 1:] * y_axes[corners]
        landed = (distances(at, points[lenders]) < PRINT_MOVE * lender_sizes[None, :]) & alike[beside]
        moved = np.hypot(moves[:, 0], moves[:, 1]) >= PRINT_MOVE * size
        keep = np.flatnonzero((moved | resized) & ~landed.any(axis=1) & own_place)
        placed.append(
            SecondLook(rows[keep], at[keep], x_axes[corners[keep]], y_axes[corners[keep]], size[keep])
        )
    return joined(placed)


def at_named_size(look: FirstLook, accept: float, printed: SecondLook) -> SecondLook:
    """A window at the median size of the nearest named cards, for every unnamed outline, traced or
    ink corner none of whose first-look sizes is near it, unless ``printed`` (``at_the_print``'s
    windows) reads it in place already.

    A table's cards are one size, but a corner's size guesses come from how far paper runs along its
    edges, and in a fan the outline runs on past the card or stops at a neighbour. Junctions are left
    out: unnamed, they are mostly another card's edge. A corner ``at_the_print`` moved is read here
    too, where it was found: a court card's frame can pull the print match away from the index.
    """
    first, named = look.named_best(accept)
    own = np.array([candidate.source in _OWN_CARD for candidate in look.candidates])
    in_place = np.all(printed.points == look.points[look.owner[printed.rows]], axis=1)
    unnamed = np.flatnonzero(~named & own & ~np.isin(first, printed.rows[in_place]))
    if not named.any() or not len(unnamed):
        return no_windows()
    nearest = np.argsort(distances(look.points[unnamed], look.points[named]), axis=1)
    sizes = np.median(look.heights[first[named]][nearest[:, :NEAREST_NAMED]], axis=1)
    read = np.bincount(look.owner, minlength=len(look.candidates)).tolist()
    off = _sizes_all_off(
        [look.candidates[corner].heights[: read[corner]] for corner in unnamed.tolist()], sizes
    )
    corners = unnamed[off]
    points, x_axes, y_axes = look.points[corners], look.x_axes[corners], look.y_axes[corners]
    return SecondLook(first[corners], points, x_axes, y_axes, sizes[off])


def _sizes_all_off(guesses: list[list[float]], sizes: np.ndarray) -> np.ndarray:
    """Whether each corner's every size guess is more than ``PRINT_RESIZE`` off its named size."""
    return np.array(
        [
            all(abs(tried / size - 1.0) > PRINT_RESIZE for tried in tried_sizes)
            for tried_sizes, size in zip(guesses, sizes.tolist(), strict=True)
        ],
        bool,
    )


def take_new_names(
    look: FirstLook, moved: SecondLook, level: float, accept: float, contrary: float = np.inf
) -> list[int]:
    """Give each still unnamed row the card its moved window names at ``level`` or more, with that
    window's size and corner; the rows named. A row whose own read names another card at ``contrary``
    or more keeps it: two windows of one corner that disagree name nothing."""
    raised = []
    for row, point, size, name, value in zip(
        moved.rows.tolist(), moved.points, moved.sizes, moved.names, moved.probability.tolist(), strict=True
    ):
        disputed = look.names[row] != name and look.probability[row] >= contrary
        if value >= level and look.probability[row] < accept and not disputed:
            look.names[row], look.probability[row], look.heights[row] = name, value, float(size)
            corner = int(look.owner[row])
            candidate = look.candidates[corner]
            look.candidates[corner] = replace(candidate, corner=replace(candidate.corner, point=point))
            look.points[corner] = point
            raised.append(row)
    return raised


def name_at_both_prints(look: FirstLook, aspect: float, unsure: float, accept: float) -> list[int]:
    """Raise to ``accept`` every pair of unsure reads (each corner's surest) of one name that lie at
    one card's two prints; the rows raised. Two windows, often one blurred or each a little off,
    naming one card at both its prints is evidence neither gives alone."""
    rows = unsure_rows(look, unsure, accept).tolist()
    raised: set[int] = set()
    for i, first in enumerate(rows):
        a, size = int(look.owner[first]), float(look.heights[first])
        far = look.points[a] + look.x_axes[a] * (size / aspect) + look.y_axes[a] * size
        for second in rows[i + 1 :]:
            b = int(look.owner[second])
            if (
                look.names[second] == look.names[first]
                and abs(float(look.heights[second]) / size - 1.0) <= BOTH_PRINTS_SIZE
                and float(look.x_axes[a] @ look.x_axes[b]) < -SAME_WAY
                and float(look.y_axes[a] @ look.y_axes[b]) < -SAME_WAY
                and float(np.hypot(*(look.points[b] - far))) <= BOTH_PRINTS_REACH * size
            ):
                raised.update((first, second))
    for row in raised:
        look.probability[row] = accept
    return sorted(raised)
