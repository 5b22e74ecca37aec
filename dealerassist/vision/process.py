"""Process-wide settings for a process that reads camera frames, made once by its entry point.

A library constructor must not change its whole process: the station process also runs the
dashboard, the trackers and the devices. So ``CardReader`` changes nothing, and the commands that
read frames (``run``, ``demo``, ``vision read``, the vision benchmark) call these themselves:

- ``prepare_for_reading()`` before the first frame: BLAS and OpenCV held to the calling thread
  (``blas``), freed frame-sized buffers kept in the heap (``memory.keep_freed_buffers``);
- ``set_aside_what_is_loaded()`` once the decks and modules are loaded, so the collector's full
  passes never walk them again (``memory``).
"""

from __future__ import annotations

from dealerassist.vision.blas import hold_blas_to_one_thread, hold_opencv_to_one_thread
from dealerassist.vision.memory import keep_freed_buffers, set_aside_what_is_loaded

__all__ = ["prepare_for_reading", "set_aside_what_is_loaded"]


def prepare_for_reading() -> None:
    hold_blas_to_one_thread()  # idle BLAS workers would spin on another core
    hold_opencv_to_one_thread()  # and OpenCV's pool costs more than it saves on a frame
    keep_freed_buffers()  # a frame's short-lived arrays would otherwise be paged in afresh each frame
