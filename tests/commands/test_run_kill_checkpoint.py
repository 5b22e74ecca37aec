"""``dealerassist run`` killed with SIGKILL in the middle of a round starts again from its checkpoint:
after whole rounds dealt by the simulated dealer over the dashboard's API and the shoe emulator over
TCP, the open round and the progressive meter come back as they were, and the log verifies."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealerassist.simulation.dealer import PACES, Chances, SimulatedDealer
from dealerassist.tablefiles.tables import load_table
from firmware_bridge.emulators.shoe import ShoeEmulator
from tests.commands.remote_pit import RemotePit
from tests.commands.test_run import CLI, Process
from tests.station.helpers import shoe_on_tcp, table_data, wait_for, write_table
from tests.web.dashboard_http import HttpUser

PASSWORD = "a-strong-password"


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with shoe_on_tcp(tmp_path / "shoe.json", seed=4) as emulator:
        yield emulator


def _start(table: Path, data_dir: Path) -> tuple[Process, HttpUser]:
    process = Process([str(table), "--data-dir", str(data_dir), "--host", "127.0.0.1", "--port", "0"])
    user = HttpUser(process.url().rstrip("/"))
    user.login("sam", PASSWORD)
    return process, user


def _table_view(user: HttpUser) -> dict[str, Any]:
    body = json.loads(user.get("/api/tables/pu-1/snapshot").read())
    snapshot = body["snapshot"]
    state = json.loads(user.get("/api/progressive?table=pu-1").read())
    return {"snapshot": snapshot, "last_seq": body["last_seq"], "progressive": state}


def _cards_dealt(view: dict[str, Any]) -> int:
    return sum(len(cards) for cards in view["snapshot"]["positions"].values())


def _kill(process: Process) -> None:
    process.proc.send_signal(signal.SIGKILL)
    process.proc.wait(timeout=20)


def test_a_killed_run_restarts_from_its_checkpoint_with_the_open_round(
    tmp_path: Path, shoe: ShoeEmulator
) -> None:
    table = write_table(tmp_path / "pu.toml", table_data("pairs-and-up", shoe.url))
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    added = subprocess.run(
        [*CLI, "users", "add", "sam", "--role", "admin", "--users", str(data_dir / "users.sqlite3")],
        input=PASSWORD + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr

    process, user = _start(table, data_dir)
    first = "\n".join(process.lines)
    assert "start from the checkpoint" not in first  # a new log: nothing to start from yet
    dealer = SimulatedDealer(
        load_table(table),
        RemotePit(user, "pu-1"),
        shoe,
        rng=random.Random(8),
        pace=PACES["fast"],
        chances=Chances(exposure=0.0, misread=0.0, jackpot=0.0),
        say=lambda _text: None,
    )
    tally = dealer.run(threading.Event(), rounds=2)
    assert (tally.settled, tally.stopped_by) == (2, ""), tally
    played = _table_view(user)["progressive"]["meters"]["qualifying_wagers"]
    assert user.act("pu-1", "round-open")[0] == 200
    for seat in (1, 2, 3):
        assert user.act("pu-1", "wager", seat=seat, bet="ante", amount="10")[0] == 200
        assert user.act("pu-1", "wager", seat=seat, bet="progressive", amount="1")[0] == 200
    assert user.act("pu-1", "betting-closed")[0] == 200
    for _ in range(4):
        shoe.deal()
    before = wait_for(lambda: (v := _table_view(user)) and _cards_dealt(v) == 4 and v, what="four cards")
    _kill(process)

    process, user = _start(table, data_dir)
    try:
        after = _table_view(user)
        for _ in range(2):
            shoe.deal()
        dealt = wait_for(lambda: (v := _table_view(user)) and _cards_dealt(v) == 6 and v, what="six cards")
    finally:
        code, stderr = process.stop()
    out = "\n".join(process.lines)
    assert code == 0 and "Traceback" not in stderr, stderr
    assert "start from the checkpoint at record" in out and "checkpoint ignored" not in out
    assert after["snapshot"]["positions"] == before["snapshot"]["positions"]
    assert after["snapshot"]["wagers"] == before["snapshot"]["wagers"]
    assert after["snapshot"]["round_id"] == before["snapshot"]["round_id"] == 3
    assert after["progressive"] == before["progressive"]
    assert after["progressive"]["meters"]["qualifying_wagers"] == played + 3
    assert _cards_dealt(dealt) == 6  # the shoe's next cards continue the same round, none lost

    verified = subprocess.run(
        [*CLI, "audit", "verify", "--db", str(data_dir / "events.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verified.returncode == 0 and verified.stdout.startswith("ok:"), verified.stdout
