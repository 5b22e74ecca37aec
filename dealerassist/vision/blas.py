"""The OpenBLAS kernels and thread count training runs on, pinned so a deck is the same anywhere.

Each OpenBLAS kernel set (chosen by processor) and each thread count adds up a product in its own
order, and trains a different deck. So training processes run the Haswell kernels (AVX2 + FMA,
which every such x86-64 processor runs) on one thread, the count every machine has.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from threadpoolctl import threadpool_info

TRAINING_KERNELS = "Haswell"


def openblas_setting(key: str) -> object:
    """``key`` of threadpoolctl's report on numpy's bundled OpenBLAS in this process
    (``architecture``: the kernels, ``num_threads``), or None without one."""
    found = [i for i in threadpool_info() if i["internal_api"] == "openblas" and "numpy" in i["filepath"]]
    return found[0][key] if found else None


def training_environment() -> dict[str, str]:
    """A training process's environment: one OpenBLAS thread, and ``TRAINING_KERNELS`` where the
    processor runs them (elsewhere its own kernels train the deck)."""
    one_thread = {"OPENBLAS_NUM_THREADS": "1"}
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return one_thread
    try:
        lines = Path("/proc/cpuinfo").read_text(errors="replace").splitlines()
    except OSError:
        return one_thread
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    return one_thread | ({"OPENBLAS_CORETYPE": TRAINING_KERNELS} if {"avx2", "fma"} <= set(flags) else {})


@contextmanager
def training_kernels() -> Iterator[None]:
    """Processes started within take ``training_environment()``: OpenBLAS reads it as numpy
    loads. This process's own environment is restored after."""
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
