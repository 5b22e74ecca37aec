"""The features of index windows (``index_features``) in compiled loops, ``LANES`` windows at once.

The whole-array passes (``features_by_passes``) stream planes far larger than the caches; here the
innermost loops run across a batch's windows, which the processor does several at a time. Each
sum is taken in the order OpenCV's area pooling (row by row, in runs of four) or numpy's pairwise
sum takes it, so every feature equals the passes' to the last bit and a deck reads the same either way.
"""

from __future__ import annotations

import numpy as np

from dealerassist.compiled import compiled

# Windows side by side: a constant, so the compiler unrolls and vectorises the loops across them.
LANES = 32
_PAIRED_BLOCK = 128  # numpy adds runs of up to this many terms in eight interleaved sums
# A window's paper white is the darkest-channel level PAPER_SHARE of its samples stay below, and at
# least DARKEST_PAPER, so a window of felt or shadow is not read as all ink.
PAPER_SHARE = 0.85
DARKEST_PAPER = 30.0
BLANK_INK = 0.15  # ink below which a pixel is blank paper, whose colour the ink's is measured against


@compiled()
def _run_sums(values: np.ndarray, start: int, count: int, partial: np.ndarray, total: np.ndarray) -> None:
    """Each lane's sum of a run of ``values`` (terms, LANES) that numpy adds without halving: eight
    interleaved sums joined in pairs, then the rest one by one. ``partial``: an (8, LANES) buffer."""
    if count < 8:
        for k in range(LANES):
            total[k] = np.float32(0.0)
        for t in range(start, start + count):
            for k in range(LANES):
                total[k] += values[t, k]
        return
    lanes = partial.shape[1]  # not LANES: loops of a count the compiler cannot unroll stay vectorised
    for a in range(8):
        for k in range(lanes):
            partial[a, k] = values[start + a, k]
    whole = start + count - count % 8
    for t in range(start + 8, whole, 8):
        for a in range(8):
            sums, terms = partial[a], values[t + a]
            for k in range(lanes):
                sums[k] += terms[k]
    for k in range(LANES):
        total[k] = ((partial[0, k] + partial[1, k]) + (partial[2, k] + partial[3, k])) + (
            (partial[4, k] + partial[5, k]) + (partial[6, k] + partial[7, k])
        )
    for t in range(whole, start + count):
        for k in range(LANES):
            total[k] += values[t, k]


@compiled()
def _paired_sums(values: np.ndarray, total: np.ndarray) -> None:
    """Each lane's sum of float32 ``values`` (terms, LANES) in numpy's pairwise order, into
    ``total``: a run longer than ``_PAIRED_BLOCK`` is halved (at a multiple of eight) and the
    halves' sums added. A stack of runs, not recursion, which numba's cache does not keep safely."""
    runs = np.empty((64, 3), np.int64)  # start, count, halved yet; far deeper than any window needs
    sums = np.empty((64, LANES), np.float32)
    partial = np.empty((8, LANES), np.float32)
    runs[0, 0], runs[0, 1], runs[0, 2] = 0, len(values), 0
    depth, done = 1, 0
    while depth:
        depth -= 1
        start, count, halved = runs[depth, 0], runs[depth, 1], runs[depth, 2]
        if count <= _PAIRED_BLOCK:
            _run_sums(values, start, count, partial, sums[done])
            done += 1
        elif halved:
            done -= 1
            for k in range(LANES):
                sums[done - 1, k] += sums[done, k]
        else:
            half = count // 2 - (count // 2) % 8
            runs[depth, 2] = 1
            runs[depth + 1, 0], runs[depth + 1, 1], runs[depth + 1, 2] = start + half, count - half, 0
            runs[depth + 2, 0], runs[depth + 2, 1], runs[depth + 2, 2] = start, half, 0
            depth += 3
    for k in range(LANES):
        total[k] = np.float32(0.0) + sums[0, k]  # numpy adds the sum to a zero: a sum of -0s is 0


@compiled()
def _blocks(block: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Where a flat plane's ``block`` x ``block`` cells start, in row order, and where a cell's
    pixels lie from its start, row by row."""
    starts = (np.arange(rows // block) * (block * cols)).reshape(-1, 1) + np.arange(cols // block) * block
    offsets = (np.arange(block) * cols).reshape(-1, 1) + np.arange(block)
    return starts.ravel(), offsets.ravel()


@compiled(inline=True)
def _block_means(
    plane: np.ndarray, corner: int, offsets: np.ndarray, means: np.ndarray, low: float, high: float
) -> None:
    """Each lane's mean of the block at ``corner`` of a flat (pixels, LANES) plane, its values
    clipped to [``low``, ``high``] (a gradient's positive or negative parts; infinities: all of
    it), summed as OpenCV's integer-scale area resize sums it: row by row, four pixels added
    before joining the total."""
    area = len(offsets)
    lo, hi = np.float32(low), np.float32(high)
    for k in range(LANES):
        means[k] = np.float32(0.0)
    q = 0
    while q <= area - 4:
        p0, p1 = corner + offsets[q], corner + offsets[q + 1]
        p2, p3 = corner + offsets[q + 2], corner + offsets[q + 3]
        for k in range(LANES):
            v0, v1 = min(max(plane[p0, k], lo), hi), min(max(plane[p1, k], lo), hi)
            v2, v3 = min(max(plane[p2, k], lo), hi), min(max(plane[p3, k], lo), hi)
            means[k] += ((v0 + v1) + v2) + v3
        q += 4
    while q < area:
        p = corner + offsets[q]
        for k in range(LANES):
            means[k] += min(max(plane[p, k], lo), hi)
        q += 1
    scale = np.float32(1.0) / np.float32(area)
    for k in range(LANES):
        means[k] *= scale


@compiled()
def _paper_levels(words: np.ndarray, levels: np.ndarray) -> None:
    """The paper white (``PAPER_SHARE``, ``DARKEST_PAPER``) of each window of a batch of
    ``feature_columns``'s words, sampled at every fourth pixel, into ``levels``: a histogram of
    levels per window, counted side by side, then one sweep finds the level each reaches."""
    counts = np.zeros((256, LANES), np.int32)
    samples = 0
    for p in range(0, words.shape[0], 4):
        row = words[p]
        for k in range(LANES):
            word = row[k]
            counts[min(word & 255, (word >> 8) & 255, (word >> 16) & 255), k] += 1
        samples += 1
    wanted = int(PAPER_SHARE * (samples - 1))
    seen = np.zeros(LANES, np.int32)
    below = np.zeros(LANES, np.int32)  # levels whose count so far stays within ``wanted``
    for level in range(256):
        for k in range(LANES):
            seen[k] += counts[level, k]
            below[k] += np.int32(seen[k] <= wanted)
    # The first level past ``wanted`` is the number of levels below it.
    for k in range(LANES):
        levels[k] = max(np.float32(below[k]), np.float32(DARKEST_PAPER))


@compiled()
def feature_columns(
    words: np.ndarray,
    n: int,
    rows: int,
    cols: int,
    directions: np.ndarray,
    cell: int,
    ink_cell: int,
    colour_cell: int,
) -> np.ndarray:
    """The features of n rows x cols windows as (features, n) float32 columns, one a window.

    ``words``: (batches, rows * cols, LANES) from ``index_features._in_batches``, a pixel one
    32-bit word (blue in the low byte, then green and red). The rows are those of
    ``features_by_passes``; written a feature a row, a batch's values lie side by side.
    """
    area = words.shape[1]
    bins = 2 * len(directions)
    cells = (rows // cell) * (cols // cell)
    hist_size = cells * bins
    ink_size = (rows // ink_cell) * (cols // ink_cell)
    colour_size = (rows // colour_cell) * (cols // colour_cell)
    out = np.empty((hist_size + ink_size + 2 * colour_size, n), np.float32)
    # A batch's planes: (pixels in row order, LANES).
    ink = np.empty((area, LANES), np.float32)
    tinted = np.empty((2, area, LANES), np.float32)  # each colour where the ink is, weighted by it
    on_paper = np.empty((2, area, LANES), np.float32)  # each colour where the paper is blank
    grad_x = np.zeros((area, LANES), np.float32)  # central differences, zero along the border
    grad_y = np.zeros((area, LANES), np.float32)
    along = np.empty((area, LANES), np.float32)  # the gradient along a direction
    histogram = np.empty((hist_size, LANES), np.float32)
    hist_squares = np.empty((hist_size, LANES), np.float32)
    inked = np.empty((colour_size, LANES), np.float32)
    per, blanks = np.empty(LANES, np.float32), np.empty(LANES, np.float32)
    total, paper_colour = np.empty(LANES, np.float32), np.empty(LANES, np.float32)
    cell_starts, in_cell = _blocks(cell, rows, cols)
    ink_starts, in_ink_cell = _blocks(ink_cell, rows, cols)
    colour_starts, in_colour_cell = _blocks(colour_cell, rows, cols)
    blank_below = np.float32(BLANK_INK)
    zero = np.float32(0.0)
    for batch in range(len(words)):
        first = min(batch * LANES, n - LANES)
        _paper_levels(words[batch], per)
        for k in range(LANES):
            per[k] = np.float32(1.0) / per[k]
            blanks[k] = zero
        for p in range(area):
            batch_words = words[batch, p]
            for k in range(LANES):
                word = batch_words[k]
                blue = np.float32(word & 255)
                green = np.float32((word >> 8) & 255)
                red = np.float32((word >> 16) & 255)
                level = max(np.float32(1.0) - min(blue, green, red) * per[k], zero)
                blank = np.float32(level < blank_below)
                red_green = (red - green) * per[k]
                yellow_blue = (np.float32(0.5) * red + np.float32(0.5) * green - blue) * per[k]
                ink[p, k] = level
                blanks[k] += blank
                tinted[0, p, k], on_paper[0, p, k] = red_green * level, red_green * blank
                tinted[1, p, k], on_paper[1, p, k] = yellow_blue * level, yellow_blue * blank
        for i in range(rows):
            for j in range(1, cols - 1):
                p = i * cols + j
                for k in range(LANES):
                    grad_x[p, k] = ink[p + 1, k] - ink[p - 1, k]
        for p in range(cols, area - cols):
            for k in range(LANES):
                grad_y[p, k] = ink[p + cols, k] - ink[p - cols, k]
        for d in range(len(directions)):
            sin32, cos64 = np.float32(directions[d, 1]), np.float64(np.float32(directions[d, 0]))
            for p in range(area):
                for k in range(LANES):
                    # OpenCV's weighted sum: one fused multiply-add over the rounded second product.
                    along[p, k] = np.float32(grad_x[p, k] * cos64 + np.float64(grad_y[p, k] * sin32))
            for c in range(cells):
                along_row, against_row = histogram[c * bins + 2 * d], histogram[c * bins + 2 * d + 1]
                _block_means(along, cell_starts[c], in_cell, along_row, 0.0, np.inf)
                _block_means(along, cell_starts[c], in_cell, against_row, -np.inf, 0.0)
                for k in range(LANES):
                    along_row[k] = np.sqrt(along_row[k])
                    against_row[k] = np.sqrt(-against_row[k] + zero)  # an empty cell is 0, not -0
        for h in range(hist_size):
            for k in range(LANES):
                hist_squares[h, k] = histogram[h, k] * histogram[h, k]
        _paired_sums(hist_squares, total)
        for k in range(LANES):
            total[k] = max(np.sqrt(total[k]), np.float32(1e-3))
        for h in range(hist_size):
            row = out[h, first : first + LANES]
            for k in range(LANES):
                row[k] = histogram[h, k] / total[k]
        for c in range(ink_size):
            _block_means(
                ink, ink_starts[c], in_ink_cell, out[hist_size + c, first : first + LANES], -np.inf, np.inf
            )
        for c in range(colour_size):
            _block_means(ink, colour_starts[c], in_colour_cell, inked[c], -np.inf, np.inf)
        for plane in range(2):
            _paired_sums(on_paper[plane], paper_colour)
            for k in range(LANES):
                paper_colour[k] /= max(blanks[k], np.float32(1.0))
            at = hist_size + ink_size + plane * colour_size
            for c in range(colour_size):
                _block_means(tinted[plane], colour_starts[c], in_colour_cell, total, -np.inf, np.inf)
                row = out[at + c, first : first + LANES]
                for k in range(LANES):
                    row[k] = total[k] - paper_colour[k] * inked[c, k]
    return out
