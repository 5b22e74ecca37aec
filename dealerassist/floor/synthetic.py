"""A large synthetic floor store, made inside PostgreSQL, to measure searches (bench, EXPLAIN tests).

The rows are generated server-side (``INSERT ... SELECT generate_series``), with the ingest trigger
off (``session_replication_role = replica``, superuser only) and the search indexes built after the
load, which is how a restore or a migration would fill the store too. Each table is its own stream;
every ``ROUND`` records make a round that ends with a settlement listing the seats that played.
Hashes are hex of the right size, not a chain: these rows are for searching, not auditing; the
bodies decode as events, so a search can be read back as the dashboard reads it.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from dealerassist.floor import schema

ROUND = 40  # records per round: cards, wagers, decisions, then the settlement
SEAT_SHARE = 6  # of 10: how often a given seat plays a round
_INDEXES = [s.strip() + ";" for s in schema.TABLES.split(";") if s.strip().startswith("CREATE INDEX")]

_RECORDS = """
INSERT INTO floor_records (stream, seq, recorded_at, at, table_id, kind, round_id, body, prev_hash, hash,
                           key_id, mac, actor, received_at)
SELECT 'syn-' || t, s, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), ts, 'syn-' || t,
       CASE WHEN s %% {round} = 0 THEN 'round-settled'
            WHEN s %% {round} < 25 THEN 'card-dealt' ELSE 'wager' END,
       (s - 1) / {round} + 1,
       CASE WHEN s %% {round} = 0
            THEN '{{"kind":"round-settled","results":[{{"seat":3,"stake":500,"win":500}}],"round_id":'
                 || ((s - 1) / {round} + 1) || ',"table":"syn-' || t || '"}}'
            ELSE '{{"card":"AS","face_up":true,"index":0,"kind":"card-dealt","position":"seat-3","round_id":'
                 || ((s - 1) / {round} + 1) || ',"source":"shoe","table":"syn-' || t || '"}}' END,
       lpad(to_hex(t * 100000000::bigint + s - 1), 64, '0'), lpad(to_hex(t * 100000000::bigint + s), 64, '0'),
       'k-synthetic', lpad(to_hex(t * 100000000::bigint + s), 64, 'f'),
       CASE WHEN s %% 997 = 0 THEN 'pit-boss' END, ts
FROM generate_series(%(first)s::int, %(last)s::int) t, generate_series(1, %(per_table)s::int) s,
     LATERAL (SELECT %(start)s::timestamptz
                     + make_interval(secs => s * %(span)s::float8 / %(per_table)s::int + t / 1000.0) AS ts) x
"""
_SEATS = """
INSERT INTO floor_seats (seat, at, table_id, round_id, stream, seq)
SELECT seat, at, table_id, round_id, stream, seq FROM floor_records r, generate_series(1, 7) seat
WHERE r.kind = 'round-settled' AND r.table_id = ANY(%(tables)s)
      AND abs(hashtext(r.stream || r.seq)::bigint + seat * 7919) %% 10 < {share}
"""


def fill(conn: Any, *, tables: int, records: int, start: datetime, days: float, chunk: int = 20) -> None:
    """``records`` rows over ``tables`` tables and ``days`` days from ``start``, in chunks of tables."""
    per_table = max(ROUND, records // tables)
    conn.execute("SET session_replication_role = replica")
    conn.execute("SET maintenance_work_mem = '512MB'")
    for statement in _INDEXES:
        conn.execute("DROP INDEX IF EXISTS " + re.search(r"EXISTS (\w+)", statement).group(1))  # type: ignore[union-attr]
    records_sql = _RECORDS.format(round=ROUND)
    seats_sql = _SEATS.format(share=SEAT_SHARE)
    for first in range(1, tables + 1, chunk):
        last = min(tables, first + chunk - 1)
        args = {"first": first, "last": last, "per_table": per_table, "start": start, "span": days * 86400}
        with conn.transaction():
            conn.execute(records_sql, args)
            conn.execute(seats_sql, {"tables": [f"syn-{t}" for t in range(first, last + 1)]})
    for statement in _INDEXES:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO floor_streams (stream, head_seq, head_hash, tables) "
        "SELECT stream, max(seq), '', array_agg(DISTINCT table_id) FROM floor_records "
        "WHERE stream LIKE 'syn-%%' GROUP BY stream ON CONFLICT DO NOTHING"
    )
    conn.execute("SET session_replication_role = origin")
    conn.execute("ANALYZE floor_records, floor_seats, floor_streams")
