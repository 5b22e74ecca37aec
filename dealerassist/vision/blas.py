"""Hold the BLAS libraries, and OpenCV's own thread pool, to one thread while reading.

The index classifier's products run on the OpenBLAS that numpy bundles, and OpenCV's wheel brings
an OpenBLAS of its own. ``cv2.setNumThreads`` governs neither, and left at their defaults each
starts a worker per core that spins between products: measured here, a second core ran at 100 %
for the whole time a frame was read, doubling the reader's CPU for no gain on products this small.
This holds both libraries to the calling thread, process-wide, through threadpoolctl: the reading
process has no large products to spread over cores (enrollment trains each network in a process of
its own wherever there is a core for it). A numpy or OpenCV without a bundled OpenBLAS is left alone.

OpenCV also splits its image operations (remap, resize, colour conversion, morphology) over a pool
of its own, one thread per core, which ``cv2.setNumThreads`` does govern. On a frame's images that
split buys nothing: measured on a 2-core AMD EPYC, five frames read with the pool took a third more
CPU time than on the calling thread alone (302 against 227 ms) in the same wall time. Every
process that reads frames holds the pool to one thread at its entry point
(``process.prepare_for_reading``). Every operation gives the same pixels either way.

It also pins the kernels training runs on. OpenBLAS picks its matrix kernels by processor, and each
adds up a product in its own order: the same training run with the AVX-512 (SkylakeX) kernels and
with the AVX2 (Haswell) ones gives two different networks, and a different deck. Training processes
start with the Haswell kernels wherever the processor runs them (every x86-64 one with AVX2 and
FMA), and on one thread: OpenBLAS runs a product on one thread in another order than on two or
more (measured here: a network trained in a process held to one core differed from one trained
with two threads by up to 0.05 in a weight, while 2, 3, 4 and 8 threads agreed), and one thread is
the one count every machine has. So the same card images give the same deck on any such machine.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
from threadpoolctl import ThreadpoolController, threadpool_info

TRAINING_KERNELS = "Haswell"  # OpenBLAS's AVX2 + FMA kernels


def hold_blas_to_one_thread() -> int:
    """Set every loaded BLAS (numpy's, OpenCV's) to one thread, process-wide; how many there were."""
    blas = ThreadpoolController().select(user_api="blas")
    blas.limit(limits=1)
    return len(blas.lib_controllers)


def hold_opencv_to_one_thread() -> None:
    """Run OpenCV's parallel image operations on the calling thread, process-wide."""
    cv2.setNumThreads(1)


def _numpys_openblas() -> dict[str, object] | None:
    found = [i for i in threadpool_info() if i["internal_api"] == "openblas" and "numpy" in i["filepath"]]
    return found[0] if found else None


def kernels(_job: object = None) -> str | None:
    """The kernels numpy's OpenBLAS runs on in this process (``Haswell``, ``SkylakeX``, ...), or
    None without a bundled OpenBLAS. (``_job``: so a pool of processes can be asked.)"""
    info = _numpys_openblas()
    return str(info["architecture"]) if info else None


def threads(_job: object = None) -> int | None:
    """How many threads numpy's OpenBLAS runs a product on in this process, or None without it."""
    info = _numpys_openblas()
    return int(info["num_threads"]) if info else None  # type: ignore[call-overload]


def training_environment() -> dict[str, str]:
    """What a training process's environment needs: one OpenBLAS thread, and ``TRAINING_KERNELS``
    where the processor runs them (elsewhere its own kernels train the deck)."""
    one_thread = {"OPENBLAS_NUM_THREADS": "1"}
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return one_thread
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return one_thread
    lines = cpuinfo.splitlines()
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    return one_thread | ({"OPENBLAS_CORETYPE": TRAINING_KERNELS} if {"avx2", "fma"} <= set(flags) else {})


@contextmanager
def training_kernels() -> Iterator[None]:
    """Processes started within take ``training_environment()`` with them: OpenBLAS reads it when
    numpy loads, so it must be there before they start. This process's own is as it was after."""
    added = training_environment()
    before = {key: os.environ.get(key) for key in added}
    os.environ.update(added)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
