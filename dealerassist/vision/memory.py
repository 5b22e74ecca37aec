"""Keep freed frame-sized buffers in the process instead of handing them back to the kernel, and
keep the garbage collector's full passes off the objects loaded before reading began.

Reading a frame makes and drops dozens of arrays of a few hundred kilobytes (windows, feature
planes, masks). glibc serves blocks that size with mmap and unmaps them when freed, so every frame
faults fresh pages in again, which costs more than the arithmetic done on them (about 4 of 24 ms
per frame here). Raising the mmap and trim thresholds keeps such blocks in the heap for reuse.
It is process-wide and harmless elsewhere: memory that was in use stays reserved for the next frame.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 64 * 1024 * 1024  # blocks below this come from the heap
TRIM_THRESHOLD = 256 * 1024 * 1024  # free heap kept before any is given back

_done = False


def keep_freed_buffers() -> bool:
    """Set the thresholds once per process; False where the C library is not glibc."""
    global _done
    if _done:
        return True
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return False
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
    return _done


def set_aside_what_is_loaded() -> None:
    """Leave the objects alive now (modules, compiled loops, the deck: some 100,000) out of the
    garbage collector's full passes from here on.

    A reading process holds them all its life, and a full pass walked every one of them: about
    once in a hundred frames a frame took 55-65 ms instead of 20, a dropped frame or two of live
    video. Set aside (``gc.freeze``), they are never walked again, and the longest of 240 frames
    took 37-39 ms. Garbage of the moment is collected first, so none is kept for good.
    """
    gc.collect()
    gc.freeze()
