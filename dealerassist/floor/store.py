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
from dealerassist.floor.search import KIND_GROUPS

PAGE = 2000
_ROW = "seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash"


class FloorError(DealerAssistError):
    """The floor store cannot be reached or does not hold what was asked for."""


class FloorUnreachable(FloorError):
    """No connection to the floor store (refused, timed out, or lost during a query)."""


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
    rounds: Sequence[tuple[str, int]] = ()  # (table, round id): only these rounds' records
    limit: int | None = None


def kinds_of(names: Sequence[str]) -> list[str]:
    return [kind for name in names for kind in KIND_GROUPS.get(name, (name,))]


class FloorStore:
    """A connection to the floor database for reading (a ``floor_reader`` role is enough)."""

    def __init__(
        self, url: str, *, timeout_s: float = 10.0, statement_timeout_s: float | None = None
    ) -> None:
        """``timeout_s`` bounds the connection; ``statement_timeout_s`` each query (a dashboard's
        search must not hold a request thread, or the floor database, for as long as it likes)."""
        self.display = describe_url(url)
        self.statement_timeout_s = statement_timeout_s
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout_s)))
        except psycopg.Error as exc:
            raise FloorUnreachable(f"floor store unreachable ({self.display}): {_first_line(exc)}") from None
        if statement_timeout_s is not None:
            ms = str(max(1, round(statement_timeout_s * 1000)))
            try:
                self._query("SELECT set_config('statement_timeout', %s, false)", (ms,))
            except FloorError:
                self.close()
                raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> FloorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()  # type: ignore[arg-type]
        except psycopg.errors.QueryCanceled:
            raise FloorError(
                f"floor store {self.display}: the search was cut off after "
                f"{self.statement_timeout_s or 0:g} s: narrow it (a table, a time window, a seat)"
            ) from None
        except psycopg.OperationalError as exc:
            raise FloorUnreachable(f"floor store unreachable ({self.display}): {_first_line(exc)}") from None
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

    def round_page(self, query: FloorQuery, *, offset: int, count: int) -> tuple[int, list[tuple[str, int]]]:
        """The rounds holding records that match ``query``, latest first: how many there are, and
        ``count`` of them from ``offset`` on as (table, round id)."""
        rows = self._query(*rounds_sql(query, offset=offset, count=count))
        if not rows:
            return (self.round_page(query, offset=0, count=1)[0] if offset else 0), []
        return int(rows[0][2]), [(str(table), int(round_id)) for table, round_id, _ in rows]

    def explain(self, query: FloorQuery, *, rounds: bool = False) -> str:
        """The plan of ``search`` (or, with ``rounds``, of a ``round_page``) for ``query``."""
        sql, args = rounds_sql(query, offset=0, count=50) if rounds else search_sql(query)
        return "\n".join(row[0] for row in self._query("EXPLAIN " + sql, args))


def search_sql(q: FloorQuery) -> tuple[str, list[Any]]:
    """The one SELECT a query becomes, records in time order (see ``_where``)."""
    where, args = _where(q)
    limit = f" LIMIT {int(q.limit)}" if q.limit else ""
    sql = (
        f"SELECT r.{_ROW.replace(', ', ', r.')} FROM floor_records r "
        f"WHERE {where} ORDER BY r.at, r.stream, r.seq{limit}"
    )
    return sql, args


def rounds_sql(q: FloorQuery, *, offset: int, count: int) -> tuple[str, list[Any]]:
    """The rounds a query's records belong to, latest first, one page, each row with the total."""
    where, args = _where(q)
    sql = (
        "SELECT r.table_id, r.round_id, count(*) OVER () FROM floor_records r "
        f"WHERE {where} AND r.round_id IS NOT NULL GROUP BY r.table_id, r.round_id "
        "ORDER BY min(r.at) DESC, r.table_id, r.round_id DESC LIMIT %s OFFSET %s"
    )
    return sql, [*args, count, offset]


def _where(q: FloorQuery) -> tuple[str, list[Any]]:
    """Which records of ``floor_records r`` a query wants: a seat, a card or a user (a dealer or
    supervisor who acted) picks rounds through an index, then the rounds' records are taken;
    otherwise the records are filtered directly. ``kinds`` then keeps only those records (a
    dealer's voids: ``--user --kind voids``); ``rounds`` only the records of the rounds named."""
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
    if q.rounds:
        where.append("(r.table_id, r.round_id) IN (SELECT * FROM unnest(%s::text[], %s::bigint[]))")
        args += [[table for table, _ in q.rounds], [round_id for _, round_id in q.rounds]]
    return " AND ".join(where) or "true", args


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
