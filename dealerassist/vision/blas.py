"""Hold the BLAS libraries to one thread while reading.

The index classifier's products run on the OpenBLAS that numpy bundles, and OpenCV's wheel brings
an OpenBLAS of its own. ``cv2.setNumThreads`` governs neither, and left at their defaults each
starts a worker per core that spins between products: measured here, a second core ran at 100 %
for the whole time a frame was read, doubling the reader's CPU for no gain on products this small.
This holds both libraries to the calling thread, process-wide: the reading process has no large
products to spread over cores (enrollment trains each network in a process of its own wherever
there is a core for it). A numpy or OpenCV without a bundled OpenBLAS is left alone.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import cv2
import numpy as np

_SETTERS = [
    f"{prefix}_set_num_threads{suffix}" for prefix in ("scipy_openblas", "openblas") for suffix in ("64_", "")
]
_held: int | None = None


def hold_blas_to_one_thread() -> int:
    """Set every bundled OpenBLAS (numpy's, OpenCV's) to one thread, once; how many there were."""
    global _held
    if _held is None:
        _held = 0
        libraries = [
            *sorted(Path(np.__file__).resolve().parent.parent.glob("numpy.libs/*openblas*.so*")),
            *sorted(Path(cv2.__file__).resolve().parent.parent.glob("opencv*.libs/libopenblas*.so*")),
        ]
        for path in libraries:
            library = ctypes.CDLL(str(path))
            setter = next((getattr(library, name) for name in _SETTERS if hasattr(library, name)), None)
            if setter is not None:
                setter(1)
                _held += 1
    return _held
