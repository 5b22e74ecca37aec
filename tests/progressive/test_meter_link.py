"""A lost shared-meter link leaves its trace in the table's log: a ``device-link`` of device
``meter-link`` and a ``progressive`` alarm while a real PostgreSQL server is down, cleared when it is
back; a table that starts again finds the link as the log left it and says when it changed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from dealerassist.commands.progressive import table_params
from dealerassist.errors import RuleViolation
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker.events import RoundOpen, Wager
from dealerassist.tracker.tracker import Tracker
from tests.pgserver import ThrowawayPostgres
from tests.station.helpers import wait_for

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg() -> Iterator[ThrowawayPostgres]:
    with ThrowawayPostgres(durable=False) as server:
        yield server


class LinkedTable:
    """The shipped Pairs & Up table with its progressive on the shared meter at ``link``."""

    def __init__(self, db: Path, link: str) -> None:
        _, params = table_params("pairs-and-up")
        self.log = EventLog(db)
        self.tracker = Tracker(load_table("pairs-and-up"), self.log)
        self.controller = ProgressiveController("pu-1", replace(params, link=link), self.log, poll_s=0.05)
        self.controller.attach(self.tracker)
        self.controller.start()

    def links(self) -> list[tuple[bool, str]]:
        return [
            (r.event.up, r.event.url)
            for r in self.log.records()
            if r.event.kind == "device-link" and r.event.device == "meter-link"
        ]

    def alarms(self) -> list[tuple[str, str]]:
        return [(r.event.kind, r.event.code) for r in self.log.records() if r.event.kind.startswith("alarm")]

    def open_alarms(self) -> list[str]:
        return [a["code"] for a in self.tracker.snapshot()["alarms"]]

    def close(self) -> None:
        self.controller.stop()
        self.log.close()


def test_an_outage_is_logged_with_a_progressive_alarm_and_cleared_when_the_server_is_back(
    pg: ThrowawayPostgres, tmp_path: Path
) -> None:
    table = LinkedTable(tmp_path / "events.sqlite3", pg.url)
    try:
        assert table.links() == [] and table.controller.state()["status"] == "normal"
        pg.kill()
        wait_for(lambda: table.links() == [(False, pg.url)], timeout=15, what="the link down in the log")
        assert table.open_alarms() == ["progressive"]
        table.tracker.handle(RoundOpen(table="pu-1"))
        table.tracker.handle(Wager(table="pu-1", seat=1, bet="ante", amount=500, user="dee"))
        with pytest.raises(RuleViolation, match="link to the shared meter lost"):
            table.tracker.handle(Wager(table="pu-1", seat=1, bet="progressive", amount=100, user="dee"))
        pg.start()
        wait_for(lambda: len(table.links()) == 2, timeout=15, what="the link back in the log")
        assert table.links() == [(False, pg.url), (True, pg.url)]
        assert table.open_alarms() == []
        assert table.alarms() == [("alarm", "progressive"), ("alarm-cleared", "progressive")]
        table.tracker.handle(Wager(table="pu-1", seat=1, bet="progressive", amount=100, user="dee"))
        assert table.log.verify().ok
    finally:
        table.close()


def test_a_table_started_during_an_outage_logs_it_and_the_next_start_clears_it(
    pg: ThrowawayPostgres, tmp_path: Path
) -> None:
    db = tmp_path / "events.sqlite3"
    table = LinkedTable(db, pg.url)
    table.close()
    pg.kill()
    try:
        table = LinkedTable(db, pg.url)  # starts with the server down
        wait_for(lambda: table.links() == [(False, pg.url)], timeout=15, what="the outage logged at start")
        table.close()
        table = LinkedTable(db, pg.url)  # still down: the log says so already, nothing new
        time.sleep(0.5)  # ten polls
        assert table.links() == [(False, pg.url)] and table.open_alarms() == ["progressive"]
        table.close()
    finally:
        pg.start()
    table = LinkedTable(db, pg.url)  # up again: the log said down, so the return is logged
    try:
        wait_for(lambda: len(table.links()) == 2, timeout=15, what="the return logged at start")
        assert table.links()[-1] == (True, pg.url) and table.open_alarms() == []
    finally:
        table.close()
