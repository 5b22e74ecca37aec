"""The tracker driving a real (test) game: dealing order, reads, exposure, misdeals, settlement."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import Table

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.events import CardRead, DealerButton, EventError
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import events as ev


def _results(outputs: list) -> list[tuple]:
    settled = [e for e in outputs if e.kind in ("round-settled", "round-voided")][-1]
    return [(r["seat"], r["bet"], r["outcome"], r["win"], r["returned"]) for r in settled.results]


def test_round_deals_in_order_and_settles_to_the_cent(table: Table, memory_log: EventLog) -> None:
    out = table.deal_round({3: 1000, 1: 500}, ["KS", "4H", "9D"])
    dealt = [(e.position, e.index, e.card.code, e.face_up) for e in out if e.kind == "card-dealt"]
    assert dealt == [("seat-1", 0, "KS", True), ("seat-3", 0, "4H", True), ("dealer", 0, "9D", False)]
    assert table.tracker.snapshot()["pending_decisions"] == ["seat-1", "seat-3"]
    assert table.tracker.snapshot()["legal_actions"] == {"seat-1": ["fold", "raise"], "seat-3": []}
    table.decide(1, "raise", 500)
    out = table.decide(3, "raise", 1000)
    assert [e.kind for e in out] == ["round-settled", "phase"]
    assert _results(out) == [
        (1, "ante", "win", 500, 500),
        (1, "raise", "win", 500, 500),
        (3, "ante", "lose", 0, 0),
        (3, "raise", "lose", 0, 0),
    ]
    assert out[0].hands == {"seat-1": "king high", "seat-3": "four high", "dealer": "nine high"}
    snap = table.tracker.snapshot()
    assert (snap["status"], snap["phase"], snap["wagers"]) == (
        "settled",
        "settled",
        {"1": {"ante": 500}, "3": {"ante": 1000}},
    )
    assert table.kinds(ev.RoundClose(table=table.table)) == ["phase", "table-state"]
    closed = table.tracker.snapshot()
    assert (closed["status"], closed["positions"], closed["settlement"]) == ("closed", {}, None)
    assert memory_log.verify().ok


def test_each_input_and_its_consequences_share_one_transaction(table: Table, memory_log: EventLog) -> None:
    table.deal_round({1: 500}, ["2C"])
    table.shoe("3C")
    records = list(memory_log.records())
    last_input = max(i for i, r in enumerate(records) if r.event.kind == "card-read")
    caused = records[last_input:]
    assert [r.event.kind for r in caused] == ["card-read", "card-dealt", "phase"]
    assert len({r.recorded_at for r in caused}) == 1


def test_camera_reads_are_checked_against_the_shoe(table: Table) -> None:
    table.deal_round({1: 500, 2: 500}, ["KS", "QS", "9D"])
    assert table.camera("seat-1", "KS") == []
    assert table.tracker.snapshot()["positions"]["seat-1"][0]["camera_checked"] is True
    out = table.camera("seat-2", "QH")
    assert [(e.kind, e.code) for e in out] == [("alarm", "read-mismatch")]
    assert "saw QH at seat-2 but the shoe dealt QS" in out[0].message
    assert table.tracker.snapshot()["status"] == "open"


def test_low_confidence_read_settles_nothing_until_the_dealer_confirms(table: Table) -> None:
    table.deal_round({1: 500}, ["KS"])
    out = table.shoe("9D", confidence=0.6)
    assert [e.kind for e in out] == ["read-needs-confirmation"]
    read_id = out[0].read_id
    assert out[0].candidates == ("9D",)
    snap = table.tracker.snapshot()
    assert snap["positions"].get("dealer") is None and snap["pending_reads"][0]["read_id"] == read_id
    assert snap["phase"] == "dealing"
    with pytest.raises(RuleViolation, match="not-deciding"):
        table.decide(1, "raise", 500)
    confirmed = table.send(
        ev.ConfirmRead(table=table.table, read_id=read_id, card=Card.parse("9D"), user="dealer-1")
    )
    assert [e.kind for e in confirmed] == ["card-dealt", "phase"]
    assert confirmed[0].confidence == 1.0 and confirmed[0].read_id == read_id
    assert table.tracker.snapshot()["pending_reads"] == []


def test_unreadable_shoe_card_holds_later_cards_in_order(table: Table) -> None:
    table.deal_round({1: 500, 2: 500}, [])
    first = table.shoe(None, confidence=0.0)
    assert [e.kind for e in first] == ["read-needs-confirmation"] and first[0].candidates == ()
    assert table.shoe("5C") == []
    assert table.tracker.snapshot()["queued_reads"] == 2
    out = table.send(
        ev.ConfirmRead(table=table.table, read_id=first[0].read_id, card=Card.parse("AH"), user="d1")
    )
    assert [(e.position, e.card.code) for e in out if e.kind == "card-dealt"] == [
        ("seat-1", "AH"),
        ("seat-2", "5C"),
    ]


def test_confirming_another_card_than_was_read_raises_low_confidence_alarm(table: Table) -> None:
    table.deal_round({1: 500}, ["KS", "9D"])
    out = table.camera("seat-1", "KH", confidence=0.5)
    read_id = out[0].read_id
    out = table.send(ev.ConfirmRead(table=table.table, read_id=read_id, card=Card.parse("KS"), user="d1"))
    assert [(e.kind, e.code) for e in out] == [("alarm", "low-confidence")]
    with pytest.raises(EventError, match=r"confirm-read\.read_id: no read"):
        table.send(ev.ConfirmRead(table=table.table, read_id=read_id, card=Card.parse("KS"), user="d1"))


def test_exposed_dealer_card_voids_the_round_under_void_policy(table: Table) -> None:
    table.deal_round({1: 500, 4: 2000}, ["KS", "3D", "9D"])
    out = table.camera("dealer", "9D", face_up=True)
    assert [e.kind for e in out] == ["alarm", "round-voided", "phase"]
    assert out[0].code == "exposed-dealer-card" and out[0].severity == "critical"
    assert _results(out) == [(1, "ante", "void", 0, 500), (4, "ante", "void", 0, 2000)]
    assert table.tracker.snapshot()["status"] == "voided"
    with pytest.raises(RuleViolation, match="round-over"):
        table.decide(1, "fold")


def test_exposed_dealer_card_under_flag_policy_alarms_and_play_goes_on(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(exposure_policy="flag")
    table.deal_round({1: 500}, ["KS", "9D"])
    out = table.camera("dealer", "9D", face_up=True)
    assert [(e.kind, e.code, e.severity) for e in out] == [("alarm", "exposed-dealer-card", "warning")]
    assert table.camera("dealer", "9D", face_up=True) == []
    out = table.decide(1, "raise", 500)
    assert _results(out) == [(1, "ante", "win", 500, 500), (1, "raise", "win", 500, 500)]
    snap = table.tracker.snapshot()
    assert [a["code"] for a in snap["alarms"]] == ["exposed-dealer-card"]
    assert snap["flags"] and "9D" in snap["flags"][0]


def test_face_down_dealer_card_and_later_reveal_are_not_exposure(table: Table) -> None:
    table.deal_round({1: 500}, ["KS", "9D"])
    assert table.camera("dealer", None, face_up=False, confidence=0.99) == []
    assert table.camera("seat-1", None, face_up=True, confidence=0.3)[0].kind == "read-needs-confirmation"
    with pytest.raises(RuleViolation, match="reveal-too-early"):
        table.send(ev.DealerReveal(table=table.table))
    table.decide(1, "fold")
    assert table.send(ev.DealerReveal(table=table.table)) == []
    assert table.camera("dealer", "9D", face_up=True) == []
    assert table.tracker.snapshot()["positions"]["dealer"][0]["face_up"] is True


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        (["KS", "QS", "9D", "2C"], "no card is expected"),
        (["KS", "KS"], "KS seen 2 times but the standard-52 deck holds only 1"),
        (["KS", "JK"], "JK is not in the standard-52 deck"),
    ],
    ids=["extra card", "duplicate in single deck", "card the deck cannot hold"],
)
def test_misdeal_voids_all_hands(table: Table, cards: list[str], why: str) -> None:
    out = table.deal_round({1: 500, 2: 700}, [])
    for card in cards:
        out += table.shoe(card)
    alarm = next(e for e in out if e.kind == "alarm")
    assert alarm.code == "misdeal" and why in alarm.message
    assert _results(out) == [(1, "ante", "void", 0, 500), (2, "ante", "void", 0, 700)]


def test_card_from_shoe_with_no_round_open_is_refused_and_logged(table: Table, memory_log: EventLog) -> None:
    with pytest.raises(RuleViolation, match="no-round-open"):
        table.shoe("AS")
    refused = [r.event for r in memory_log.records() if r.event.kind == "refused"]
    assert refused[-1].input["card"] == "AS" and refused[-1].rule == "no-round-open"


def test_dealer_button_between_rounds_is_harmless(table: Table) -> None:
    assert table.send(DealerButton(table=table.table)) == []


def test_alarms_never_name_a_hidden_dealer_card(table: Table) -> None:
    table.deal_round({1: 500}, ["KS"])
    read = table.shoe("9D", confidence=0.5)[0]
    out = table.send(
        ev.ConfirmRead(table=table.table, read_id=read.read_id, card=Card.parse("9H"), user="d1")
    )
    alarm = next(e for e in out if e.kind == "alarm")
    assert alarm.code == "low-confidence" and "9H" not in alarm.message and "9D" not in alarm.message
    mismatch = table.camera("seat-1", "KH")[0]
    assert "KS" in mismatch.message


def test_a_dealer_card_entered_face_up_by_hand_voids_once_and_is_not_refused(table: Table) -> None:
    table.deal_round({1: 500}, ["KS"])
    manual = CardRead(
        table=table.table, source="manual", card=Card.parse("9D"), position="dealer", face_up=True
    )
    out = table.send(manual)
    assert [e.kind for e in out] == ["alarm", "round-voided", "phase"]
    assert table.tracker.snapshot()["status"] == "voided"
