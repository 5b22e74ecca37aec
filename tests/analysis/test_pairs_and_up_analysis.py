"""Pairs & Up analysis: exact counts checked against closed-form combinatorics of the 52-card deck
(25 aces; 7/6/6/6 aces of spades/hearts/diamonds/clubs; two 3 and two 4 of diamonds), and the
house edges the example pay tables were set from."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.analysis import AnalysisRequest
from dealerassist.analysis.pairs_and_up import BETS
from dealerassist.tablefiles.paytables import load_paytables

ORDERED_DEALS = 52 * 51 * 50 * 49


@pytest.fixture(scope="module")
def results():
    return {bet: analyze(AnalysisRequest("pairs-and-up")) for bet, analyze in BETS.items()}


def test_every_ordered_deal_of_four_cards_is_counted(results) -> None:
    for analysis in results.values():
        assert analysis.total == ORDERED_DEALS
        assert sum(analysis.combinations.values()) == ORDERED_DEALS


def test_double_match_counts_follow_from_the_deck(results) -> None:
    counts = results["double-match"].combinations
    assert counts["matched-aces"] == 25 * 24 * 23 * 22, "four aces from 25, in order"
    assert counts["super-jackpot"] == 2 * (2 * 2) * 2 * (1 * 1), (
        "one of two 3D and 4D each side, either order"
    )
    pairs = 12 * 11 * 10 * 9 + 8 * 7 * 6 * 5 + 7 * 6 * 5 * 4
    assert counts["matched-pair"] == pairs


def test_progressive_four_aces_flush_count_follows_from_the_suit_split(results) -> None:
    counts = results["progressive"].combinations
    assert counts["four-aces-flush"] == 7 * 6 * 5 * 4 + 3 * (6 * 5 * 4 * 3)


def test_house_edge_is_the_priced_sum_of_the_counted_classes(results) -> None:
    """Recompute each edge from the combinations and the pay table: the analyzer hides nothing."""
    tables = load_paytables("pairs-and-up")
    dm = results["double-match"]
    table = tables.get(dm.paytable)
    net = sum(
        n * (table.award(name).pay(100).exact / 100 if table.award(name) else -1)
        for name, n in dm.combinations.items()
    )
    assert Fraction(dm.house_edge) == -Fraction(net) / dm.total
    ante = results["ante-play"]
    play = tables.get(ante.paytable)
    value = -ante.combinations["fold"] - 3 * ante.combinations["lose"]
    value += sum(
        3 * n * play.award(name).pay(100).exact / 100
        for name, n in ante.combinations.items()
        if play.award(name)
    )
    assert Fraction(ante.house_edge) == -Fraction(value) / ante.total


def test_the_example_tables_land_in_the_intended_band(results) -> None:
    """The shipped example tables were set with this analyzer for 2-6% house edges."""
    for bet in ("ante-play", "double-match", "progressive"):
        assert 0.02 < float(results[bet].house_edge) < 0.06, bet


def test_the_best_choice_folds_some_states_and_plays_several_hands(results) -> None:
    """Sometimes it is wiser to fold than play, and not all choices are equal: the strategy found
    folds some states, plays different hands in others, and loses far less than folding all."""
    analysis = results["ante-play"]
    assert float(analysis.house_edge) < 1
    assert analysis.combinations["fold"] < analysis.total
    assert analysis.combinations["two-pair"] > 0 and analysis.combinations["straight"] > 0
