"""Live log records to every connected browser without ever blocking the tracker.

The tracker calls ``publish`` from its own thread for each record it logs. A browser's stream first
catches up from the log, one small page at a time and only as fast as it sends, so a stream's memory
is one page whatever the log holds. Once caught up it takes live records from its own bounded
queue; ``publish`` only ever does ``put_nowait``, so a browser that stops reading cannot slow the
table down: when its queue is full it is dropped and its stream ends with a clear ``overflow``
message, after which the browser reconnects with ``Last-Event-ID`` and catches up from the log.
Nothing is missed and nothing is doubled: the queue is attached before the last page is read, and
a record already sent (by ``seq``) is skipped.

Records appended to the log by another writer (a progressive controller, the dashboard's own user
events) reach browsers too: a gap in ``seq`` is filled from the log before the newer record.

Streams are counted per owner (a sign-in session) and in all: past either cap ``connect`` refuses,
since each open stream holds a server thread. ``end_owners`` closes the streams of revoked sessions.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Collection, Iterator
from typing import Any, Protocol

DEFAULT_QUEUE_SIZE = 512
DEFAULT_PAGE = 64
DEFAULT_PER_OWNER = 8
DEFAULT_TOTAL = 200


class RecordLike(Protocol):
    seq: int
    recorded_at: str
    event: Any
    hash: str


class LogReader(Protocol):
    def records(self, after: int = 0, table: str | None = None) -> Iterator[Any]: ...

    def page(self, after: int = 0, table: str | None = None, limit: int = ...) -> list[Any]: ...

    def last_seq(self) -> int: ...


class Dropped(Exception):
    """The client fell too far behind and was cut off; it must reconnect with Last-Event-ID."""


class Ended(Exception):
    """The stream's session was signed out or revoked: the stream ends for good."""


class TooManyStreams(Exception):
    """A cap on open streams (per session or in all) is reached."""


RecordFilter = Callable[[Any], bool]
_WAKE = object()


class Subscription:
    """One browser's view of the stream: the log after ``after`` page by page, then live records."""

    def __init__(
        self, fanout: Fanout, after: int, accept: RecordFilter, table: str | None, owner: str
    ) -> None:
        self._fanout = fanout
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=fanout.queue_size)
        self._accept = accept
        self._table = table
        self._page: list[Any] = []
        self._read_to = after  # the log has been read up to here (sent or filtered out)
        self._catching_up = True
        self.live = False  # set before the last page is read: from then on records are queued
        self.owner = owner
        self.last_sent = after
        self.dropped = False
        self.ended = False
        self.closed = False

    def offer(self, record: Any) -> bool:
        """Called by the fan-out; False means the queue was full and this client must go."""
        if not self.live or not self._accept(record):
            return True
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            self.dropped = True
            return False
        return True

    def end(self) -> None:
        self.ended = True
        try:
            self._queue.put_nowait(_WAKE)
        except queue.Full:
            pass

    def next(self, timeout: float) -> Any | None:
        """The next unsent record, or ``None`` after ``timeout`` seconds of quiet (for heartbeats)."""
        while self._catching_up:
            if self.ended:
                raise Ended("signed out")
            record = self._from_log()
            if record is not None:
                return record
        while True:
            if self.ended:
                raise Ended("signed out")
            if self.dropped and self._queue.empty():
                raise Dropped(f"fell more than {self._queue.maxsize} records behind")
            try:
                record = self._queue.get(timeout=timeout)
            except queue.Empty:
                if self.dropped:
                    continue
                return None
            if record is not _WAKE and record.seq > self.last_sent:
                self.last_sent = record.seq
                return record

    def _from_log(self) -> Any | None:
        """The next accepted record of the log, or None once the log is read to its end."""
        while True:
            if not self._page:
                published = self._fanout.published_seq
                if self._read_to >= published:
                    # Attach to the live feed first, then read what the log holds: whatever is
                    # published from now on is queued, and anything older is still in the log.
                    self.live = True
                page = self._fanout.read_page(self._read_to, self._table)
                if len(page) < self._fanout.page_size:
                    # A short page read the log to its end: every published record (of this
                    # table) up to ``published`` was in it or before it.
                    self._read_to = max(self._read_to, published)
                if not page:
                    if self.live:
                        self._catching_up = False
                        return None
                    continue
                self._page = page[::-1]
            record = self._page.pop()
            self._read_to = max(self._read_to, record.seq)
            if record.seq > self.last_sent and self._accept(record):
                self.last_sent = record.seq
                return record

    def close(self) -> None:
        self.closed = True
        self._fanout.disconnect(self)


class Fanout:
    """Thread-safe one-to-many delivery of log records."""

    def __init__(
        self,
        log: LogReader,
        *,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        page_size: int = DEFAULT_PAGE,
        per_owner: int = DEFAULT_PER_OWNER,
        total: int = DEFAULT_TOTAL,
    ) -> None:
        self._log = log
        self.queue_size = queue_size
        self.page_size = page_size
        self.per_owner = per_owner
        self.total = total
        self._clients: set[Subscription] = set()
        self._lock = threading.Lock()
        self._publish_lock = threading.Lock()
        self._last_seq = log.last_seq()
        self.dropped_total = 0

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    @property
    def published_seq(self) -> int:
        """The last seq handed to the live queues."""
        return self._last_seq

    def read_page(self, after: int, table: str | None) -> list[Any]:
        return list(self._log.page(after=after, table=table, limit=self.page_size))

    def connect(
        self,
        after: int,
        accept: RecordFilter | None = None,
        *,
        table: str | None = None,
        owner: str = "",
        owner_limit: int | None = None,
    ) -> Subscription:
        """A subscription to records after ``after`` that pass ``accept`` (``table``: only that
        table's records are read from the log), or ``TooManyStreams``. ``owner`` may hold
        ``owner_limit`` streams (default ``per_owner``)."""
        sub = Subscription(self, after, accept or (lambda _r: True), table, owner)
        limit = self.per_owner if owner_limit is None else owner_limit
        with self._lock:
            if len(self._clients) >= self.total:
                raise TooManyStreams(f"the dashboard already serves {self.total} live streams")
            if owner and sum(1 for c in self._clients if c.owner == owner) >= limit:
                raise TooManyStreams(f"{limit} live streams are already open for this session")
            self._clients.add(sub)
        return sub

    def disconnect(self, sub: Subscription) -> None:
        with self._lock:
            self._clients.discard(sub)

    def end_owners(self, owners: Collection[str]) -> int:
        """End every stream of these owners (revoked sessions); returns how many were ended."""
        with self._lock:
            ending = [c for c in self._clients if c.owner and c.owner in owners]
        for sub in ending:
            sub.end()
        return len(ending)

    def end_all(self) -> None:
        """End every stream (the server is stopping)."""
        with self._lock:
            ending = list(self._clients)
        for sub in ending:
            sub.end()

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
            with self._lock:
                clients = list(self._clients)
            for rec in batch:
                for sub in clients:
                    if not sub.dropped and not sub.offer(rec):
                        self.disconnect(sub)
                        self.dropped_total += 1
            self._last_seq = record.seq
