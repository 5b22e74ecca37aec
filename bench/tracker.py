"""Durable tracker throughput: Three Card Poker rounds through tracker + SQLite log vs raw SQLite commits.

Both sides run in the same process, on the same disk (one temporary folder), in the same run:

* tracker: seeded six-seat Three Card Poker rounds (wagers, shoe reads, camera checks, decisions)
  handed to ``Tracker.handle`` on a file ``EventLog`` (WAL, synchronous=FULL), one transaction per
  input with everything it caused; latency is measured per input, from call to durable return;
* raw: ``INSERT`` + ``COMMIT`` of one row of about a record's size per transaction, WAL and
  synchronous=FULL, through a prepared statement.

The two alternate in slices with equal numbers of commits, so a busy disk slows both alike.

Printed: records/s and inputs/s through the tracker, raw commits/s, the ratio of tracker records/s
to raw rows/s (target >= 0.5), and p50/p99 latency per input (target p99 < 20 ms).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dealerassist.core.cards import FULL_DECK
from dealerassist.core.configfiles import bundled_dir
from dealerassist.events import CardRead, Event
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

TABLE_FILE = bundled_dir() / "tables" / "three-card-poker.toml"
ROW_BYTES = 300  # about one logged record: canonical JSON plus hashes and index columns


def round_inputs(table: str, rng: random.Random, seats: int) -> list[Event]:
    """One round as a dealer would send it: every seat bets Ante and Pair Plus and plays."""
    inputs: list[Event] = [ev.RoundOpen(table=table)]
    for seat in range(1, seats + 1):
        inputs.append(
            ev.Wager(table=table, seat=seat, bet="ante", amount=rng.choice([500, 1000, 2500]), user="d")
        )
        inputs.append(ev.Wager(table=table, seat=seat, bet="pair-plus", amount=500, user="d"))
    inputs.append(ev.BettingClosed(table=table))
    shoe = rng.sample(FULL_DECK, 3 * (seats + 1))
    inputs += [CardRead(table=table, source="shoe", card=card) for card in shoe]
    for seat in range(1, seats + 1):
        for card in shoe[3 * (seat - 1) : 3 * seat]:
            inputs.append(
                CardRead(table=table, source="camera", card=card, position=f"seat-{seat}", face_up=False)
            )
    return inputs


def percentiles(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[max(int(len(ordered) * 0.99) - 1, 0)] * 1000,
    }


class TrackerSide:
    """Three Card Poker rounds through a tracker on a file log, timed per input."""

    def __init__(self, folder: Path, seed: int) -> None:
        self.config = load_table(TABLE_FILE)
        self.table = self.config.table_id
        self.rng = random.Random(seed)
        self.log = EventLog(folder / "tracker.db")
        self.tracker = Tracker(self.config, self.log)
        self.first_seq = self.log.last_seq()
        self.latencies: list[float] = []
        self.seconds = 0.0

    def _timed(self, event: Event) -> None:
        t0 = time.perf_counter()
        self.tracker.handle(event)
        self.latencies.append(time.perf_counter() - t0)

    def play(self, rounds: int) -> int:
        """Play ``rounds`` rounds; returns how many inputs (commits) that took."""
        before = len(self.latencies)
        started = time.perf_counter()
        for _ in range(rounds):
            for event in round_inputs(self.table, self.rng, self.config.rules.seats):
                self._timed(event)
            wagers = self.tracker.snapshot()["wagers"]
            for position in self.tracker.snapshot()["pending_decisions"]:
                ante = wagers[position.removeprefix("seat-")]["ante"]
                self._timed(
                    ev.PlayerDecision(table=self.table, position=position, action="play", amount=ante)
                )
            self._timed(ev.RoundClose(table=self.table))
        self.seconds += time.perf_counter() - started
        return len(self.latencies) - before

    def figures(self) -> dict[str, float]:
        records = self.log.last_seq() - self.first_seq
        assert self.log.verify().ok
        self.log.close()
        return {
            "inputs": len(self.latencies),
            "records": records,
            "seconds": self.seconds,
            "inputs_per_s": len(self.latencies) / self.seconds,
            "records_per_s": records / self.seconds,
        } | percentiles(self.latencies)


class RawSide:
    """Plain SQLite: one row per transaction through a prepared statement, same settings and disk."""

    def __init__(self, folder: Path, row_bytes: int) -> None:
        self.db = sqlite3.connect(folder / "raw.db", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE rows (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        self.body = "x" * row_bytes
        self.rows = 0
        self.seconds = 0.0
        self.latencies: list[float] = []

    def commit(self, rows: int) -> None:
        started = time.perf_counter()
        for _ in range(rows):
            self.rows += 1
            t0 = time.perf_counter()
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO rows (seq, body) VALUES (?, ?)", (self.rows, self.body))
            self.db.execute("COMMIT")
            self.latencies.append(time.perf_counter() - t0)
        self.seconds += time.perf_counter() - started

    def figures(self) -> dict[str, float]:
        self.db.close()
        return {
            "rows": self.rows,
            "seconds": self.seconds,
            "rows_per_s": self.rows / self.seconds,
        } | percentiles(self.latencies)


def measure(folder: Path, rounds: int, seed: int, slices: int) -> tuple[dict[str, float], dict[str, float]]:
    """Alternate tracker and raw slices of equal commit counts, so both see the same disk weather."""
    tracker = TrackerSide(folder, seed)
    raw = RawSide(folder, ROW_BYTES)
    per_slice = max(rounds // slices, 1)
    played = 0
    while played < rounds:
        count = min(per_slice, rounds - played)
        raw.commit(tracker.play(count))
        played += count
    return tracker.figures(), raw.figures()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench tracker", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="Three Card Poker rounds (default 60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slices", type=int, default=10, help="alternations of tracker and raw (default 10)")
    parser.add_argument(
        "--dir", type=Path, default=None, help="folder on the disk to measure (default: a temp dir)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as name:
        tracker, raw = measure(Path(name), args.rounds, args.seed, args.slices)
    ratio = tracker["records_per_s"] / raw["rows_per_s"]
    per_commit = tracker["inputs_per_s"] / raw["rows_per_s"]
    if args.json:
        print(
            json.dumps({"tracker": tracker, "raw": raw, "ratio": ratio, "commit_ratio": per_commit}, indent=2)
        )
        return 0
    print(f"tracker: {tracker['inputs']:.0f} inputs, {tracker['records']:.0f} durable records")
    print(
        f"  {tracker['records_per_s']:8.0f} records/s {tracker['inputs_per_s']:8.0f} inputs/s (a commit each)"
    )
    print(
        f"  latency per input: p50 {tracker['p50_ms']:.2f} ms  p99 {tracker['p99_ms']:.2f} ms"
        " (target p99 < 20 ms)"
    )
    print(f"raw SQLite insert+commit, WAL, synchronous=FULL: {raw['rows_per_s']:8.0f} rows/s")
    print(f"  latency per commit: p50 {raw['p50_ms']:.2f} ms  p99 {raw['p99_ms']:.2f} ms")
    print(f"ratio tracker records/s : raw rows/s = {ratio:.2f} (target >= 0.5)")
    print(f"ratio tracker commits/s : raw commits/s = {per_commit:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
