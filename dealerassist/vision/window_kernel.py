"""The feature rows of index windows, worked out window by window in compiled loops.

The same numbers came from whole-array OpenCV and numpy passes over all of a frame's windows
stacked; each of those passes reads and writes planes far larger than the processor's caches,
and a frame makes some sixty of them. Here one window's planes (a few kilobytes) stay in cache
from its first pixel to its last feature, and every sum is taken in the order the library calls
took it - OpenCV's area pooling adds a block's pixels row by row in runs of four, numpy's sums
pair their terms - so every feature is the value the stacked passes gave, to the last bit, and
decks enrolled before read as they did. ``window_features`` in ``indexnet`` lays out the rows.
"""

from __future__ import annotations

import numpy as np

from dealerassist.vision.compiled import compiled

_PAIRED_BLOCK = 128  # numpy adds runs of up to this many terms in eight interleaved sums
# A window's paper white is the darkest-channel level PAPER_SHARE of its samples stay below, and at
# least DARKEST_PAPER, so a window of felt or shadow is not read as all ink.
PAPER_SHARE = 0.85
DARKEST_PAPER = 30.0


@compiled()
def _run_sum(values: np.ndarray, start: int, count: int) -> np.float32:
    """Sum of a run short enough for numpy to add without halving it: eight interleaved sums
    joined in pairs, then the terms left over one by one."""
    if count < 8:
        total = np.float32(0.0)
        for k in range(start, start + count):
            total += values[k]
        return total
    a0, a1, a2, a3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    a4, a5, a6, a7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    whole = start + count - count % 8
    for k in range(start + 8, whole, 8):
        a0 += values[k]
        a1 += values[k + 1]
        a2 += values[k + 2]
        a3 += values[k + 3]
        a4 += values[k + 4]
        a5 += values[k + 5]
        a6 += values[k + 6]
        a7 += values[k + 7]
    total = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    for k in range(whole, start + count):
        total += values[k]
    return total


@compiled()
def _paired_sum(values: np.ndarray) -> np.float32:
    """Sum of float32 values in numpy's pairwise order: a run longer than ``_PAIRED_BLOCK`` is
    halved (at a multiple of eight) and the halves' sums added. Worked with a stack of runs, not
    by recursion, which numba's cache does not keep safely."""
    runs = np.empty((64, 3), np.int64)  # start, count, halved yet; far deeper than any window needs
    sums = np.empty(64, np.float32)
    runs[0, 0], runs[0, 1], runs[0, 2] = 0, len(values), 0
    depth, done = 1, 0
    while depth:
        depth -= 1
        start, count, halved = runs[depth, 0], runs[depth, 1], runs[depth, 2]
        if count <= _PAIRED_BLOCK:
            sums[done] = _run_sum(values, start, count)
            done += 1
        elif halved:
            done -= 1
            sums[done - 1] += sums[done]
        else:
            half = count // 2 - (count // 2) % 8
            runs[depth, 2] = 1
            runs[depth + 1, 0], runs[depth + 1, 1], runs[depth + 1, 2] = start + half, count - half, 0
            runs[depth + 2, 0], runs[depth + 2, 1], runs[depth + 2, 2] = start, half, 0
            depth += 3
    return np.float32(0.0) + sums[0]  # numpy adds the sum to a zero: a sum of -0s is 0


@compiled()
def _blocks(block: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Where a plane's ``block`` x ``block`` cells start in it, flat and in row order, and where a
    cell's own pixels lie from its start, row by row."""
    starts = np.empty((rows // block) * (cols // block), np.int64)
    for r in range(rows // block):
        for c in range(cols // block):
            starts[r * (cols // block) + c] = r * block * cols + c * block
    offsets = np.empty(block * block, np.int64)
    for r in range(block):
        for c in range(block):
            offsets[r * block + c] = r * cols + c
    return starts, offsets


@compiled(inline=True)
def _block_mean(plane: np.ndarray, corner: int, offsets: np.ndarray) -> np.float32:
    """Mean of the block of a flat plane at ``corner``, summed as OpenCV's integer-scale area
    resize sums it: the pixels row by row, four at a time added among themselves before joining
    the total."""
    area = len(offsets)
    total = np.float32(0.0)
    k = 0
    while k <= area - 4:
        total += (
            (plane[corner + offsets[k]] + plane[corner + offsets[k + 1]]) + plane[corner + offsets[k + 2]]
        ) + plane[corner + offsets[k + 3]]
        k += 4
    while k < area:
        total += plane[corner + offsets[k]]
        k += 1
    return total * (np.float32(1.0) / np.float32(area))


@compiled(inline=True)
def _signed_block_means(plane: np.ndarray, corner: int, offsets: np.ndarray) -> tuple[np.float32, np.float32]:
    """``_block_mean`` of a block's positive parts and of its negative parts, in one reading."""
    area = len(offsets)
    zero = np.float32(0.0)
    ahead, behind = zero, zero
    k = 0
    while k <= area - 4:
        v0, v1 = plane[corner + offsets[k]], plane[corner + offsets[k + 1]]
        v2, v3 = plane[corner + offsets[k + 2]], plane[corner + offsets[k + 3]]
        ahead += ((max(v0, zero) + max(v1, zero)) + max(v2, zero)) + max(v3, zero)
        behind += ((min(v0, zero) + min(v1, zero)) + min(v2, zero)) + min(v3, zero)
        k += 4
    while k < area:
        ahead += max(plane[corner + offsets[k]], zero)
        behind += min(plane[corner + offsets[k]], zero)
        k += 1
    scale = np.float32(1.0) / np.float32(area)
    return ahead * scale, behind * scale


@compiled()
def _paper_level(blue: np.ndarray, green: np.ndarray, red: np.ndarray, counts: np.ndarray) -> np.float32:
    """The window's paper white (``PAPER_SHARE``, ``DARKEST_PAPER``), sampled at every fourth
    pixel. ``counts`` is a 256-long buffer for the levels' counts, reused window after window."""
    counts[:] = 0
    rows, cols = blue.shape
    samples = 0
    for i in range(rows):
        for j in range(0, cols, 4):  # every fourth pixel in row order (the width is a multiple of 4)
            counts[min(blue[i, j], green[i, j], red[i, j])] += 1
            samples += 1
    wanted = int(PAPER_SHARE * (samples - 1))
    seen = 0
    for level in range(256):
        seen += counts[level]
        if seen > wanted:
            return max(np.float32(level), np.float32(DARKEST_PAPER))
    return np.float32(255.0)


@compiled()
def window_rows(
    blues: np.ndarray,
    greens: np.ndarray,
    reds: np.ndarray,
    directions: np.ndarray,
    cell: int,
    ink_cell: int,
    colour_cell: int,
) -> np.ndarray:
    """(n, features) float32 rows of windows given as (n, rows, cols) uint8 blue, green and red
    planes (split by OpenCV, which does it fastest): per orientation cell
    the gradient along and against each direction, the histogram scaled to length 1; then the
    ink pooled by ``ink_cell``; then the red-green and yellow-blue colour of the ink against the
    paper's, pooled by ``colour_cell``. ``directions`` holds (cos, sin) rows, the first (1, 0)."""
    n, rows, cols = blues.shape
    area = rows * cols
    bins = 2 * len(directions)
    hist_size = (rows // cell) * (cols // cell) * bins
    ink_size = (rows // ink_cell) * (cols // ink_cell)
    colour_size = (rows // colour_cell) * (cols // colour_cell)
    out = np.zeros((n, hist_size + ink_size + 2 * colour_size), np.float32)
    # One window's planes, made once for all: 2-D for the passes pixel by pixel, flat for pooling.
    ink_flat = np.empty(area, np.float32)
    tinted_flat = np.empty((2, area), np.float32)  # each colour where the ink is, weighted by it
    on_paper_flat = np.empty((2, area), np.float32)  # each colour where the paper is blank
    grad_x_flat = np.zeros(area, np.float32)
    along_flat = np.empty(area, np.float32)
    ink, along, grad_x = (
        ink_flat.reshape(rows, cols),
        along_flat.reshape(rows, cols),
        grad_x_flat.reshape(rows, cols),
    )
    tinted, on_paper = tinted_flat.reshape(2, rows, cols), on_paper_flat.reshape(2, rows, cols)
    grad_y = np.zeros((rows, cols), np.float32)
    hist_squares = np.empty(hist_size, np.float32)
    cell_starts, in_cell = _blocks(cell, rows, cols)
    ink_starts, in_ink_cell = _blocks(ink_cell, rows, cols)
    colour_starts, in_colour_cell = _blocks(colour_cell, rows, cols)
    inked = np.empty(colour_size, np.float32)
    counts = np.empty(256, np.int64)
    blank_below = np.float32(0.15)
    zero = np.float32(0.0)
    for w in range(n):
        blue_plane, green_plane, red_plane = blues[w], greens[w], reds[w]
        per = np.float32(1.0) / _paper_level(blue_plane, green_plane, red_plane, counts)
        blanks = 0
        for i in range(rows):
            for j in range(cols):
                blue, green, red = (
                    np.float32(blue_plane[i, j]),
                    np.float32(green_plane[i, j]),
                    np.float32(red_plane[i, j]),
                )
                level = max(np.float32(1.0) - min(blue, green, red) * per, zero)
                is_blank = level < blank_below
                blank = np.float32(is_blank)
                red_green = (red - green) * per
                yellow_blue = (np.float32(0.5) * red + np.float32(0.5) * green - blue) * per
                ink[i, j] = level
                blanks += is_blank
                tinted[0, i, j], on_paper[0, i, j] = red_green * level, red_green * blank
                tinted[1, i, j], on_paper[1, i, j] = yellow_blue * level, yellow_blue * blank
        count = np.float32(max(blanks, 1))
        # Central differences, zero along the window's border.
        for i in range(rows):
            for j in range(1, cols - 1):
                grad_x[i, j] = ink[i, j + 1] - ink[i, j - 1]
        for i in range(1, rows - 1):
            for j in range(cols):
                grad_y[i, j] = ink[i + 1, j] - ink[i - 1, j]
        for d in range(len(directions)):
            sin32, cos64 = np.float32(directions[d, 1]), np.float64(np.float32(directions[d, 0]))
            if d:  # the first direction is straight across: the gradient across itself
                for i in range(rows):
                    for j in range(cols):
                        # OpenCV's weighted sum: one fused multiply-add over the rounded second product.
                        along[i, j] = np.float32(grad_x[i, j] * cos64 + np.float64(grad_y[i, j] * sin32))
            for c in range(len(cell_starts)):
                ahead, behind = _signed_block_means(along_flat if d else grad_x_flat, cell_starts[c], in_cell)
                out[w, c * bins + 2 * d] = np.sqrt(ahead)
                out[w, c * bins + 2 * d + 1] = np.sqrt(-behind + zero)  # an empty cell is 0, not -0
        for k in range(hist_size):
            hist_squares[k] = out[w, k] * out[w, k]
        length = max(np.sqrt(_paired_sum(hist_squares)), np.float32(1e-3))
        for k in range(hist_size):
            out[w, k] /= length
        for c in range(ink_size):
            out[w, hist_size + c] = _block_mean(ink_flat, ink_starts[c], in_ink_cell)
        for c in range(colour_size):
            inked[c] = _block_mean(ink_flat, colour_starts[c], in_colour_cell)
        for plane in range(2):
            paper_colour = _paired_sum(on_paper_flat[plane]) / count
            at = hist_size + ink_size + plane * colour_size
            for c in range(colour_size):
                tint = _block_mean(tinted_flat[plane], colour_starts[c], in_colour_cell)
                out[w, at + c] = tint - paper_colour * inked[c]
    return out
