"""Game-protection page cost: a view's time against ``protect`` over the whole log, same run.

A Three Card Poker table with six seated simulated players (one hole-carder) plays ``--rounds``
rounds through the real tracker into a file log. Then, on a read-only reader as the station's
surveillance pages use:

* baseline: what ``dealerassist protect`` does, the whole log read and every session reviewed;
* the page (``web.protection.ProtectionWatch``, bound ``--bound`` rounds): the first view (the
  kept rounds folded from the log), a view at the same head (cached), and a view after one more
  round (the new records folded, the report computed again).

Printed: seconds and each view's ratio to the baseline. The page's cost follows the bound, the
baseline's the log: run with two ``--rounds`` values to see one stay and the other grow.

    dealerassist bench protection_page                      # 1,500 rounds, bound 500
    dealerassist bench protection_page --rounds 600 --bound 200
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from dealerassist.protection.records import read_rounds
from dealerassist.protection.report import protect
from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.web.history import LogIndex
from dealerassist.web.protection import MAX_ROUNDS, ProtectionWatch

SEATS = {1: "perfect", 2: "hole-carder", 3: "perfect", 4: "perfect", 5: "perfect", 6: "perfect"}


def _timed(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dealerassist bench protection_page", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rounds", type=int, default=1500, help="rounds in the log (default 1500)")
    parser.add_argument(
        "--bound", type=int, default=MAX_ROUNDS, help=f"rounds a view analyses (default {MAX_ROUNDS})"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-protection-page-") as folder:
        db = Path(folder) / "events.sqlite3"
        with EventLog(db) as writer:
            tracker = Tracker(load_table("three-card-poker"), writer)
            players = {seat: seated(kind, random.Random(seat)) for seat, kind in SEATS.items()}
            table = TableSession(tracker, players, random.Random(0))
            for _ in range(args.rounds):
                table.play_round()
            with EventLog(db, readonly=True) as reader:
                baseline = _timed(lambda: protect(read_rounds(reader)))
                index = LogIndex(reader)
                index_s = _timed(index.refresh)
                watch = ProtectionWatch(reader, index, max_rounds=args.bound)
                first = _timed(watch.findings)
                cached = _timed(watch.findings)
                table.play_round()
                after_round = _timed(watch.findings)
                records = reader.last_seq()
    result = {
        "rounds": args.rounds,
        "records": records,
        "bound": args.bound,
        "protect_whole_log_s": round(baseline, 3),
        "round_index_s": round(index_s, 3),
        "first_view_s": round(first, 3),
        "same_head_view_s": round(cached, 4),
        "view_after_a_round_s": round(after_round, 3),
        "first_view_ratio": round(first / baseline, 3),
        "view_after_a_round_ratio": round(after_round / baseline, 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:<26} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
