"""Player ids entered by the dealer carry a session across seats; dealer incidents are tested per
shift as well as per dealer; a supervisor's jackpot override counts against the dealer's round."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

from dealerassist.commands.progressive import table_params
from dealerassist.events import EventError
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.protection.dealers import shifts_of
from dealerassist.protection.records import RoundRecord, read_rounds
from dealerassist.protection.report import protect
from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev
from tests.protection.test_dealer_patterns import deal


def test_a_player_id_follows_the_hole_carder_to_another_seat() -> None:
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("three-card-poker"), log)
        players = {1: seated("perfect", random.Random(1)), 2: seated("hole-carder", random.Random(2))}
        session = TableSession(tracker, players, random.Random(3))
        tracker.handle(ev.SeatPlayer(table="tcp-1", seat=2, player="4417-0021", user="dee"))
        for _ in range(12):
            session.play_round()
        tracker.handle(ev.SeatPlayer(table="tcp-1", seat=2, player="", user="dee"))
        tracker.handle(ev.SeatPlayer(table="tcp-1", seat=5, player="4417-0021", user="dee"))
        session.players[5] = session.players.pop(2)
        for _ in range(12):
            session.play_round()
        rounds = read_rounds(log)
    report = protect(rounds)
    carder = [s for s in report.sessions if s.get("player") == "4417-0021"]
    assert len(carder) == 1 and carder[0]["seats"] == [2, 5] and carder[0]["rounds"] == [1, 24]
    assert carder[0]["hole_card"]["decisions"] == 24
    # Twelve rounds at each seat are too few to flag alone; followed across both, the
    # player is flagged under the id.
    assert [f.subject for f in report.flags] == ["tcp-1 player 4417-0021 rounds 1-24"]
    anonymous = [dataclasses.replace(r, players={}) for r in rounds]
    assert protect(anonymous).flags == []


def test_a_seat_outside_the_table_is_refused() -> None:
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("three-card-poker"), log)
        with pytest.raises(EventError, match=r"seats 1\.\.6, got 9"):
            tracker.handle(ev.SeatPlayer(table="tcp-1", seat=9, player="A1", user="dee"))
    with pytest.raises(EventError, match="printable"):
        ev.SeatPlayer(table="tcp-1", seat=2, player=" A1")


def test_shifts_end_at_a_dealer_change_or_at_the_shift_length() -> None:
    times = ["2026-12-07T18:00:00", "2026-12-07T19:00:00", "2026-12-07T21:00:00", "2026-12-07T21:30:00"]
    rounds = [
        RoundRecord("t", i + 1, None, dealer=d, opened_at=at)
        for i, (d, at) in enumerate(zip(["ann", "ann", "ann", "ben"], times, strict=True))
    ]
    assert [s.name for s in shifts_of(rounds, shift_hours=8)] == ["t rounds 1-3", "t rounds 4-4"]
    assert [s.name for s in shifts_of(rounds, shift_hours=2.5)] == [
        "t rounds 1-2",
        "t rounds 3-3",
        "t rounds 4-4",
    ]


def test_a_bad_shift_is_flagged_where_the_dealer_overall_is_not() -> None:
    rng = random.Random(8)
    bad: list[int] = []
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("three-card-poker"), log)
        for block, dealer in enumerate(("ann", "ben", "ann", "cy", "ann")):
            for i in range(30):
                expose = (block == 2 and i % 4 == 1) or (block, i) in ((0, 5), (1, 20), (3, 9), (4, 14))
                deal(tracker, dealer, rng, expose=expose)
                if block == 2 and expose:
                    bad.append(tracker.round_id)
        rounds = read_rounds(log)
    report = protect(rounds)
    exposures = [f for f in report.flags if f.statistic["incident"] == "exposure"]
    assert [f.subject for f in exposures] == ["dealer ann shift tcp-1 rounds 61-90: exposure"]
    assert exposures[0].rounds == bad and len(bad) == 8
    overall = next(
        d for d in report.dealers if d["dealer"] == "ann" and "shift" not in d and d["incident"] == "exposure"
    )
    assert overall["count"] == 10 and overall["p_value"] * len(report.dealers) > 1e-3


def test_a_supervisors_jackpot_override_counts_against_the_round_and_a_refund_does_not() -> None:
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("pairs-and-up"), log)
        progressive = ProgressiveController("pu-1", table_params("pairs-and-up")[1], log)
        progressive.attach(tracker)
        tracker.handle(ev.RoundOpen(table="pu-1", user="dee"))
        tracker.handle(ev.Wager(table="pu-1", seat=1, bet="ante", amount=500, user="dee"))
        tracker.handle(ev.Wager(table="pu-1", seat=1, bet="progressive", amount=100, user="dee"))
        tracker.handle(ev.BettingClosed(table="pu-1", user="dee"))
        progressive.correct(Fraction(100), "sam", "supervisor", "meter audit")
        tracker.handle(ev.ApproveVoid(table="pu-1", user="sam", role="supervisor", reason="table closed"))
        tracker.handle(ev.RoundClose(table="pu-1", user="dee"))
        kinds = [
            r.event.to_dict().get("user") for r in log.records() if r.event.kind == "progressive-correction"
        ]
        rounds = read_rounds(log)
    assert "sam" in kinds and "tracker" in kinds, kinds
    assert [(r.round_id, r.overrides, r.dealer) for r in rounds] == [(1, 1, "dee")]
