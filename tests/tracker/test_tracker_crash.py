"""kill -9 at random instants: no durable input is lost or duplicated, and the rebuilt round is
exactly the round a fresh tracker makes of the same inputs."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dealer_bot import make_script
from highcard_game import high_card_rules

from dealerassist.errors import DealerAssistError
from dealerassist.events import event_from_dict
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker
from dealerassist.tracker.events import INPUT_KINDS

HERE = Path(__file__).parent
TABLE = "hc-1"


def _child(db: Path, script: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen(
        [sys.executable, str(HERE / "crash_child.py"), str(db), str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def _logged_inputs(db: Path) -> list[dict]:
    """Every input in the log as it was sent: accepted inputs, and refused ones from their record."""
    with EventLog(db) as log:
        assert log.verify().ok
        found = []
        for record in log.records(table=TABLE):
            if record.event.kind == "refused":
                found.append(("refused", record.event.input))  # type: ignore[attr-defined]
            elif record.event.kind in INPUT_KINDS:
                found.append(("input", record.event.to_dict()))
        return found


def _as_logged(data: dict) -> dict:
    try:
        return event_from_dict(data).to_dict()
    except DealerAssistError:
        return data


def _fresh_snapshot(inputs: list[dict]) -> dict:
    log = EventLog(":memory:")
    tracker = Tracker(high_card_rules(TABLE), log)
    for data in inputs:
        try:
            tracker.handle_data(data)
        except DealerAssistError:
            pass
    snapshot = tracker.snapshot()
    log.close()
    return snapshot


def _rebuilt_snapshot(db: Path) -> dict:
    with EventLog(db) as log:
        return Tracker(high_card_rules(TABLE), log).snapshot()


def _check(db: Path, script: list[dict], reported: int) -> int:
    if not db.exists():
        assert reported == 0, "inputs were reported durable but the log file does not exist"
        return 0
    logged = _logged_inputs(db)
    assert len(logged) >= reported, (
        f"{reported} inputs were reported durable but only {len(logged)} are logged"
    )
    for index, (how, data) in enumerate(logged):
        expected = script[index]
        if how == "refused":
            assert data == expected, f"log entry {index} is not script input {index}"
        else:
            assert data == _as_logged(expected), f"log entry {index} is not script input {index}"
    assert _rebuilt_snapshot(db) == _fresh_snapshot(script[: len(logged)])
    return len(logged)


def run_kills(tmp_path: Path, seed: int, rounds: int, kills: int) -> int:
    rng = random.Random(seed)
    script = make_script(seed, rounds)
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    db = tmp_path / "events.db"
    killed = 0
    for _ in range(kills * 5):
        child = _child(db, script_path)
        early = rng.random() < 0.15
        if not early:
            assert child.stdout is not None
            assert child.stdout.readline().startswith("ready")
        time.sleep(rng.uniform(0.0, 0.01 if early else 0.04))
        finished = child.poll() is not None
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=30)
        reported = [int(line) for line in out.split() if line.isdigit()]
        logged = _check(db, script, max(reported, default=-1) + 1)
        if finished or logged == len(script):
            break
        killed += 1
        if killed >= kills:
            break
    child = _child(db, script_path)
    out, _ = child.communicate(timeout=120)
    assert out.strip().endswith("done")
    assert _check(db, script, len(script)) == len(script)
    return killed


def test_a_few_kills_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    assert run_kills(tmp_path, seed=7, rounds=6, kills=3) >= 1


@pytest.mark.slow
def test_thirty_five_kills_over_many_rounds(tmp_path: Path) -> None:
    # A loaded machine lets a child run further between kills, so fewer kills fit in the script;
    # at least 20 must land mid-script (each one checked for loss and duplication by run_kills).
    assert run_kills(tmp_path, seed=2026, rounds=140, kills=35) >= 20
