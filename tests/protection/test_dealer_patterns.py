"""Dealer incidents through the real tracker: the dealer who exposes cards far above the floor is
flagged with the voided rounds, the others are not."""

from __future__ import annotations

import random

from dealerassist.events import CardRead
from dealerassist.protection.records import read_rounds
from dealerassist.protection.report import protect
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev


def deal(tracker: Tracker, dealer: str, rng: random.Random, *, expose: bool) -> None:
    table = tracker.table
    tracker.handle(ev.RoundOpen(table=table, user=dealer))
    tracker.handle(ev.Wager(table=table, seat=2, bet="ante", amount=500, user=dealer))
    tracker.handle(ev.BettingClosed(table=table, user=dealer))
    cards = tracker.rules.deck.cards()
    rng.shuffle(cards)
    for card in cards[:6]:
        tracker.handle(CardRead(table=table, source="shoe", card=card))
    if expose:
        tracker.handle(CardRead(table=table, source="camera", card=cards[4], position="dealer", face_up=True))
    else:
        tracker.handle(ev.PlayerDecision(table=table, position="seat-2", action="fold", user=dealer))
    tracker.handle(ev.RoundClose(table=table, user=dealer))


def test_the_dealer_exposing_cards_is_flagged_with_the_rounds() -> None:
    rng = random.Random(4)
    exposed: list[int] = []
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("three-card-poker"), log)
        for i in range(160):
            dealer = ("ann", "ben", "cy", "dee")[i % 4]
            expose = (dealer == "dee" and i % 12 == 3) or i in (0, 81)
            deal(tracker, dealer, rng, expose=expose)
            if dealer == "dee" and expose:
                exposed.append(tracker.round_id)
        rounds = read_rounds(log)
    assert {r.dealer for r in rounds} == {"ann", "ben", "cy", "dee"}
    report = protect(rounds)
    flagged = {f.subject: f for f in report.flags}
    assert set(flagged) == {"dealer dee: exposure", "dealer dee: void"}
    assert flagged["dealer dee: exposure"].rounds == exposed and len(exposed) == 14
    assert flagged["dealer dee: exposure"].statistic["floor_rate"] < 0.02
