"""The floor link cut during play (PostgreSQL stopped) and restored: nothing lost, nothing doubled."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import urlopen

import psycopg
import pytest

from dealerassist.cli import main
from dealerassist.simulation.demo import Demo, DemoOptions
from tests.floor.conftest import role_url
from tests.pgserver import ThrowawayPostgres
from tests.station.helpers import wait_for

pytestmark = pytest.mark.postgres


def _healthz(demo: Demo) -> tuple[int, dict]:
    """Status and body of /healthz (503 while a link, the floor's included, is down)."""
    assert demo.server is not None
    try:
        with urlopen(f"{demo.server.url}healthz", timeout=5) as response:
            return response.status, json.loads(response.read())
    except HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _status_page(demo: Demo) -> Callable[[], int]:
    """Sign in as the admin (like a browser, CSRF token and all); the returned call reads the floor
    lag the status page shows. Signing in is itself a record, so it is done once."""
    assert demo.server is not None
    client = demo.server.app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token is not None
    login = {"name": "demo-admin", "password": demo.passwords["demo-admin"], "csrf_token": token.group(1)}
    assert client.post("/login", data=login).status_code == 302

    def lag() -> int:
        panel = client.get("/status/panel").get_data(as_text=True)
        found = re.search(r"lag records: (\d+)", panel)
        assert found is not None, panel
        return int(found.group(1))

    return lag


def test_a_cut_link_queues_records_in_the_log_and_they_arrive_once_in_order(tmp_path: Path) -> None:
    with ThrowawayPostgres(durable=False) as pg:
        assert main(["floor", "init", "--floor", pg.url]) == 0
        assert main(["floor", "add-station", "--floor", pg.url, "station_pit1"]) == 0
        options = DemoOptions(
            games=["three-card-poker"],
            data_dir=tmp_path / "data",
            port=0,
            pace="fast",
            rounds=8,
            camera=False,
            seed=5,
            floor=role_url(pg, "station_pit1"),
        )
        demo = Demo(options, say=lambda _text: None)
        demo.start()
        try:
            assert demo.station is not None
            shipper = demo.station.shipper
            status_lag = _status_page(demo)
            wait_for(lambda: shipper.status()["shipped_seq"] > 10, 60, "the first records on the floor")
            pg.kill()  # the link drops in the middle of play
            wait_for(lambda: shipper.status()["lag_records"] >= 40, 90, "records queueing in the local log")
            status, down = _healthz(demo)
            assert status == 503 and down["floor"]["ok"] is False and down["floor"]["lag_records"] > 0
            assert "floor link down" in down["floor"]["last_error"]
            assert down["tables"]["tcp-1"]["devices"]["floor"]["up"] is False
            assert status_lag() > 0
            pg.start()
            demo.wait()  # the table played its rounds through the outage
            wait_for(lambda: shipper.status()["lag_records"] == 0 and shipper.status()["ok"], 30, "catch-up")
            status, up = _healthz(demo)
            assert status == 200 and up["floor"]["lag_records"] == 0 and up["floor"]["ok"] is True
            wait_for(lambda: status_lag() == 0, 10, "the status page's lag back to zero")
            assert all(t.settled + t.voided == 8 for t in demo.tallies().values())
        finally:
            demo.stop()
        db = tmp_path / "data" / "events.sqlite3"
        with sqlite3.connect(db) as local:
            mine = local.execute("SELECT seq, hash FROM events ORDER BY seq").fetchall()
        with psycopg.connect(pg.url) as conn:
            theirs = conn.execute(
                "SELECT seq, hash FROM floor_records WHERE stream = 'demo' ORDER BY received_at, seq"
            ).fetchall()
            alarms = conn.execute("SELECT count(*) FROM floor_alarms").fetchone()[0]
        assert theirs == mine  # every record, once, received in order
        assert [seq for seq, _ in mine] == list(range(1, len(mine) + 1))
        assert alarms == 0
        assert main(["audit", "verify", "--db", str(db), "--against", pg.url]) == 0
