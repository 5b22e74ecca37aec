"""Progressive benchmark: contributions committed per second and the time to reach the sign.

N tables run in one process, each with its own durable event log and progressive controller:

* ``sqlite``: standalone tables, each meter in its own log (WAL, synchronous=FULL);
* ``postgres``: one linked meter shared by all N tables through a throwaway PostgreSQL server
  (durable settings) — every contribution locks the one meter row.

Each table plays rounds of 6 progressive wagers (6 contributions committed together at betting
close). ``paced`` runs each table at ``--rate`` contributions per second (the target load: 50 tables
x 10/s); ``max`` runs them flat out. The sign latency is the time from handing betting close to the
controller until the sign emulator (TCP, 9600 baud modelled) received an amount at least as high as
the contributions made it; the emulator is driven by the real ``JackpotSign`` at ``--sign-hz``. For
the linked meter the sign is fed by its own follower controller (LISTEN/NOTIFY), as on a pit sign.

Standalone tables run as threads of this process (one GIL); linked tables run as threads of
``--processes`` table processes (default 1), the pit sign in this one. A ``commit p99`` column
gives the time from handing betting close over until its contributions are committed.

Peers measured in the same run: the bare commit rate of
the same store — a 6-event ``append_many`` on an event log, a one-row ``UPDATE`` transaction on
PostgreSQL — with the same number of threads, so the ratio says what the progressive's
bookkeeping costs over its storage.

Run: ``nice dealerassist bench progressive [--tables 50 --rate 10 --seconds 8 --sign-hz 30]`` or
``nice python bench/progressive.py ...``. About a minute at the defaults.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from dealerassist.commands.bench import percentile
from dealerassist.core.money import parse_amount
from dealerassist.events import Meta
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.events import ProgressiveContribution
from dealerassist.progressive.params import ProgressiveParams, params_from_section
from dealerassist.progressive.sign import SignFeed
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import BettingClosed, RoundClose, RoundOpen, RoundSettled, Wager
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign
from tests.pgserver import ThrowawayPostgres

SEATS = 6
SIGNED = 5
TARGET_TABLES, TARGET_RATE, TARGET_P99_MS = 50, 10.0, 100.0
SECTION: dict[str, Any] = {
    "name": "bench",
    "wager": "1",
    "base": "10000",
    "increment": "15.5",
    "reserve": "4.25",
    "awards": {"jackpot": "100% meter"},
}


class TimedSign(SignEmulator):
    """The sign emulator, remembering when each amount arrived (monotonic seconds)."""

    def __init__(self, baudrate: int | None) -> None:
        super().__init__(baudrate=baudrate)
        self.arrivals: list[tuple[float, int]] = []

    def on_bytes(self, data: bytes, arrived: float) -> None:
        before = self.memory.strings.get("1")
        super().on_bytes(data, arrived)
        after = self.memory.strings.get("1")
        if after is not None and after != before:
            self.arrivals.append((arrived, parse_amount(after.decode("ascii"))))


@dataclass
class Run:
    backend: str
    mode: str
    tables: int
    seconds: float = 0.0
    contributions: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    commit_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.contributions / self.seconds if self.seconds else 0.0


class BenchTable:
    """One table: its log, its controller and the rounds it plays."""

    def __init__(self, name: str, params: ProgressiveParams, workdir: Path) -> None:
        self.name = name
        self.log = EventLog(workdir / f"{name}.db")
        self.controller = ProgressiveController(name, params, self.log)
        self.round_id = 0
        self.samples: list[tuple[float, int]] = []  # (betting closed handed over, amount after)
        self.commit_ms: list[float] = []  # betting close handed over -> contributions committed

    def emit(self, events: list[Any]) -> None:
        for record in self.log.append_many(events):
            self.controller.on_record(record)

    def play_round(self) -> int:
        self.round_id += 1
        t, r = self.name, self.round_id
        wagers = [
            Wager(table=t, round_id=r, seat=s, bet="progressive", amount=100) for s in range(1, SEATS + 1)
        ]
        self.emit([RoundOpen(table=t, round_id=r), *wagers])
        seq = self.log.last_seq()
        started = time.monotonic()
        self.emit([BettingClosed(table=t, round_id=r)])
        self.commit_ms.append((time.monotonic() - started) * 1000)
        after = [
            rec.event.amount_after
            for rec in self.log.records(after=seq, table=t)
            if isinstance(rec.event, ProgressiveContribution)
        ]
        if after:
            self.samples.append((started, max(after)))
        results = tuple({"seat": s, "bet": "progressive", "hand": "no-award"} for s in range(1, SEATS + 1))
        self.emit([RoundSettled(table=t, round_id=r, results=results), RoundClose(table=t, round_id=r)])
        return len(after)


def run_tables(tables: list[BenchTable], seconds: float, rate: float | None, run: Run) -> None:
    """Every table plays rounds for ``seconds``: paced at ``rate`` contributions/s, or flat out."""
    for table in tables:  # warm-up: first commits, first sign writes, caches
        table.play_round()
        table.samples.clear()
        table.commit_ms.clear()
    counts = [0] * len(tables)
    stop_at = time.monotonic() + seconds
    interval = SEATS / rate if rate else 0.0

    def play(index: int) -> None:
        table = tables[index]
        next_round = time.monotonic() + interval * index / len(tables)
        try:
            while time.monotonic() < stop_at:
                if interval:
                    time.sleep(max(0.0, next_round - time.monotonic()))
                    next_round += interval
                counts[index] += table.play_round()
        except Exception as exc:
            run.errors.append(f"{table.name}: {exc}")

    _threads(len(tables), play, run)
    run.contributions = sum(counts)
    run.commit_ms = [ms for table in tables for ms in table.commit_ms]


def sign_latencies(samples: list[tuple[float, int]], sign: TimedSign) -> list[float]:
    """For each sample, ms until the sign first received an amount at least as high."""
    arrivals = list(sign.arrivals)
    out = []
    for started, amount in samples:
        shown = next((t for t, cents in arrivals if t >= started and cents >= amount), None)
        if shown is not None:
            out.append((shown - started) * 1000)
    return out


class Signs:
    """``count`` sign emulators, each driven by its own ``JackpotSign``; closed on exit."""

    def __init__(self, count: int, sign_hz: float, baudrate: int | None) -> None:
        self.pairs: list[tuple[TimedSign, JackpotSign]] = []
        for _ in range(count):
            emulator = TimedSign(baudrate)
            emulator.serve_tcp()
            emulator.start()
            driver = JackpotSign(emulator.url, max_rate_hz=sign_hz)
            driver.start()
            self.pairs.append((emulator, driver))

    def __enter__(self) -> list[tuple[TimedSign, JackpotSign]]:
        return self.pairs

    def __exit__(self, *exc: object) -> None:
        for emulator, driver in self.pairs:
            driver.stop()
            emulator.stop()


def bench_sqlite(n: int, seconds: float, rate: float | None, sign_hz: float, baud: int | None) -> Run:
    run = Run("sqlite", "paced" if rate else "max", n)
    with tempfile.TemporaryDirectory(prefix="da-bench-") as tmp:
        params = params_from_section(SECTION, "bench")
        tables = [BenchTable(f"t{i:02d}", params, Path(tmp)) for i in range(n)]
        # Each standalone table has a sign of its own; SIGNED of them drive one, for the latency.
        with Signs(min(n, SIGNED), sign_hz, baud) as signs:
            for table, (_, driver) in zip(tables, signs, strict=False):
                table.controller.subscribe(SignFeed(driver))
                table.controller.refresh()
            run_tables(tables, seconds, rate, run)
            time.sleep(0.5)
            for table, (emulator, _) in zip(tables, signs, strict=False):
                run.latencies_ms += sign_latencies(table.samples, emulator)
    return run


def bench_postgres(
    pg: ThrowawayPostgres,
    n: int,
    seconds: float,
    rate: float | None,
    sign_hz: float,
    baud: int | None,
    processes: int,
) -> Run:
    """N tables on one shared meter, spread over ``processes`` table processes (as in a pit, where
    linked tables never share one interpreter); the pit sign follows in this process."""
    run = Run("postgres", "paced" if rate else "max", n)
    run.mode += f" ({processes} proc)"
    name = f"bench-{rate or 'max'}-{n}-{processes}"
    params = params_from_section({**SECTION, "name": name, "link": pg.url}, "bench")
    with tempfile.TemporaryDirectory(prefix="da-bench-") as tmp:
        follower = ProgressiveController("pit-sign", params, EventLog(Path(tmp) / "sign.db"), poll_s=1.0)
        try:
            with Signs(1, sign_hz, baud) as [(emulator, driver)]:
                follower.subscribe(SignFeed(driver))
                follower.refresh()
                follower.start()
                start_at = time.monotonic() + 3.0 + n * 0.05
                shares = [range(i, n, processes) for i in range(processes)]
                workers = [
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "bench.progressive",
                            "--worker",
                            pg.url,
                            name,
                            ",".join(str(t) for t in share),
                            str(seconds),
                            str(rate or 0),
                            str(start_at),
                        ],
                        cwd=Path(__file__).resolve().parents[1],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    for share in shares
                    if share
                ]
                samples: list[tuple[float, int]] = []
                for worker in workers:
                    out, _ = worker.communicate(timeout=seconds + 120)
                    if worker.returncode != 0:
                        run.errors.append(f"table process exited {worker.returncode}")
                        continue
                    data = json.loads(out.strip().splitlines()[-1])
                    samples += [tuple(x) for x in data["samples"]]
                    run.commit_ms += data["commit_ms"]
                    run.contributions += data["contributions"]
                    run.errors += data["errors"]
                    run.seconds = max(run.seconds, data["seconds"])
                time.sleep(0.5)
                run.latencies_ms = sign_latencies(samples, emulator)
        finally:
            follower.stop()
    return run


def worker(url: str, name: str, tables: str, seconds: float, rate: float, start_at: float) -> int:
    """A table process of ``bench_postgres``: its tables play until done, then one JSON line."""
    params = params_from_section({**SECTION, "name": name, "link": url}, "bench")
    run = Run("postgres", "worker", 0)
    with tempfile.TemporaryDirectory(prefix="da-bench-") as tmp:
        bench_tables = [BenchTable(f"t{int(i):02d}", params, Path(tmp)) for i in tables.split(",")]
        time.sleep(max(0.0, start_at - time.monotonic()))
        run_tables(bench_tables, seconds, rate or None, run)
        for table in bench_tables:
            table.controller.stop()
    samples = [s for t in bench_tables for s in t.samples]
    result = {
        "samples": samples,
        "commit_ms": run.commit_ms,
        "contributions": run.contributions,
        "errors": run.errors,
        "seconds": run.seconds,
    }
    print(json.dumps(result))
    return 0


def peer_sqlite(n: int, seconds: float) -> Run:
    """Bare 6-event ``append_many`` commits, one log per thread."""
    run = Run("sqlite", "peer: bare log commits", n)
    with tempfile.TemporaryDirectory(prefix="da-bench-") as tmp:
        logs = [EventLog(Path(tmp) / f"p{i}.db") for i in range(n)]
        counts = [0] * n
        stop_at = time.monotonic() + seconds

        def work(i: int) -> None:
            batch = [Meta(table=f"p{i}", data={"n": k}) for k in range(SEATS)]
            while time.monotonic() < stop_at:
                logs[i].append_many(batch)
                counts[i] += SEATS

        _threads(n, work, run)
        run.contributions = sum(counts)
    return run


def peer_postgres(pg: ThrowawayPostgres, n: int, seconds: float) -> Run:
    """Bare one-row ``UPDATE`` transactions on one shared row (6 counted per commit, as a round)."""
    run = Run("postgres", "peer: bare row commits", n)
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS peer (id int PRIMARY KEY, n bigint)")
        conn.execute("INSERT INTO peer VALUES (1, 0) ON CONFLICT DO NOTHING")
    counts = [0] * n
    stop_at = time.monotonic() + seconds

    def work(i: int) -> None:
        with psycopg.connect(pg.url, autocommit=True) as conn:
            while time.monotonic() < stop_at:
                with conn.transaction():
                    conn.execute("SELECT n FROM peer WHERE id = 1 FOR UPDATE")
                    conn.execute("UPDATE peer SET n = n + %s WHERE id = 1", (SEATS,))
                counts[i] += SEATS

    _threads(n, work, run)
    run.contributions = sum(counts)
    return run


def _threads(n: int, work: Callable[[int], None], run: Run) -> None:
    """Run ``work(0..n-1)`` on ``n`` threads at once; ``run.seconds`` is how long they took."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    begun = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.seconds = time.monotonic() - begun


def report(runs: list[Run], peers: dict[str, Run]) -> list[str]:
    lines = [
        f"{'backend':9} {'tables':>6} {'mode':26} {'contrib/s':>10} {'vs peer':>8} "
        f"{'commit p99':>10} {'sign p50 ms':>11} {'sign p99 ms':>11} {'samples':>7}"
    ]
    for run in [*runs, *peers.values()]:
        peer = peers.get(run.backend)
        ratio = f"{run.rate / peer.rate:8.2f}" if peer and run is not peer and peer.rate else f"{'':8}"
        p50 = percentile(run.latencies_ms, 50)
        p99 = percentile(run.latencies_ms, 99)
        commit = percentile(run.commit_ms, 99)
        lines.append(
            f"{run.backend:9} {run.tables:6d} {run.mode:26} {run.rate:10.1f} {ratio} "
            f"{commit:10.1f} {p50:11.1f} {p99:11.1f} {len(run.latencies_ms):7d}"
        )
        lines.extend(f"  error: {e}" for e in run.errors[:3])
    return lines


def verdict(runs: list[Run], tables: int, rate: float) -> list[str]:
    out = []
    for run in runs:
        if not run.mode.startswith("paced"):
            continue
        wanted = tables * rate * 0.95
        p99 = percentile(run.latencies_ms, 99)
        ok = run.rate >= wanted and p99 < TARGET_P99_MS and not run.errors
        out.append(
            f"target {run.backend}: {tables} tables x {rate:g}/s sustained ({run.rate:.0f}/s, need "
            f"{wanted:.0f}) with sign p99 {p99:.0f} ms (< {TARGET_P99_MS:.0f}): "
            f"{'within target' if ok else 'outside target'}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--rate", type=float, default=TARGET_RATE, help="contributions/s per table (paced)")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each measured run")
    parser.add_argument("--sign-hz", type=float, default=30.0, help="JackpotSign max_rate_hz")
    parser.add_argument("--baud", type=int, default=9600, help="sign line speed modelled (0: none)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--processes", type=int, default=1, help="table processes on the shared meter")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        url, name, share, length, pace, start_at = argv[1:7]
        return worker(url, name, share, float(length), float(pace), float(start_at))
    args = parser.parse_args(argv)
    baud = args.baud or None
    runs: list[Run] = []
    peers: dict[str, Run] = {}
    if args.backend in ("sqlite", "both"):
        runs.append(bench_sqlite(args.tables, args.seconds, args.rate, args.sign_hz, baud))
        runs.append(bench_sqlite(args.tables, args.seconds, None, args.sign_hz, baud))
        peers["sqlite"] = peer_sqlite(args.tables, args.seconds)
    if args.backend in ("postgres", "both"):
        with ThrowawayPostgres(durable=True) as pg:
            for rate in (args.rate, None):
                runs.append(
                    bench_postgres(pg, args.tables, args.seconds, rate, args.sign_hz, baud, args.processes)
                )
            peers["postgres"] = peer_postgres(pg, args.tables, args.seconds)
    print("\n".join(report(runs, peers)))
    print("\n".join(verdict(runs, args.tables, args.rate)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
