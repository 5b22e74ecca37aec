"""Pairs & Up through the round tracker and a real event log: "if the dealer's cards are revealed
before betting is complete, the game is void" (rules/pairs-and-up-poker.txt, Voids)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dealerassist.core.cards import Card
from dealerassist.events import CardRead
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

TABLE = "pu-1"


@pytest.fixture
def tracker() -> Iterator[Tracker]:
    log = EventLog(":memory:")
    yield Tracker(load_table("pairs-and-up"), log)
    log.close()


def send(tracker: Tracker, event: object) -> list[str]:
    return [e.kind for e in tracker.handle(event)]


def dealt_round(tracker: Tracker) -> None:
    """Seat 1 antes $5; the shoe deals seat 1, dealer, seat 1, dealer: AS 3C 2H 4D."""
    send(tracker, ev.RoundOpen(table=TABLE))
    send(tracker, ev.Wager(table=TABLE, seat=1, bet="ante", amount=500, user="dealer-1"))
    send(tracker, ev.BettingClosed(table=TABLE))
    for code in ("AS", "3C", "2H", "4D"):
        send(tracker, CardRead(table=TABLE, source="shoe", card=Card.parse(code)))


def camera(position: str, index_card: str) -> CardRead:
    return CardRead(
        table=TABLE, source="camera", card=Card.parse(index_card), position=position, face_up=True
    )


def test_turning_the_first_dealer_card_is_the_procedure(tracker: Tracker) -> None:
    """The dealer reveals one community card before the decisions, the last one after them."""
    dealt_round(tracker)
    assert send(tracker, camera("dealer", "3C")) == []
    kinds = send(tracker, ev.PlayerDecision(table=TABLE, position="seat-1", action="play", choice="straight"))
    assert "round-settled" in kinds
    assert send(tracker, camera("dealer", "4D")) == [], "after every Play is set the last card is turned"


def test_the_second_dealer_card_seen_before_every_play_is_set_voids_the_round(tracker: Tracker) -> None:
    dealt_round(tracker)
    send(tracker, camera("dealer", "3C"))
    kinds = send(tracker, camera("dealer", "4D"))
    assert "alarm" in kinds and "round-voided" in kinds
