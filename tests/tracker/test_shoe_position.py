"""The table takes each shoe card once: a repeat is refused and recorded, the same number with another
card is an integrity alarm, a skipped number is an alarm, and all of it survives a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from highcard_game import high_card_rules
from table_helpers import TABLE, Table

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.events import CardRead
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

BOOT = 0xA1B2C3D4


def read(number: int, card: str, boot: int | None = BOOT) -> CardRead:
    return CardRead(table=TABLE, source="shoe", card=Card.parse(card), shoe_sequence=number, shoe_boot=boot)


def opened(log: EventLog) -> Table:
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.open()
    table.wager(1, 500)
    table.wager(2, 500)
    table.close()
    return table


def dealt(log: EventLog) -> list[str]:
    return [r.event.card.code for r in log.records(table=TABLE) if r.event.kind == "card-dealt"]


def test_a_repeat_is_refused_recorded_and_not_dealt(memory_log: EventLog) -> None:
    table = opened(memory_log)
    table.send(read(1, "AS"))
    with pytest.raises(RuleViolation, match="received before"):
        table.send(read(1, "AS"))
    table.send(read(2, "KD"))
    assert dealt(memory_log) == ["AS", "KD"]
    [refused] = [r.event for r in memory_log.records() if r.event.kind == "refused"]
    assert refused.rule == "shoe-repeat" and refused.input["shoe_sequence"] == 1


def test_the_same_number_with_another_card_is_an_integrity_alarm(memory_log: EventLog) -> None:
    table = opened(memory_log)
    table.send(read(1, "AS"))
    out = table.send(read(1, "KC"))
    assert [(e.kind, e.code, e.severity) for e in out] == [("alarm", "shoe-sequence", "critical")]
    assert "KC" not in out[0].message and "AS" not in out[0].message  # it may be a hidden dealer card
    table.send(read(2, "KD"))
    assert dealt(memory_log) == ["AS", "KD"]


def test_a_skipped_number_is_an_alarm_and_the_card_is_dealt(memory_log: EventLog) -> None:
    table = opened(memory_log)
    table.send(read(1, "AS"))
    out = table.send(read(4, "KD"))
    alarm = next(e for e in out if e.kind == "alarm")
    assert alarm.code == "shoe-sequence" and "#2..#3" in alarm.message
    assert dealt(memory_log) == ["AS", "KD"]


def test_a_new_power_up_counts_from_its_own_start(memory_log: EventLog) -> None:
    table = opened(memory_log)
    table.send(read(7, "AS"))
    assert [e.kind for e in table.send(read(1, "KD", boot=BOOT + 1))] == ["card-dealt"]
    assert dealt(memory_log) == ["AS", "KD"]


def test_the_position_survives_a_restart_a_checkpoint_and_a_refused_card(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    table = opened(log)
    for number, card in enumerate(["AS", "KD", "QH"], start=1):
        table.send(read(number, card))
    table.decide(1, "fold")
    table.decide(2, "fold")
    table.send(ev.RoundClose(table=TABLE))  # the checkpoint carries the position
    assert [r.event.shoe_sequence for r in log.records() if r.event.kind == "table-state"] == [3]
    with pytest.raises(RuleViolation, match="no round is open"):
        table.send(read(4, "2C"))  # a burnt card between rounds is still a card the shoe drew
    log.close()

    log = EventLog(tmp_path / "events.db")
    restarted = Table(Tracker(high_card_rules(TABLE), log))
    assert restarted.tracker.shoe_position() == (BOOT, 4)
    for number in (3, 4):
        with pytest.raises(RuleViolation, match="received before"):
            restarted.send(read(number, {3: "QH", 4: "2C"}[number]))
    out = restarted.send(read(3, "9S"))
    assert [e.code for e in out if e.kind == "alarm"] == ["shoe-sequence"]
    restarted.open()
    restarted.wager(1, 500)
    restarted.close()
    assert [e.kind for e in restarted.send(read(5, "8S"))] == ["card-dealt"]
    log.close()


def test_reads_that_name_no_power_up_are_taken_as_they_come(memory_log: EventLog) -> None:
    """Logs written before ``shoe_boot`` existed replay exactly as they were dealt."""
    table = opened(memory_log)
    table.send(read(1, "AS", boot=None))
    table.send(read(1, "KD", boot=None))
    assert dealt(memory_log) == ["AS", "KD"]
    restarted = Tracker(high_card_rules(TABLE), memory_log)
    assert restarted.snapshot()["positions"] == table.tracker.snapshot()["positions"]
    assert restarted.shoe_position() == (None, 0)
