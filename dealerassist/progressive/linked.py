"""A progressive shared by several tables through PostgreSQL.

One row per progressive in ``progressive_meter`` holds the exact meter and the parameters; every
change goes through ``commit``: lock the row (``SELECT ... FOR UPDATE``), run the plan, insert its
events into ``progressive_ledger`` (unique ``(name, key)``: a retried contribution is never counted
twice) and write the new meter, all in one transaction, then ``NOTIFY`` the other tables. The
ledger replays to the meter exactly (``reconstruct``), which the reconciliation report checks.

Any connection failure raises ``LinkDown``; the next call reconnects.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from dealerassist.events import Event, event_from_dict
from dealerassist.progressive import meter, plans
from dealerassist.progressive.events import apply_event, params_after
from dealerassist.progressive.params import ProgressiveParams, params_from_dict
from dealerassist.progressive.plans import Plan
from dealerassist.progressive.store import LinkDown, MeterStore, event_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS progressive_meter (
    name text PRIMARY KEY,
    state jsonb NOT NULL,
    params jsonb NOT NULL,
    next_params jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS progressive_ledger (
    seq bigserial PRIMARY KEY,
    name text NOT NULL REFERENCES progressive_meter(name),
    key text NOT NULL,
    kind text NOT NULL,
    table_id text NOT NULL,
    event jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, key)
);
"""
CHANNEL = "progressive_meter"
# The meter row, locked, with the already stored events of the keys a plan asks about.
_LOCK_ROW = (
    "SELECT m.state, m.params, m.next_params, "
    "(SELECT coalesce(json_agg(l.event ORDER BY l.seq), '[]'::json) FROM progressive_ledger l "
    "WHERE l.name = m.name AND l.key = ANY(%s)) "
    "FROM progressive_meter m WHERE m.name = %s FOR UPDATE OF m"
)
_LINK_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError)


class LinkedStore(MeterStore):
    """The shared meter named ``params.name`` at ``url``; created with ``params`` if it is new."""

    shared = True

    def __init__(self, url: str, table: str, params: ProgressiveParams, *, timeout_s: float = 2.0) -> None:
        super().__init__(params.name)
        self.url = url
        self.table = table
        self.timeout_s = timeout_s
        self._conn: psycopg.Connection[Any] | None = None
        self._params = params
        self._ready = False
        self._listener: psycopg.Connection[Any] | None = None

    def _connect(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            try:
                self._conn = psycopg.connect(
                    self.url,
                    autocommit=True,
                    connect_timeout=max(1, round(self.timeout_s)),
                    options=f"-c statement_timeout={int(self.timeout_s * 1000)}",
                )
            except _LINK_ERRORS as exc:
                raise self._unreachable(exc) from None
        if not self._ready:
            self._create(self._conn, self._params)
            self._ready = True
        return self._conn

    def _create(self, conn: psycopg.Connection[Any], params: ProgressiveParams) -> None:
        """Make the tables and this progressive's row (with its opening event) unless they exist."""
        with self.lock, self._link_errors(), conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('dealerassist progressive schema'))")
            conn.execute(SCHEMA)
            _, plan = plans.opening(self.table, params)
            opening = plan(meter.EMPTY, params, frozenset())[0]
            state = apply_event(meter.EMPTY, opening)
            created = conn.execute(
                "INSERT INTO progressive_meter (name, state, params) VALUES (%s, %s, %s) "
                "ON CONFLICT (name) DO NOTHING",
                (self.name, Jsonb(state.to_dict()), Jsonb(params.to_dict())),
            ).rowcount
            if created:
                self._insert(conn, [opening])

    def _insert(self, conn: psycopg.Connection[Any], events: Sequence[Event]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO progressive_ledger (name, key, kind, table_id, event) "
                "VALUES (%s, %s, %s, %s, %s)",
                [(self.name, event_key(e), e.kind, e.table, Jsonb(e.to_dict())) for e in events],
            )

    def _unreachable(self, exc: BaseException) -> LinkDown:
        return LinkDown(f"shared meter {self.name!r} unreachable: {_first_line(exc)}")

    @contextmanager
    def _link_errors(self) -> Iterator[None]:
        """A failed connection is dropped (the next call reconnects) and becomes ``LinkDown``."""
        try:
            yield
        except _LINK_ERRORS as exc:
            self._drop()
            raise self._unreachable(exc) from None

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except _LINK_ERRORS:
                pass
        self._conn = None

    def snapshot(self) -> tuple[meter.MeterState, ProgressiveParams]:
        with self.lock:
            with self._link_errors():
                conn = self._connect()
                with conn.transaction():
                    row = conn.execute(
                        "SELECT state, params, next_params FROM progressive_meter WHERE name = %s",
                        (self.name,),
                    ).fetchone()
            if row is None:
                raise LinkDown(f"shared meter {self.name!r} is missing from the database")
            return meter.MeterState.from_dict(row[0]), _params(row[1], row[2])

    def commit(self, keys: Sequence[str], plan: Plan) -> list[Event]:
        """One transaction in two round trips while the row is locked: read the row and the stored
        events of ``keys`` together, then send the writes and the commit as one pipeline."""
        with self.lock:
            with self._link_errors():
                conn = self._connect()
                with conn.pipeline(), conn.transaction():
                    row = conn.execute(_LOCK_ROW, (list(keys), self.name)).fetchone()
                    if row is None:
                        raise LinkDown(f"shared meter {self.name!r} is missing from the database")
                    state, params = meter.MeterState.from_dict(row[0]), _params(row[1], row[2])
                    existing = [event_from_dict(e) for e in row[3]]
                    events = plan(state, params, frozenset(event_key(e) for e in existing))
                    for event in events:
                        state = apply_event(state, event)
                        params = params_after(params, event) or params
                    if events:
                        self._insert(conn, events)
                        conn.execute(
                            "UPDATE progressive_meter SET state = %s, params = %s, next_params = %s, "
                            "updated_at = now() WHERE name = %s",
                            (
                                Jsonb(state.to_dict()),
                                Jsonb(params.to_dict()),
                                Jsonb(params.next.to_dict()) if params.next else None,
                                self.name,
                            ),
                        )
                        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.name))
                self.committed = (state, params)
            return existing + events

    def ledger(self, table: str | None = None) -> list[Event]:
        """Every event of this progressive (of one ``table`` only, if given) in commit order."""
        with self.lock:
            with self._link_errors():
                conn = self._connect()
                with conn.transaction():
                    rows = conn.execute(
                        "SELECT event FROM progressive_ledger WHERE name = %s "
                        "AND (%s::text IS NULL OR table_id = %s) ORDER BY seq",
                        (self.name, table, table),
                    ).fetchall()
            return [event_from_dict(r[0]) for r in rows]

    def table_events(self, table: str) -> list[Event]:
        return self.ledger(table)

    def listen(self) -> None:
        """Open the ``LISTEN`` connection now: a commit another table makes after this returns is
        heard, not left to the next poll. A link that is down is tried again by the next wait."""
        try:
            self._listening(1.0)
        except _LINK_ERRORS:
            self._close_listener()

    def wait_for_change(self, timeout: float) -> bool:
        """Wait for another table's commit (``NOTIFY``) on a connection of its own."""
        try:
            listener = self._listening(timeout)
            return any(n.payload == self.name for n in listener.notifies(timeout=timeout, stop_after=1))
        except _LINK_ERRORS:
            self._close_listener()
            time.sleep(timeout)
            return False

    def _listening(self, timeout: float) -> psycopg.Connection[Any]:
        """The ``LISTEN`` connection, opened again when it is missing or broken."""
        if self._listener is None or self._listener.closed or self._listener.broken:
            self._listener = psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(1, round(timeout))
            )
            self._listener.execute(f"LISTEN {CHANNEL}")
        return self._listener

    def wake(self) -> None:
        with self.lock:
            try:
                self._connect().execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.name))
            except (LinkDown, *_LINK_ERRORS):
                pass

    def _close_listener(self) -> None:
        if self._listener is not None:
            try:
                self._listener.close()
            except _LINK_ERRORS:
                pass
        self._listener = None

    def close(self) -> None:
        self._close_listener()
        with self.lock:
            self._drop()


def _params(active: dict[str, Any], waiting: dict[str, Any] | None) -> ProgressiveParams:
    params = params_from_dict(active)
    return replace(params, next=params_from_dict(waiting)) if waiting else params


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
