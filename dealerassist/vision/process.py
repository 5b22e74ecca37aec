"""Process-wide settings for a process that reads camera frames, made once by its entry point.

A library constructor must not change its whole process (the station process also runs the
dashboard, the trackers and the devices), so ``CardReader`` changes nothing and the commands that
read frames (``run``, ``demo``, ``vision read``, the vision benchmark) call these themselves:
``prepare_for_reading()`` before the first frame, ``set_aside_what_is_loaded()`` once the decks
and modules are loaded. None of them changes what is read.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

import cv2
from threadpoolctl import ThreadpoolController

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
MMAP_THRESHOLD = 64 * 1024 * 1024  # blocks below this come from the heap
TRIM_THRESHOLD = 256 * 1024 * 1024  # free heap kept before any is given back


def prepare_for_reading() -> None:
    """Hold BLAS and OpenCV to the calling thread and keep freed frame buffers in the heap."""
    # numpy's OpenBLAS (the classifier's products) and OpenCV's own each keep a worker per core
    # spinning between products: a second core ran at 100 % while a frame was read, for no gain
    # on products this small. cv2.setNumThreads governs neither.
    ThreadpoolController().limit(limits=1, user_api="blas")
    # OpenCV's pool for image operations (remap, resize, morphology) took a third more CPU time
    # on a frame's images than the calling thread alone, in the same wall time.
    cv2.setNumThreads(1)
    keep_freed_buffers()


def keep_freed_buffers() -> bool:
    """Keep freed blocks of up to 64 MB in the heap for reuse; False where the C library is not glibc.

    A frame makes and drops dozens of arrays of a few hundred kilobytes, which glibc serves with
    mmap and unmaps when freed, so every frame faulted fresh pages in again (about 4 of 24 ms)."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        return False
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def set_aside_what_is_loaded() -> None:
    """Leave the objects alive now (modules, compiled loops, decks: some 100,000) out of the
    collector's full passes (``gc.freeze``), after collecting the garbage of the moment.

    A reading process holds them all its life, and a full pass walking them made about one frame
    in a hundred take three times as long: a dropped frame or two of live video."""
    gc.collect()
    gc.freeze()
