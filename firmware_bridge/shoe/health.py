"""``LineHealth``: how much trouble one device's line has had, for /healthz, the status page and alarms.

Each trouble (a discarded frame, a NAK, a refusal, a resync, a reconnect) is counted for good and
timed in a one-minute window. When the window's count crosses the configured threshold the caller
is told once (it raises a ``line-health`` device alarm); it is told again only after the rate has
fallen below half the threshold. The journal gets at most one summary line per ``log_every``
seconds instead of one line per bad frame.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Final

TROUBLES: Final = ("discarded", "naks", "refusals", "resyncs", "reconnects")
FIGURES: Final = (*TROUBLES, "per_minute")
WINDOW_S: Final = 60.0


class LineHealth:
    def __init__(
        self,
        name: str,
        logger: logging.Logger,
        *,
        alarm_per_minute: int = 60,
        log_every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.log = logger
        self.alarm_per_minute = alarm_per_minute
        self.log_every = log_every
        self.clock = clock
        self.counts: Counter[str] = Counter({trouble: 0 for trouble in TROUBLES})
        self._window: deque[float] = deque()
        self._unlogged: Counter[str] = Counter()
        self._last_log = -float("inf")
        self._alarmed = False

    def note(self, trouble: str, detail: str = "") -> bool:
        """Count one trouble; True exactly when the rate has just crossed the alarm threshold."""
        if trouble not in self.counts:
            raise ValueError(f"unknown line trouble {trouble!r} (known: {', '.join(TROUBLES)})")
        now = self.clock()
        self.counts[trouble] += 1
        self._unlogged[f"{trouble} ({detail})" if detail else trouble] += 1
        self._window.append(now)
        self._trim(now)
        self.flush_log()
        rate = len(self._window)
        if not self._alarmed and rate >= self.alarm_per_minute:
            self._alarmed = True
            return True
        return False

    def per_minute(self) -> int:
        now = self.clock()
        self._trim(now)
        if self._alarmed and len(self._window) < self.alarm_per_minute / 2:
            self._alarmed = False
        return len(self._window)

    def figures(self) -> dict[str, int]:
        """The counts since start plus the last minute's rate, as /healthz and the status page show them."""
        return {**self.counts, "per_minute": self.per_minute()}

    def _trim(self, now: float) -> None:
        while self._window and now - self._window[0] > WINDOW_S:
            self._window.popleft()
        if self._alarmed and len(self._window) < self.alarm_per_minute / 2:
            self._alarmed = False

    def flush_log(self) -> None:
        """Write the summary line if troubles are waiting and the last line is old enough."""
        now = self.clock()
        if not self._unlogged or now - self._last_log < self.log_every:
            return
        self._last_log = now
        summary = ", ".join(f"{what} x{n}" for what, n in sorted(self._unlogged.items()))
        self._unlogged.clear()
        self.log.info("%s line trouble: %s (at most one line per %.0f s)", self.name, summary, self.log_every)
