"""A classifier whose every read the test decides: it names a card where a window is sampled at a
place, turn and size the test gives, and nothing elsewhere.

The reader's stages after the first look (the second looks, a fan's middle card, the closer look)
place windows by geometry and decide by what the classifier reads there. With a trained network
which windows name a card is its luck on one scene; with ``KnownReads`` it is the test's answer,
so a test says "this card is named only by a window at this place" and checks that the stage puts
one there. ``reads_by_place`` records where each batch of windows was sampled, and the fake's
``describe`` makes each row carry that place, the one thing the fake reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pytest

from dealerassist.vision import candidates, index_features, second_look
from dealerassist.vision import reader as reader_module
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.index_window import IndexWindow, sample_windows
from dealerassist.vision.indexnet import NONE
from dealerassist.vision.reader import CardReader
from dealerassist.vision.thresholds import Thresholds

_PLACE = 7  # columns appended to a feature row: x, y, across axis, down axis, card height


@dataclass(frozen=True)
class Shown:
    """``card`` read ``sure`` (its window holding an index at ``index``) by a window whose corner
    lies from ``beyond`` up to ``reach`` pixels from ``point``, its edges turned as ``x_axis`` and
    ``y_axis``, at a card height within ``resize`` of ``size``."""

    card: str
    point: tuple[float, float]
    x_axis: tuple[float, float]
    y_axis: tuple[float, float]
    size: float
    sure: float = 0.99
    index: float = 1.0
    reach: float = 0.5
    beyond: float = -1.0
    resize: float = 0.03

    def at(self, places: np.ndarray) -> np.ndarray:
        """Which of these windows (rows of x, y, across axis, down axis, height) show it."""
        apart = np.hypot(*(places[:, :2] - self.point).T)
        return (
            (apart <= self.reach)
            & (apart > self.beyond)
            & (places[:, 2:4] @ np.array(self.x_axis) > 0.99)
            & (places[:, 4:6] @ np.array(self.y_axis) > 0.99)
            & (np.abs(places[:, 6] / self.size - 1.0) <= self.resize)
        )


class KnownReads:
    """``indexnet.Committee``'s reading interface, reading what ``shown`` says each place shows:
    where several show something, the surest; elsewhere no index at all."""

    def __init__(self, shown: Sequence[Shown], sampled: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.shown = list(shown)
        self.sampled = sampled

    def describe(self, windows: np.ndarray) -> np.ndarray:
        """The real feature rows (the print step matches their ink), each ending with its place."""
        place = next(place for each, place in self.sampled if each is windows)
        return np.hstack([index_features.window_features(windows), place])

    def _each(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        places = features[:, -_PLACE:].astype(np.float64)
        names, sure, index = [NONE] * len(places), np.zeros(len(places)), np.zeros(len(places))
        for shown in self.shown:
            for row in np.flatnonzero(shown.at(places) & (shown.sure > sure)).tolist():
                names[row], sure[row], index[row] = shown.card, shown.sure, shown.index
        return names, sure, index

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        names, sure, index = self._each(features)
        kind = np.stack([1.0 - index, index, np.zeros_like(index)], axis=1)
        return names, sure.astype(np.float32), kind.astype(np.float32)

    def probability_of(self, features: np.ndarray, cards: Sequence[str], at_least: float) -> np.ndarray:
        places = features[:, -_PLACE:].astype(np.float64)
        sure = np.zeros(len(places))
        for shown in self.shown:
            wanted = shown.at(places) & (np.array(cards) == shown.card)
            sure[wanted] = np.maximum(sure[wanted], shown.sure)
        return sure


def reads_by_place(monkeypatch: pytest.MonkeyPatch) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where the reader sampled its last batch of windows, kept up to date in the list returned."""
    sampled: list[tuple[np.ndarray, np.ndarray]] = []

    def sample(
        image: np.ndarray,
        points: np.ndarray,
        x_axes: np.ndarray,
        y_axes: np.ndarray,
        heights: np.ndarray,
        window: IndexWindow,
    ) -> np.ndarray:
        windows = sample_windows(image, points, x_axes, y_axes, heights, window)
        place = np.column_stack([points, x_axes, y_axes, heights]) if len(points) else np.zeros((0, _PLACE))
        sampled[:] = [(windows, place)]
        return windows

    for module in (candidates, reader_module, second_look):
        monkeypatch.setattr(module, "sample_windows", sample)
    return sampled


def known_reader(
    deck: DeckModel,
    shown: Sequence[Shown],
    monkeypatch: pytest.MonkeyPatch,
    thresholds: Thresholds | None = None,
) -> CardReader:
    """A reader of ``deck``'s geometry whose classifier reads what ``shown`` says."""
    return CardReader(replace(deck, net=KnownReads(shown, reads_by_place(monkeypatch))), thresholds)
