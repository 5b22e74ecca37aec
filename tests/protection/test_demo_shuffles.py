"""``dealerassist demo`` at a six-deck blackjack table writes a shuffle record before each new shoe,
and ``dealerassist protect`` counts every round of the log from them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dealerassist.protection.counting import counts_before
from dealerassist.protection.records import SHUFFLE, read_rounds
from dealerassist.storage.eventlog import EventLog

CLI = [sys.executable, "-m", "dealerassist"]
ROUNDS = 40


def test_the_demo_dealer_records_each_new_shoe_and_protect_counts_every_round(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    demo = [*CLI, "demo", "--game", "perfect-pairs-blackjack", "--pace", "fast", "--rounds", str(ROUNDS)]
    done = subprocess.run(
        [*demo, "--no-camera", "--port", "0", "--seed", "5", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    db = data / "events.sqlite3"
    with EventLog(db, readonly=True) as log:
        records = list(log.records())
        rounds = read_rounds(log)
    shuffles = [r for r in records if r.event.kind == "meta" and r.event.to_dict()["data"] == SHUFFLE]
    assert len(shuffles) >= 2, "40 rounds at a six-deck table go through more than one shoe"
    assert shuffles[0].seq < min(r.seq for r in records if r.event.kind == "round-open")
    counts = counts_before(rounds)
    assert sorted(counts) == list(range(1, ROUNDS + 1)), "every round's count is known"
    fresh = [r.round_id for r in rounds if r.shuffled_before]
    assert len(fresh) == len(shuffles) and fresh[0] == 1
    for round_ in rounds:
        if round_.shuffled_before:
            assert counts[round_.round_id].cards_seen == 0
        else:
            assert counts[round_.round_id].cards_seen > 0  # no shuffle inferred from impossible cards
    report = json.loads(
        subprocess.run(
            [*CLI, "protect", "--db", str(db), "--json"], capture_output=True, text=True, timeout=120
        ).stdout
    )
    counted = sum(s["counting"]["rounds"] for s in report["sessions"])
    betting = sum(1 for r in rounds for bets in r.wagers.values() if bets.get("main", 0) > 0)
    assert counted == betting
