"""Reading the floor store: one stream's records in order (audits), and searches across tables.

Searches go through indexes: time windows by ``floor_records (at)`` or ``(table_id, at)``, kinds
by ``(kind, at)``, a user's rounds by ``(actor, at)``, a seat's or a card's rounds through the
narrow ``floor_seats``/``floor_cards`` tables the ingest trigger fills, then the rounds' records by
``(table_id, round_id)``. Rows come back in the log's eight-column form, so ``export`` and the
round projection take them as they take the local log's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from dealerassist.errors import DealerAssistError
from dealerassist.floor.config import describe_url

PAGE = 2000
# What surveillance asks for by name; anything else is taken as an event kind.
KIND_GROUPS = {
    "voids": ("round-voided",),
    "jackpots": ("progressive-hit", "progressive-paid"),
    "alarms": ("alarm", "alarm-cleared"),
}
_ROW = "seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash"


class FloorError(DealerAssistError):
    """The floor store cannot be reached or does not hold what was asked for."""


@dataclass(frozen=True)
class FloorQuery:
    """What to look for; every filter is optional and they all apply together."""

    tables: Sequence[str] = ()
    since: datetime | None = None
    until: datetime | None = None
    seat: int | None = None
    card: str | None = None
    user: str | None = None
    kinds: Sequence[str] = ()
    limit: int | None = None


def kinds_of(names: Sequence[str]) -> list[str]:
    return [kind for name in names for kind in KIND_GROUPS.get(name, (name,))]


class FloorStore:
    """A connection to the floor database for reading (a ``floor_reader`` role is enough)."""

    def __init__(self, url: str, *, timeout_s: float = 10.0) -> None:
        self.display = describe_url(url)
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout_s)))
        except psycopg.Error as exc:
            raise FloorError(f"cannot reach the floor store {self.display}: {_first_line(exc)}") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> FloorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()  # type: ignore[arg-type]
        except psycopg.Error as exc:
            raise FloorError(f"floor store {self.display}: {_first_line(exc)}") from None

    # --- streams, for audits -------------------------------------------------------------------

    def streams_of(self, tables: Sequence[str]) -> list[str]:
        """The streams (station logs) holding records of any of ``tables``."""
        rows = self._query(
            "SELECT stream FROM floor_streams WHERE tables && %s::text[] ORDER BY stream", (list(tables),)
        )
        return [row[0] for row in rows]

    def head(self, stream: str) -> tuple[int, str] | None:
        rows = self._query("SELECT head_seq, head_hash FROM floor_streams WHERE stream = %s", (stream,))
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def stream_rows(self, stream: str, after: int = 0) -> Iterator[tuple]:
        """A stream's records in order, with key id and MAC (the log's ten sealed columns)."""
        while True:
            page = self._query(
                f"SELECT {_ROW}, key_id, mac FROM floor_records WHERE stream = %s AND seq > %s "
                f"ORDER BY seq LIMIT {PAGE}",
                (stream, after),
            )
            yield from page
            if len(page) < PAGE:
                return
            after = page[-1][0]

    def alarms(self, stream: str | None = None, tables: Sequence[str] = ()) -> list[tuple]:
        """Ingest alarms (stream, seq, table, problem, detail, raised_at), oldest first."""
        where, args = ["true"], []
        if stream is not None:
            where.append("stream = %s")
            args.append(stream)
        if tables:
            where.append("table_id = ANY(%s)")
            args.append(list(tables))
        return self._query(
            "SELECT stream, seq, table_id, problem, detail, raised_at FROM floor_alarms "
            f"WHERE {' AND '.join(where)} ORDER BY id",
            args,
        )

    # --- surveillance --------------------------------------------------------------------------

    def search(self, query: FloorQuery) -> list[tuple]:
        """Records matching ``query`` across the floor, in time order (eight log columns)."""
        sql, args = search_sql(query)
        return self._query(sql, args)

    def explain(self, query: FloorQuery) -> str:
        sql, args = search_sql(query)
        return "\n".join(row[0] for row in self._query("EXPLAIN " + sql, args))


def search_sql(q: FloorQuery) -> tuple[str, list[Any]]:
    """The one SELECT a query becomes: a seat, a card or a user (a dealer or supervisor who acted)
    picks rounds through an index, then the rounds' records are fetched; otherwise the records are
    filtered directly. ``kinds`` then keeps only those records (a dealer's voids: ``--user --kind
    voids``)."""
    where: list[str] = []
    args: list[Any] = []
    if q.seat is not None or q.card is not None or q.user is not None:
        inner, inner_args = _window("x", q)
        picks = []
        if q.seat is not None:
            picks.append(("floor_seats", "seat = %s", q.seat))
        if q.card is not None:
            picks.append(("floor_cards", "card = %s", q.card))
        if q.user is not None:
            picks.append(("floor_records", "actor = %s", q.user))
        for table, test, value in picks:
            where.append(
                f"(r.table_id, r.round_id) IN (SELECT x.table_id, x.round_id FROM {table} x "
                f"WHERE x.{test}{''.join(' AND ' + c for c in inner)})"
            )
            args += [value, *inner_args]
    else:
        inner, inner_args = _window("r", q)
        where += inner
        args += inner_args
    if q.kinds:
        where.append("r.kind = ANY(%s)")
        args.append(kinds_of(q.kinds))
    limit = f" LIMIT {int(q.limit)}" if q.limit else ""
    sql = (
        f"SELECT r.{_ROW.replace(', ', ', r.')} FROM floor_records r "
        f"WHERE {' AND '.join(where) or 'true'} ORDER BY r.at, r.stream, r.seq{limit}"
    )
    return sql, args


def _window(alias: str, q: FloorQuery) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    args: list[Any] = []
    if q.tables:
        where.append(f"{alias}.table_id = ANY(%s)")
        args.append(list(q.tables))
    if q.since is not None:
        where.append(f"{alias}.at >= %s")
        args.append(q.since)
    if q.until is not None:
        where.append(f"{alias}.at < %s")
        args.append(q.until)
    return where, args


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
