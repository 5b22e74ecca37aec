"""A backup is checked anywhere: ``audit verify``, ``audit rounds`` and ``export`` read a
``dealerassist backup`` copy from a read-only folder, and the readers never write to a log.

As root (which ignores file permissions) the folder is bind-mounted read-only onto itself; as any
other user its permissions are taken away (``tests/mounts.py``). Either way the kernel refuses
every write in it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import RoundOpen, Wager
from tests.mounts import read_only

CLI = [sys.executable, "-m", "dealerassist"]
DEMO = ["demo", "--game", "three-card-poker", "--pace", "fast", "--rounds", "3", "--no-camera", "--port", "0"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def _readers(db: Path) -> dict[str, str]:
    """What surveillance reads from a log: the chain check, the round summaries, the export."""
    out = {}
    for name, args in {
        "verify": ["audit", "verify", "--db", str(db)],
        "rounds": ["audit", "rounds", "--db", str(db), "--json"],
        "export": ["export", "--db", str(db)],
    }.items():
        done = _cli(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, f"{name}: {done.stdout}{done.stderr}"
        out[name] = done.stdout.replace(str(db), "DB")
    return out


def test_a_backup_is_verified_rounds_listed_and_exported_from_a_read_only_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    demo = _cli(*DEMO, "--seed", "5", "--data-dir", str(data))
    assert demo.returncode == 0, demo.stdout + demo.stderr
    copied = _cli("backup", "--data-dir", str(data), "--out", str(tmp_path / "backups"))
    assert copied.returncode == 0, copied.stderr
    shelf = tmp_path / "shelf"  # what reaches the other machine: the copies alone
    shutil.copytree(tmp_path / "backups", shelf)
    [copy] = shelf.glob("events-*.sqlite3")
    expected = _readers(data / "events.sqlite3")
    listing = sorted(p.name for p in shelf.iterdir())
    with read_only(shelf):
        with pytest.raises(OSError):
            (shelf / "probe").write_text("x")  # the kernel refuses writes here
        found = _readers(copy)
    assert found == expected and found["verify"].startswith("ok:")
    assert len(found["rounds"].splitlines()) == 3
    exported = tmp_path / "export.jsonl"
    exported.write_text(found["export"], encoding="utf-8")
    verify_export = _cli("audit", "verify-export", str(exported))
    assert verify_export.returncode == 0 and verify_export.stdout.startswith("ok:")
    assert sorted(p.name for p in shelf.iterdir()) == listing  # no journal, no -shm left behind


def test_a_wal_log_copied_by_hand_reads_from_a_read_only_folder_unless_its_wal_holds_records(
    tmp_path: Path,
) -> None:
    closed, live = tmp_path / "closed", tmp_path / "live"
    closed.mkdir()
    live.mkdir()
    with EventLog(tmp_path / "events.sqlite3") as log:
        for i in range(20):
            log.append(Wager(table="tcp-1", seat=1, bet="ante", amount=500 + i, user="ana"))
        # copied while the writer has it open: the last records are only in the -wal file
        for name in ("events.sqlite3", "events.sqlite3-wal"):
            shutil.copy(tmp_path / name, live / name)
    shutil.copy(tmp_path / "events.sqlite3", closed / "events.sqlite3")  # closed cleanly: WAL folded in
    with read_only(closed), read_only(live):
        ok = _cli("audit", "verify", "--db", str(closed / "events.sqlite3"))
        refused = _cli("audit", "verify", "--db", str(live / "events.sqlite3"))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: 20 records"), ok.stdout + ok.stderr
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == (
        f"dealerassist: error: {live / 'events.sqlite3'}: cannot be read here: its folder is read-only and "
        "events.sqlite3-wal holds records not yet in the database; copy both files to a writable folder, "
        "or read a 'dealerassist backup' copy"
    )


def test_the_dashboards_surveillance_reads_through_a_read_only_connection(tmp_path: Path) -> None:
    from dealerassist.station.dashboard import build_dashboard
    from dealerassist.station.station import Station
    from dealerassist.station.tables import check_table
    from dealerassist.storage.eventlog import LogError
    from dealerassist.tablefiles.tables import load_table

    station = Station([check_table(load_table("three-card-poker"))], tmp_path / "data")
    station.start()
    try:
        runtime = build_dashboard(station).extensions["dealerassist"]
        station.pit.handle("tcp-1", RoundOpen(table="tcp-1"))
        assert runtime.reader is not station.log and runtime.reader.readonly
        assert runtime.verify_chain()["ok"] and runtime.verify_chain()["checked"] == station.log.last_seq()
        with pytest.raises(LogError, match="opened read-only"):
            runtime.reader.append(Wager(table="tcp-1", seat=1, bet="ante", amount=500))
    finally:
        station.stop()
