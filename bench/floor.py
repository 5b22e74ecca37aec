"""Floor store benchmark: N tables shipping at once into one PostgreSQL, and a seat search on 20M records.

Ingest: ``--tables`` simulated stations (default 200), each with its own keyed, durable event log
and its own ``Shipper`` (one connection each, as on a real floor), spread over ``--processes``
processes, append records at ``--rate`` per table (1/s is a busy table) for ``--seconds``. The
throughput is reported as a multiple of a busy table's 1 record/s; the ship latency is from a
record's commit in its log to the floor's acknowledgement. A burst then gives every table a
backlog of ``--burst`` records at once, and the time the floor takes to absorb it gives the
ingest capacity, also as a multiple of a busy table. The floor holds every table's key, so ingest
checks sequence, chain, hash and MAC of every record.

Search: ``--records`` synthetic rows (default 20,000,000; 200 tables over ``--days`` days) are
generated inside PostgreSQL (``dealerassist.floor.synthetic``), then one seat's rounds over a day
(a table, a seat, a 24-hour window) are searched ``--queries`` times at random tables, seats and
days. Peer in the same run: the same search with index scans turned off (what a full scan costs).
The dashboard's floor search (``dealerassist.web.floorsearch``) then answers the same searches as
a page of rounds, each summed up from all its records, on a connection of its own each time.

Run: ``nice dealerassist bench floor [--tables 200 --seconds 20 --records 20000000]``.
``--records 0`` skips the search part; the 20M load takes about a quarter of an hour on 2 cores.
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from dealerassist.commands.bench import percentile
from dealerassist.floor import schema, synthetic
from dealerassist.floor.config import FloorConfig
from dealerassist.floor.shipper import Shipper
from dealerassist.floor.store import FloorQuery, FloorStore
from dealerassist.storage.eventlog import EventLog
from dealerassist.storage.keys import create_key_file, key_path
from dealerassist.tracker.events import Wager
from tests.pgserver import ThrowawayPostgres

TARGET_TABLES, TARGET_P99_S, TARGET_SEARCH_MS = 200, 1.0, 200.0
START = datetime(2026, 11, 1, tzinfo=UTC)


def _station_worker(
    url: str, tables: list[str], root: str, rate: float, seconds: float, burst: int, out: Any
) -> None:
    """A process of stations: each table appends on its own schedule; its shipper ships."""
    base = Path(root)
    logs = {t: EventLog(base / f"{t}.sqlite3", keys=base / "keys") for t in tables}
    shippers = {
        t: Shipper(
            base / f"{t}.sqlite3", FloorConfig(url, t), cursor_path=base / f"{t}.cursor", poll_s=0.5
        ).start()
        for t in tables
    }
    rng = random.Random(hash(tuple(tables)))
    start = time.monotonic()
    due = sorted((start + rng.random() / rate, t) for t in tables)
    appended = 0
    while due:
        when, table = due.pop(0)
        if when - start >= seconds:
            continue
        time.sleep(max(0.0, when - time.monotonic()))
        logs[table].append(
            Wager(table=table, round_id=1, seat=1 + appended % 7, bet="ante", amount=500, user="d")
        )
        shippers[table].wake()
        appended += 1
        due.append((when + 1 / rate, table))
        due.sort()
    steady = _drain(shippers, 60)
    latencies = [x for s in shippers.values() for x in s.latencies]
    burst_start = time.monotonic()
    for table in tables:
        logs[table].append_many(
            [Wager(table=table, round_id=2, seat=1, bet="ante", amount=500, user="d")] * burst
        )
        shippers[table].wake()
    drained = _drain(shippers, 300)
    burst_s = time.monotonic() - burst_start
    for shipper in shippers.values():
        shipper.stop()
    for log in logs.values():
        log.close()
    out.put(
        {
            "appended": appended,
            "latencies": latencies,
            "steady_ok": steady,
            "burst_ok": drained,
            "burst_s": burst_s,
        }
    )


def _drain(shippers: dict[str, Shipper], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(s.status()["lag_records"] == 0 for s in shippers.values()):
            return True
        time.sleep(0.05)
    return False


def ingest(pg: ThrowawayPostgres, args: argparse.Namespace, root: Path) -> None:
    tables = [f"bench-{i:03d}" for i in range(args.tables)]
    with psycopg.connect(pg.url, autocommit=True) as conn:
        schema.install(conn)
        schema.add_station(conn, "station_bench")
        for table in tables:
            keys = create_key_file(key_path(root / "keys", table), table)
            schema.add_keys(conn, table, [(k.id, k.secret) for k in keys.keys])
    url = pg.url.replace("postgres@", "station_bench@")
    ctx = multiprocessing.get_context("fork")  # the workers run this file's code, loaded by path
    out = ctx.Queue()
    groups = [tables[i :: args.processes] for i in range(args.processes)]
    workers = [
        ctx.Process(
            target=_station_worker, args=(url, g, str(root), args.rate, args.seconds, args.burst, out)
        )
        for g in groups
    ]
    began = time.monotonic()
    for worker in workers:
        worker.start()
    results = []
    while len(results) < len(workers):
        try:
            results.append(out.get(timeout=1.0))
        except queue.Empty:
            if any(w.exitcode not in (None, 0) for w in workers):
                raise SystemExit("a station worker died; see its error above") from None
    for worker in workers:
        worker.join()
    wall = time.monotonic() - began
    appended = sum(r["appended"] for r in results)
    latencies = [x for r in results for x in r["latencies"]]
    burst_s = max(r["burst_s"] for r in results)
    with psycopg.connect(pg.url) as conn:
        stored = conn.execute("SELECT count(*) FROM floor_records WHERE stream LIKE 'bench-%%'").fetchone()[0]
        alarms = conn.execute("SELECT count(*) FROM floor_alarms").fetchone()[0]
    expected = appended + args.burst * len(tables)
    steady_rate = appended / args.seconds
    capacity = args.burst * len(tables) / burst_s
    print(
        f"ingest: {len(tables)} tables x {args.rate}/s for {args.seconds:.0f} s "
        f"in {args.processes} processes (wall {wall:.0f} s)"
    )
    print(
        f"  steady: {appended} records, {steady_rate:.0f} records/s = {steady_rate:.0f} busy tables' worth; "
        f"ship latency p50 {percentile(latencies, 50) * 1000:.0f} ms, "
        f"p99 {percentile(latencies, 99) * 1000:.0f} ms "
        f"(target p99 < {TARGET_P99_S * 1000:.0f} ms at {TARGET_TABLES} tables)"
    )
    print(
        f"  burst: {args.burst} records at each table at once, absorbed in {burst_s:.1f} s = "
        f"{capacity:.0f} records/s = {capacity:.0f} busy tables' worth of capacity"
    )
    print(
        f"  floor: {stored} of {expected} records stored, {alarms} alarms; all drained: "
        f"{all(r['steady_ok'] and r['burst_ok'] for r in results)}"
    )


def search(pg: ThrowawayPostgres, args: argparse.Namespace) -> None:
    with psycopg.connect(pg.url, autocommit=True) as conn:
        schema.install(conn)
        began = time.monotonic()
        synthetic.fill(conn, tables=200, records=args.records, start=START, days=args.days)
        loaded = time.monotonic() - began
        count = conn.execute("SELECT count(*) FROM floor_records WHERE stream LIKE 'syn-%%'").fetchone()[0]
        size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()[0]
    print(
        f"search: {count} synthetic records (200 tables, {args.days:g} days) loaded in {loaded:.0f} s, "
        f"database {size}"
    )
    rng = random.Random(7)
    queries = []
    for _ in range(args.queries):
        day = START + timedelta(days=rng.randrange(max(1, int(args.days))))
        queries.append(
            FloorQuery(
                tables=[f"syn-{rng.randint(1, 200)}"],
                seat=rng.randint(1, 7),
                since=day,
                until=day + timedelta(days=1),
                kinds=["round-settled"],
            )
        )
    with FloorStore(pg.url) as store:
        plan = store.explain(queries[0])
        times, rows = [], 0
        for query in queries:
            t = time.perf_counter()
            rows += len(store.search(query))
            times.append((time.perf_counter() - t) * 1000)
        pages = _dashboard_pages(pg.url, queries)
        store.conn.execute("SET enable_indexscan = off")
        store.conn.execute("SET enable_bitmapscan = off")
        t = time.perf_counter()
        scanned = len(store.search(queries[0]))
        full = (time.perf_counter() - t) * 1000
    print(
        f"  one seat's rounds over a day ({args.queries} searches, {rows / len(queries):.0f} rounds each): "
        f"p50 {percentile(times, 50):.1f} ms, p99 {percentile(times, 99):.1f} ms "
        f"(target < {TARGET_SEARCH_MS:.0f} ms)"
    )
    print(
        f"  peer, the same search as a full scan: {full:.0f} ms ({scanned} rounds) = "
        f"{full / max(percentile(times, 50), 0.001):.0f}x the indexed search"
    )
    print(
        f"  the dashboard's floor search, the same searches as a page of rounds summed up from all "
        f"their records (a connection each): p50 {percentile(pages, 50):.1f} ms, "
        f"p99 {percentile(pages, 99):.1f} ms"
    )
    uses = sorted(
        {line.split(" on ")[1].split()[0] for line in plan.splitlines() if " on " in line and "Scan" in line}
    )
    verdict = "no sequential scan" if "Seq Scan" not in plan else "SEQUENTIAL SCAN"
    print(f"  plan: {verdict}; scans {', '.join(uses)}")


def _dashboard_pages(url: str, queries: list[FloorQuery]) -> list[float]:
    """Milliseconds of ``/api/floor/rounds``'s search for each query's seat, table and day."""
    from dealerassist.web.floorsearch import Filters
    from dealerassist.web.floorsearch import search as floor_search

    times = []
    for q in queries:
        filters = Filters(table=q.tables[0], seat=q.seat, since=q.since, until=q.until)
        t = time.perf_counter()
        floor_search(url, filters)
        times.append((time.perf_counter() - t) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dealerassist bench floor", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--rate", type=float, default=1.0, help="records per second per table")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument(
        "--burst", type=int, default=50, help="backlog records per table for the capacity run"
    )
    parser.add_argument(
        "--records", type=int, default=20_000_000, help="synthetic records to search (0: skip)"
    )
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="da-bench-floor-") as tmp:
        with ThrowawayPostgres(max_connections=args.tables + 20) as pg:
            if args.tables:
                ingest(pg, args, Path(tmp))
            if args.records:
                search(pg, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
