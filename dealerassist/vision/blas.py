"""Hold the BLAS libraries to one thread while reading.

The index classifier's products run on the OpenBLAS that numpy bundles, and OpenCV's wheel brings
an OpenBLAS of its own. ``cv2.setNumThreads`` governs neither, and left at their defaults each
starts a worker per core that spins between products: measured here, a second core ran at 100 %
for the whole time a frame was read, doubling the reader's CPU for no gain on products this small.
This holds both libraries to the calling thread, process-wide: the reading process has no large
products to spread over cores (enrollment trains each network in a process of its own wherever
there is a core for it). A numpy or OpenCV without a bundled OpenBLAS is left alone.

It also pins the kernels training runs on. OpenBLAS picks its matrix kernels by processor, and each
adds up a product in its own order: the same training run with the AVX-512 (SkylakeX) kernels and
with the AVX2 (Haswell) ones gives two different networks, and a different deck. Training processes
start with the Haswell kernels wherever the processor runs them (every x86-64 one with AVX2 and
FMA), so the same card images give the same deck on any such machine.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

_SETTERS = [
    f"{prefix}_set_num_threads{suffix}" for prefix in ("scipy_openblas", "openblas") for suffix in ("64_", "")
]
_CORE_NAMES = [
    f"{prefix}_get_corename{suffix}" for prefix in ("scipy_openblas", "openblas") for suffix in ("64_", "")
]
TRAINING_KERNELS = "Haswell"  # OpenBLAS's AVX2 + FMA kernels
_held: int | None = None


def _numpys_openblas() -> list[Path]:
    return sorted(Path(np.__file__).resolve().parent.parent.glob("numpy.libs/*openblas*.so*"))


def hold_blas_to_one_thread() -> int:
    """Set every bundled OpenBLAS (numpy's, OpenCV's) to one thread, once; how many there were."""
    global _held
    if _held is None:
        _held = 0
        libraries = [
            *_numpys_openblas(),
            *sorted(Path(cv2.__file__).resolve().parent.parent.glob("opencv*.libs/libopenblas*.so*")),
        ]
        for path in libraries:
            library = ctypes.CDLL(str(path))
            setter = next((getattr(library, name) for name in _SETTERS if hasattr(library, name)), None)
            if setter is not None:
                setter(1)
                _held += 1
    return _held


def kernels(_job: object = None) -> str | None:
    """The kernels numpy's OpenBLAS runs on in this process (``Haswell``, ``SkylakeX``, ...), or
    None without a bundled OpenBLAS. (``_job``: so a pool of processes can be asked.)"""
    for path in _numpys_openblas():
        library = ctypes.CDLL(str(path))
        name = next((getattr(library, n) for n in _CORE_NAMES if hasattr(library, n)), None)
        if name is not None:
            name.restype = ctypes.c_char_p
            return name().decode()
    return None


def training_environment() -> dict[str, str]:
    """What a training process's environment needs to run on ``TRAINING_KERNELS``: nothing where
    the processor cannot run them (its own kernels then train the deck)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return {}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return {}
    lines = cpuinfo.splitlines()
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    return {"OPENBLAS_CORETYPE": TRAINING_KERNELS} if {"avx2", "fma"} <= set(flags) else {}


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
