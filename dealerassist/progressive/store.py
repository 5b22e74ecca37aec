"""Where a progressive's meter lives: the table's own event log, or a shared PostgreSQL row.

Both stores take a *plan* — a pure function from (meter, parameters, keys already done) to the
events to commit — and commit its events atomically, so the controller's rules are written once.
Every progressive event carries an idempotency ``key``; a store never commits a key twice, which
is what makes a retry after a crash or a lost link safe.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dealerassist.errors import DealerAssistError
from dealerassist.events import Event
from dealerassist.progressive import meter, plans
from dealerassist.progressive.events import apply_event, key_round, params_after
from dealerassist.progressive.params import ProgressiveParams, params_from_dict
from dealerassist.progressive.plans import Plan


class LinkDown(DealerAssistError):
    """The shared meter cannot be reached; the progressive is unplayable until it is back."""


class EventSink(Protocol):
    """The part of ``dealerassist.storage.eventlog.EventLog`` the progressive uses."""

    def append_many(self, events: Sequence[Event]) -> list[Any]: ...

    def records(self, after: int = 0, table: str | None = None) -> Iterator[Any]: ...


def event_key(event: Event) -> str:
    return str(getattr(event, "key", ""))


class MeterStore(ABC):
    """One progressive's meter, parameters and ledger of keys."""

    shared: bool = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.RLock()
        self.committed: tuple[meter.MeterState, ProgressiveParams] | None = None

    @abstractmethod
    def snapshot(self) -> tuple[meter.MeterState, ProgressiveParams]:
        """The meter and parameters as committed (a shared store reads them afresh)."""

    @abstractmethod
    def commit(self, keys: Sequence[str], plan: Plan) -> list[Event]:
        """Run ``plan`` against the committed meter and commit its events in one transaction.

        Returns the new events and, for a shared store, the already stored events of ``keys``
        (so a table can copy into its own log what a crash kept it from copying). Sets
        ``committed`` to the meter and parameters as the transaction left them."""

    def table_events(self, table: str) -> list[Event]:
        """Every stored event ``table`` committed (a shared store's ledger); a local store's events
        are in the table's own log already."""
        return []

    def listen(self) -> None:  # noqa: B027 - a local store has no other writer to hear
        """Start hearing other writers now, so a change made after this returns ends the next
        ``wait_for_change`` early."""

    def wait_for_change(self, timeout: float) -> bool:
        """Block until another writer may have changed the meter (or ``timeout`` passes)."""
        time.sleep(timeout)
        return False

    def wake(self) -> None:  # noqa: B027 - a local store's wait is a plain sleep
        """End a ``wait_for_change`` early (the controller is stopping)."""

    def close(self) -> None:  # noqa: B027 - only a shared store holds a connection
        """Release connections; a local store has none."""


class LocalStore(MeterStore):
    """A standalone table's meter: the event log is the ledger, the meter is its replay.

    Other writers of the same log (``dealerassist progressive confirm`` in another process) are
    picked up by reading the log's new records before every snapshot and commit; a key met twice
    (two writers racing) is applied once.

    ``resume`` is a checkpoint's ``checkpoint_state``: the meter, parameters and keys as of the
    record ``seen``, so only the records after it are read.
    """

    def __init__(
        self, log: EventSink, table: str, params: ProgressiveParams, resume: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(params.name)
        self.log = log
        self.table = table
        self.state = meter.EMPTY
        self.params = params
        self.keys: set[str] = set()
        self.seen = 0
        if resume is not None:
            self.state = meter.MeterState.from_dict(resume["meter"])
            self.params = params_from_dict(resume["params"])
            if resume.get("next") is not None:
                self.params = replace(self.params, next=params_from_dict(resume["next"]))
            self.keys = set(resume["keys"])
            self.seen = int(resume["seen"])
        self._catch_up()
        if not self.keys:
            self.commit(*plans.opening(table, params))

    def checkpoint_state(self, first_round: int) -> dict[str, Any]:
        """The meter as of every record read so far; of the round keys only those of rounds from
        ``first_round`` on (earlier rounds are finished: no plan asks about them again)."""
        with self.lock:
            self._catch_up()
            kept = sorted(k for k in self.keys if (key_round(k) or first_round) >= first_round)
            return {
                "meter": self.state.to_dict(),
                "params": self.params.to_dict(),
                "next": self.params.next.to_dict() if self.params.next else None,
                "keys": kept,
                "seen": self.seen,
            }

    def _catch_up(self) -> None:
        for record in self.log.records(after=self.seen, table=self.table):
            self.seen = max(self.seen, record.seq)
            if getattr(record.event, "progressive", None) == self.name:
                self._apply(record.event)

    def _apply(self, event: Event) -> None:
        key = event_key(event)
        if key in self.keys:
            return
        self.state = apply_event(self.state, event)
        self.params = params_after(self.params, event) or self.params
        self.keys.add(key)

    def snapshot(self) -> tuple[meter.MeterState, ProgressiveParams]:
        with self.lock:
            self._catch_up()
            return self.state, self.params

    def commit(self, keys: Sequence[str], plan: Plan) -> list[Event]:
        with self.lock:
            self._catch_up()
            done = frozenset(k for k in keys if k in self.keys)
            events = plan(self.state, self.params, done)
            if events:
                self.log.append_many(events)
                for event in events:
                    self._apply(event)
            self.committed = (self.state, self.params)
            return events
