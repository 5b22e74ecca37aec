"""The universal trunk of the index classifier: a small convolutional network trained once
across many designs, that turns an index window into a row of features.

It reads the window itself, each channel measured against the window's own paper white (felt,
light and tint cancel). Trained with heads of its own over some seventy designs, its three
convolution blocks learnt what the indices of every design share; a deck's own heads
(``indexnet.IndexNet``, learnt at enrollment) read its features. It is an ONNX file run by
OpenCV's ``dnn`` module; ``training/index_cnn.py`` is its recipe.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from dealerassist.vision.index_window import WINDOW_PX

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


class IndexTrunk:
    """The convolutional trunk in the ONNX file at ``path``: windows in, one row of features
    each out. Run by an OpenCV net of each thread's own (a net is not shared safely)."""

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
        """(n, features) float32 rows of (n, rows, cols, >=3) uint8 BGR windows."""
        if not len(windows):
            return np.zeros((0, self.width), np.float32)
        net = self._net()
        net.setInput(normalise(windows))
        return net.forward().reshape(len(windows), -1)

    @property
    def width(self) -> int:
        """Features a window: the trunk's output for one blank window."""
        if not hasattr(self, "_width"):
            net = self._net()
            net.setInput(np.zeros((1, 3, WINDOW_PX[1], WINDOW_PX[0]), np.float32))
            self._width = int(net.forward().size)
        return self._width
