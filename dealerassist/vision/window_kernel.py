"""The features of index windows (``index_features``), worked out in compiled loops, several
windows side by side.

Whole-array OpenCV and numpy passes over a frame's stacked windows (``features_by_passes``) read
and write planes far larger than the processor's caches. Here a batch of ``LANES`` windows is
worked at a time, the innermost loops running across windows, where the processor does several
at once. Each sum is taken in the order those library calls take it (OpenCV's area pooling adds
a block's pixels row by row in runs of four, numpy's sums pair their terms), so every feature
equals theirs to the last bit and a deck reads the same whichever computes its features.
"""

from __future__ import annotations

import numpy as np

from dealerassist.compiled import compiled

# Windows worked side by side: a number the compiler knows, so it unrolls and vectorises the loops
# across them (a few vectorise only if it does not: see ``_run_sums``). 32 measured fastest.
LANES = 32
_PAIRED_BLOCK = 128  # numpy adds runs of up to this many terms in eight interleaved sums
# A window's paper white is the darkest-channel level PAPER_SHARE of its samples stay below, and at
# least DARKEST_PAPER, so a window of felt or shadow is not read as all ink.
PAPER_SHARE = 0.85
DARKEST_PAPER = 30.0


@compiled()
def _run_sums(values: np.ndarray, start: int, count: int, partial: np.ndarray, total: np.ndarray) -> None:
    """Each lane's sum of a run of ``values`` (terms, LANES) short enough for numpy to add without
    halving it: eight interleaved sums joined in pairs, then the terms left over one by one.
    ``partial`` is an (8, LANES) buffer for the interleaved sums."""
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
def _paired_sums(values: np.ndarray, sums: np.ndarray, partial: np.ndarray, total: np.ndarray) -> None:
    """Each lane's sum of float32 ``values`` (terms, LANES) in numpy's pairwise order, into
    ``total``: a run longer than ``_PAIRED_BLOCK`` is halved (at a multiple of eight) and the
    halves' sums added. Worked with a stack of runs, not by recursion, which numba's cache does
    not keep safely; ``sums`` is a (64, LANES) buffer, far deeper than any window needs."""
    runs = np.empty((64, 3), np.int64)  # start, count, halved yet
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
    """Where a plane's ``block`` x ``block`` cells start in it, flat and in row order, and where a
    cell's own pixels lie from its start, row by row."""
    starts = (np.arange(rows // block) * (block * cols)).reshape(-1, 1) + np.arange(cols // block) * block
    offsets = (np.arange(block) * cols).reshape(-1, 1) + np.arange(block)
    return starts.ravel(), offsets.ravel()


@compiled(inline=True)
def _block_means(plane: np.ndarray, corner: int, offsets: np.ndarray, means: np.ndarray) -> None:
    """Each lane's mean of the block at ``corner`` of a flat (pixels, LANES) plane, summed as
    OpenCV's integer-scale area resize sums it: the pixels row by row, four at a time added among
    themselves before joining the total."""
    area = len(offsets)
    for k in range(LANES):
        means[k] = np.float32(0.0)
    q = 0
    while q <= area - 4:
        p0, p1 = corner + offsets[q], corner + offsets[q + 1]
        p2, p3 = corner + offsets[q + 2], corner + offsets[q + 3]
        for k in range(LANES):
            means[k] += ((plane[p0, k] + plane[p1, k]) + plane[p2, k]) + plane[p3, k]
        q += 4
    while q < area:
        p = corner + offsets[q]
        for k in range(LANES):
            means[k] += plane[p, k]
        q += 1
    scale = np.float32(1.0) / np.float32(area)
    for k in range(LANES):
        means[k] *= scale


@compiled()
def _paper_levels(words: np.ndarray, counts: np.ndarray, levels: np.ndarray) -> None:
    """The paper white (``PAPER_SHARE``, ``DARKEST_PAPER``) of each window of a batch of
    ``feature_columns``'s words, sampled at every fourth pixel (in row order, the width being a
    multiple of four), into ``levels``. ``counts`` is a (256, LANES) buffer, one column of level
    counts a window: counted side by side, a window's run of equal levels no longer waits on its
    own last count, and the level each reaches is found for all of them in one sweep.
    """
    counts[:] = 0
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
    # The first level past ``wanted`` is the number of levels before it (every window has more
    # samples than ``wanted``, so one is).
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

    ``words`` gives the windows batch by batch (``index_features._in_batches``), pixel-major
    within a batch: (batches, rows * cols, LANES), a pixel one 32-bit word (blue in the low byte,
    then green and red; the high byte is not read). Per orientation cell the gradient along and
    against each of ``directions`` ((cos, sin) rows, the first (1, 0)), the histogram scaled to
    length 1; then the ink pooled by ``ink_cell``; then the red-green and yellow-blue colour of
    the ink against the paper's, pooled by ``colour_cell``. Written a feature a row, a batch's
    values for one feature lie side by side, as the loops across the lanes make them.
    """
    area = words.shape[1]
    bins = 2 * len(directions)
    cells = (rows // cell) * (cols // cell)
    hist_size = cells * bins
    ink_size = (rows // ink_cell) * (cols // ink_cell)
    colour_size = (rows // colour_cell) * (cols // colour_cell)
    out = np.empty((hist_size + ink_size + 2 * colour_size, n), np.float32)
    # The planes of LANES windows, pixel by pixel in row order and window by window within a
    # pixel, made once for all.
    ink = np.empty((area, LANES), np.float32)
    tinted = np.empty((2, area, LANES), np.float32)  # each colour where the ink is, weighted by it
    on_paper = np.empty((2, area, LANES), np.float32)  # each colour where the paper is blank
    grad_x = np.zeros((area, LANES), np.float32)  # central differences, zero along the border
    grad_y = np.zeros((area, LANES), np.float32)
    ahead_plane = np.empty((area, LANES), np.float32)  # the gradient along a direction, where positive
    behind_plane = np.empty((area, LANES), np.float32)  # and where negative
    histogram = np.empty((hist_size, LANES), np.float32)
    hist_squares = np.empty((hist_size, LANES), np.float32)
    inked = np.empty((colour_size, LANES), np.float32)
    per, blanks = np.empty(LANES, np.float32), np.empty(LANES, np.float32)
    ahead, behind = np.empty(LANES, np.float32), np.empty(LANES, np.float32)
    total, paper_colour = np.empty(LANES, np.float32), np.empty(LANES, np.float32)
    sums, partial = np.empty((64, LANES), np.float32), np.empty((8, LANES), np.float32)
    cell_starts, in_cell = _blocks(cell, rows, cols)
    ink_starts, in_ink_cell = _blocks(ink_cell, rows, cols)
    colour_starts, in_colour_cell = _blocks(colour_cell, rows, cols)
    counts = np.empty((256, LANES), np.int32)
    blank_below = np.float32(0.15)
    zero = np.float32(0.0)
    for batch in range(len(words)):
        first = min(batch * LANES, n - LANES)
        _paper_levels(words[batch], counts, per)
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
                    along = np.float32(grad_x[p, k] * cos64 + np.float64(grad_y[p, k] * sin32))
                    ahead_plane[p, k] = max(along, zero)
                    behind_plane[p, k] = min(along, zero)
            for c in range(cells):
                _block_means(ahead_plane, cell_starts[c], in_cell, ahead)
                _block_means(behind_plane, cell_starts[c], in_cell, behind)
                along_row, against_row = histogram[c * bins + 2 * d], histogram[c * bins + 2 * d + 1]
                for k in range(LANES):
                    along_row[k] = np.sqrt(ahead[k])
                    against_row[k] = np.sqrt(-behind[k] + zero)  # an empty cell is 0, not -0
        for h in range(hist_size):
            for k in range(LANES):
                hist_squares[h, k] = histogram[h, k] * histogram[h, k]
        _paired_sums(hist_squares, sums, partial, total)
        for k in range(LANES):
            total[k] = max(np.sqrt(total[k]), np.float32(1e-3))
        for h in range(hist_size):
            row = out[h, first : first + LANES]
            for k in range(LANES):
                row[k] = histogram[h, k] / total[k]
        for c in range(ink_size):
            _block_means(ink, ink_starts[c], in_ink_cell, total)
            out[hist_size + c, first : first + LANES] = total
        for c in range(colour_size):
            _block_means(ink, colour_starts[c], in_colour_cell, inked[c])
        for plane in range(2):
            _paired_sums(on_paper[plane], sums, partial, paper_colour)
            for k in range(LANES):
                paper_colour[k] /= max(blanks[k], np.float32(1.0))
            at = hist_size + ink_size + plane * colour_size
            for c in range(colour_size):
                _block_means(tinted[plane], colour_starts[c], in_colour_cell, total)
                row = out[at + c, first : first + LANES]
                for k in range(LANES):
                    row[k] = total[k] - paper_colour[k] * inked[c, k]
    return out
