"""The OpenBLAS kernels and thread count training runs on, pinned so a deck is the same anywhere.

OpenBLAS picks its matrix kernels by processor, and each adds up a product in its own order: the
same training run on the AVX-512 (SkylakeX) kernels and on the AVX2 (Haswell) ones gives two
different networks, and a different deck. One thread adds up in yet another order than two or
more (a weight differed by up to 0.05), and one thread is the count every machine has. So training
processes start with the Haswell kernels wherever the processor runs them (every x86-64 one with
AVX2 and FMA), on one thread, and the same card images give the same deck on any such machine.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from threadpoolctl import threadpool_info

TRAINING_KERNELS = "Haswell"  # OpenBLAS's AVX2 + FMA kernels


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
