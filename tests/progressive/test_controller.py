"""The controller on a standalone table: contributions, hits, locks, confirmations, voids, params."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from dealerassist.errors import RuleViolation
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.events import ProgressiveContribution, replay
from dealerassist.storage.eventlog import EventLog
from tests.progressive.support import FakeClock, TableFeed, attach, make_params

TABLE = "fupg-1"


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "events.db")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def feed(log: EventLog) -> TableFeed:
    return TableFeed(TABLE, log)


@pytest.fixture
def ctl(feed: TableFeed, log: EventLog, clock: FakeClock) -> ProgressiveController:
    return attach(feed, ProgressiveController(TABLE, make_params(), log, clock=clock, win_display_s=5))


def progressive_events(log: EventLog) -> list:
    return [r.event for r in log.records() if r.event.kind.startswith("progressive-")]


def test_opening_logs_the_parameters_and_seeds_the_base(ctl: ProgressiveController, log: EventLog) -> None:
    events = progressive_events(log)
    assert [e.kind for e in events] == ["progressive-params"]
    assert events[0].opening and events[0].new["base"] == "$10,000.00"
    assert ctl.state()["amount"] == 1_000_000 and ctl.state()["status"] == "normal"


def test_every_qualifying_wager_contributes_exactly_once_at_betting_close(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {1: 100, 3: 100, 5: 100})
    contributions = [e for e in progressive_events(log) if isinstance(e, ProgressiveContribution)]
    assert [c.seat for c in contributions] == [1, 3, 5]
    assert sum(Fraction(c.to_meter) for c in contributions) == Fraction("46.5")
    state = ctl.state()
    assert state["amount"] == 1_000_046  # 46.5 cents shown rounded down, the half cent carried
    assert state["meters"]["qualifying_wagers"] == 3 and state["meters"]["handle"] == 300
    feed.settle(1, {1: "pair", 3: "nothing"})
    assert len([e for e in progressive_events(log) if isinstance(e, ProgressiveContribution)]) == 3


def test_wrong_amounts_and_other_bets_are_not_contributions(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    with pytest.raises(RuleViolation, match=r"exactly \$1.00"):
        ctl.check_wager(2, "progressive", 500)
    ctl.check_wager(2, "ante", 500)
    feed.round(1, {2: 500})
    feed.round(2, {2: 100}, bet="ante")
    assert [e.kind for e in progressive_events(log)] == ["progressive-params"]


def test_top_hit_locks_shows_win_then_pending_until_a_supervisor_confirms(
    ctl: ProgressiveController, feed: TableFeed, clock: FakeClock
) -> None:
    signs: list[dict] = []
    ctl.subscribe(signs.append)
    feed.round(1, {2: 100})
    feed.settle(1, {2: "seven-card-straight-flush"})
    state = ctl.state()
    assert state["status"] == "win"
    assert state["win"] == {"table": TABLE, "seat": 2, "amount": 1_000_015, "hit_id": f"{TABLE}:1:2"}
    assert state["amount"] == 500_004  # reset $5,000 plus the reserve (4.25 cents, carried exactly)
    with pytest.raises(RuleViolation, match="locked"):
        ctl.check_wager(1, "progressive", 100)
    clock.now += 6
    assert ctl.state()["status"] == "pending"
    with pytest.raises(RuleViolation, match="supervisor"):
        ctl.confirm(f"{TABLE}:1:2", "dana", "dealer")
    paid = ctl.confirm(f"{TABLE}:1:2", "sam", "supervisor")
    assert paid.paid == 1_000_015
    state = ctl.state()
    assert (state["status"], state["win"], state["amount"]) == ("normal", None, 500_004)
    assert state["hits"][0]["amount"] == 1_000_015 and state["meters"]["total_won"] == 1_000_015
    assert [s["status"] for s in signs][-2:] == ["win", "normal"]
    with pytest.raises(RuleViolation, match="no jackpot"):
        ctl.confirm(f"{TABLE}:1:2", "sam", "supervisor")


def test_several_hits_in_a_round_pay_in_seat_order_each_from_the_meter_left(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {1: 100, 4: 100, 6: 100})
    feed.settle(1, {6: "royal-match", 4: "seven-card-straight-flush", 1: "royal-match"})
    hits = [e for e in progressive_events(log) if e.kind == "progressive-hit"]
    assert [(h.seat, h.order) for h in hits] == [(1, 1), (4, 2), (6, 3)]
    first, second, third = hits
    assert first.meter_before == 1_000_046 and first.paid == 100_004
    assert second.meter_before == 1_000_046 - 100_004 and second.paid == second.meter_before
    # The top award emptied the meter, so seat 6 is paid 10% of the reset meter.
    assert third.meter_before == 500_012 and third.paid == 50_001
    assert ctl.state()["pending"] == [h.hit_id for h in hits]
    for hit in hits:
        ctl.confirm(hit.hit_id, "sam", "supervisor")
    assert ctl.state()["status"] == "normal"


def test_a_settlement_corrected_after_the_fact_still_finds_the_round_s_wagers(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {4: 100})
    feed.settle(1, {4: "nothing"})
    feed.settle(1, {4: "royal-match"})  # a supervisor corrected a misread card: re-settled
    assert [e.seat for e in progressive_events(log) if e.kind == "progressive-hit"] == [4]
    assert ctl.state()["win"]["seat"] == 4


def test_fixed_awards_come_from_the_reserve(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {3: 100})
    feed.settle(1, {3: "straight-flush"})
    hit = next(e for e in progressive_events(log) if e.kind == "progressive-hit")
    assert (hit.paid, Fraction(hit.from_reserve), Fraction(hit.from_house)) == (
        7500,
        Fraction("4.25"),
        7500 - Fraction("4.25"),
    )
    assert ctl.state()["amount"] == 1_000_015
    # The game's settlement tells the dealer to pay a fixed prize: it locks nothing.
    assert ctl.state()["status"] == "normal" and ctl.state()["hits"][0]["amount"] == 7500
    ctl.check_wager(3, "progressive", 100)


def test_a_voided_round_gives_its_contributions_back_by_a_documented_correction(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {1: 100, 2: 100})
    feed.void(1)
    corrections = [e for e in progressive_events(log) if e.kind == "progressive-correction"]
    assert [c.seat for c in corrections] == [1, 2] and all("voided" in c.reason for c in corrections)
    assert ctl.meter.meter == 1_000_000 and ctl.meter.reserve == 0 and ctl.meter.wagers == 0


def test_parameters_change_only_between_rounds_by_a_supervisor_and_take_effect_for_the_next_jackpot(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    new = make_params(increment="20", reset="7500")
    with pytest.raises(RuleViolation, match="supervisor"):
        ctl.change_params(new, "dana", "dealer")
    feed.round(1, {1: 100})
    with pytest.raises(RuleViolation, match="between rounds"):
        ctl.change_params(new, "sam", "supervisor")
    feed.settle(1, {})
    changed = ctl.change_params(new, "sam", "supervisor", "new layout")
    assert (changed.old["increment"], changed.new["increment"], changed.reason) == (
        "15.5",
        "20",
        "new layout",
    )
    assert ctl.state()["next_params"]["reset"] == "$7,500.00"
    assert ctl.params == new and ctl.params_in_force.rates.increment == Fraction("15.5")

    def last_increment() -> Fraction:
        return Fraction(
            [e for e in progressive_events(log) if isinstance(e, ProgressiveContribution)][-1].to_meter
        )

    # The players of this cycle were promised 15.5%: it stays until the jackpot is won.
    feed.round(2, {1: 100, 2: 100})
    assert last_increment() == Fraction("15.5")
    feed.settle(2, {2: "seven-card-straight-flush"})
    # The jackpot's reset starts the new cycle at the new reset value, under the new rates.
    reset = next(e for e in progressive_events(log) if e.kind == "progressive-reset")
    assert reset.amount_after == 750_012
    assert ctl.params_in_force == new and ctl.state()["next_params"] is None
    ctl.confirm(f"{TABLE}:2:2", "sam", "supervisor")
    feed.round(3, {1: 100})
    assert last_increment() == 20
    again = ProgressiveController(TABLE, make_params(), log)
    assert again.params_in_force == new and again.meter == ctl.meter


def test_the_log_replays_to_the_controller_meter(
    ctl: ProgressiveController, feed: TableFeed, log: EventLog
) -> None:
    feed.round(1, {1: 100, 2: 100})
    feed.settle(1, {2: "royal-match"})
    ctl.confirm(f"{TABLE}:1:2", "sam", "supervisor")
    feed.round(2, {1: 100})
    feed.void(2)
    assert replay(progressive_events(log), "fortune-link") == ctl.meter
    assert ctl.meter.balanced


def test_a_restarted_controller_finishes_what_a_crash_interrupted(log: EventLog, clock: FakeClock) -> None:
    feed = TableFeed(TABLE, log)
    first = attach(feed, ProgressiveController(TABLE, make_params(), log, clock=clock))
    feed.round(1, {1: 100})
    feed.subscribers.clear()  # the controller "dies": the tracker keeps logging without it
    feed.round(2, {1: 100, 2: 100})
    feed.settle(2, {2: "royal-match"})
    second = ProgressiveController(TABLE, make_params(), log, clock=clock)
    events = progressive_events(log)
    assert [e.kind for e in events].count("progressive-contribution") == 3
    assert [e.kind for e in events].count("progressive-hit") == 1
    assert second.meter.wagers == 3 and second.meter.pending == (f"{TABLE}:2:2",)
    assert first.meter.wagers == 1
    third = ProgressiveController(TABLE, make_params(), log, clock=clock)
    assert third.meter == second.meter and len(progressive_events(log)) == len(events)
