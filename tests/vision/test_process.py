"""A reading process's settings: the bundled BLAS libraries (numpy's, OpenCV's) run products, and
OpenCV its image operations, on the calling thread alone; freed buffers stay in the heap; what is
loaded is left out of the collector's full passes."""

from __future__ import annotations

import gc
import platform
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.vision.process import keep_freed_buffers, prepare_for_reading, set_aside_what_is_loaded


def _thread_ticks() -> dict[str, int]:
    """CPU clock ticks used so far by each thread of this process."""
    ticks = {}
    for task in Path("/proc/self/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        ticks[task.name] = int(fields[11]) + int(fields[12])
    return ticks


@pytest.mark.parametrize(
    "product",
    [
        lambda a, b: a @ b,  # numpy's bundled OpenBLAS: the classifier's products
        lambda a, b: cv2.gemm(a, b, 1.0, None, 0.0),  # OpenCV's own
    ],
    ids=["numpy", "opencv"],
)
def test_products_keep_to_the_calling_thread(product: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    prepare_for_reading()
    features = np.random.default_rng(0).random((200, 448), dtype=np.float32)
    weights = np.random.default_rng(1).random((448, 256), dtype=np.float32)
    _assert_on_the_calling_thread(lambda: product(features, weights))


def test_image_operations_keep_to_the_calling_thread() -> None:
    prepare_for_reading()
    assert cv2.getNumThreads() == 1
    frame = np.random.default_rng(2).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    # Operations OpenCV splits over its pool when it has one, on frame-sized images.
    opening = np.ones((9, 9), np.uint8)
    _assert_on_the_calling_thread(
        lambda: cv2.morphologyEx(cv2.GaussianBlur(frame, (15, 15), 0), cv2.MORPH_OPEN, opening)
    )


def _assert_on_the_calling_thread(work: Callable[[], object]) -> None:
    """The calling thread does ``work`` for 0.4 s of its own CPU time (so a loaded machine only
    stretches the test) while the process's other threads stay nearly idle."""
    work()
    before = _thread_ticks()
    started = time.thread_time()
    while time.thread_time() - started < 0.4:
        work()
    after = _thread_ticks()
    used = {name: after[name] - before.get(name, 0) for name in after}
    caller = str(threading.get_native_id())
    others = sum(ticks for name, ticks in used.items() if name != caller)
    # Left at its default, an OpenBLAS keeps a worker spinning as busy as the caller.
    assert used[caller] >= 20
    assert others <= 0.25 * used[caller]


def test_only_the_entry_point_changes_the_process() -> None:
    """Building a reader leaves the process's thread settings alone; ``prepare_for_reading`` (what
    the commands that read frames call first) holds BLAS and OpenCV to one thread."""
    code = """
import cv2
from threadpoolctl import threadpool_info

def settings():
    return cv2.getNumThreads(), sorted(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

before = settings()
from dealerassist.vision.reader import CardReader
CardReader(deck=None)  # the constructor only keeps its deck
assert settings() == before, (before, settings())
from dealerassist.vision.process import prepare_for_reading
prepare_for_reading()
threads, blas = settings()
assert threads == 1 and blas and set(blas) == {1}, (threads, blas)
print("ok", before)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


def test_freed_frame_buffers_are_kept_where_the_c_library_allows() -> None:
    on_glibc = platform.libc_ver()[0] == "glibc"  # mallopt's thresholds are glibc's
    assert keep_freed_buffers() is on_glibc
    assert keep_freed_buffers() is on_glibc  # set again: the same answer


class _Held:
    """An object that refers to itself: only the collector's passes can free it."""

    def __init__(self) -> None:
        self.me = self


def test_what_is_loaded_is_left_out_of_full_collections_and_garbage_is_freed_first() -> None:
    held, dropped = _Held(), _Held()
    gone = weakref.ref(dropped)
    del dropped
    set_aside_what_is_loaded()
    assert gone() is None  # the cycle dropped before was collected, not kept for good
    assert not any(o is held for o in gc.get_objects())  # the one alive is set aside
    later = _Held()
    assert any(o is later for o in gc.get_objects())  # what comes after is collected as ever
