"""Simulated players through the real tracker into a file log; ``dealerassist protect`` in its own
process finds the cheats (and only them), names their rounds, and leaves the log as it was."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker

ROOT = Path(__file__).resolve().parents[2]


def simulate(db: Path, game: str, kinds: dict[int, str], rounds: int, seed: int) -> None:
    with EventLog(db) as log:
        tracker = Tracker(load_table(game), log)
        players = {seat: seated(kind, random.Random(seed + seat)) for seat, kind in kinds.items()}
        session = TableSession(tracker, players, random.Random(seed))
        for _ in range(rounds):
            session.play_round()


def protect(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "dealerassist", "protect", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_a_hole_carder_is_flagged_with_the_rounds_and_honest_seats_are_not(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    simulate(db, "three-card-poker", {1: "perfect", 2: "hole-carder", 3: "perfect"}, rounds=60, seed=3)
    with EventLog(db, readonly=True) as log:
        before = (log.last_seq(), log.verify().ok)
    done = protect("--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    flags = report["flags"]
    assert [(f["kind"], f["subject"]) for f in flags] == [("hole-card", "tcp-1 seat 2 rounds 1-60")]
    stat = flags[0]["statistic"]
    assert stat["decisions"] == 60 and stat["matches"] == 60
    assert stat["followed_informed"] == stat["discordant"] > stat["expected_followed"]
    assert flags[0]["p_value"] < 1e-4 and flags[0]["rounds"]
    assert set(flags[0]["rounds"]) <= set(range(1, 61))
    honest = [s for s in report["sessions"] if s["seat"] != 2]
    assert len(honest) == 2 and all(s["hole_card"]["cost_cents"] == 0 for s in honest)
    with EventLog(db, readonly=True) as log:
        assert (log.last_seq(), log.verify().ok) == before  # read-only: nothing written
    text = protect("--db", str(db))
    assert text.returncode == 0 and "FLAG hole-card tcp-1 seat 2 rounds 1-60" in text.stdout


def test_a_counter_spreading_with_the_true_count_is_flagged(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    simulate(db, "perfect-pairs-blackjack", {1: "perfect", 3: "counter", 5: "perfect"}, rounds=160, seed=5)
    report = json.loads(protect("--db", str(db), "--json").stdout)
    assert [(f["kind"], f["subject"]) for f in report["flags"]] == [
        ("counting", "ppbj-1 seat 3 rounds 1-160")
    ]
    stat = report["flags"][0]["statistic"]
    assert (
        stat["spearman_rho"] > 0.3 and stat["mean_bet_true_count_2_up"] > stat["mean_bet_true_count_below_1"]
    )


def test_the_time_window_and_bad_options_are_clean(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    simulate(db, "three-card-poker", {1: "perfect"}, rounds=3, seed=1)
    late = json.loads(protect("--db", str(db), "--json", "--from", "2999-01-01").stdout)
    assert late == {"flags": [], "sessions": [], "dealers": []}
    for args, words in (
        (("--alpha", "2"), "--alpha: must be between 0 and 1"),
        (("--from", "yesterday"), "--from: not an ISO-8601"),
        (("--table", "nope"), "--table nope: no records"),
        (("--shift-hours", "0"), "--shift-hours: must be more than 0"),
    ):
        done = protect("--db", str(db), *args)
        assert done.returncode != 0 and words in done.stderr and "Traceback" not in done.stderr
    missing = protect("--db", str(tmp_path / "none.db"))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr


def test_the_benchmark_reports_rounds_to_flag_and_false_alarms(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import protection as bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    args = [
        "--tables",
        "1",
        "--table-rounds",
        "40",
        "--rounds",
        "60",
        "--null-sessions",
        "5",
        "--null-deals",
        "20",
        "--json",
    ]
    assert bench.main(args) == 0
    results = json.loads(capsys.readouterr().out)
    assert set(results) == {
        "three-card-poker hole-carder",
        "three-card-poker one-card-hole-carder",
        "pairs-and-up hole-carder",
        "four-card-poker hole-carder",
        "perfect-pairs-blackjack counter",
        "perfect-pairs-blackjack hole-carder",
    }
    for game, r in results.items():
        assert r["cheat_sessions"] == 1 and r["honest_sessions_through_tracker"] == 5, game
        assert r["honest_flagged_through_tracker"] == 0, game
        assert 0.0 <= r["false_alarm_at_end"] <= r["false_alarm_any_look"] <= 1.0
    assert results["three-card-poker hole-carder"]["cheat_flagged"] == 1
    assert results["three-card-poker hole-carder"]["median_rounds_to_flag"] <= 40
