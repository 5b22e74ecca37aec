"""The simulated players' wagers: always within the table's limits, on the chip, forced bets honoured."""

from __future__ import annotations

import random

import pytest

from dealerassist.simulation.bets import MAIN_BET, plan_wagers, side_bets
from dealerassist.simulation.demo import demo_games
from dealerassist.tablefiles.tables import load_table


@pytest.mark.parametrize("game", demo_games())
def test_every_wager_is_within_limits_and_every_spot_has_the_main_bet(game: str) -> None:
    rules = load_table(game).rules
    rng = random.Random(7)
    seen_bets: set[str] = set()
    for _ in range(200):
        wagers = plan_wagers(rules, rng)
        seats = {w.seat for w in wagers}
        assert 2 <= len(seats) <= min(rules.seats, 5)
        for seat in seats:
            assert any(w.seat == seat and w.bet == MAIN_BET[game] for w in wagers)
        for wager in wagers:
            limit = rules.limit(wager.bet)
            assert limit.minimum <= wager.amount <= limit.maximum, wager
            assert wager.amount % rules.chip == 0
            seen_bets.add(wager.bet)
    assert seen_bets == {MAIN_BET[game], *side_bets(rules)}


def test_a_forced_progressive_is_placed_and_a_locked_one_never() -> None:
    rules = load_table("pairs-and-up").rules
    rng = random.Random(3)
    for _ in range(50):
        wagers = plan_wagers(rules, rng, must_bet={4: ["progressive"]})
        assert any(w.seat == 4 and w.bet == "progressive" and w.amount == 100 for w in wagers)
        locked = plan_wagers(rules, rng, allow=frozenset({"double-match"}))
        assert all(w.bet != "progressive" for w in locked)


def test_side_bets_leave_out_decision_bets_and_bets_that_need_another() -> None:
    assert side_bets(load_table("pairs-and-up").rules) == ["double-match", "progressive"]
    assert side_bets(load_table("face-up-pai-gow").rules) == ["fortune", "ace-high", "progressive"]
