"""The looks at index windows: where a batch of windows lies (``Windows``), a frame's first look
(``FirstLook``), and the windows a second-look pass places (``SecondLook``), read in one batch."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dealerassist.vision.candidates import Candidate
from dealerassist.vision.index_window import IndexWindow, sample_windows
from dealerassist.vision.indexnet import Committee

# Two corners are turned the same way when the cosines between both their edges reach this.
SAME_WAY = 0.9
# Windows around a window: in place and moved by this share of the card height (at least a pixel)
# either way along either edge, each at these sizes: 15 windows.
AROUND_STEP = 0.015
AROUND_SIZES = (0.96, 1.0, 1.04)
AROUND_MOVES = np.array([(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)], float)
AROUND_WINDOWS = len(AROUND_MOVES) * len(AROUND_SIZES)
AROUND_MIDDLE = AROUND_SIZES.index(1.0)  # the window unmoved (the first move) at its own size


@dataclass(frozen=True)
class Windows:
    """Index windows to sample: each one's corner, edges (x across, y down the card) and card size."""

    points: np.ndarray
    x_axes: np.ndarray
    y_axes: np.ndarray
    sizes: np.ndarray


@dataclass
class FirstLook:
    """A frame's first look, which the second looks amend in place.

    Every (candidate, height) read is a row: its candidate (``owner``), height, window's pooled ink
    (``ink``), and the card it names with its probability; ``best`` is each candidate's surest row.
    ``points``, ``x_axes`` and ``y_axes`` are the candidates' corners.
    """

    bgra: np.ndarray  # the frame's sampling image, made once for every look at the index windows
    candidates: list[Candidate]
    points: np.ndarray
    x_axes: np.ndarray
    y_axes: np.ndarray
    owner: np.ndarray
    heights: np.ndarray
    ink: np.ndarray
    names: list[str]
    probability: np.ndarray
    best: list[int]

    def named_best(self, accept: float) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's surest row, and whether it names a card."""
        first = np.array(self.best)
        return first, self.probability[first] >= accept


@dataclass
class SecondLook:
    """The windows one pass chose: for each, the first-look row it may amend, where it lies, its
    card size, and the card it is read for (``cards``; None: any card). ``read_second_looks``
    fills in the names and probabilities read."""

    rows: np.ndarray
    points: np.ndarray
    x_axes: np.ndarray
    y_axes: np.ndarray
    sizes: np.ndarray
    cards: list[str] | None = None
    names: list[str] = field(default_factory=list)
    probability: np.ndarray = field(default_factory=lambda: np.zeros(0))


def no_windows() -> SecondLook:
    empty = np.zeros((0, 2))
    return SecondLook(np.zeros(0, int), empty, empty, empty, np.zeros(0))


def read_second_looks(
    look: FirstLook, steps: list[SecondLook], net: Committee, window: IndexWindow, accept: float
) -> None:
    """Sample and describe every pass's windows in one batch, then read them in two: the passes
    that ask for one card each (``probability_of``) and those that ask for any card. The network
    reads each row alone, so each pass reads as it would alone."""
    asked = [step for step in steps if len(step.rows) and step.cards is not None]
    any_card = [step for step in steps if len(step.rows) and step.cards is None]
    if not asked and not any_card:
        return
    together = joined(asked + any_card)
    windows = sample_windows(
        look.bgra, together.points, together.x_axes, together.y_axes, together.sizes, window
    )
    features = net.describe(windows)
    split = sum(len(step.rows) for step in asked)
    if asked:
        cards = [card for step in asked for card in step.cards or []]
        _share(asked, net.probability_of(features[:split], cards, accept), [])
    if any_card:
        names, probability, _ = net.best(features[split:])
        _share(any_card, probability, names)


def _share(steps: list[SecondLook], probability: np.ndarray, names: list[str]) -> None:
    """Give each pass its own rows' part of a joint read (``names`` empty where none were read)."""
    start = 0
    for step in steps:
        end = start + len(step.rows)
        step.probability = probability[start:end]
        if names:
            step.names = names[start:end]
        start = end


def unsure_rows(look: FirstLook, unsure: float, accept: float) -> np.ndarray:
    """Each candidate's surest row whose read reaches ``unsure`` but not ``accept``."""
    return np.array([row for row in look.best if unsure <= look.probability[row] < accept], int)


def windows_around(middle: SecondLook, cards: list[str]) -> SecondLook:
    """The ``AROUND_WINDOWS`` windows around each of ``middle``'s windows, read for its card."""
    at, x_axes, y_axes = (v[:, None, None, :] for v in (middle.points, middle.x_axes, middle.y_axes))
    size = middle.sizes[:, None, None]
    step = np.maximum(1.0, AROUND_STEP * size)[..., None]
    shape = (len(middle.rows), len(AROUND_MOVES), len(AROUND_SIZES), 2)  # (window, move, size, xy)
    across, down = AROUND_MOVES[None, :, None, :1], AROUND_MOVES[None, :, None, 1:]
    moved = at + (across * x_axes + down * y_axes) * step
    return SecondLook(
        np.repeat(middle.rows, AROUND_WINDOWS),
        np.broadcast_to(moved, shape).reshape(-1, 2),
        np.broadcast_to(x_axes, shape).reshape(-1, 2),
        np.broadcast_to(y_axes, shape).reshape(-1, 2),
        np.broadcast_to(size * np.array(AROUND_SIZES), shape[:3]).reshape(-1),
        cards=[card for card in cards for _ in range(AROUND_WINDOWS)],
    )


def surest(around: SecondLook, needed: int) -> np.ndarray:
    """The ``needed``-th surest read of each window's ``AROUND_WINDOWS`` windows around."""
    sure = around.probability.reshape(-1, AROUND_WINDOWS)
    return -np.partition(-sure, needed - 1, axis=1)[:, needed - 1]


def joined(looks: list[SecondLook]) -> SecondLook:
    """Several passes' windows as one, in their order, before they are read."""
    keys = ("rows", "points", "x_axes", "y_axes", "sizes")
    return SecondLook(*(np.concatenate([getattr(look, key) for look in looks]) for key in keys))
