"""Station start-up time over a long event log: from a checkpoint, against a full read of the log.

A Pairs & Up table with its standalone progressive. Its history is written directly: a real
station plays one template round (real tracker, real controller, real checkpoint), and the
template's records are repeated with the next round numbers, exact meter amounts and a fresh hash
chain (``executemany``, no tracker), up to ``--records``; the template's checkpoint is carried to
the end of that history the same way. A real station then starts on it and plays whole rounds
(``--tail-records``, by default just under the checkpoint interval: about the most a start after
a kill reads) and an open round (wagers, betting closed, cards), and is left without a clean
stop, as after a kill -9: its last checkpoint is the one it started from.

Measured (the median of ``--repeat`` starts, the two sizes in turns, ``Station.start`` of a station
without devices: the log's start check, every tracker, every progressive controller; imports
excluded):

* ``checkpoint``: a start at each size: reads the records after the checkpoint;
* ``full read``: the same start with the checkpoint removed, at the small size only (at the large
  one it would take hours on this machine): its time is extrapolated linearly to the large size.

At the small size the two starts must come to the same state (tracker snapshot, progressive state
and books), which is printed. A checkpoint's own cost is printed beside the time of the appends
it is amortised over. The logs are written under ``--dir`` (default the temporary folder) and
deleted afterwards.

Run: ``nice dealerassist bench startup [--records 20000000 --small 200000]``; the 20 M log takes
some minutes to write and some 8 GB of disk.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dealerassist.core.configfiles import bundled_dir
from dealerassist.events import CardRead, event_from_dict
from dealerassist.progressive import meter
from dealerassist.progressive.controller import checkpoint_name
from dealerassist.progressive.events import PROGRESSIVE_KINDS, apply_event
from dealerassist.simulation.dealer import PACES, Chances, SimulatedDealer
from dealerassist.simulation.direct_shoe import DirectShoe
from dealerassist.station.station import DB_NAME, Station
from dealerassist.station.tables import StationTable, check_table
from dealerassist.storage.chain import record_hash
from dealerassist.storage.checkpoint import DEFAULT_EVERY, Checkpoint, store_checkpoint
from dealerassist.tablefiles.tables import table_from_mapping
from dealerassist.tracker import events as ev

TABLE = "pu-1"
TEMPLATE_ROUND = 900001  # a number no other field of a round's records holds
BATCH = 50_000
TARGET_S = 2.0


def bench_table() -> StationTable:
    """The shipped Pairs & Up table, its progressive without a cap (every contribution the same)."""
    data = tomllib.loads((bundled_dir() / "tables" / "pairs-and-up.toml").read_text(encoding="utf-8"))
    data["devices"] = {}
    data["progressive"].pop("limit", None)
    return check_table(table_from_mapping(data, "pairs-and-up (bench)"))


def play(station: Station, table: StationTable, rounds: int, seed: int) -> None:
    dealer = SimulatedDealer(
        table.config,
        station.pit,
        DirectShoe(station.pit, table.table_id),
        rng=random.Random(seed),
        pace=PACES["fast"],
        chances=Chances(exposure=0.0, misread=0.0, jackpot=0.0),
        say=lambda _text: None,
    )
    tally = dealer.run(threading.Event(), rounds=rounds)
    if tally.stopped_by:
        raise RuntimeError(f"the simulated dealer stopped: {tally.stopped_by}")
    controller = station.controllers[TABLE]
    for hit_id in controller.meter.pending:  # a four aces flush dealt by chance: a supervisor pays it
        controller.confirm(hit_id, "bench", "supervisor")


def open_round(station: Station) -> None:
    """A round left in play: wagers (the progressive's too), betting closed, three cards dealt."""
    pit = station.pit
    pit.handle(TABLE, ev.RoundOpen(table=TABLE))
    for seat in (1, 2, 3):
        pit.handle(TABLE, ev.Wager(table=TABLE, seat=seat, bet="ante", amount=1000))
        pit.handle(TABLE, ev.Wager(table=TABLE, seat=seat, bet="progressive", amount=100))
    pit.handle(TABLE, ev.BettingClosed(table=TABLE))
    for card in station.pit.tracker(TABLE).rules.deck.cards()[:3]:
        pit.handle(TABLE, CardRead(table=TABLE, source="shoe", card=card))


def abandon(station: Station) -> None:
    """Stop without the clean stop's checkpoint: what the next start finds after a kill -9."""
    station.checkpoints.stop()
    station.checkpoints = None
    station.stop()


@dataclass
class Template:
    database: Path  # the template's log (its schema is copied)
    prefix: list[tuple]  # rows before the template round, as stored
    round_rows: list[tuple]  # the template round's rows (its round number is TEMPLATE_ROUND)
    parts: str  # the checkpoint taken after it, as JSON text
    opening: meter.MeterState  # the meter before the template round


def record_template(folder: Path, table: StationTable) -> Template:
    """One round played by a real station after a round numbered ``TEMPLATE_ROUND - 1``."""
    station = Station([table], folder)
    station.start()
    pit = station.pit
    pit.handle(TABLE, ev.RoundOpen(table=TABLE, round_id=TEMPLATE_ROUND - 1))
    pit.handle(TABLE, ev.ApproveVoid(table=TABLE, user="bench", role="supervisor", reason="template start"))
    pit.handle(TABLE, ev.RoundClose(table=TABLE))
    before = station.log.last_seq()
    opening = station.controllers[TABLE].meter
    play(station, table, 1, seed=7)
    station.stop()  # the clean stop writes the checkpoint after the template round
    db = sqlite3.connect(folder / DB_NAME)
    rows = db.execute("SELECT * FROM events ORDER BY seq").fetchall()
    parts = db.execute("SELECT parts FROM log_checkpoint").fetchone()[0]
    db.close()
    for row in rows[before:]:
        if row[4] not in (None, TEMPLATE_ROUND):
            raise RuntimeError(f"template record {row[0]} belongs to round {row[4]}: the bench is broken")
    return Template(folder / DB_NAME, rows[:before], rows[before:], parts, opening)


_ROUND_TEXT = re.compile(rf'{TEMPLATE_ROUND}|"amount_after":\d+')


class History:
    """The template's rounds repeated with the next round numbers and a hash chain of their own."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.pieces = [_ROUND_TEXT.split(row[5]) for row in template.round_rows]
        self.holes = [_ROUND_TEXT.findall(row[5]) for row in template.round_rows]
        self.progressive = [
            event_from_dict(json.loads(row[5])) if row[3] in PROGRESSIVE_KINDS else None
            for row in template.round_rows
        ]
        self.state = template.opening
        self.seq = 0
        self.prev = "0" * 64
        self.last_round = TEMPLATE_ROUND - 1
        self.last_bodies: list[str] = []

    def write(self, path: Path, records: int) -> None:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        schema = sqlite3.connect(self.template.database)
        for (sql,) in schema.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"):
            db.execute(sql)
        schema.close()
        stamp = datetime(2025, 12, 1, tzinfo=UTC)
        batch: list[tuple] = []
        db.execute("BEGIN")
        for row in self.template.prefix:
            batch.append(self._row(row[1], row[2], row[3], row[4], row[5]))
        per_round = len(self.template.round_rows)
        while self.seq + per_round <= records:
            self.last_round += 1
            stamp += timedelta(seconds=90)
            at = stamp.isoformat(timespec="microseconds").replace("+00:00", "Z")
            self.last_bodies = []
            for index, row in enumerate(self.template.round_rows):
                body = self._body(index)
                self.last_bodies.append(body)
                batch.append(self._row(at, row[2], row[3], self.last_round if row[4] else None, body))
            if len(batch) >= BATCH:
                db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
                batch = []
        db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
        db.executemany(
            "INSERT INTO log_meta (key, value) VALUES (?, ?)",
            [("format", "1"), ("head_seq", str(self.seq)), ("head_hash", self.prev)],
        )
        store_checkpoint(db, Checkpoint(self.seq, self.prev, self._parts()))
        db.execute("COMMIT")
        db.close()

    def _body(self, index: int) -> str:
        pieces, holes = self.pieces[index], self.holes[index]
        event = self.progressive[index]
        if event is not None:
            self.state = apply_event(self.state, event)
        out = [pieces[0]]
        for hole, piece in zip(holes, pieces[1:], strict=True):
            number = hole == str(TEMPLATE_ROUND)
            out.append(str(self.last_round) if number else f'"amount_after":{self.state.amount}')
            out.append(piece)
        return "".join(out)

    def _row(self, at: str, table: str, kind: str, round_id: int | None, body: str) -> tuple:
        self.seq += 1
        digest = record_hash(self.seq, at, self.prev, body)
        row = (self.seq, at, table, kind, round_id, body, self.prev, digest)
        self.prev = digest
        return row

    def _parts(self) -> dict[str, Any]:
        """The template's checkpoint moved to the last round written: its numbers, its books'
        contributions as written, the meter as the history leaves it and the last record read."""
        parts = json.loads(self.template.parts.replace(str(TEMPLATE_ROUND), str(self.last_round)))
        part = parts[checkpoint_name(TABLE)]
        written = [json.loads(b) for b in self.last_bodies]
        for seat, event in part["books"][str(self.last_round)]["contributed"].items():
            event["amount_after"] = next(
                w["amount_after"] for w in written if w["kind"] == event["kind"] and str(w["seat"]) == seat
            )
        part["store"]["meter"] = self.state.to_dict()
        part["store"]["seen"] = self.seq
        return parts


def make_log(folder: Path, template: Template, records: int) -> float:
    history = History(template)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    history.write(folder / DB_NAME, records)
    return time.perf_counter() - started


def start(folder: Path, table: StationTable) -> tuple[float, Station]:
    station = Station([table], folder)
    began = time.perf_counter()
    station.start()
    return time.perf_counter() - began, station


def state_of(station: Station) -> dict[str, Any]:
    controller = station.controllers[TABLE]
    return {
        "snapshot": station.pit.tracker(TABLE).snapshot(),
        "progressive": controller.state(),
        "books": controller.checkpoint_state(),
    }


def drop_checkpoint(folder: Path) -> None:
    db = sqlite3.connect(folder / DB_NAME)
    db.execute("DELETE FROM log_checkpoint")
    db.commit()
    db.close()


def measure_once(folder: Path, table: StationTable) -> tuple[float, dict[str, Any], int]:
    took, station = start(folder, table)
    state = state_of(station)
    checkpoint = station.log.checkpoint
    after = station.log.last_seq() - (checkpoint.seq if checkpoint else 0)
    abandon(station)
    return took, state, after


def prepare(folder: Path, table: StationTable, template: Template, records: int, tail: int) -> dict[str, Any]:
    """The history, then ``tail`` records of real rounds and an open round after its checkpoint."""
    written = make_log(folder, template, records)
    station = Station([table], folder)
    station.start()
    first = station.log.last_seq()
    if station.log.checkpoint is None or station.log.checkpoint.seq != first:
        raise RuntimeError("the station did not start from the written history's checkpoint")
    appended = time.perf_counter()
    rounds = 0
    while station.log.last_seq() - first < tail - 60:  # an open round is some 20 records
        rounds += 1
        play(station, table, 1, seed=11 + rounds)
    open_round(station)
    per_record = (time.perf_counter() - appended) / max(1, station.log.last_seq() - first)
    kept = checkpoint_row(folder)
    if kept[1] != first:
        raise RuntimeError(
            f"a checkpoint was written during the tail: keep --tail-records below {DEFAULT_EVERY}"
        )
    costs = []
    for _ in range(3):
        began = time.perf_counter()
        station.checkpoints.write_now()
        costs.append(time.perf_counter() - began)
    abandon(station)
    # every measured start reads the tail again: the checkpoint is the one the station started from
    checkpoint_row(folder, kept)
    return {
        "records": records,
        "written_s": written,
        "size_gb": (folder / DB_NAME).stat().st_size / 1e9,
        "times": [],
        "append_s": per_record,
        "checkpoint_s": statistics.median(costs),
    }


def checkpoint_row(folder: Path, row: tuple | None = None) -> tuple:
    """The stored checkpoint row; with ``row``, put that one back in its place."""
    db = sqlite3.connect(folder / DB_NAME)
    with db:
        if row is not None:
            db.execute("DELETE FROM log_checkpoint")
            db.execute("INSERT INTO log_checkpoint VALUES (?, ?, ?, ?, ?)", row)
        found = db.execute("SELECT * FROM log_checkpoint").fetchone()
    db.close()
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dealerassist bench startup", description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000_000, help="the long log (default 20 M)")
    parser.add_argument("--small", type=int, default=200_000, help="the short log (default 200 k)")
    parser.add_argument(
        "--tail-records",
        type=int,
        default=DEFAULT_EVERY - 100,
        help=f"records of real rounds after the checkpoint (default {DEFAULT_EVERY - 100}: about the "
        "most a start after a kill reads)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="starts measured per size, taken in turns")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the logs are written")
    args = parser.parse_args(argv)
    table = bench_table()
    work = Path(tempfile.mkdtemp(prefix="dealerassist-startup-", dir=args.dir))
    try:
        template = record_template(work / "template", table)
        small = prepare(work / "small", table, template, args.small, args.tail_records)
        large = prepare(work / "large", table, template, args.records, args.tail_records)
        for _ in range(args.repeat):
            for result, folder in ((small, work / "small"), (large, work / "large")):
                took, result["state"], result["after"] = measure_once(folder, table)
                result["times"].append(took)
        shutil.rmtree(work / "large")
        full_times, full_state = [], {}
        for _ in range(2):
            drop_checkpoint(work / "small")
            took, full_state, _ = measure_once(work / "small", table)
            full_times.append(took)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(small, large, full_times, full_state == small["state"])
    return 0


def report(small: dict[str, Any], large: dict[str, Any], full: list[float], same: bool) -> None:
    def row(name: str, result: dict[str, Any]) -> str:
        median = statistics.median(result["times"])
        return (
            f"{name:6} {result['records']:>11,} records  {result['size_gb']:5.2f} GB  written in "
            f"{result['written_s']:6.1f} s  start from checkpoint {median:6.3f} s "
            f"(min {min(result['times']):.3f}, {result['after']} records after it)"
        )

    small_s, large_s = statistics.median(small["times"]), statistics.median(large["times"])
    full_s = statistics.median(full)
    extrapolated = full_s * large["records"] / small["records"]
    print(row("small", small))
    print(row("large", large))
    print(f"full read (no checkpoint) at {small['records']:,} records: {full_s:.3f} s (measured)")
    print(
        f"full read at {large['records']:,} records: {extrapolated:.0f} s "
        f"(extrapolated linearly from the measured {small['records']:,})"
    )
    print(f"full read / checkpoint, small: {full_s / small_s:.1f}x; large: {extrapolated / large_s:.0f}x")
    print(
        f"large / small from a checkpoint: {large_s / small_s:.2f} "
        f"(target within 20 %: {'met' if abs(large_s / small_s - 1) <= 0.2 else 'NOT met'}); "
        f"large {large_s:.3f} s vs target {TARGET_S:.0f} s: {'met' if large_s <= TARGET_S else 'NOT met'}"
    )
    print(f"same state from the checkpoint as from the full read (small): {'yes' if same else 'NO'}")
    every = DEFAULT_EVERY
    cost = large["checkpoint_s"]
    print(
        f"a checkpoint costs {cost * 1000:.1f} ms; {every} appends took {large['append_s'] * every:.1f} s "
        f"here: {100 * cost / (large['append_s'] * every):.2f} % (written from its own thread)"
    )


if __name__ == "__main__":
    sys.exit(main())
