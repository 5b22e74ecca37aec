"""kill -9 at random instants: the meter replayed from the log ends exactly as in an unbroken run."""

from __future__ import annotations

import os
import random
import signal
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


def timed_run(log_path: Path, rounds: int, extra: Sequence[str] = ()) -> float:
    """An unbroken run of the table process (the reference); returns its wall time."""
    begun = time.monotonic()
    assert start_driver(log_path, rounds, extra).wait(timeout=300) == 0
    return time.monotonic() - begun


def run_with_kills(
    log_path: Path, rounds: int, kills: int, seed: int, full_s: float, extra: Sequence[str] = ()
) -> int:
    """Start the driver, SIGKILL it at a random instant, repeat; then let it finish. Returns how many
    kills landed while it was running.

    ``full_s`` is an unbroken run's time; a run of no rounds gives the start-up time, and each kill
    falls after a random share of the work beyond it, so the kills spread over the whole run."""
    # The log file is created before the first start: creating a log is not one transaction in
    # EventLog, and a kill during creation leaves a file it refuses to open (reported to storage).
    startup_s = timed_run(log_path.with_name(f"{log_path.stem}-startup.db"), 0, extra)
    work_s = max(full_s - startup_s, 0.05)
    EventLog(log_path).close()
    rng = random.Random(seed)
    landed = 0
    for attempt in range(kills + 1):
        child = start_driver(log_path, rounds, extra)
        if attempt < kills:
            time.sleep(startup_s * rng.uniform(0.8, 1.0) + rng.uniform(0.0, 1.6) * work_s / kills)
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
    full_s = timed_run(tmp_path / "reference.db", rounds)
    broken = tmp_path / "killed.db"
    killed = run_with_kills(broken, rounds, kills, seed, full_s)
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
    check_same_as_unbroken(tmp_path, rounds=800, kills=40, seed=2026)
