"""``dealerassist run`` started while its linked meter (PostgreSQL) is down: the jackpot sign shows the
last amount the table's log recorded, marked, and never an amount that was not read or recorded."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from firmware_bridge.emulators.sign import SignEmulator
from tests.commands.test_run import CLI, Process
from tests.firmware_bridge.alpha_reader import WireTap
from tests.pgserver import ThrowawayPostgres
from tests.station.helpers import table_data, wait_for, write_table

pytestmark = pytest.mark.postgres


def test_a_station_restarted_during_a_meter_outage_never_shows_an_amount_not_read(tmp_path: Path) -> None:
    sign = SignEmulator()
    sign.serve_tcp("127.0.0.1", 0)
    sign.start()
    tap = WireTap()
    sign.on_wire.append(tap)
    pg = ThrowawayPostgres(durable=False)
    data = table_data("pairs-and-up", None, sign.url)
    data["progressive"].update(name="e2e-link", base="12345.67", link=pg.url)
    table = write_table(tmp_path / "pu.toml", data)
    args = [str(table), "--data-dir", str(tmp_path / "data"), "--host", "127.0.0.1", "--port", "0"]
    try:
        pg.start()
        first = Process(args)
        try:
            wait_for(lambda: sign.text() == "JACKPOT $12,345.67", timeout=30, what="the meter read")
        finally:
            first.proc.kill()  # a crash, not a clean stop
            first.proc.wait(timeout=20)
        pg.kill()
        tap.wire.clear()
        again = Process(args)
        try:
            wait_for(
                lambda: sign.text() == "PROGRESSIVE LINK DOWN | LAST KNOWN $12,345.67",
                timeout=30,
                what="the amount the log recorded, marked",
            )
            again.url()
            # the last line before run's SIGTERM handler is in place: a SIGTERM now is a clean stop
            wait_for(lambda: any("no dashboard accounts" in x for x in again.lines), what="run's main loop")
            pg.start()
            wait_for(lambda: sign.text() == "JACKPOT $12,345.67", timeout=30, what="the meter read again")
        finally:
            code, stderr = again.stop()
        assert code == 0, stderr
    finally:
        pg.stop()
        sign.stop()
    assert set(tap.amounts()) == {"$12,345.67"}, tap.amounts()
    assert tap.changes() == ["", "PROGRESSIVE LINK DOWN | LAST KNOWN $12,345.67", "JACKPOT $12,345.67"]
    done = subprocess.run(
        [*CLI, "audit", "verify", "--db", str(tmp_path / "data" / "events.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("ok:"), done.stdout + done.stderr
