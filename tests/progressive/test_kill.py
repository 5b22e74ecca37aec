"""kill -9 at random instants: the meter replayed from the log ends exactly as in an unbroken run."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from dealerassist.progressive.events import PROGRESSIVE_KINDS, replay
from dealerassist.storage.eventlog import EventLog

ROOT = Path(__file__).resolve().parents[2]


def start_driver(log_path: Path, rounds: int, extra: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    """The table process; ``extra`` are its optional table and shared-meter URL arguments."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tests.progressive.kill_driver", str(log_path), str(rounds), *extra]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def records_in(log_path: Path) -> int:
    """How far the table got: the log's last record number (0 before it exists)."""
    try:
        with sqlite3.connect(f"file:{log_path}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0


def run_with_kills(
    log_path: Path, rounds: int, kills: int, seed: int, total: int, extra: Sequence[str] = ()
) -> int:
    """Start the driver, SIGKILL it at a random instant, repeat; then let it finish. Returns how many
    kills landed while it was running.

    ``total`` is how many records an unbroken run logs. The kill points are random record counts
    over the whole run (plus a random few milliseconds), so however fast or loaded the machine is,
    the kills spread over every phase: start-up, betting close, settlement, confirmation."""
    # The log file is created before the first start: creating a log is not one transaction in
    # EventLog, and a kill during creation leaves a file it refuses to open (reported to storage).
    EventLog(log_path).close()
    rng = random.Random(seed)
    targets = sorted(rng.sample(range(1, total), kills))
    landed = 0
    for attempt in range(kills + 1):
        child = start_driver(log_path, rounds, extra)
        if attempt < kills:
            while child.poll() is None and records_in(log_path) < targets[attempt]:
                time.sleep(0.002)
            time.sleep(rng.uniform(0.0, 0.01))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                landed += 1
        assert child.wait(timeout=300) in (0, -signal.SIGKILL)
        if child.returncode == 0:
            break
    return landed


def own_events(path: Path) -> list:
    return [r.event for r in EventLog(path).records() if r.event.kind in PROGRESSIVE_KINDS]


def check_same_as_unbroken(tmp_path: Path, rounds: int, kills: int, seed: int) -> None:
    assert start_driver(tmp_path / "reference.db", rounds).wait(timeout=300) == 0
    broken = tmp_path / "killed.db"
    killed = run_with_kills(broken, rounds, kills, seed, records_in(tmp_path / "reference.db"))
    assert killed >= min(kills, 3), "the driver finished before it could be killed: nothing was tested"
    log = EventLog(broken)
    assert log.verify().ok
    events = [r.event for r in log.records()]
    own = [e for e in events if e.kind in PROGRESSIVE_KINDS]
    keys = Counter(e.key for e in own)
    assert max(keys.values()) == 1, f"counted twice: {[k for k, n in keys.items() if n > 1]}"
    state = replay(own, "fortune-link")
    assert state == replay(own_events(tmp_path / "reference.db")), "the meter differs from an unbroken run's"
    assert state.balanced and not state.pending
    ref_kinds = Counter(r.event.kind for r in EventLog(tmp_path / "reference.db").records())
    assert Counter(e.kind for e in events) == ref_kinds


def test_kill_minus_nine_loses_nothing_and_counts_nothing_twice(tmp_path: Path) -> None:
    check_same_as_unbroken(tmp_path, rounds=120, kills=5, seed=7)


@pytest.mark.slow
def test_kill_minus_nine_at_many_random_instants(tmp_path: Path) -> None:
    check_same_as_unbroken(tmp_path, rounds=500, kills=30, seed=2026)
