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

from dealerassist.vision.indexnet import HEADS, Committee, best_of, probability_of, softmax_heads

WHITE_SHARE = 0.9  # the share of a window's pixels at or below its paper white, per channel
DARKEST_WHITE = 16.0  # a window darker than this all over is measured against this


def normalise(windows: np.ndarray) -> np.ndarray:
    """(n, 3, rows, cols) float32 network input of (n, rows, cols, >=3) uint8 BGR windows: each
    channel divided by the window's paper white, less a half.

    The white is the ``WHITE_SHARE`` level of every other pixel in each direction: as good a
    measure of the paper, at a quarter of the cost (the full count took a fifth of a frame).
    """
    n = len(windows)
    pixels = windows[..., :3].astype(np.float32)
    every_other = pixels[:, ::2, ::2].reshape(n, -1, 3)
    k = int(WHITE_SHARE * every_other.shape[1])
    white = np.partition(every_other, k, axis=1)[:, k, :] if n else np.zeros((0, 3), np.float32)
    pixels *= (1.0 / np.maximum(white, DARKEST_WHITE))[:, None, None, :]
    pixels -= 0.5
    return np.ascontiguousarray(pixels.transpose(0, 3, 1, 2))


class IndexCNN:
    """One network of a committee (``indexnet.Committee``): the ONNX file at ``path``, read by an
    OpenCV net of each thread's own (a net is not shared across threads safely)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._net()  # a bad file is refused here, not at the first frame

    def _net(self) -> cv2.dnn.Net:
        net = getattr(self._local, "net", None)
        if net is None:
            try:
                net = self._local.net = cv2.dnn.readNetFromONNX(str(self.path))
            except cv2.error:
                raise ValueError(f"{self.path}: not an ONNX network OpenCV can read") from None
        return net

    def describe(self, windows: np.ndarray) -> np.ndarray:
        return normalise(windows)

    def heads(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rank, suit, kind) probabilities of each window; kind columns: nothing, index, back."""
        net = self._net()
        net.setInput(inputs)
        return softmax_heads(net.forward().reshape(len(inputs), -1))

    def best(self, inputs: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        if not len(inputs):
            return [], np.zeros(0, np.float32), np.zeros((0, HEADS[2]), np.float32)
        return best_of(*self.heads(inputs))

    def probability_of(self, inputs: np.ndarray, cards: Sequence[str]) -> np.ndarray:
        if not len(inputs):
            return np.zeros(0, np.float32)
        return probability_of(*self.heads(inputs), cards)


def cnn_committee(folder: Path) -> Committee:
    """The committee of the networks ``member-*.onnx`` in ``folder``, in their order."""
    members = sorted(folder.glob("member-*.onnx"))
    if not members:
        raise ValueError(f"{folder}: no member-*.onnx networks in it")
    return Committee(tuple(IndexCNN(path) for path in members))
