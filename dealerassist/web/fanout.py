"""Live log records to every connected browser without ever blocking the tracker.

The tracker calls ``publish`` from its own thread for each record it logs. Each browser has its own
bounded queue; ``publish`` only ever does ``put_nowait``, so a browser that stops reading cannot
slow the table down: when its queue is full it is dropped and its stream ends with a clear
``overflow`` message, after which the browser reconnects with ``Last-Event-ID`` and catches up from
the log. A connecting browser first replays the log after its last seen ``seq`` and then switches
to live records, skipping any it already sent, so nothing is missed and nothing is doubled.

Records appended to the log by another writer (a progressive controller, the dashboard's own user
events) reach browsers too: a gap in ``seq`` is filled from the log before the newer record.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

DEFAULT_QUEUE_SIZE = 512


class RecordLike(Protocol):
    seq: int
    recorded_at: str
    event: Any
    hash: str


class LogReader(Protocol):
    def records(self, after: int = 0, table: str | None = None) -> Iterator[Any]: ...

    def last_seq(self) -> int: ...


class Dropped(Exception):
    """The client fell too far behind and was cut off; it must reconnect with Last-Event-ID."""


RecordFilter = Callable[[Any], bool]


class Subscription:
    """One browser's view of the stream: replay first, then live records in ``seq`` order."""

    def __init__(self, fanout: Fanout, after: int, accept: RecordFilter, size: int) -> None:
        self._fanout = fanout
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=size)
        self._accept = accept
        self._backlog: list[Any] = []
        self.last_sent = after
        self.dropped = False
        self.closed = False
        self._after = after

    def replay(self, log: LogReader) -> None:
        """Load the log after the client's last seen ``seq`` (called once the queue is attached)."""
        self._backlog = [r for r in log.records(after=self._after) if self._accept(r)]
        self._backlog.reverse()

    def offer(self, record: Any) -> bool:
        """Called by the fan-out; False means the queue was full and this client must go."""
        if not self._accept(record):
            return True
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            self.dropped = True
            return False
        return True

    def next(self, timeout: float) -> Any | None:
        """The next unsent record, or ``None`` after ``timeout`` seconds of quiet (for heartbeats)."""
        while self._backlog:
            record = self._backlog.pop()
            if record.seq > self.last_sent:
                self.last_sent = record.seq
                return record
        while True:
            if self.dropped and self._queue.empty():
                raise Dropped(f"fell more than {self._queue.maxsize} records behind")
            try:
                record = self._queue.get(timeout=timeout)
            except queue.Empty:
                if self.dropped:
                    continue
                return None
            if record.seq > self.last_sent:
                self.last_sent = record.seq
                return record

    def close(self) -> None:
        self.closed = True
        self._fanout.disconnect(self)


class Fanout:
    """Thread-safe one-to-many delivery of log records."""

    def __init__(self, log: LogReader, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        self._log = log
        self._size = queue_size
        self._clients: set[Subscription] = set()
        self._lock = threading.Lock()
        self._publish_lock = threading.Lock()
        self._last_seq = log.last_seq()
        self.dropped_total = 0

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    def connect(self, after: int, accept: RecordFilter | None = None) -> Subscription:
        """A subscription replaying records after ``after`` that pass ``accept``, then live ones."""
        sub = Subscription(self, after, accept or (lambda _r: True), self._size)
        with self._lock:
            self._clients.add(sub)
        sub.replay(self._log)
        return sub

    def disconnect(self, sub: Subscription) -> None:
        with self._lock:
            self._clients.discard(sub)

    def catch_up(self, *_args: Any) -> None:
        """Publish whatever the log holds beyond the last published record (written by another
        writer, such as the progressive controller, that does not call ``publish``)."""
        last = self._log.last_seq()
        if last > self._last_seq:
            for record in self._log.records(after=self._last_seq):
                self.publish(record)

    def publish(self, record: Any) -> None:
        """Deliver ``record`` (and any records the log holds before it that were not published).

        Publishers are serialised so every queue receives records in ``seq`` order.
        """
        with self._publish_lock:
            if record.seq <= self._last_seq:
                return
            batch = []
            if record.seq > self._last_seq + 1:
                batch = [r for r in self._log.records(after=self._last_seq) if r.seq < record.seq]
            batch.append(record)
            self._last_seq = record.seq
            with self._lock:
                clients = list(self._clients)
            for rec in batch:
                for sub in clients:
                    if not sub.dropped and not sub.offer(rec):
                        self.disconnect(sub)
                        self.dropped_total += 1
