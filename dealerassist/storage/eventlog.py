"""Append-only SQLite event log with a SHA-256 hash chain (the system's record of every table).

Durability: WAL journal with ``synchronous=FULL``, so a record is on disk when ``append`` returns;
everything one tracker input causes is written in one transaction, so a crash keeps all or none of
it. The ``log_head`` row (last sequence number and hash) is updated in the same transaction, which
is what makes a truncated tail detectable. What a writer checks before it extends a log is
``dealerassist.storage.checkpoint.check_at_start``: the chain from its last checkpoint (or from the
first record) to the head. It never resets or repairs anything by itself.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.events import EVENT_FORMAT_VERSION, Event, EventError, event_from_dict
from dealerassist.storage.chain import GENESIS_HASH, canonical_json, record_hash
from dealerassist.storage.keys import Keyring, keys_dir
from dealerassist.storage.media import storage_problem
from dealerassist.storage.seal import Sealer

if TYPE_CHECKING:
    from dealerassist.storage.checkpoint import Checkpoint

SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_DB = "var/events.db"
_PAGE = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    recorded_at TEXT NOT NULL,
    table_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    round_id INTEGER,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_table ON events (table_id, seq);
CREATE INDEX IF NOT EXISTS events_time ON events (recorded_at);
CREATE INDEX IF NOT EXISTS events_kind ON events (table_id, kind, seq);
CREATE TABLE IF NOT EXISTS log_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_INSERT = (
    "INSERT INTO events (seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_SET_META = (
    "INSERT INTO log_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
)
_COLUMNS = "seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash"


class LogError(DealerAssistError):
    """The log file cannot be used as it is: damaged, not a log, or its chain does not hold."""


@dataclass(frozen=True)
class LogRecord:
    """One stored event with its place in the chain."""

    seq: int
    recorded_at: str
    event: Event
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, object]:
        """The export/replay form of a record (``docs/events.md``: "Exported records")."""
        return {
            "format": EVENT_FORMAT_VERSION,
            "seq": self.seq,
            "recorded_at": self.recorded_at,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
            "event": self.event.to_dict(),
        }


@dataclass(frozen=True)
class ChainReport:
    """Result of checking the whole chain: ``first_bad`` is the first record that fails, if any."""

    ok: bool
    checked: int
    first_bad: int | None = None
    problem: str = ""


def default_db() -> str:
    """The log file used when a command is given no ``--db``: ``$DEALERASSIST_DB`` or ``var/events.db``."""
    return os.environ.get("DEALERASSIST_DB", DEFAULT_DB)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_instant(text: str, option: str) -> str:
    """An ISO-8601 date or time to the log's UTC form (``2026-11-29T13:00:00.000000Z``)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise EventError(f"{option}: not an ISO-8601 date or time: {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class EventLog:
    """The durable, hash-chained event log of one or more tables (one SQLite file)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, keys: str | Path | None = None) -> None:
        """``keys``: the directory of table key files (default ``$DEALERASSIST_KEYS`` or
        /etc/dealerassist/keys); a writer MACs the records of every table it holds a key of."""
        self.path = str(path)
        self.readonly = readonly
        # (since when, what) while appends fail for a reason of the disk, not of the log; ``outage``
        # keeps the first of them until ``end_outage`` (someone has reported it), even once writable.
        self.write_problem: tuple[str, str] | None = None
        self.outage: tuple[str, str] | None = None
        self._lock = threading.RLock()
        memory = self.path == ":memory:"
        self._sealer = None if readonly or memory else Sealer(Keyring(keys_dir(keys and str(keys))))
        if not memory:
            _check_file(Path(self.path), readonly)
        try:
            if readonly:
                self._db = connect_readonly(Path(self.path))
            else:
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._open(memory)
        except sqlite3.DatabaseError as exc:
            problem = None if readonly or memory else storage_problem(exc, Path(self.path))
            if problem:
                raise StorageUnavailable(
                    f"{self.path}: cannot write the event log: {problem}; free space or choose a writable "
                    "--data-dir (the file was left untouched)"
                ) from None
            raise LogError(
                f"{self.path}: not a readable event log ({exc}); the file was left untouched"
            ) from None

    def _open(self, memory: bool) -> None:
        db = self._db
        if not self.readonly:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if not memory and mode.lower() != "wal":
                raise LogError(f"{self.path}: cannot switch the log to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous=FULL")
        if self.readonly:
            self.quick_check()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not {"events", "log_meta"} <= tables:
            raise LogError(
                f"{self.path}: this SQLite file is not a dealerassist event log (tables: {sorted(tables)})"
            )
        if not tables:
            if self.readonly:
                raise LogError(f"{self.path}: empty database, no event log in it")
            self._create()
        meta = dict(db.execute("SELECT key, value FROM log_meta"))
        fmt = meta.get("format", "?")
        if not fmt.isdigit() or int(fmt) > EVENT_FORMAT_VERSION:
            raise LogError(
                f"{self.path}: log format {fmt!r} is newer than this program ({EVENT_FORMAT_VERSION})"
            )
        self._head = self._stored_head(meta)
        self.checkpoint: Checkpoint | None = None  # the one a writer's start checked and trusts
        if not self.readonly:
            from dealerassist.storage.checkpoint import check_at_start

            self._check_tail(meta)
            db.execute("CREATE INDEX IF NOT EXISTS events_kind ON events (table_id, kind, seq)")
            self.checkpoint = check_at_start(self)

    def quick_check(self) -> None:
        """SQLite's own check of every page (reads the whole file: a reader's, or a writer's start
        without a checkpoint)."""
        check = self._db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise LogError(
                f"{self.path}: the database file is damaged ({check}); the file was left untouched"
            )

    def _create(self) -> None:
        """Schema and head in one transaction: a crash while a new log is made leaves either no
        log or a whole one, never tables without their head (which a writer must refuse)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if db.execute("SELECT count(*) FROM log_meta").fetchone()[0] == 0:
                db.execute(_SET_META, ("format", str(EVENT_FORMAT_VERSION)))
                db.execute(_SET_META, ("head_seq", "0"))
                db.execute(_SET_META, ("head_hash", GENESIS_HASH))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _stored_head(self, meta: dict[str, str]) -> tuple[int, str]:
        seq, digest = meta.get("head_seq"), meta.get("head_hash")
        if seq is None or digest is None or not seq.isdigit():
            if self.readonly:
                return 0, GENESIS_HASH
            raise LogError(f"{self.path}: the log head record is missing; run 'dealerassist audit verify'")
        return int(seq), digest

    def _check_tail(self, meta: dict[str, str]) -> None:
        """A writer must not extend a chain whose stored tail disagrees with its head."""
        row = self._db.execute(f"SELECT {_COLUMNS} FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        head_seq, head_hash = self._head
        last_seq, last_hash = (row[0], row[7]) if row else (0, GENESIS_HASH)
        if (last_seq, last_hash) != (head_seq, head_hash):
            raise LogError(
                f"{self.path}: the log ends at record {last_seq} but its head says {head_seq}: records were "
                "removed or altered; run 'dealerassist audit verify' (nothing was changed)"
            )
        if row and record_hash(row[0], row[1], row[6], row[5]) != row[7]:
            raise LogError(
                f"{self.path}: record {last_seq} does not match its hash; run 'dealerassist audit verify'"
            )

    # --- writing ----------------------------------------------------------------------------

    def append(self, event: Event) -> LogRecord:
        return self.append_many([event])[0]

    def append_many(self, events: Sequence[Event]) -> list[LogRecord]:
        """Store ``events`` in one transaction; durable (fsynced) when this returns."""
        if self.readonly:
            raise LogError(f"{self.path}: opened read-only")
        if not events:
            return []
        bodies = [_encode(event) for event in events]
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                seq, prev = self._read_head()
                recorded_at = utc_now()
                records = []
                rows = []
                for event, body in zip(events, bodies, strict=True):
                    seq += 1
                    digest = record_hash(seq, recorded_at, prev, body)
                    round_id = getattr(event, "round_id", None)
                    rows.append((seq, recorded_at, event.table, event.kind, round_id, body, prev, digest))
                    records.append(LogRecord(seq, recorded_at, event, prev, digest))
                    prev = digest
                db.executemany(_INSERT, rows)
                if self._sealer is not None:
                    self._sealer.seal(db, rows)
                db.execute(_SET_META, ("head_seq", str(seq)))
                db.execute(_SET_META, ("head_hash", prev))
                db.execute("COMMIT")
            except BaseException as exc:
                if db.in_transaction:
                    try:
                        db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass  # SQLite rolled back itself (a full disk can end the transaction)
                problem = storage_problem(exc, Path(self.path))
                if problem is None:
                    raise
                self.write_problem = self.write_problem or (utc_now(), problem)
                self.outage = self.outage or self.write_problem
                raise StorageUnavailable(
                    f"{self.path}: not recorded: {problem}; nothing was written, send it again when the "
                    "log can be written"
                ) from None
            self._head = (seq, prev)
            self.write_problem = None
            return records

    def end_outage(self, outage: tuple[str, str]) -> None:
        """``outage`` has been reported: forget it, unless the disk failed again meanwhile."""
        with self._lock:
            if self.outage == outage and self.write_problem is None:
                self.outage = None

    def _read_head(self) -> tuple[int, str]:
        """The head inside the write transaction, so two processes never fork the chain."""
        rows = dict(
            self._db.execute("SELECT key, value FROM log_meta WHERE key IN ('head_seq', 'head_hash')")
        )
        return int(rows["head_seq"]), rows["head_hash"]

    # --- reading ----------------------------------------------------------------------------

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0] or 0)

    def tables(self) -> list[str]:
        """Every table id the log holds records of (to name the choices when one is mistyped)."""
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id").fetchall()
        return [str(row[0]) for row in rows]

    def check_table(self, table: str | None) -> None:
        """Refuse a table id the log has no record of, instead of answering with nothing."""
        if table is not None and table not in (known := self.tables()):
            listing = ", ".join(known) or "none yet"
            raise LogError(f"--table {table}: no records of that table in this log (tables: {listing})")

    def records(self, after: int = 0, table: str | None = None) -> Iterator[LogRecord]:
        """Records with ``seq > after`` in order, optionally of one table, decoded to events."""
        for row in self.rows(after, table):
            yield decode_row(row)

    def page(self, after: int = 0, table: str | None = None, limit: int = _PAGE) -> list[LogRecord]:
        """At most ``limit`` records after ``after`` (optionally of one table): one bounded read, for
        readers that hold their place between reads (a live stream catching up)."""
        where, args = (
            ("seq > ? AND table_id = ?", (after, table)) if table is not None else ("seq > ?", (after,))
        )
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE {where} ORDER BY seq LIMIT ?", (*args, int(limit))
            ).fetchall()
        return [decode_row(row) for row in rows]

    def rows(
        self, after: int = 0, table: str | None = None, since: str | None = None, until: str | None = None
    ) -> Iterator[tuple]:
        """Raw rows (seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash), paged."""
        where, args = ["seq > ?"], []
        if table is not None:
            where.append("table_id = ?")
            args.append(table)
        if since is not None:
            where.append("recorded_at >= ?")
            args.append(since)
        if until is not None:
            where.append("recorded_at < ?")
            args.append(until)
        sql = f"SELECT {_COLUMNS} FROM events WHERE {' AND '.join(where)} ORDER BY seq LIMIT {_PAGE}"
        cursor = after
        while True:
            with self._lock:
                page = self._db.execute(sql, (cursor, *args)).fetchall()
            yield from page
            if len(page) < _PAGE:
                return
            cursor = page[-1][0]

    def latest(self, table: str, kind: str) -> LogRecord | None:
        """The last record of ``kind`` for ``table`` (a checkpoint, the rules in force), or None."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE table_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
                (table, kind),
            ).fetchone()
        return decode_row(row) if row else None

    def stored_hash(self, seq: int) -> str | None:
        """The stored hash of record ``seq`` (None when there is no such record)."""
        with self._lock:
            row = self._db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else str(row[0])

    def verify(self, after: int = 0, after_hash: str = GENESIS_HASH) -> ChainReport:
        """Check every record's hash, link and place, then the head; name the first bad record.

        ``after``/``after_hash`` start the check behind a record already trusted (a checkpoint's):
        the records after it must link to that hash. ``checked`` counts the records checked.
        The head is read first: records the tables append while the chain is being read (a running
        pit) lie beyond it and are left for the next check, instead of looking like a truncation.
        """
        with self._lock:
            meta = dict(self._db.execute("SELECT key, value FROM log_meta"))
        expected_seq, prev, checked = after + 1, after_hash, 0
        pending_link: tuple[int, str] | None = None
        for seq, recorded_at, table_id, kind, round_id, body, prev_hash, digest in self.rows(after):
            if meta.get("head_seq") is not None and seq > int(meta["head_seq"]) and self._appended(seq):
                break
            if seq != expected_seq:
                return ChainReport(
                    False, checked, expected_seq, f"record {expected_seq} is missing (next is {seq})"
                )
            own_ok = record_hash(seq, recorded_at, prev_hash, body) == digest
            if prev_hash != prev:
                bad = pending_link[0] if pending_link and own_ok else seq
                what = "was changed after it was written" if bad != seq else "does not link to the one before"
                return ChainReport(
                    False, checked, bad, f"record {bad} {what} (chain broken between {seq - 1} and {seq})"
                )
            if not own_ok:
                return ChainReport(
                    False, checked, seq, f"record {seq} does not match its hash (content was changed)"
                )
            problem = _body_problem(body, table_id, kind, round_id)
            if problem:
                return ChainReport(False, checked, seq, f"record {seq}: {problem}")
            checked += 1
            expected_seq, prev, pending_link = seq + 1, digest, (seq, digest)
        head_seq, head_hash = meta.get("head_seq"), meta.get("head_hash")
        if head_seq is None or head_hash is None:
            return ChainReport(False, checked, None, "the log head is missing (log_meta was altered)")
        last = after + checked
        if int(head_seq) != last:
            return ChainReport(
                False,
                checked,
                last + 1,
                f"the log was truncated: it ends at {last}, its head says {head_seq}",
            )
        if head_hash != prev:
            bad = last or None
            return ChainReport(
                False, checked, bad, f"record {last} was changed after it was written (head hash differs)"
            )
        return ChainReport(True, checked)

    def _appended(self, seq: int) -> bool:
        """Is record ``seq`` covered by the head now (written after ``verify`` read the head)?"""
        with self._lock:
            row = self._db.execute("SELECT value FROM log_meta WHERE key = 'head_seq'").fetchone()
        return row is not None and int(row[0]) >= seq

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def verify_exported(lines: Iterable[str]) -> ChainReport:
    """Check an exported JSONL segment on its own: every record's hash, and each link to the one before.

    An export starts anywhere in the chain, so its first ``prev_hash`` is taken as given; comparing
    the last ``hash`` with ``audit verify`` on the database anchors the segment.
    """
    prev: tuple[int, str] | None = None
    checked = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            seq, recorded_at, prev_hash, digest = (
                line["seq"],
                line["recorded_at"],
                line["prev_hash"],
                line["hash"],
            )
            body = canonical_json(line["event"])
        except (ValueError, KeyError, TypeError) as exc:
            return ChainReport(False, checked, None, f"line {number} is not an exported record ({exc})")
        if prev is not None and (seq, prev_hash) != (prev[0] + 1, prev[1]):
            return ChainReport(
                False, checked, seq, f"record {seq} does not follow record {prev[0]} (line {number})"
            )
        if record_hash(seq, recorded_at, prev_hash, body) != digest:
            return ChainReport(False, checked, seq, f"record {seq} does not match its hash (line {number})")
        prev, checked = (seq, digest), checked + 1
    return ChainReport(True, checked)


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that never writes, also on read-only media.

    ``mode=ro`` first: it sees what a running writer commits. A log in WAL mode cannot be opened so
    where its folder is read-only (SQLite must create the ``-shm`` file), so there the file is
    opened ``immutable``, which reads the database file alone: right when no ``-wal`` file holds
    records that are not in it yet, and refused when one does.
    """
    uri = path.resolve().as_uri()
    db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        db.close()
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise LogError(
            f"{path}: cannot be read here: its folder is read-only and {wal.name} holds records not yet "
            "in the database; copy both files to a writable folder, or read a 'dealerassist backup' copy"
        )
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False)


def _check_file(path: Path, readonly: bool) -> None:
    """Refuse a file that is not an SQLite database before SQLite gets a chance to touch it."""
    if not path.exists():
        if readonly:
            raise LogError(f"{path}: no such event log (name the file with --db or $DEALERASSIST_DB)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LogError(
                f"{path}: cannot create the folder for a new event log ({exc.strerror}); "
                "choose a writable place with --db or $DEALERASSIST_DB"
            ) from None
        return
    if path.is_dir():
        raise LogError(f"{path}: is a directory, not an event log")
    size = path.stat().st_size
    if size == 0:
        return
    with path.open("rb") as fh:
        magic = fh.read(len(SQLITE_MAGIC))
    if magic != SQLITE_MAGIC:
        raise LogError(
            f"{path}: not an SQLite database (damaged or foreign file); the file was left untouched"
        )
    if size < 512:
        raise LogError(f"{path}: the database file is truncated ({size} bytes); the file was left untouched")


def _encode(event: Event) -> str:
    if not isinstance(event, Event):
        raise EventError(f"only events can be logged, got {type(event).__name__}")
    try:
        return canonical_json(event.to_dict())
    except (TypeError, ValueError) as exc:
        raise EventError(f"{event.kind}: cannot be stored as JSON ({exc})") from None


def decode_row(row: tuple) -> LogRecord:
    """A raw row of ``rows()`` (or of the floor store, which keeps its form) as a decoded record."""
    seq, recorded_at, _table, _kind, _round, body, prev_hash, digest = row
    try:
        event = event_from_dict(json.loads(body))
    except (EventError, ValueError) as exc:
        raise LogError(f"record {seq} cannot be decoded: {exc}") from None
    return LogRecord(seq, recorded_at, event, prev_hash, digest)


def export_line(row: tuple) -> str:
    """A raw row of ``rows()`` in the export form of ``LogRecord.to_dict``, as one JSON line, without
    decoding its event: the stored body is already the canonical JSON its hash covers. Bulk exports
    of whole records use it, as decoding every event would hold the dashboard's interpreter."""
    seq, recorded_at, _table, _kind, _round, body, prev_hash, digest = row
    return (
        f'{{"format":{EVENT_FORMAT_VERSION},"seq":{int(seq)},"recorded_at":{json.dumps(recorded_at)},'
        f'"prev_hash":{json.dumps(prev_hash)},"hash":{json.dumps(digest)},"event":{body}}}\n'
    )


def _body_problem(body: str, table_id: str, kind: str, round_id: int | None) -> str:
    """The indexed columns must say what the hashed body says (they are used to filter exports)."""
    try:
        data = json.loads(body)
    except ValueError:
        return "body is not JSON"
    if not isinstance(data, dict) or canonical_json(data) != body:
        return "body is not canonical JSON"
    if data.get("table") != table_id or data.get("kind") != kind or data.get("round_id") != round_id:
        return "table/kind/round columns disagree with the hashed body"
    return ""
