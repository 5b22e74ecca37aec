"""Ctrl-C and ``systemctl stop`` (SIGINT/SIGTERM) end a station's main loop cleanly, without a trace."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[threading.Event]:
    """Within the block SIGINT and SIGTERM set ``stop``; the previous handlers come back after."""

    def handler(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
