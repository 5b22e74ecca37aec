"""A full or read-only disk under the event log: said once, shown on /healthz, left as an alarm.

While the log cannot be written every input is refused before anything changes (the shoe repeats
its cards, a person is told to send again), so nothing is lost; what must not happen is a line per
refused input in the journal. ``LogWatch`` says it once when appends start failing and once when
the log takes records again, and then leaves a ``device-link`` of device ``event-log`` in every
table's log, a critical alarm a supervisor acknowledges after checking what was refused meanwhile.
The first try of that record is also the probe that finds the disk writable again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from dealerassist.errors import StorageUnavailable
from dealerassist.events import DeviceLink
from dealerassist.storage.eventlog import utc_now

log = logging.getLogger("dealerassist.station")


class LogWatch:
    """Follow ``log.outage``; ``check()`` is one step, ``start()`` runs it every ``interval``."""

    def __init__(self, event_log: Any, pit: Any, tables: Sequence[str], *, interval: float = 1.0) -> None:
        self.log = event_log
        self.pit = pit
        self.tables = list(tables)
        self.interval = interval
        self.outage: tuple[str, str] | None = None
        self._alarmed: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="log-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # the watch must outlive any one surprise
                log.exception("event log watch failed")

    def check(self) -> None:
        problem = self.log.outage
        if self.outage is None:
            if problem is not None:
                self.outage = problem
                log.error(
                    "event log %s cannot be written since %s: %s; inputs are refused (devices repeat "
                    "theirs) until it can",
                    self.log.path,
                    *problem,
                )
            return
        since, what = self.outage
        detail = (
            f"the event log could not be written from {since} until {utc_now()}: {what}; inputs sent "
            "meanwhile were refused (devices repeated theirs; check what people entered)"
        )
        for table in self.tables:
            if table in self._alarmed:
                continue
            try:
                self.pit.handle(table, DeviceLink(table=table, device="event-log", up=False, detail=detail))
            except StorageUnavailable:
                return  # still not writable: the next check tries again
            self._alarmed.add(table)
        log.warning("event log %s takes records again (unwritable since %s: %s)", self.log.path, since, what)
        self.log.end_outage(self.outage)
        self.outage = None
        self._alarmed.clear()
