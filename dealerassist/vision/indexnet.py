"""A small learned classifier of printed corner indices, trained per deck design at enrollment.

Template matching on glyphs split out of a corner breaks on small, blurred print: rank and suit
run together, a "10" falls apart, a corner found two pixels off cuts the rank. This model instead
looks at the whole index window of a corner (rank, suit and a little of the card edge) sampled at
a fixed size, describes it by gradient orientations, ink and ink colour, and names one of the 52
cards or "no index here". It is trained from the design's own 53 images only (see ``training``),
so a new deck still needs nothing but ``vision enroll``.

Every candidate corner of a frame is sampled by one ``cv2.remap`` call and classified by one pair
of matrix products: the per-frame cost does not grow with Python work per corner.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from dealerassist.compiled import compiled
from dealerassist.vision.window_kernel import DARKEST_PAPER, LANES, PAPER_SHARE, feature_columns

WINDOW_PX = (24, 48)  # width, height of a sampled index window
MARGIN = 0.02  # card heights sampled beyond the corner along both edges: the edge itself shows
CELL = 6  # pixels per orientation cell
INK_CELL = 3  # pixels per cell of the pooled ink
COLOUR_CELL = 6  # pixels per cell of the pooled ink colour
BINS = 8  # signed gradient orientations per cell
# (cos, sin) of the gradient directions measured along and against, the first straight across.
_ANGLES = np.arange(BINS // 2) * np.pi / (BINS // 2)
_DIRECTIONS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)
LARGEST_SAMPLED = 220.0  # card height in pixels above which a window is sampled from a halved image
JOIN_PX = 2000  # halved pixels of extra area worth halving to save a separate piece
SURE = 0.9  # card probability from which the reader names a card (its default accept level)
SCREENED = 0.9  # a committee's first member this sure a window holds nothing settles it alone
NONE = "none"  # the class of a window that holds no index of this design
BACK = "back"  # the class of a window at the corner of a card lying face down
_SMALLEST_NORMAL = np.finfo(np.float32).tiny  # float32 values below this are subnormal


@dataclass(frozen=True)
class IndexWindow:
    """Where a design prints its index, in card heights from the corner (x across, y down)."""

    across: float
    down: float


def sampling_image(frame: np.ndarray) -> np.ndarray:
    """A BGR frame as ``sample_windows`` reads it fastest, with a fourth, unused channel: remap
    interpolates every channel on its own, the same values, and reads four channels in about half
    the time of three. Made once, it serves every sampling of the frame; other images pass as given.
    """
    return cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA) if frame.ndim == 3 and frame.shape[2] == 3 else frame


def sample_windows(
    image: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
    window: IndexWindow,
) -> np.ndarray:
    """(n, WINDOW_PX[1], WINDOW_PX[0], 4) uint8 windows of n corners, sampled in one remap call:
    blue, green, red and the ``sampling_image``'s unused fourth channel, which the features skip
    (dropping it would cost a pass over every window).

    Corners of cards larger than ``LARGEST_SAMPLED`` pixels are sampled from the image halved
    (again as needed), so a close-up card is smoothed the way a smaller one is, not aliased.
    """
    n = len(points)
    cols, rows = WINDOW_PX
    level = np.ones(n, bool) if n else np.zeros(0, bool)
    scale = 1.0
    heights = np.asarray(heights, np.float64)
    # One row per corner: x, y, the across axis, the down axis, the card height.
    corners = np.concatenate(
        [
            np.reshape(points, (n, 2)),
            np.reshape(x_axes, (n, 2)),
            np.reshape(y_axes, (n, 2)),
            heights[:, None],
        ],
        axis=1,
    )
    if n and ((heights <= LARGEST_SAMPLED).all() or min(image.shape[:2]) < 64):
        return _remap_windows(image, corners, window)  # every window from the image itself, in order
    out = np.empty((n, rows, cols, 4), np.uint8)  # every row is sampled at some level below
    while level.any():
        small = level & (heights * scale <= LARGEST_SAMPLED)
        if min(image.shape[:2]) < 64:
            small = level  # nothing left to halve
        if small.any():
            out[small] = _remap_windows(image, corners[small] * [scale, scale, 1, 1, 1, 1, scale], window)
        level &= ~small
        if (
            level.any()
            and (heights[level] * scale <= 2 * LARGEST_SAMPLED).all()
            and np.isfinite(corners[level]).all()
        ):
            # Every card left fits once halved (always so for the reader's card sizes).
            out[level] = _halved_windows(image, corners[level] * [scale, scale, 1, 1, 1, 1, scale], window)
            break
        if level.any():
            image = cv2.pyrDown(image)
            scale *= 0.5
    return out


def _halved_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow) -> np.ndarray:
    """``_remap_windows`` of ``cv2.pyrDown(image)``, halving only the pieces of the image read.

    A few large cards seldom cover the frame, and halving all of it costs more than reading the
    windows. A piece starting at an even column and row halves to exactly the pixels the whole
    image gives, but for a pixel at its edges where the image goes on; each piece reaches two
    halved pixels past its samples' neighbours and only the pixels inside it are kept, in a
    halved image whose other pixels are never read.
    """
    half = _halved_size(image.shape)
    maps_x, maps_y = _window_maps(corners * [0.5, 0.5, 1, 1, 1, 1, 0.5], window)
    per_window = WINDOW_PX[1] * WINDOW_PX[0]
    boxes = np.stack(
        [np.floor(m.reshape(len(corners), per_window).min(axis=1)) - 1 for m in (maps_x, maps_y)]
        + [np.floor(m.reshape(len(corners), per_window).max(axis=1)) + 3 for m in (maps_x, maps_y)],
        axis=1,
    )
    boxes[:, :2] = np.clip(boxes[:, :2], 0, np.array(half[::-1]) - 1)
    boxes[:, 2:] = np.clip(boxes[:, 2:], boxes[:, :2] + 1, half[::-1])
    halved = np.empty((*half, *image.shape[2:]), image.dtype)
    for x0, y0, x1, y1 in _joined_boxes(boxes.astype(np.intp)):
        left, top = max(2 * x0 - 2, 0), max(2 * y0 - 2, 0)
        piece = cv2.pyrDown(
            image[top : min(2 * y1 + 2, image.shape[0]), left : min(2 * x1 + 2, image.shape[1])]
        )
        halved[y0:y1, x0:x1] = piece[y0 - top // 2 : y1 - top // 2, x0 - left // 2 : x1 - left // 2]
    return _remap(halved, maps_x, maps_y, len(corners))


def _halved_size(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of ``cv2.pyrDown`` of an image of this shape."""
    return (shape[0] + 1) // 2, (shape[1] + 1) // 2


def _joined_boxes(boxes: np.ndarray) -> list[list[int]]:
    """Pixel boxes (x0, y0, x1, y1) gathered into fewer: two join when the box round both is not
    much larger than the two apart (a call on a small piece costs about as much as its pixels)."""
    joined: list[list[int]] = []
    for x0, y0, x1, y1 in boxes.tolist():
        for box in joined:
            a0, b0, a1, b1 = min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3])
            apart = (x1 - x0) * (y1 - y0) + (box[2] - box[0]) * (box[3] - box[1])
            if (a1 - a0) * (b1 - b0) <= apart + JOIN_PX:
                box[:] = [a0, b0, a1, b1]
                break
        else:
            joined.append([x0, y0, x1, y1])
    return joined


def _remap_windows(image: np.ndarray, corners: np.ndarray, window: IndexWindow) -> np.ndarray:
    """Windows of corner rows (see ``sample_windows``) from one image, through one remap."""
    maps_x, maps_y = _window_maps(corners, window)
    return _remap(image, maps_x, maps_y, len(corners))


REMAP_WINDOWS = 600  # windows (map rows) per remap call: OpenCV refuses maps of 32767 rows or more


def _remap(image: np.ndarray, maps_x: np.ndarray, maps_y: np.ndarray, n: int) -> np.ndarray:
    """The windows of ``_window_maps`` maps, each window's map laid out as one row: remap samples
    every pixel on its own, so the values are the same, but a row of narrow windows makes
    many short rows that cost remap about a fifth more than long ones. A colour image is read
    through its ``sampling_image`` (made here unless the caller made it once for the frame).
    """
    if not len(maps_x):
        return np.zeros((0, WINDOW_PX[1], WINDOW_PX[0], 4), np.uint8)
    maps_x, maps_y = maps_x.reshape(n, -1), maps_y.reshape(n, -1)
    source = sampling_image(image)
    sampled = [
        cv2.remap(
            source,
            maps_x[k : k + REMAP_WINDOWS],
            maps_y[k : k + REMAP_WINDOWS],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        for k in range(0, n, REMAP_WINDOWS)
    ]
    joined = sampled[0] if len(sampled) == 1 else np.concatenate(sampled)
    return joined.reshape(n, WINDOW_PX[1], WINDOW_PX[0], 4)


def _window_maps(corners: np.ndarray, window: IndexWindow) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y of every window pixel of corner rows, as (n * rows, cols) remap maps."""
    points, x_axes, y_axes, heights = corners[:, :2], corners[:, 2:4], corners[:, 4:6], corners[:, 6]
    cols, rows = WINDOW_PX
    u = (-MARGIN + (np.arange(cols) + 0.5) / cols * (window.across + MARGIN)).astype(np.float32)
    v = (-MARGIN + (np.arange(rows) + 0.5) / rows * (window.down + MARGIN)).astype(np.float32)
    step_x = (heights[:, None] * x_axes).astype(np.float32)  # image step per card height across
    step_y = (heights[:, None] * y_axes).astype(np.float32)  # and down the card
    return _map_planes(points.astype(np.float32), step_x, step_y, u, v)


@compiled()
def _map_planes(
    points: np.ndarray, step_x: np.ndarray, step_y: np.ndarray, u: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each window pixel's x and y in single precision: its corner plus its step across (rounded
    once made, and again once added), plus its step down (rounded once made), as the products
    and sums of float32 arrays round them."""
    n, cols, rows = len(points), len(u), len(v)
    maps = np.empty((2, n * rows, cols), np.float32)
    across = np.empty(cols, np.float32)
    for axis in range(2):
        for k in range(n):
            for j in range(cols):
                across[j] = points[k, axis] + step_x[k, axis] * u[j]
            for i in range(rows):
                down = step_y[k, axis] * v[i]
                for j in range(cols):
                    maps[axis, k * rows + i, j] = across[j] + down
    return maps[0], maps[1]


def window_features(windows: np.ndarray) -> np.ndarray:
    """Feature rows of sampled windows: orientation histograms, pooled ink and pooled ink colour.

    Ink is measured against each window's own paper white (its brighter pixels), so felt colour,
    light level and tint cancel; colour is the ink's opponent colour relative to the paper's.
    The rows are worked out in compiled loops (``window_kernel``), from BGR windows or from BGRA
    ones (the fourth channel is not read).
    """
    if not len(windows):
        return np.zeros((0, feature_size()), np.float32)
    n, rows, cols = windows.shape[:3]
    # The kernel reads a pixel as a word, and works on every window's first pixel, then every
    # window's second, and so on; and on LANES windows or more, blank ones making up a short batch.
    colours = windows.reshape(n, rows * cols, -1)
    if colours.shape[2] == 3:
        colours = cv2.cvtColor(np.ascontiguousarray(colours), cv2.COLOR_BGR2BGRA)
    if n < LANES:
        colours = np.concatenate([colours, np.zeros((LANES - n, *colours.shape[1:]), np.uint8)])
    words = _in_batches(colours)
    columns = feature_columns(words, len(colours), rows, cols, _DIRECTIONS, CELL, INK_CELL, COLOUR_CELL)
    return cv2.transpose(columns)[:n]


def _in_batches(colours: np.ndarray) -> np.ndarray:
    """``feature_columns``'s words from (n, pixels, 4) colours, n at least LANES: batch by batch
    of LANES windows, each pixel of every window of the batch in turn; a last batch that would
    run short starts early, overlapping the one before.

    Laid out a pixel of every window of the frame at a time, a batch's rows lay a frame's windows
    apart (1.4 MB for some 300 windows, more than the second-level cache of a core), and the
    kernel waited on memory for each pixel; a batch's own words are one run.
    """
    n, area = colours.shape[:2]
    each = np.ascontiguousarray(colours).view(np.int32).reshape(n, area)  # cv2 moves int32, not uint32
    words = np.empty(((n + LANES - 1) // LANES, area, LANES), np.int32)
    for batch, first in enumerate(range(0, n, LANES)):
        first = min(first, n - LANES)
        cv2.transpose(each[first : first + LANES], words[batch])
    return words.view(np.uint32)


def ink_maps(features: np.ndarray) -> np.ndarray:
    """The pooled ink of each window in feature rows of ``window_features``, as (n, rows, cols)
    maps: where in each window the print lies."""
    cols, rows = WINDOW_PX
    start = (rows // CELL) * (cols // CELL) * BINS
    shape = (rows // INK_CELL, cols // INK_CELL)
    return features[:, start : start + shape[0] * shape[1]].reshape(-1, *shape)


def ink_cell(window: IndexWindow) -> tuple[float, float]:
    """How far apart, in card heights, the cells of ``ink_maps`` lie across and down the card."""
    cols, rows = WINDOW_PX
    return (window.across + MARGIN) / (cols // INK_CELL), (window.down + MARGIN) / (rows // INK_CELL)


def ink_around(
    image: np.ndarray,
    points: np.ndarray,
    x_axes: np.ndarray,
    y_axes: np.ndarray,
    heights: np.ndarray,
    window: IndexWindow,
    pad: tuple[int, int],
) -> np.ndarray:
    """Ink at the middle of every ``ink_maps`` cell of corners' index windows, and of ``pad``
    (across, down) cells more on every side: (n, rows + 2 * down, cols + 2 * across) maps, for
    finding a print that lies partly outside its window. Ink is measured as ``window_features``
    measures it, against the map's own paper; one point a cell, all corners in one remap.
    """
    cols, rows = WINDOW_PX
    across, down = pad
    cell_across, cell_down = ink_cell(window)
    u = -MARGIN + (np.arange(-across, cols // INK_CELL + across) + 0.5) * cell_across
    v = -MARGIN + (np.arange(-down, rows // INK_CELL + down) + 0.5) * cell_down
    step_x = heights[:, None] * x_axes  # (n, 2): image step per card height across
    step_y = heights[:, None] * y_axes
    # Each corner's map laid out as one row: remap samples each pixel on its own, so the values
    # are the same, and rows a map wide cost it some four times more than one long row a map.
    maps_x, maps_y = _cell_points(np.asarray(points, np.float64), step_x, step_y, u, v)
    sampled = cv2.remap(
        sampling_image(image), maps_x, maps_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return _ink_of(sampled.reshape(len(points), len(v) * len(u), 4)).reshape(len(points), len(v), len(u))


@compiled()
def _cell_points(
    points: np.ndarray, step_x: np.ndarray, step_y: np.ndarray, u: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y of every cell (``u`` across, ``v`` down, in card heights) of each corner's
    map, a map a row: the corner plus its step across, plus its step down, in double precision
    and then rounded to single, as numpy's arrays work them."""
    n, cols, rows = len(points), len(u), len(v)
    maps = np.empty((2, n, rows * cols), np.float32)
    for axis in range(2):
        for k in range(n):
            for i in range(rows):
                down = step_y[k, axis] * v[i]
                for j in range(cols):
                    maps[axis, k, i * cols + j] = np.float32(
                        (points[k, axis] + step_x[k, axis] * u[j]) + down
                    )
    return maps[0], maps[1]


@compiled()
def _ink_of(sampled: np.ndarray) -> np.ndarray:
    """The ink of each map's 8-bit BGRA samples (a map a row), against the map's paper white as
    the features measure it (``PAPER_SHARE``, ``DARKEST_PAPER``): each sample's darkest channel,
    the level ``PAPER_SHARE`` of them stay below (counted, not sorted), then 1 less the sample's
    share of that white, at least 0, in single precision as numpy's float32 arrays work it."""
    count, samples = sampled.shape[:2]
    wanted = int(PAPER_SHARE * (samples - 1))
    ink = np.empty((count, samples), np.float32)
    darkest = np.empty(samples, np.uint8)
    counts = np.empty(256, np.int64)
    for k in range(count):
        counts[:] = 0
        for i in range(samples):
            value = min(sampled[k, i, 0], sampled[k, i, 1], sampled[k, i, 2])
            darkest[i] = value
            counts[value] += 1
        seen, level = 0, 255
        for below in range(256):
            seen += counts[below]
            if seen > wanted:
                level = below
                break
        paper = max(np.float32(level), np.float32(DARKEST_PAPER))
        for i in range(samples):
            ink[k, i] = max(np.float32(1.0) - np.float32(darkest[i]) / paper, np.float32(0.0))
    return ink


def feature_size() -> int:
    cols, rows = WINDOW_PX
    cells = (rows // CELL) * (cols // CELL) * BINS
    return cells + (rows // INK_CELL) * (cols // INK_CELL) + 2 * (rows // COLOUR_CELL) * (cols // COLOUR_CELL)


RANKS = "A23456789TJQK"
SUITS = "SHDC"
_CARD_CODES = [r + s for r in RANKS for s in SUITS]  # rank by rank, each in SUITS order
_LABELS = frozenset([*_CARD_CODES, NONE, BACK])
HEADS = (len(RANKS), len(SUITS), 3)  # rank, suit, and what the corner is: nothing, an index, a back


@dataclass(frozen=True)
class IndexNet:
    """Standardised features -> hidden ReLU layers -> three softmax heads: rank, suit, kind.

    Rank and suit are learned separately (every queen teaches the queen, whatever its suit), which
    needs far fewer samples per class than 52 card classes; the third head says whether the window
    holds an index, a card back's corner, or neither. A card's probability is rank x suit x index.
    ``weights`` and ``biases`` run from the features to the heads, so a deck file may hold any
    number of hidden layers.
    """

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        # A deck enrolled before training flushed its subnormals may still hold them.
        object.__setattr__(self, "weights", tuple(_without_subnormals(w) for w in self.weights))
        object.__setattr__(self, "biases", tuple(_without_subnormals(b) for b in self.biases))

    def heads(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rank, suit, kind) probabilities of each row; kind columns: nothing, index, back."""
        # numpy's products, not cv2.gemm: below about a hundred rows (a committee's later members,
        # a second look) OpenCV multiplies without its BLAS, some twenty times slower. Each layer's
        # bias and ReLU are applied in place (the same sums in the same order), sparing a fresh
        # array a step: about 0.03 ms a frame.
        layer = np.subtract(features, self.mean)
        layer *= self.scale
        for weight, bias in zip(self.weights[:-1], self.biases[:-1], strict=True):
            layer = layer @ weight
            layer += bias
            np.maximum(layer, 0.0, out=layer)
        logits = layer @ self.weights[-1]
        logits += self.biases[-1]
        return _softmax_heads(logits)

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The most likely card of each row, its probability (rank x suit x index), and the kind
        probabilities (nothing, index, back) of each row."""
        if not len(features):
            return [], np.zeros(0, np.float32), np.zeros((0, HEADS[2]), np.float32)
        rank, suit, kind = self.heads(features)
        r, s = rank.argmax(axis=1), suit.argmax(axis=1)
        rows = np.arange(len(features))
        probability = rank[rows, r] * suit[rows, s] * kind[:, 1]
        return [_CARD_CODES[k] for k in (r * len(SUITS) + s).tolist()], probability, kind

    def probability_of(self, features: np.ndarray, cards: Sequence[str]) -> np.ndarray:
        """Each row's probability (rank x suit x index) that it shows its card of ``cards``."""
        rank, suit, kind = self.heads(features)
        rows = np.arange(len(features))
        ranks = [RANKS.index(card[0]) for card in cards]
        suits = [SUITS.index(card[1]) for card in cards]
        return rank[rows, ranks] * suit[rows, suits] * kind[:, 1]

    def arrays(self) -> dict[str, np.ndarray]:
        layers = {
            f"net_{kind}{i}": array
            for i, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True), start=1)
            for kind, array in (("w", weight), ("b", bias))
        }
        return {"net_mean": self.mean, "net_scale": self.scale, **layers}

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> IndexNet:
        count = _in_a_row(data, "net_w{}", 1)
        if not count:
            raise KeyError("no network layers in the arrays")

        def array(key: str) -> np.ndarray:
            return np.asarray(data[f"net_{key}"], np.float32)

        return cls(
            array("mean"),
            array("scale"),
            tuple(array(f"w{i}") for i in range(1, count + 1)),
            tuple(array(f"b{i}") for i in range(1, count + 1)),
        )


@dataclass(frozen=True)
class Committee:
    """Index classifiers trained apart, each on its own draw of training windows, whose majority decides.

    One network's confident mistakes mostly come from its own draw of training scenes: another
    trained on a different draw rarely makes the same one. A card is named where a majority of
    the members name it (both of two, two of three: ``needed``), and its probability is the
    geometric mean of the ``needed`` surest of those; where no majority names one card it is 0.
    With three, one member's slip no longer silences two that agree.
    """

    members: tuple[IndexNet, ...]

    @property
    def needed(self) -> int:
        """Members that must name a card: a majority."""
        return len(self.members) // 2 + 1

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """As ``IndexNet.best``, for the committee: the majority's names, their joint
        probability, and the members' mean kind probabilities.

        The first member screens: a window it is sure holds nothing (most windows of a frame,
        and none it could name) is not shown to the others, and keeps its probabilities.
        """
        names, probability, kind = self.members[0].best(features)
        shown = np.flatnonzero(kind[:, 0] < SCREENED)
        if not len(shown) or len(self.members) == 1:
            return names, probability, kind
        named = [[names[i] for i in shown.tolist()]]
        each = [probability[shown].astype(np.float64)]
        kinds = kind[shown].astype(np.float64)
        for member in self.members[1:]:
            other_names, other_probability, other_kind = member.best(features[shown])
            named.append(other_names)
            each.append(other_probability.astype(np.float64))
            kinds += other_kind
        votes = np.array(named)  # (members, rows) of card codes
        same = votes[:, None, :] == votes[None, :, :]  # [m, k, row]: member k names m's card
        chosen = same.sum(axis=1).argmax(axis=0)  # the member whose card most name, the first of equals
        rows = np.arange(len(shown))
        backing = same[chosen, :, rows].T  # (members, rows): who names the chosen card
        surest = np.sort(np.where(backing, np.array(each), 0.0), axis=0)[len(self.members) - self.needed :]
        product = np.prod(surest, axis=0)
        product[backing.sum(axis=0) < self.needed] = 0.0
        names = list(names)
        for k in np.flatnonzero(chosen).tolist():  # rows where the first member is outvoted
            names[int(shown[k])] = str(votes[chosen[k], k])
        probability, kind = probability.copy(), kind.copy()
        probability[shown] = product ** (1.0 / self.needed)
        kind[shown] = kinds * (1.0 / len(self.members))
        return names, probability, kind

    def probability_of(self, features: np.ndarray, cards: Sequence[str], at_least: float) -> np.ndarray:
        """Each row's committee probability of its card of ``cards`` where that can reach
        ``at_least``; where it cannot, that or 0 (the members left are not asked).

        The geometric mean of the ``needed`` surest members reaches ``at_least`` only where each
        of them reaches ``at_least`` to the power of ``needed`` (and is not 0), so a member sees
        only the rows where enough members are left, or have reached that, to make a majority.
        """
        floor = at_least**self.needed
        count = len(self.members)
        each = np.zeros((count, len(features)))
        rows = np.arange(len(features))
        for m, member in enumerate(self.members):
            if len(rows):
                each[m, rows] = member.probability_of(features[rows], [cards[i] for i in rows.tolist()])
            so_far = each[: m + 1]
            reached = ((so_far >= floor) & (so_far > 0.0)).sum(axis=0)
            rows = np.flatnonzero(reached + (count - m - 1) >= self.needed)
        surest = np.sort(each, axis=0)[count - self.needed :]
        return np.prod(surest, axis=0) ** (1.0 / self.needed)

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            f"member{i}_{key}": array
            for i, member in enumerate(self.members)
            for key, array in member.arrays().items()
        }

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> Committee:
        count = _in_a_row(data, "member{}_net_mean", 0)
        if not count:
            raise KeyError("no committee members in the arrays")
        return cls(
            tuple(
                IndexNet.from_arrays(
                    {key[len(f"member{i}_") :]: data[key] for key in data if key.startswith(f"member{i}_")}
                )
                for i in range(count)
            )
        )


def _without_subnormals(values: np.ndarray) -> np.ndarray:
    """A copy of ``values`` with every subnormal number made zero.

    A hidden unit that no training window switches on keeps only weight decay's pull, and its
    weights shrink into float32's subnormal range. On many x86 processors a product with a
    subnormal operand takes a microcode assist a hundred times slower than a plain one: measured
    here, a frame's first layer took 50 ms with some 7,000 subnormal weights of 115,000, and half
    a millisecond with them zeroed. Zero and a subnormal weight give the same sums to float32's
    precision wherever any other term is a normal number.
    """
    flushed = values.copy()
    _flush_subnormals(flushed)
    return flushed


def _flush_subnormals(values: np.ndarray) -> None:
    """Make every subnormal number in ``values`` zero, in place (see ``_without_subnormals``)."""
    values[np.abs(values) < _SMALLEST_NORMAL] = 0


def _in_a_row(data: Mapping[str, np.ndarray], key: str, first: int) -> int:
    """How many numbered arrays ``key`` names in ``data``, counting from ``first`` until one is
    missing: a deck file says by its keys how many members and layers it holds."""
    count = 0
    while key.format(first + count) in data:
        count += 1
    return count


def _softmax_heads(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = []
    start = 0
    for size in HEADS:
        part = logits[:, start : start + size]
        part = np.exp(part - part.max(axis=1, keepdims=True))
        out.append(part / part.sum(axis=1, keepdims=True))
        start += size
    return out[0], out[1], out[2]


def train(
    features: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    hidden: Sequence[int] = (256, 128),
    epochs: int = 20,
    batch: int = 256,
    rate: float = 2e-3,
    decay: float = 1e-4,
    overwrite: bool = False,
) -> IndexNet:
    """Fit the network by minibatch Adam on the three heads' cross-entropies (rank and suit count
    only on windows that hold an index); ``labels`` are card codes, ``NONE`` or ``BACK``;
    ``hidden`` gives each hidden layer's width. Deterministic for a given ``rng``.

    The rows are standardised in a copy, or with ``overwrite`` in ``features`` itself where they
    are float32 already: an enrollment's draw is a gigabyte, and a copy would double it.
    """
    x = features.astype(np.float32, copy=not overwrite)
    mean = x.mean(axis=0)
    scale = (1.0 / np.maximum(x.std(axis=0), 1e-3)).astype(np.float32)
    x -= mean
    x *= scale
    unknown = sorted({str(label) for label in labels} - set(_LABELS))
    if unknown:
        raise ValueError(f"training labels must be card codes, {NONE!r} or {BACK!r}; got {unknown[:5]}")
    kind = np.array([0 if str(label) == NONE else 2 if str(label) == BACK else 1 for label in labels])
    is_index = kind == 1
    rank = np.array(
        [RANKS.index(str(label)[0]) if i else 0 for label, i in zip(labels, is_index, strict=True)]
    )
    suit = np.array(
        [SUITS.index(str(label)[1]) if i else 0 for label, i in zip(labels, is_index, strict=True)]
    )
    widths = [x.shape[1], *hidden, sum(HEADS)]
    params: list[np.ndarray] = []
    for k, (into, out) in enumerate(itertools.pairwise(widths)):
        gain = 2.0 if k < len(hidden) else 1.0  # He's for a ReLU layer; the heads' logits plain
        params.append((rng.standard_normal((into, out)) * np.sqrt(gain / into)).astype(np.float32))
        params.append(np.zeros(out, np.float32))
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        lr = np.float32(rate * (0.5 * (1 + np.cos(np.pi * epoch / epochs))))
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            n = len(idx)
            layers = [x[idx]]  # each layer's input, the features first
            for weight, bias in zip(params[0:-2:2], params[1:-2:2], strict=True):
                layers.append(np.maximum(layers[-1] @ weight + bias, 0.0))
            p_rank, p_suit, p_index = _softmax_heads(layers[-1] @ params[-2] + params[-1])
            rows = np.arange(n)
            positive = is_index[idx].astype(np.float32)[:, None]
            p_rank[rows, rank[idx]] -= 1.0
            p_suit[rows, suit[idx]] -= 1.0
            p_index[rows, kind[idx]] -= 1.0
            g = np.concatenate([p_rank * positive, p_suit * positive, p_index], axis=1) / n
            grads: list[np.ndarray] = []
            for k in range(len(layers) - 1, -1, -1):  # back from the heads, layer by layer
                weight = params[2 * k]
                grads[:0] = [layers[k].T @ g + decay * weight, g.sum(axis=0)]
                if k:
                    g = (g @ weight.T) * (layers[k] > 0)
            step += 1
            for k, grad in enumerate(grads):
                moments[k] = 0.9 * moments[k] + 0.1 * grad
                squares[k] = 0.999 * squares[k] + 0.001 * grad * grad
                m_hat = moments[k] / np.float32(1 - 0.9**step)
                v_hat = squares[k] / np.float32(1 - 0.999**step)
                params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
                # A dead unit's weights and moments would sink into the slow subnormal range.
                for values in (params[k], moments[k], squares[k]):
                    _flush_subnormals(values)
    return IndexNet(
        mean.astype(np.float32),
        scale,
        tuple(p.astype(np.float32) for p in params[0::2]),
        tuple(p.astype(np.float32) for p in params[1::2]),
    )
