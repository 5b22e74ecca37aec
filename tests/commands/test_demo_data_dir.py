"""``dealerassist demo`` never deletes data it did not make: a folder holding an earlier run's log or
accounts is refused in one line, and the default folder moves aside to a fresh one beside it."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import Wager

CLI = [sys.executable, "-m", "dealerassist"]
DEMO = ["demo", "--game", "three-card-poker", "--pace", "fast", "--rounds", "1", "--no-camera", "--port", "0"]


def _digest(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


def _station_log(folder: Path, records: int = 40) -> None:
    folder.mkdir(parents=True)
    with EventLog(folder / "events.sqlite3") as log:
        for i in range(records):
            log.append(Wager(table="tcp-1", seat=1, bet="ante", amount=500 + i, user="ana"))


@pytest.mark.parametrize("left", ["events.sqlite3", "users.sqlite3"])
def test_a_named_folder_holding_a_log_or_accounts_is_refused_and_left_alone(
    tmp_path: Path, left: str
) -> None:
    data = tmp_path / "table-data"
    _station_log(data)
    if left == "users.sqlite3":
        (data / "events.sqlite3").rename(data / "users.sqlite3")
    before = _digest(data)
    done = subprocess.run([*CLI, *DEMO, "--data-dir", str(data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"dealerassist: error: --data-dir {data}: holds {left} from before; the demo never replaces data "
        "it did not make: name a new or empty folder"
    ]
    assert _digest(data) == before  # not a byte changed


def test_the_default_folder_moves_aside_to_a_fresh_one_and_keeps_the_earlier_run(tmp_path: Path) -> None:
    _station_log(tmp_path / "var" / "demo", records=40)
    before = _digest(tmp_path / "var" / "demo")
    for expected in ("demo-2", "demo-3"):
        done = subprocess.run([*CLI, *DEMO], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"Data dir: {Path('var') / expected}" in done.stdout
    assert _digest(tmp_path / "var" / "demo") == before
    with EventLog(tmp_path / "var" / "demo" / "events.sqlite3", readonly=True) as log:
        assert log.verify().ok and log.last_seq() == 40
