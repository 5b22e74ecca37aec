"""Hold the BLAS libraries, and OpenCV's own thread pool, to one thread while reading.

numpy bundles an OpenBLAS, and OpenCV's wheel brings one of its own. ``cv2.setNumThreads``
governs neither, and left at their defaults each starts a worker per core that spins between
products: measured here, a second core ran at 100 % for the whole time a frame was read, doubling
the reader's CPU for no gain on products this small. This holds both libraries to the calling
thread, process-wide, through threadpoolctl. A numpy or OpenCV without a bundled OpenBLAS is left
alone.

OpenCV also splits its image operations (remap, resize, colour conversion, morphology) over a pool
of its own, one thread per core, which ``cv2.setNumThreads`` does govern. On a frame's images that
split buys nothing: measured on a 2-core AMD EPYC, five frames read with the pool took a third more
CPU time than on the calling thread alone (302 against 227 ms) in the same wall time. Every
process that reads frames holds the pool to one thread at its entry point
(``process.prepare_for_reading``). Every operation gives the same pixels either way.
"""

from __future__ import annotations

import cv2
from threadpoolctl import ThreadpoolController


def hold_blas_to_one_thread() -> int:
    """Set every loaded BLAS (numpy's, OpenCV's) to one thread, process-wide; how many there were."""
    blas = ThreadpoolController().select(user_api="blas")
    blas.limit(limits=1)
    return len(blas.lib_controllers)


def hold_opencv_to_one_thread() -> None:
    """Run OpenCV's parallel image operations on the calling thread, process-wide."""
    cv2.setNumThreads(1)
