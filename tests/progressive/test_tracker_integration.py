"""The controller following the real tracker at the shipped Pairs & Up table, cards from the shoe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealerassist.commands.progressive import table_params
from dealerassist.events import event_from_dict
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker.tracker import Tracker

TABLE = "pu-1"


class Pit:
    def __init__(self, path: Path) -> None:
        self.log = EventLog(path)
        self.tracker = Tracker(load_table("pairs-and-up"), self.log)
        _, params = table_params("pairs-and-up")
        self.controller = ProgressiveController(TABLE, params, self.log)
        self.controller.attach(self.tracker)

    def send(self, **data: Any) -> list:
        return self.tracker.handle(event_from_dict({"table": TABLE, **data}))

    def deal_round(self, seat1: list[str], seat2: list[str], dealer: list[str]) -> None:
        """Seats 1 and 2 bet the Ante and the progressive; cards go round by round."""
        self.send(kind="round-open")
        for seat in (1, 2):
            self.send(kind="wager", seat=seat, bet="ante", amount=500, user="dee")
            self.send(kind="wager", seat=seat, bet="progressive", amount=100, user="dee")
        self.send(kind="betting-closed")
        for card in (seat1[0], seat2[0], dealer[0], seat1[1], seat2[1], dealer[1]):
            self.send(kind="card-read", source="shoe", card=card)
        self.send(
            kind="card-read",
            source="camera",
            card=dealer[0],
            position="dealer",
            face_up=True,
            confidence=0.99,
        )

    def own_events(self, kind: str) -> list:
        return [r.event for r in self.log.records() if r.event.kind == kind]


@pytest.fixture
def pit(tmp_path: Path) -> Pit:
    return Pit(tmp_path / "events.db")


def test_four_aces_flush_hits_the_meter_and_a_supervisor_unlocks_it(pit: Pit) -> None:
    pit.deal_round(["AS", "AS"], ["3C", "3H"], ["AS", "AS"])
    assert pit.controller.state()["meters"]["qualifying_wagers"] == 2  # contributed at betting close
    pit.send(kind="decision", position="seat-1", action="play", choice="four-of-a-kind", amount=1000)
    pit.send(kind="decision", position="seat-2", action="fold")
    [hit] = pit.own_events("progressive-hit")
    assert (hit.seat, hit.hand, hit.award, hit.paid) == (1, "four-aces-flush", "100% meter", 100_040)
    state = pit.controller.state()
    assert state["status"] == "win" and state["win"]["amount"] == 100_040
    pit.send(kind="round-close")
    pit.controller.confirm(hit.hit_id, "sam", "supervisor")
    # The reset: $1,000 plus the reserve the two wagers built (5% of $2).
    assert pit.controller.state()["amount"] == 100_010 and pit.controller.state()["status"] == "normal"


def test_a_fixed_prize_is_accounted_from_the_reserve_without_a_lock(pit: Pit) -> None:
    pit.deal_round(["AH", "2H"], ["3C", "3D"], ["3H", "4H"])
    pit.send(kind="decision", position="seat-1", action="play", choice="straight-flush", amount=1000)
    pit.send(kind="decision", position="seat-2", action="fold")
    settled = pit.own_events("round-settled")[-1]
    paid_by_game = [r for r in settled.results if r["bet"] == "progressive" and r["seat"] == 1]
    [hit] = pit.own_events("progressive-hit")
    assert hit.hand == "straight-flush" and hit.paid == paid_by_game[0]["win"] == 20_000
    assert not hit.locks and pit.controller.state()["status"] == "normal"


def test_an_exposed_dealer_card_voids_the_round_and_gives_the_contributions_back(pit: Pit) -> None:
    pit.send(kind="round-open")
    pit.send(kind="wager", seat=1, bet="ante", amount=500, user="dee")
    pit.send(kind="wager", seat=1, bet="progressive", amount=100, user="dee")
    pit.send(kind="betting-closed")
    for card in ("4S", "AH", "AC", "3D"):
        pit.send(kind="card-read", source="shoe", card=card)
    pit.send(kind="card-read", source="camera", card="3D", position="dealer", face_up=True, confidence=0.99)
    assert pit.own_events("round-voided")
    [refund] = pit.own_events("progressive-correction")
    assert refund.seat == 1 and "voided" in refund.reason
    assert pit.controller.meter.meter == 100_000 and pit.controller.meter.wagers == 0
