"""Two dealer cards of one code: the camera's track tells the up card read again from its hidden twin.

A six-deck blackjack shoe deals the dealer a pair about once in 17 rounds, a Pairs & Up deck (25
aces) far more often. A face-up read of that code is the hole card only when it comes from a card
the camera has not already matched to the up card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealerassist.events import event_from_dict
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker.tracker import Tracker

TABLE = "ppbj-1"


class Blackjack:
    """A blackjack table dealt the dealer 9H up and 9H in the hole, from a six-deck shoe."""

    def __init__(self, log: EventLog) -> None:
        self.tracker = Tracker(load_table("perfect-pairs-blackjack"), log)
        self.send(kind="round-open")
        self.send(kind="wager", seat=1, bet="main", amount=1000, user="d4")
        self.send(kind="betting-closed")
        for card in ("TS", "9H", "7C", "9H"):
            self.send(kind="card-read", source="shoe", card=card)

    def send(self, **data: Any) -> list[Any]:
        return self.tracker.handle(event_from_dict({"table": TABLE, **data}))

    def camera(self, card: str | None, track: str | None, face_up: bool = True) -> list[str]:
        read = {"kind": "card-read", "source": "camera", "card": card, "position": "dealer"}
        out = self.send(**read, face_up=face_up, confidence=0.99, track=track)
        return [e.code if e.kind == "alarm" else e.kind for e in out]

    def removed(self, track: str) -> list[Any]:
        return self.send(kind="card-removed", card="9H", position="dealer", track=track)

    def status(self) -> str:
        return self.tracker.snapshot()["status"]


@pytest.fixture
def table(tmp_path: Path) -> Blackjack:
    return Blackjack(EventLog(tmp_path / "events.db"))


def test_the_dealer_was_dealt_a_pair_hole_card_first(table: Blackjack) -> None:
    dealer = table.tracker.snapshot()["positions"]["dealer"]
    assert [(d["index"], d["card"], d["face_up"]) for d in dealer] == [(0, "9H", False), (1, "9H", True)]


def test_the_hole_card_turned_face_up_beside_its_twin_voids_the_round(table: Blackjack) -> None:
    assert table.camera("9H", "up") == []
    assert table.camera(None, "hole", face_up=False) == []
    assert table.camera("9H", "hole") == ["exposed-dealer-card", "round-voided", "phase"]
    assert table.status() == "voided"


def test_the_hole_card_exposed_before_the_up_card_was_seen_is_still_caught(table: Blackjack) -> None:
    """Whichever 9H the camera sees first, a second one face up means the hole card shows."""
    assert table.camera("9H", "hole") == []  # may well be the up card
    assert table.camera("9H", "up") == ["exposed-dealer-card", "round-voided", "phase"]


def test_the_up_card_read_again_by_its_own_track_is_not_an_exposure(table: Blackjack) -> None:
    assert table.camera("9H", "up") == []
    assert table.camera(None, "up", face_up=False) == []  # turned over, as by a careless hand
    assert table.camera("9H", "up") == []
    assert table.status() == "open"


def test_the_up_card_back_in_view_under_a_new_track_is_not_an_exposure(table: Blackjack) -> None:
    assert table.camera("9H", "up") == []
    assert table.removed("up") == []  # a hand over it for a while
    assert table.camera("9H", "up-again") == []
    assert table.status() == "open"
    assert table.camera("9H", "hole") == ["exposed-dealer-card", "round-voided", "phase"]


def test_reads_without_a_track_keep_taking_the_card_that_may_be_seen(table: Blackjack) -> None:
    assert table.camera("9H", None) == []
    assert table.camera("9H", None) == []
    assert table.status() == "open"


def test_after_the_reveal_the_twin_face_up_is_no_exposure(table: Blackjack) -> None:
    assert table.camera("9H", "up") == []
    table.send(kind="decision", position="seat-1", action="stand")
    assert table.camera("9H", "hole") == []
    assert table.status() == "settled"


def test_a_restart_mid_round_remembers_which_track_is_which(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    table = Blackjack(log)
    assert table.camera("9H", "up") == []
    log.close()
    table.tracker = Tracker(load_table("perfect-pairs-blackjack"), EventLog(tmp_path / "events.db"))
    assert table.camera("9H", "up") == []
    assert table.camera("9H", "hole") == ["exposed-dealer-card", "round-voided", "phase"]
