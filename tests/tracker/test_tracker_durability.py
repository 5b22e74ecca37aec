"""A failed write changes nothing, tables run from several threads at once, and round summaries are
rebuilt from the log alone."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from dealer_bot import make_script
from highcard_game import high_card_rules
from table_helpers import TABLE, Table

from dealerassist.errors import DealerAssistError
from dealerassist.storage.eventlog import EventLog
from dealerassist.storage.projection import round_summaries
from dealerassist.tracker import Pit, Tracker
from dealerassist.tracker.events import RoundClose


class FailingLog(EventLog):
    """A real log whose next write fails, as a full disk would make it."""

    fail_next = False

    def append_many(self, events):  # type: ignore[no-untyped-def]
        if self.fail_next:
            self.fail_next = False
            raise OSError(28, "No space left on device")
        return super().append_many(events)


def test_a_write_that_fails_leaves_state_and_log_as_they_were(tmp_path: Path) -> None:
    log = FailingLog(tmp_path / "events.db")
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.deal_round({1: 500}, ["KS"])
    before, rows = table.tracker.snapshot(), list(log.rows())
    log.fail_next = True
    with pytest.raises(OSError, match="No space left"):
        table.shoe("9D")
    assert table.tracker.snapshot() == before
    assert list(log.rows()) == rows and log.verify().ok
    assert [e.kind for e in table.shoe("9D")] == ["card-dealt", "phase"]
    log.close()


def test_tables_in_one_pit_can_be_fed_from_several_threads(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    tables = [f"hc-{n}" for n in range(1, 4)]
    pit = Pit(log, [high_card_rules(t) for t in tables])
    scripts = {t: [dict(d, table=t) for d in make_script(seed, 6)] for seed, t in enumerate(tables)}
    errors: list[BaseException] = []

    def feed(table: str) -> None:
        tracker = pit.tracker(table)
        for data in scripts[table]:
            try:
                tracker.handle_data(data)
            except DealerAssistError:
                pass
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=feed, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and log.verify().ok
    for table in tables:
        alone = EventLog(":memory:")
        solo = Tracker(high_card_rules(table), alone)
        for data in scripts[table]:
            try:
                solo.handle_data(data)
            except DealerAssistError:
                pass
        assert pit.tracker(table).snapshot() == solo.snapshot()
        alone.close()
    log.close()


def test_round_summaries_are_rebuilt_from_the_log(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    log = EventLog(db)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.deal_round({1: 500, 2: 1000}, ["KS", "3C", "9D"])
    table.decide(1, "raise", 500)
    table.decide(2, "fold")
    table.send(RoundClose(table=TABLE))
    table.deal_round({3: 2500}, ["4H", "9H"])
    table.camera("dealer", "9H")
    summaries = round_summaries(log.records())
    assert [(s.round_id, s.outcome) for s in summaries] == [(1, "settled"), (2, "voided")]
    first, second = summaries
    assert (first.staked, first.paid, first.house_net) == (2000, 2000, 0)
    assert first.closed_at and first.hands["dealer"] == "nine high"
    assert (second.staked, second.paid, second.alarms) == (2500, 2500, ["exposed-dealer-card"])
    log.close()
    cli = subprocess.run(
        [sys.executable, "-m", "dealerassist", "audit", "rounds", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    rows = [json.loads(line) for line in cli.stdout.splitlines()]
    assert [(r["round_id"], r["outcome"], r["house_net"]) for r in rows] == [
        (1, "settled", 0),
        (2, "voided", 0),
    ]
