"""Who may do what, bad input, alarms, restart from the log, and several tables in one pit."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from highcard_game import high_card_rules
from table_helpers import TABLE, Table

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.events import CardRead, DeviceLink, EventError, ShoeStatus
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Pit, Tracker
from dealerassist.tracker import events as ev


def _refusals(log: EventLog) -> list[ev.Refused]:
    return [r.event for r in log.records() if isinstance(r.event, ev.Refused)]


def _exposed_round(table: Table) -> str:
    table.deal_round({1: 500}, ["KS", "9D"])
    return table.camera("dealer", "9D")[0].alarm_id


def test_a_dealer_can_never_clear_an_alarm(table: Table, memory_log: EventLog) -> None:
    alarm_id = _exposed_round(table)
    with pytest.raises(RuleViolation, match="supervisor-only"):
        table.send(
            ev.AckAlarm(table=TABLE, alarm_id=alarm_id, user="dealer-1", role="dealer", reason="looked fine")
        )
    assert _refusals(memory_log)[-1].rule == "supervisor-only"
    assert [a["alarm_id"] for a in table.tracker.snapshot()["alarms"]] == [alarm_id]
    out = table.supervisor(ev.AckAlarm, alarm_id=alarm_id)
    assert [(e.kind, e.user) for e in out] == [("alarm-cleared", "sup-1")]
    assert table.tracker.snapshot()["alarms"] == []
    with pytest.raises(EventError, match=r"ack-alarm\.alarm_id: no open alarm"):
        table.supervisor(ev.AckAlarm, alarm_id=alarm_id)


def test_supervisor_actions_need_a_user_and_a_reason(table: Table) -> None:
    with pytest.raises(EventError, match=r"approve-void\.reason: a supervisor action must give a reason"):
        ev.ApproveVoid(table=TABLE, user="sup-1", role="supervisor", reason=" ")
    with pytest.raises(EventError, match=r"forfeit\.user"):
        ev.Forfeit(table=TABLE, seat=1, role="supervisor", reason="cards shown")


def test_supervisor_void_and_forfeit(table: Table) -> None:
    table.deal_round({1: 500, 2: 500}, ["KS", "QS", "9D"])
    with pytest.raises(RuleViolation, match="supervisor-only"):
        table.send(ev.ApproveVoid(table=TABLE, user="dealer-1", role="dealer", reason="oops"))
    table.supervisor(ev.Forfeit, seat=2, reason="player showed cards")
    out = table.decide(1, "raise", 500)
    results = {(r["seat"], r["bet"]): r["outcome"] for r in out[0].results}
    assert results == {(1, "ante"): "win", (1, "raise"): "win", (2, "ante"): "forfeit"}

    table.send(ev.RoundClose(table=TABLE))
    table.deal_round({1: 500}, ["KS"])
    out = table.supervisor(ev.ApproveVoid, reason="shoe jam")
    assert out[0].kind == "round-voided" and out[0].reason == "supervisor sup-1: shoe jam"


def test_card_correction_after_settlement_resettles(table: Table) -> None:
    table.deal_round({1: 500}, ["KS", "9D"])
    first = table.decide(1, "raise", 500)
    assert first[0].results[0]["outcome"] == "win"
    out = table.supervisor(
        ev.CorrectCard, position="dealer", index=0, card=Card.parse("AD"), reason="camera: AD"
    )
    kinds = [e.kind for e in out]
    assert kinds == ["card-dealt", "round-settled"]
    assert out[0].card.code == "AD" and out[0].source == "manual"
    assert out[1].corrected and [r["outcome"] for r in out[1].results] == ["lose", "lose"]
    with pytest.raises(EventError, match=r"correct-card\.index: no card was dealt to seat-1 at index 3"):
        table.supervisor(ev.CorrectCard, position="seat-1", index=3, card=Card.parse("2D"))
    with pytest.raises(RuleViolation, match="correction-invalid"):
        table.supervisor(ev.CorrectCard, position="seat-1", index=0, card=Card.parse("AD"))
    assert table.tracker.snapshot()["positions"]["dealer"][0]["card"] == "AD"


def test_wager_correction_reruns_the_round(table: Table) -> None:
    table.deal_round({1: 500}, ["KS", "9D"])
    table.supervisor(ev.CorrectWager, seat=1, bet="ante", amount=1000)
    with pytest.raises(RuleViolation, match="raise-equals-ante"):
        table.decide(1, "raise", 500)
    out = table.decide(1, "raise", 1000)
    assert [(r["bet"], r["stake"], r["win"]) for r in out[0].results] == [
        ("ante", 1000, 1000),
        ("raise", 1000, 1000),
    ]
    with pytest.raises(RuleViolation, match="correction-invalid"):
        table.supervisor(ev.CorrectWager, seat=1, bet="ante", amount=1)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "teleport", "table": TABLE}, "kind: unknown event type 'teleport'"),
        ({"kind": "wager", "table": TABLE, "seat": 1, "bet": "ante"}, "wager.amount: missing"),
        (
            {"kind": "wager", "table": TABLE, "seat": 1, "bet": "ante", "amount": "5"},
            "wager.amount: must be a whole",
        ),
        (
            {"kind": "wager", "table": TABLE, "seat": 9, "bet": "ante", "amount": 500},
            "wager.seat: this table has seats",
        ),
        (
            {"kind": "wager", "table": TABLE, "seat": 1, "bet": "ante", "amount": -5},
            "wager.amount: must be cents",
        ),
        (
            {"kind": "card-read", "table": TABLE, "source": "shoe", "card": "ZZ"},
            "card-read.card: cannot read card",
        ),
        (
            {"kind": "card-read", "table": TABLE, "source": "shoe", "card": "AS", "confidence": 1.5},
            "confidence",
        ),
        (
            {"kind": "card-read", "table": TABLE, "source": "camera", "card": "AS", "position": "seat-x"},
            "position",
        ),
        ({"kind": "round-settled", "table": TABLE, "round_id": 1, "results": []}, "not an input"),
        (
            {"kind": "wager", "table": "other", "seat": 1, "bet": "ante", "amount": 500},
            "table: this event is for",
        ),
        (
            {"kind": "decision", "table": TABLE, "round_id": 7, "position": "seat-1", "action": "fold"},
            "round_id",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_lost(
    table: Table, memory_log: EventLog, data: dict, message: str
) -> None:
    table.open()
    table.wager(1, 500)
    before = list(memory_log.rows())
    snapshot = table.tracker.snapshot()
    with pytest.raises(EventError, match=message):
        table.tracker.handle_data(data)
    after = list(memory_log.rows())
    assert after[: len(before)] == before and len(after) == len(before) + 1
    refused = _refusals(memory_log)[-1]
    assert refused.rule == "invalid-event" and message.split(":")[0].split(".")[-1] in refused.message
    assert refused.input == data
    assert table.tracker.snapshot() == snapshot
    assert memory_log.verify().ok


def test_out_of_order_phases_are_refused_with_the_rule(table: Table) -> None:
    with pytest.raises(RuleViolation, match="no-round-open"):
        table.wager(1, 500)
    table.open()
    with pytest.raises(RuleViolation, match="round-in-progress"):
        table.open()
    with pytest.raises(RuleViolation, match="table-limits"):
        table.wager(1, 100)
    table.wager(1, 500)
    with pytest.raises(RuleViolation, match="round-incomplete"):
        table.send(ev.RoundClose(table=TABLE))
    table.close()
    with pytest.raises(RuleViolation, match="betting-closed"):
        table.wager(2, 500)
    assert table.tracker.snapshot()["wagers"] == {"1": {"ante": 500}}


def test_device_alarms_clear_when_the_device_recovers(table: Table) -> None:
    down = table.send(DeviceLink(table=TABLE, device="shoe", up=False, detail="no reply"))
    assert [(e.kind, e.code) for e in down] == [("alarm", "device-link")]
    assert table.send(DeviceLink(table=TABLE, device="shoe", up=False)) == []
    up = table.send(DeviceLink(table=TABLE, device="shoe", up=True))
    assert [(e.kind, e.user) for e in up] == [("alarm-cleared", "system")]
    jam = table.send(ShoeStatus(table=TABLE, status="jam"))
    assert jam[0].code == "shoe-status"
    assert table.send(ShoeStatus(table=TABLE, status="ok"))[0].kind == "alarm-cleared"


def test_restart_rebuilds_the_open_round_from_the_log(db_path: Path) -> None:
    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.deal_round({1: 500, 2: 700}, ["KS", "QS"])
    table.shoe("9D", confidence=0.3)
    table.camera("seat-2", "QH")
    before = table.tracker.snapshot()
    log.close()

    log = EventLog(db_path)
    again = Table(Tracker(high_card_rules(TABLE), log))
    assert again.tracker.snapshot() == before
    read_id = before["pending_reads"][0]["read_id"]
    again.send(ev.ConfirmRead(table=TABLE, read_id=read_id, card=Card.parse("9D"), user="d1"))
    again.decide(1, "fold")
    out = again.decide(2, "raise", 700)
    assert out[0].kind == "round-settled"
    configs = [r for r in log.records() if r.event.kind == "table-config"]
    assert len(configs) == 1
    assert log.verify().ok
    log.close()


def test_pit_keeps_tables_apart(memory_log: EventLog) -> None:
    pit = Pit(memory_log, [high_card_rules("hc-1"), high_card_rules("hc-2", exposure_policy="flag")])
    seen = []
    pit.subscribe(lambda record: seen.append((record.event.table, record.event.kind)))
    one, two = Table(pit.tracker("hc-1")), Table(pit.tracker("hc-2"))
    one.deal_round({1: 500}, ["KS", "9D"])
    two.deal_round({2: 500}, ["KS", "9D"])
    assert pit.handle(
        "hc-1", CardRead(table="hc-1", source="camera", card=Card.parse("9D"), position="dealer")
    )
    assert pit.tracker("hc-1").snapshot()["status"] == "voided"
    assert pit.tracker("hc-2").snapshot()["status"] == "open"
    assert {table for table, _ in seen} == {"hc-1", "hc-2"}
    assert all(r.event.table == "hc-2" for r in memory_log.records(table="hc-2"))
    with pytest.raises(EventError, match="unknown table 'hc-9'"):
        pit.tracker("hc-9")
    with pytest.raises(EventError, match="names table 'hc-1' but was sent to 'hc-2'"):
        pit.handle("hc-2", ev.RoundOpen(table="hc-1"))
    with pytest.raises(EventError, match="unknown table 'hc-7'"):
        pit.handle("hc-7", ev.RoundOpen(table="hc-7"))
    assert [(r.table, r.input_kind) for r in _refusals(memory_log)[-2:]] == [
        ("hc-1", "round-open"),
        ("hc-7", "round-open"),
    ]


def test_a_failing_subscriber_does_not_undo_a_durable_input(table: Table, memory_log: EventLog) -> None:
    calls: list[int] = []

    def broken(record) -> None:
        calls.append(record.seq)
        raise RuntimeError("dashboard went away")

    table.tracker.subscribe(broken)
    assert table.open()[0].kind == "phase"
    assert calls == [memory_log.last_seq() - 1, memory_log.last_seq()]
    assert table.tracker.snapshot()["status"] == "open"


def test_tracker_refuses_a_log_its_rules_cannot_replay(
    db_path: Path, make_table: Callable[..., Table]
) -> None:
    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.open()
    table.wager(5, 500)
    log.close()
    log = EventLog(db_path)
    with pytest.raises(Exception, match="no longer applies"):
        Tracker(high_card_rules(TABLE, seats=3), log)
    log.close()


def test_restart_starts_from_the_last_closed_round(db_path: Path) -> None:
    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.send(DeviceLink(table=TABLE, device="camera", up=False))
    for _ in range(3):
        table.deal_round({1: 500}, ["KS", "9D"])
        table.decide(1, "fold")
        table.send(ev.RoundClose(table=TABLE))
    table.deal_round({2: 500}, ["QS"])
    before = table.tracker.snapshot()
    log.close()

    log = EventLog(db_path)
    checkpoint = log.latest(TABLE, "table-state")
    assert checkpoint is not None and checkpoint.event.round_id == 3
    again = Table(Tracker(high_card_rules(TABLE), log))
    assert again.tracker.snapshot() == before
    assert [a["code"] for a in before["alarms"]] == ["device-link"]
    assert [e.kind for e in again.send(DeviceLink(table=TABLE, device="camera", up=True))] == [
        "alarm-cleared"
    ]
    log.close()


def test_a_table_that_changes_game_between_rounds_restarts_cleanly(db_path: Path) -> None:
    from dealerassist.tablefiles.tables import load_table

    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.deal_round({1: 500}, ["KS", "9D"])
    table.decide(1, "fold")
    table.send(ev.RoundClose(table=TABLE))
    log.close()
    config = load_table("three-card-poker")
    rules = dataclasses.replace(config.rules, table_id=TABLE)
    log = EventLog(db_path)
    tracker = Tracker(rules, log)
    assert tracker.snapshot()["round_id"] == 1 and tracker.snapshot()["game"] == "three-card-poker"
    assert tracker.handle(ev.RoundOpen(table=TABLE))[0].round_id == 2
    configs = [r.event.game for r in log.records(table=TABLE) if r.event.kind == "table-config"]
    assert configs == ["high-card-test", "three-card-poker"]
    log.close()


def test_a_round_closed_by_the_next_open_is_checkpointed_too(db_path: Path) -> None:
    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.deal_round({1: 500}, ["KS", "9D"])
    table.decide(1, "fold")
    out = table.deal_round({2: 500}, ["QS"])
    assert [e.kind for e in out[:3]] == ["table-state", "phase", "phase"]
    before = table.tracker.snapshot()
    log.close()
    log = EventLog(db_path)
    checkpoint = log.latest(TABLE, "table-state")
    assert checkpoint is not None and checkpoint.event.round_id == 1
    opened = next(r for r in log.records(after=checkpoint.seq) if r.event.kind == "round-open")
    assert opened.seq == checkpoint.seq + 1
    assert Tracker(high_card_rules(TABLE), log).snapshot() == before
    log.close()


def test_the_players_named_at_seats_survive_a_restart_and_leave_with_an_empty_id(db_path: Path) -> None:
    """The dealer's screen shows who sits where: from the `table-state` checkpoint and the inputs
    after it, so a restart between rounds or in one shows the same names."""
    log = EventLog(db_path)
    table = Table(Tracker(high_card_rules(TABLE), log))
    table.send(ev.SeatPlayer(table=TABLE, seat=1, player="card 4471"))
    table.send(ev.SeatPlayer(table=TABLE, seat=2, player="P-19"))
    table.deal_round({1: 500}, ["KS", "9D"])
    table.decide(1, "fold")
    table.send(ev.RoundClose(table=TABLE))
    table.send(ev.SeatPlayer(table=TABLE, seat=2, player=""))  # left, after the checkpoint
    table.send(ev.SeatPlayer(table=TABLE, seat=3, player="P-7"))
    before = table.tracker.snapshot()
    assert before["players"] == {"1": "card 4471", "3": "P-7"}
    log.close()

    log = EventLog(db_path)
    checkpoint = log.latest(TABLE, "table-state")
    assert checkpoint is not None and checkpoint.event.players == {"1": "card 4471", "2": "P-19"}
    again = Table(Tracker(high_card_rules(TABLE), log))
    assert again.tracker.snapshot() == before
    log.close()
