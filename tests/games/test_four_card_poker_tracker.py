"""Four Card Poker's two-spot rule through the round tracker and a real event log: the table
declares one player on two spots with a ``decision`` event (``action = "same-player"``) while
betting is open, and the double-minimum rule then holds at betting close and at the Play."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.events import CardRead
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

TABLE = "fcp-1"
# Seat 1's five, seat 2's five, the dealer's six (packets, the last dealer card face up).
SHOE = "KS KH 9C 5D 2S  AS AH 9D 5C 3S  TC JD QC 3D 4D 6C".split()


@pytest.fixture
def tracker() -> Iterator[Tracker]:
    log = EventLog(":memory:")
    yield Tracker(load_table("four-card-poker"), log)
    log.close()


def send(tracker: Tracker, event: object) -> list[str]:
    return [e.kind for e in tracker.handle(event)]


def bet_and_deal(tracker: Tracker, *, same_player: bool) -> None:
    """Seat 1 bets a double-minimum $6 Aces Up, seat 2 a $3 Ante; optionally one player on both."""
    send(tracker, ev.RoundOpen(table=TABLE))
    send(tracker, ev.Wager(table=TABLE, seat=1, bet="aces-up", amount=600, user="dee"))
    send(tracker, ev.Wager(table=TABLE, seat=2, bet="ante", amount=300, user="dee"))
    if same_player:
        declare = ev.PlayerDecision(table=TABLE, position="seat-1", action="same-player", choice="seat-2")
        assert send(tracker, declare) == []
    send(tracker, ev.BettingClosed(table=TABLE))
    for code in SHOE:
        send(tracker, CardRead(table=TABLE, source="shoe", card=Card.parse(code)))


def play(tracker: Tracker, dollars: int) -> list[str]:
    return send(
        tracker, ev.PlayerDecision(table=TABLE, position="seat-2", action="play", amount=dollars * 100)
    )


def test_an_ante_only_spot_of_a_two_spot_player_must_play_double_the_minimum(tracker: Tracker) -> None:
    bet_and_deal(tracker, same_player=True)
    with pytest.raises(RuleViolation) as refused:
        play(tracker, 3)
    assert refused.value.rule == "two-spots-double-minimum"
    [logged] = [r.event for r in tracker.log.records() if r.event.kind == "refused"]
    assert "two-spots-double-minimum" in str(logged.to_dict())
    assert "round-settled" in play(tracker, 6)


def test_without_the_declaration_a_single_spot_may_play_the_ante(tracker: Tracker) -> None:
    bet_and_deal(tracker, same_player=False)
    assert "round-settled" in play(tracker, 3)


def test_two_spots_are_declared_only_while_betting_is_open(tracker: Tracker) -> None:
    bet_and_deal(tracker, same_player=False)
    late = ev.PlayerDecision(table=TABLE, position="seat-1", action="same-player", choice="seat-2")
    with pytest.raises(RuleViolation) as refused:
        tracker.handle(late)
    assert refused.value.rule == "wagers-while-betting-open"


def test_the_declaration_must_name_the_other_spot(tracker: Tracker) -> None:
    send(tracker, ev.RoundOpen(table=TABLE))
    unnamed = ev.PlayerDecision(table=TABLE, position="seat-1", action="same-player")
    with pytest.raises(RuleViolation) as refused:
        tracker.handle(unnamed)
    assert refused.value.rule == "position-exists"
