"""Checkpoints: the derived state of a station at one record, so a start reads only what follows.

A checkpoint names the record it was taken at (``seq`` and ``hash``) and holds, per component, the
state that component would otherwise rebuild by reading its table's whole history (a progressive's
meter and open round books). It lives in the ``log_checkpoint`` table of the log's own SQLite file,
outside the hash chain, with a SHA-256 digest over its content and the record it names.

What a writer checks at start (``check_at_start``), and therefore all that a start trusts:

* with a checkpoint whose digest holds, whose record still has the hash it names (and still hashes
  to it) and from which every later record links, hashes and counts up to the head: only those
  later records are read, and the checkpoint's state is used;
* otherwise (none, damaged, or not matching the chain, said in one warning line): SQLite's
  ``quick_check`` of the whole file and the whole chain from the first record, and every component
  rebuilds from the whole log. A chain that does not hold is refused.

A checkpoint is written only by a process that checked the chain up to where it started and then
wrote the rest itself, so the records before it were checked at an earlier start. Records before a
checkpoint altered afterwards are not seen by a start: ``dealerassist audit verify`` reads them all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Protocol

from dealerassist.storage.chain import canonical_json, record_hash

journal = logging.getLogger("dealerassist.checkpoint")

CHECKPOINT_FORMAT = 1
DEFAULT_EVERY = 2000  # records between two checkpoints: about the most a start reads after a kill
_ROW = "station"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS log_checkpoint (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
    "hash TEXT NOT NULL, parts TEXT NOT NULL, digest TEXT NOT NULL)"
)


@dataclass(frozen=True)
class Checkpoint:
    """Derived state as of record ``seq`` (whose hash is ``hash``), one part per component."""

    seq: int
    hash: str
    parts: Mapping[str, Any]

    def resume(self, name: str) -> tuple[int, Any] | None:
        """``(seq, part)`` for a component that starts from it, or None when it has no part."""
        part = self.parts.get(name)
        return None if part is None else (self.seq, part)


class Checkpointed(Protocol):
    """A component whose start-up state can be checkpointed: ``checkpoint_state`` returns plain
    JSON-able data, or None when it has nothing to keep (it then rebuilds from the log)."""

    checkpoint_name: str

    def checkpoint_state(self) -> Any | None: ...


def digest(seq: int, record: str, parts_json: str) -> str:
    text = canonical_json({"format": CHECKPOINT_FORMAT, "hash": record, "parts": parts_json, "seq": seq})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_checkpoint(log: Any) -> Checkpoint | str:
    """The stored checkpoint if its digest holds, else what is wrong with it (``""``: none)."""
    with log._lock:
        try:
            row = log._db.execute(
                "SELECT seq, hash, parts, digest FROM log_checkpoint WHERE name = ?", (_ROW,)
            ).fetchone()
        except Exception as exc:  # no table yet, or a damaged one: either way no checkpoint
            return "" if "no such table" in str(exc) else f"unreadable ({exc})"
    if row is None:
        return ""
    seq, record, parts_json, stored = row
    typed = isinstance(seq, int) and isinstance(record, str) and isinstance(parts_json, str)
    if not typed or digest(seq, record, parts_json) != stored:
        return "its digest does not match its content (damaged or edited)"
    try:
        parts = json.loads(parts_json)
    except ValueError:
        return "its content is not JSON"
    if not isinstance(parts, dict):
        return "its content is not an object"
    return Checkpoint(seq, str(record), parts)


def check_at_start(log: Any) -> Checkpoint | None:
    """What a writer checks before it extends ``log`` (see the module docstring); returns the
    checkpoint to start from, or None. Raises ``LogError`` when the chain does not hold."""
    from dealerassist.storage.eventlog import LogError

    found = read_checkpoint(log)
    checkpoint: Checkpoint | None = None
    if isinstance(found, Checkpoint):
        problem = _anchor_problem(log, found)
        if problem:
            journal.warning(
                "%s: checkpoint at record %d ignored (%s); reading the whole log",
                log.path,
                found.seq,
                problem,
            )
        else:
            checkpoint = found
    elif found:
        journal.warning("%s: checkpoint ignored (%s); reading the whole log", log.path, found)
    if checkpoint is None:
        log.quick_check()
        report = log.verify()
    else:
        report = log.verify(checkpoint.seq, checkpoint.hash)
    if not report.ok:
        raise LogError(
            f"{log.path}: the hash chain does not hold ({report.problem}); "
            "run 'dealerassist audit verify' (nothing was changed)"
        )
    if checkpoint is not None:
        journal.info(
            "%s: start from the checkpoint at record %d, %d records after it",
            log.path,
            checkpoint.seq,
            report.checked,
        )
    return checkpoint


def _anchor_problem(log: Any, checkpoint: Checkpoint) -> str:
    """Does the record the checkpoint names still exist, unchanged, with the hash it names?"""
    head = log._head[0]
    if checkpoint.seq > head:
        return f"the log ends at record {head}: the checkpoint is newer than the log"
    if checkpoint.seq == 0:
        return "" if checkpoint.hash == "0" * 64 else "record 0 has no hash but the first"
    with log._lock:
        row = log._db.execute(
            "SELECT seq, recorded_at, prev_hash, body, hash FROM events WHERE seq = ?", (checkpoint.seq,)
        ).fetchone()
    if row is None:
        return f"record {checkpoint.seq} is missing"
    seq, recorded_at, prev_hash, body, stored = row
    if stored != checkpoint.hash:
        return f"record {seq} has another hash than when the checkpoint was taken"
    if record_hash(seq, recorded_at, prev_hash, body) != stored:
        return f"record {seq} does not match its hash"
    return ""


def write_checkpoint(log: Any, checkpoint: Checkpoint) -> None:
    """Store ``checkpoint`` in place of the last one (one small transaction)."""
    with log._lock:
        store_checkpoint(log._db, checkpoint)


def store_checkpoint(db: sqlite3.Connection, checkpoint: Checkpoint) -> None:
    """Write ``checkpoint`` into an open log database (autocommit: one statement, one transaction)."""
    parts_json = canonical_json(dict(checkpoint.parts))
    seal = digest(checkpoint.seq, checkpoint.hash, parts_json)
    row = (_ROW, checkpoint.seq, checkpoint.hash, parts_json, seal)
    db.execute(_SCHEMA)
    db.execute(
        "INSERT INTO log_checkpoint (name, seq, hash, parts, digest) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
        "parts = excluded.parts, digest = excluded.digest",
        row,
    )


def take(log: Any, locks: Iterable[Any], components: Iterable[Checkpointed]) -> Checkpoint:
    """The state of every component at the log's head, taken while ``locks`` are held.

    ``locks`` are those of everything a record passes through on its way from an input to a
    component (the station gives its trackers', then its progressives'), taken in that order: no
    record is between the log and a component while the head and the states are read. A component
    that also follows records no lock holds back (another process's) keeps its own position.
    """
    components = list(components)
    with ExitStack() as held:
        for lock in locks:
            held.enter_context(lock)
        with log._lock:
            seq, record = log._read_head()
        parts = {}
        for component in components:
            state = component.checkpoint_state()
            if state is not None:
                parts[component.checkpoint_name] = state
    return Checkpoint(seq, record, parts)


class CheckpointKeeper:
    """Writes a checkpoint every ``every`` records (from its own thread, so no append waits for it)
    and when asked (a clean stop)."""

    def __init__(
        self,
        log: Any,
        locks: Callable[[], Iterable[Any]],
        components: Callable[[], Iterable[Checkpointed]],
        *,
        every: int = DEFAULT_EVERY,
    ) -> None:
        self.log = log
        self.locks = locks
        self.components = components
        self.every = every
        self.written = 0
        self._last = log.checkpoint.seq if log.checkpoint is not None else 0
        self._due = threading.Event()
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def on_record(self, record: Any) -> None:
        """A record was appended (a subscriber of the pit): wake the writer when one is due."""
        if record.seq - self._last >= self.every:
            self._due.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="checkpoints", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._due.wait(1.0)
            if self._due.is_set() and not self._stop.is_set():
                self._due.clear()
                self.write_now()

    def write_now(self) -> Checkpoint | None:
        """Take and store a checkpoint now; a failure is a warning, never a stopped table."""
        with self._write_lock:
            try:
                checkpoint = take(self.log, self.locks(), self.components())
                write_checkpoint(self.log, checkpoint)
            except Exception as exc:  # the log keeps working without a checkpoint; say why once
                journal.warning("checkpoint not written: %s", exc)
                return None
            self._last = checkpoint.seq
            self.written += 1
            return checkpoint

    def stop(self) -> None:
        self._stop.set()
        self._due.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
