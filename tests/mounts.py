"""Real file-system conditions for tests: a small tmpfs that fills up, a folder made read-only.

As root (which ignores file permissions) both are mounts. A developer's machine that cannot mount
skips those tests; CI (``$CI`` set, run as root) fails them instead, so the guarantees they check
are never passed over unseen. As another user a read-only folder is one whose write permissions
are taken away.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _cannot(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the file-system tests: {reason}")
    pytest.skip(reason)


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        _cannot(f"cannot mount here: {done.stderr.strip()}")


@contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[Path]:
    """``folder`` as a tmpfs of ``size``: fill it with ``fill`` to make the disk full."""
    if os.geteuid() != 0:
        _cannot("mounting a small tmpfs needs root")
    folder.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True, capture_output=True)


def fill(folder: Path) -> Path:
    """Write a file into ``folder`` until the disk has no byte left; delete it to free the space."""
    filler = folder / "filler"
    with filler.open("wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """No process may write in ``folder`` (its files included) while the block runs."""
    if os.geteuid() == 0:
        _mount("--bind", str(folder), str(folder))
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True, capture_output=True)
            yield
        finally:
            subprocess.run(["umount", str(folder)], check=True, capture_output=True)
    else:
        modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
        for path in modes:
            path.chmod(modes[path] & ~0o222)
        try:
            yield
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
