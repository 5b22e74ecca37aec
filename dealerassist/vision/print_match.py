"""Where a corner's print lies: its window's ink slid over the mean ink of the frame's named
prints, so an unnamed corner found a little off its card can be moved onto its index.
"""

from __future__ import annotations

import numpy as np

from dealerassist.compiled import compiled

PRINT_PAD = (6, 8)  # ink cells (across, down) the match may move a window


def print_offsets(around: np.ndarray, print_map: np.ndarray, zero_mean: bool = False) -> np.ndarray:
    """How many ink cells (across, down) each print lies from where ``print_map`` has it in its
    window (``around``: the ink of each window and ``PRINT_PAD`` cells beyond it).

    A corner found off its card mostly lies along one of its edges, so the better of the best move
    straight across and straight down is kept, then a move along the other edge mends the rest.
    """
    count = len(around)
    wanted = print_map.astype(np.float32)
    start = np.zeros((count, 2), int)
    first = [best_along(around, wanted, start, axis, zero_mean) for axis in (0, 1)]
    along_x = first[0][1] >= first[1][1]
    start[:, 0] = np.where(along_x, first[0][0], 0)
    start[:, 1] = np.where(along_x, 0, first[1][0])
    then_y, _ = best_along(around, wanted, start, 1, zero_mean)
    then_x, _ = best_along(around, wanted, start, 0, zero_mean)
    start[:, 1] = np.where(along_x, then_y, start[:, 1])
    start[:, 0] = np.where(along_x, start[:, 0], then_x)
    return start.astype(float)


def best_along(
    around: np.ndarray, wanted: np.ndarray, start: np.ndarray, axis: int, zero_mean: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The best move of ``wanted`` along one axis (0 across, 1 down) of each window's ``around``
    map, the other axis held at ``start``'s move, with its match."""
    across, down = PRINT_PAD
    pad, held = (across, start[:, 1] + down) if axis == 0 else (down, start[:, 0] + across)
    if axis == 1:  # the maps turned down the card, each row contiguous for the compiled loop
        around, wanted = np.ascontiguousarray(around.transpose(0, 2, 1)), wanted.T
    weights = np.ascontiguousarray(wanted, np.float64)
    if zero_mean:  # the mean taken off, summed in order (np.mean sums pairwise, rounding otherwise)
        weights -= np.cumsum(weights)[-1] / weights.size
    best, match = _best_placings(around, weights, held, zero_mean)
    return best - pad, match


@compiled()
def _best_placings(
    around: np.ndarray, weights: np.ndarray, held: np.ndarray, zero_mean: bool
) -> tuple[np.ndarray, np.ndarray]:
    """For each window, the first placing of ``weights`` along the last axis of its ``around`` map
    that matches best (scored as ``cv2.TM_CCORR_NORMED``, or with ``zero_mean`` as
    ``cv2.TM_CCOEFF_NORMED`` but for the map's own norm), the map's first row held at ``held``.

    Compiled: numpy passes making the same sums in the same order cost many times more. With the
    map's mean off its weights, the products are those of both means off.
    """
    count, _, width = around.shape
    rows, cols = weights.shape
    moves = width - cols + 1
    cells = rows * cols
    best = np.empty(count, np.int64)
    score = np.empty(count, np.float64)
    products = np.empty(moves)
    line = np.empty(width)
    column_ink = np.empty(width)
    column_energy = np.empty(width)
    for n in range(count):
        products[:] = 0.0
        column_ink[:] = 0.0
        column_energy[:] = 0.0
        for r in range(rows):
            source = around[n, held[n] + r]
            for x in range(width):
                value = np.float64(source[x])
                line[x] = value
                column_ink[x] += value
                column_energy[x] += value * value
            for c in range(cols):
                weight = weights[r, c]
                for m in range(moves):
                    products[m] += line[m + c] * weight
        best[n], score[n] = 0, -np.inf
        for m in range(moves):
            ink, energy = 0.0, 0.0
            for c in range(cols):
                ink += column_ink[m + c]
                energy += column_energy[m + c]
            spread = energy - ink * ink / cells if zero_mean else energy
            match = products[m] / np.sqrt(max(spread, 1e-12))
            if match > score[n]:
                best[n], score[n] = m, match
    return best, score
