"""Hold OpenCV's own BLAS to one thread while reading.

The OpenCV wheel brings its own OpenBLAS, which ``cv2.gemm`` (the index classifier's products)
runs on. ``cv2.setNumThreads`` does not govern it, and left at its default it starts a worker per
core that spins between products: measured here, a second core ran at 100 % for the whole time a
frame was read, doubling the reader's CPU for no gain on products this small. This holds that
library to the calling thread, process-wide; an OpenCV without a bundled OpenBLAS is left alone.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import cv2

_held: bool | None = None


def hold_opencv_blas_to_one_thread() -> bool:
    """Set OpenCV's bundled OpenBLAS to one thread (once); whether there was one to set."""
    global _held
    if _held is None:
        _held = False
        site = Path(cv2.__file__).resolve().parent.parent
        for path in sorted(site.glob("opencv*.libs/libopenblas*.so*")):
            setter = getattr(ctypes.CDLL(str(path)), "openblas_set_num_threads", None)
            if setter is not None:
                setter(1)
                _held = True
    return _held
