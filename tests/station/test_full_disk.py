"""A full or read-only disk under the data folder: one clear line each, an alarm, no traceback,
nothing lost, and the station goes on by itself when space returns.

The data folder is a real 8 MB tmpfs filled to the last byte, or a folder mounted read-only
(``tests/mounts.py``); the station is the real ``dealerassist run`` with the shoe emulator on TCP.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.emulators.shoe import ShoeEmulator
from tests.commands.test_run import Process, _healthz
from tests.mounts import fill, read_only, small_disk
from tests.station.helpers import shoe_on_tcp, table_data, wait_for, write_table
from tests.web.dashboard_http import HttpUser

CLI = [sys.executable, "-m", "dealerassist"]
DEALER = ("dee", "dealer password 1")


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with shoe_on_tcp(tmp_path / "shoe.json", seed=3, deck="standard-52") as emulator:
        yield emulator


def _records(db: Path) -> list[dict]:
    done = subprocess.run([*CLI, "export", "--db", str(db)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["event"] for line in done.stdout.splitlines()]


def _dealt(db: Path) -> list[str]:
    return [e["card"] for e in _records(db) if e["kind"] == "card-dealt"]


def test_a_full_disk_is_said_once_refuses_nothing_it_loses_and_recovers(
    tmp_path: Path, shoe: ShoeEmulator
) -> None:
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", shoe.url))
    with small_disk(tmp_path / "data", "8m") as data:
        subprocess.run(
            [*CLI, "users", "add", DEALER[0], "--role", "dealer", "--users", str(data / "users.sqlite3")],
            input=DEALER[1] + "\n",
            text=True,
            check=True,
            capture_output=True,
        )
        process = Process([str(table), "--data-dir", str(data), "--port", "0"])
        try:
            url = process.url()
            wait_for(lambda: _healthz(url)[0] == 200, what="healthy")
            dealer = HttpUser(url.rstrip("/"))
            dealer.login(*DEALER)
            for kind, body in (("round-open", {}), ("wager", {"seat": 1, "bet": "ante", "amount": 1000})):
                assert dealer.act("tcp-1", kind, **body)[0] == 200
            assert dealer.act("tcp-1", "betting-closed")[0] == 200

            filler = fill(data)
            cards = ["AS", "KS", "QS"]
            for card in cards:
                shoe.deal(card)
            _, body = wait_for(lambda: (r := _healthz(url))[0] == 503 and r, what="the log reported")
            assert body["log"]["ok"] is False and "the disk is full" in body["log"]["problem"]
            refused = dealer.act("tcp-1", "dealer-reveal")
            assert refused[0] == 503 and "not recorded: the disk is full" in refused[1]["message"]
            wait_for(lambda: shoe.pending() > 0, what="the shoe holding its unacknowledged cards")

            filler.unlink()
            wait_for(lambda: _healthz(url)[0] == 200, timeout=20, what="healthy again")
            wait_for(lambda: any("takes records again" in x for x in process.lines), what="the recovery said")
            wait_for(
                lambda: len(_dealt(data / "events.sqlite3")) == 3, what="the shoe's repeated cards dealt"
            )
        finally:
            code, stderr = process.stop()
        assert code == 0, stderr
        out = "\n".join(process.lines)
        assert "Traceback" not in out + stderr
        said = [line for line in process.lines if "cannot be written since" in line]
        assert len(said) == 1 and said[0].startswith("ERROR dealerassist.station: event log")
        assert len([line for line in process.lines if "takes records again" in line]) == 1
        db = data / "events.sqlite3"
        verify = subprocess.run([*CLI, "audit", "verify", "--db", str(db)], capture_output=True, text=True)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        events = _records(db)
    assert [
        e["card"] for e in events if e["kind"] == "card-dealt"
    ] == cards  # each card of the outage once, in order: none lost, none doubled
    [outage] = [e for e in events if e["kind"] == "device-link" and e["device"] == "event-log"]
    assert not outage["up"] and "the disk is full" in outage["detail"]
    alarms = [e for e in events if e["kind"] == "alarm" and e["code"] == "device-link"]
    assert any("event-log link down" in a["message"] for a in alarms)


@pytest.mark.parametrize("command", ["run", "demo"])
def test_a_read_only_data_folder_is_named_in_one_line(tmp_path: Path, command: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", None))
    args = [str(table)] if command == "run" else ["--game", "three-card-poker", "--no-camera"]
    with read_only(data):
        done = subprocess.run(
            [*CLI, command, *args, "--data-dir", str(data), "--port", "0"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"dealerassist: error: {data / 'events.sqlite3'}: cannot write the event log: the folder is "
        "read-only; free space or choose a writable --data-dir (the file was left untouched)"
    ]


def test_a_full_disk_at_start_is_named_in_one_line(tmp_path: Path) -> None:
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", None))
    with small_disk(tmp_path / "data", "1m") as data:
        fill(data)
        done = subprocess.run(
            [*CLI, "run", str(table), "--data-dir", str(data), "--port", "0"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("dealerassist: error: ") and "the disk is full" in line
