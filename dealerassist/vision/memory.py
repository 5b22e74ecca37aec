"""Keep freed frame-sized buffers in the process instead of handing them back to the kernel.

Reading a frame makes and drops dozens of arrays of a few hundred kilobytes (windows, feature
planes, masks). glibc serves blocks that size with mmap and unmaps them when freed, so every frame
faults fresh pages in again, which costs more than the arithmetic done on them (about 4 of 24 ms
per frame here). Raising the mmap and trim thresholds keeps such blocks in the heap for reuse.
It is process-wide and harmless elsewhere: memory that was in use stays reserved for the next frame.
"""

from __future__ import annotations

import ctypes
import ctypes.util

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
