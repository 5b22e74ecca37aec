"""The corner-index classifier as a small convolutional network, trained once across designs.

It reads the index window itself (each channel measured against the window's own paper white,
so felt, light and tint cancel) and answers as ``indexnet.IndexNet`` does: rank, suit and kind
(nothing, an index, a back). The network is an ONNX file run by OpenCV's ``dnn`` module; its
recipe is ``tools/train_index_cnn.py``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from dealerassist.vision.indexnet import _CARD_CODES, HEADS, RANKS, SUITS, _softmax_heads

WHITE_SHARE = 0.9  # the share of a window's pixels at or below its paper white, per channel
DARKEST_WHITE = 16.0  # a window darker than this all over is measured against this


def normalise(windows: np.ndarray) -> np.ndarray:
    """(n, 3, rows, cols) float32 network input of (n, rows, cols, >=3) uint8 BGR windows."""
    n, rows, cols = windows.shape[:3]
    pixels = windows[..., :3].reshape(n, rows * cols, 3).astype(np.float32)
    k = int(WHITE_SHARE * rows * cols)
    white = np.partition(pixels, k, axis=1)[:, k, :] if n else np.zeros((0, 3), np.float32)
    pixels /= np.maximum(white, DARKEST_WHITE)[:, None, :]
    pixels -= 0.5
    return np.ascontiguousarray(pixels.reshape(n, rows, cols, 3).transpose(0, 3, 1, 2))


class IndexCNN:
    """The ONNX network at ``path``, one OpenCV net per thread (a net is not shared safely)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._net()  # a bad file is refused here, not at the first frame

    def _net(self) -> cv2.dnn.Net:
        net = getattr(self._local, "net", None)
        if net is None:
            net = self._local.net = cv2.dnn.readNetFromONNX(str(self.path))
        return net

    def describe(self, windows: np.ndarray) -> np.ndarray:
        return normalise(windows)

    def heads(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not len(inputs):
            return tuple(np.zeros((0, size), np.float32) for size in HEADS)  # type: ignore[return-value]
        net = self._net()
        net.setInput(inputs)
        return _softmax_heads(net.forward().reshape(len(inputs), -1))

    def best(self, inputs: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        if not len(inputs):
            return [], np.zeros(0, np.float32), np.zeros((0, HEADS[2]), np.float32)
        rank, suit, kind = self.heads(inputs)
        r, s = rank.argmax(axis=1), suit.argmax(axis=1)
        rows = np.arange(len(inputs))
        probability = rank[rows, r] * suit[rows, s] * kind[:, 1]
        return [_CARD_CODES[k] for k in (r * len(SUITS) + s).tolist()], probability, kind

    def probability_of(self, inputs: np.ndarray, cards: Sequence[str], at_least: float) -> np.ndarray:
        del at_least  # one network: every row is read
        rank, suit, kind = self.heads(inputs)
        rows = np.arange(len(inputs))
        ranks = [RANKS.index(card[0]) for card in cards]
        suits = [SUITS.index(card[1]) for card in cards]
        return rank[rows, ranks] * suit[rows, suits] * kind[:, 1]
