"""Ships a station's log to the floor as records commit; the local log is the queue.

One thread per station: it reads the records after its cursor from the log file (its own read-only
connection, with their MACs), inserts them into ``floor_records`` in order, one batch per
transaction, and moves the cursor to the stream's head as the floor acknowledges it. The floor's
head is the truth: on every (re)connection the cursor is reset to it, so a batch whose
acknowledgement was lost is shipped again and skipped by the floor, never doubled, and a record is
never skipped. While the link is down the table plays on; the lag grows and is shown on the status
page, and the records catch up in order when the link returns. The cursor is also kept in a small
file beside the log, so the lag is known even when the station starts with the floor down.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

from dealerassist.floor.config import FloorConfig
from dealerassist.storage.seal import SEALED_ROWS, open_sealed

log = logging.getLogger("dealerassist.floor")

INSERT = (
    "INSERT INTO floor_records (stream, seq, recorded_at, at, table_id, kind, round_id, body, prev_hash, "
    "hash, key_id, mac) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_LINK_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError)
REFUSED_RETRY_S = 30.0


def parse_recorded_at(recorded_at: str) -> datetime:
    """A record's time (``...Z`` text, as hashed) as an aware datetime."""
    return datetime.fromisoformat(recorded_at.replace("Z", "+00:00"))


class Shipper:
    """``start()``, ``wake()`` after each commit (or let it poll), ``status()``, ``stop()``."""

    def __init__(
        self,
        db_path: str | Path,
        floor: FloorConfig,
        *,
        cursor_path: str | Path | None = None,
        batch: int = 500,
        poll_s: float = 0.5,
        timeout_s: float = 3.0,
        retry_s: float = REFUSED_RETRY_S,
    ) -> None:
        self.db_path = Path(db_path)
        self.floor = floor
        self.cursor_path = Path(cursor_path) if cursor_path else self.db_path.with_name("floor-cursor.json")
        self.batch = batch
        self.poll_s = poll_s
        self.timeout_s = timeout_s
        self.retry_s = retry_s
        self.shipped = self._saved_cursor()
        self.up = False
        self.refused = ""
        self.last_error = ""
        self.last_error_at = ""
        self.latencies: deque[float] = deque(maxlen=100_000)  # seconds from commit to floor ack
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: psycopg.Connection[Any] | None = None
        self._local: Any = None

    # --- life cycle ---------------------------------------------------------------------------

    def start(self) -> Shipper:
        self._thread = threading.Thread(target=self._run, name=f"floor-{self.floor.stream}", daemon=True)
        self._thread.start()
        return self

    def wake(self, *_: object) -> None:
        """A record was committed: ship now instead of at the next poll."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        for conn in (self._conn, self._local):
            if conn is not None:
                conn.close()
        self._conn = self._local = None

    # --- the loop -----------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = 0.2
        while not self._stop.is_set():
            try:
                more = self.ship_once()
                backoff = 0.2
            except _LINK_ERRORS as exc:
                self._link_lost(exc)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            except (psycopg.Error, sqlite3.Error) as exc:  # no floor schema, no grant, unreadable log
                self._paused(f"shipping failed: {_first_line(exc)}")
            if self.refused:
                self._stop.wait(self.retry_s)
                self.refused = ""
            elif not more:
                self._wake.wait(self.poll_s)
                self._wake.clear()
        self._drain()

    def _drain(self, within_s: float = 2.0) -> None:
        """On stop, ship what the last moments committed if the floor is there; else it waits
        in the log for the next start."""
        deadline = time.monotonic() + within_s
        try:
            while self.up and not self.refused and time.monotonic() < deadline and self.ship_once():
                pass
        except _LINK_ERRORS as exc:
            self._link_lost(exc)

    def ship_once(self) -> bool:
        """Ship one batch; True if there may be more to ship at once. Link errors propagate."""
        conn = self._connect()
        rows = self._read(self.shipped)
        if not rows:
            return False
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                INSERT,
                [(self.floor.stream, r[0], r[1], parse_recorded_at(r[1]), *r[2:]) for r in rows],
            )
            head = self._floor_head(conn)
        now = datetime.now(UTC)
        for row in rows:
            if row[0] <= head and row[0] > self.shipped:
                self.latencies.append((now - parse_recorded_at(row[1])).total_seconds())
        self._advance(head)
        if head < rows[-1][0]:
            self._refused(head + 1)
            return False
        return len(rows) == self.batch

    def _connect(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = psycopg.connect(
                self.floor.url,
                connect_timeout=max(1, round(self.timeout_s)),
                options=f"-c statement_timeout={int(self.timeout_s * 1000)}",
                application_name=f"dealerassist shipper {self.floor.stream}",
            )
            self._conn.autocommit = True
            head = self._floor_head(self._conn)
            if not self.up:
                log.info(
                    "floor link up (%s): floor has %s up to %d", self.floor.display, self.floor.stream, head
                )
            self.shipped, self.up = head, True
        return self._conn

    def _floor_head(self, conn: psycopg.Connection[Any]) -> int:
        row = conn.execute(
            "SELECT head_seq FROM floor_streams WHERE stream = %s", (self.floor.stream,)
        ).fetchone()
        return int(row[0]) if row else 0

    def _read(self, after: int) -> list[tuple]:
        if self._local is None or self._macs_appeared():
            if self._local is not None:
                self._local.close()
            self._local = open_sealed(self.db_path)
        return self._local.execute(SEALED_ROWS, (after, self.batch)).fetchall()

    def _macs_appeared(self) -> bool:
        """A log that had no MAC table when opened has one now (its first keyed append)."""
        temp = self._local.execute("SELECT 1 FROM sqlite_temp_master WHERE name = 'event_macs'").fetchone()
        main = self._local.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_macs'").fetchone()
        return bool(temp and main)

    def _advance(self, head: int) -> None:
        if head == self.shipped:
            return
        self.shipped = head
        tmp = self.cursor_path.with_name(self.cursor_path.name + ".tmp")
        try:
            tmp.write_text(json.dumps({"stream": self.floor.stream, "shipped": head}), encoding="utf-8")
            os.replace(tmp, self.cursor_path)
        except OSError as exc:  # only a hint for the lag while the floor is down
            log.warning("cannot keep the floor cursor in %s: %s", self.cursor_path, exc)

    def _saved_cursor(self) -> int:
        try:
            data = json.loads(self.cursor_path.read_text(encoding="utf-8"))
            return int(data["shipped"]) if data.get("stream") == self.floor.stream else 0
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def _refused(self, seq: int) -> None:
        """The floor raised an alarm on record ``seq`` (gap, fork, hash or MAC): it is not the
        station's to override; it retries now and then, in case the floor was given a key late."""
        self._paused(
            f"the floor refused record {seq} (a floor alarm was raised: 'dealerassist floor alarms')"
        )

    def _paused(self, why: str) -> None:
        self.refused = why
        self._error(why)
        log.error("%s; shipping of %s paused, retried in %.0f s", why, self.floor.stream, self.retry_s)
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _link_lost(self, exc: BaseException) -> None:
        text = _first_line(exc)
        if self.up:
            log.warning("floor link DOWN (%s): %s; records queue in the local log", self.floor.display, text)
        self.up = False
        self._error(f"floor link down: {text}")
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _error(self, text: str) -> None:
        self.last_error = text
        self.last_error_at = datetime.now(UTC).isoformat(timespec="seconds")

    # --- what the status page shows -----------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The link, and the lag: records committed here but not yet on the floor, and the age of
        the oldest of them."""
        head, oldest = self._local_head()
        lag = max(0, head - self.shipped)
        lag_s = 0.0
        if lag and oldest:
            lag_s = round((datetime.now(UTC) - parse_recorded_at(oldest)).total_seconds(), 1)
        return {
            "ok": self.up and not self.refused,
            "url": self.floor.display,
            "stream": self.floor.stream,
            "shipped_seq": self.shipped,
            "head_seq": head,
            "lag_records": lag,
            "lag_s": lag_s,
            "last_error": self.last_error,
            "last_error_at": self.last_error_at,
        }

    def _local_head(self) -> tuple[int, str]:
        uri = self.db_path.resolve().as_uri() + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True)
            try:
                head = db.execute("SELECT max(seq) FROM events").fetchone()[0] or 0
                row = db.execute(
                    "SELECT recorded_at FROM events WHERE seq = ?", (self.shipped + 1,)
                ).fetchone()
            finally:
                db.close()
        except sqlite3.Error:
            return self.shipped, ""
        return int(head), row[0] if row else ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def wait_until_shipped(shipper: Shipper, timeout: float = 30.0) -> bool:
    """Block until the floor has everything the log holds now (tests, shutdown)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = shipper.status()
        if status["lag_records"] == 0 and status["ok"]:
            return True
        shipper.wake()
        time.sleep(0.05)
    return False
