"""kill -9 at random instants: the meter replayed from the log ends exactly as in an unbroken run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from dealerassist.progressive.events import PROGRESSIVE_KINDS, replay
from dealerassist.storage.eventlog import EventLog
from tests.progressive import kill_driver

ROOT = Path(__file__).resolve().parents[2]


def run_with_kills(log_path: Path, rounds: int, kills: int, seed: int) -> int:
    """Start the driver, SIGKILL it after a random delay, repeat; then let it finish. Returns kills."""
    rng = random.Random(seed)
    done_kills = 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for attempt in range(kills + 1):
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.progressive.kill_driver", str(log_path), str(rounds)],
            cwd=ROOT,
            env=env,
        )
        if attempt < kills:
            time.sleep(rng.uniform(0.2, 0.45))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                done_kills += 1
        assert child.wait(timeout=120) in (0, -signal.SIGKILL)
        if child.returncode == 0:
            break
    return done_kills


def check_same_as_unbroken(tmp_path: Path, rounds: int, kills: int, seed: int) -> None:
    reference = kill_driver.play(tmp_path / "reference.db", rounds)
    broken = tmp_path / "killed.db"
    killed = run_with_kills(broken, rounds, kills, seed)
    assert killed >= min(kills, 3), "the driver finished before it could be killed: nothing was tested"
    # A last clean start must find nothing left to do.
    log = EventLog(broken)
    assert log.verify().ok
    events = [r.event for r in log.records()]
    own = [e for e in events if e.kind in PROGRESSIVE_KINDS]
    keys = Counter(e.key for e in own)
    assert max(keys.values()) == 1, f"counted twice: {[k for k, n in keys.items() if n > 1]}"
    state = replay(own, "fortune-link")
    assert state == reference.meter, "the killed run's meter differs from the unbroken run's"
    assert state.balanced and not state.pending
    ref_log = EventLog(tmp_path / "reference.db")
    ref_kinds = Counter(r.event.kind for r in ref_log.records())
    assert Counter(e.kind for e in events) == ref_kinds


def test_kill_minus_nine_loses_nothing_and_counts_nothing_twice(tmp_path: Path) -> None:
    check_same_as_unbroken(tmp_path, rounds=200, kills=6, seed=7)


@pytest.mark.slow
def test_kill_minus_nine_at_many_random_instants(tmp_path: Path) -> None:
    check_same_as_unbroken(tmp_path, rounds=800, kills=40, seed=2026)
