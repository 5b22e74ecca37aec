"""Three Card Poker analysis against the published figures (and exact class counts)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dealerassist.analysis import AnalysisRequest, analyze
from dealerassist.analysis.three_card_poker import OUTCOMES, ante_play, hand_table, outcome_counts, pair_plus
from dealerassist.cli import main
from dealerassist.games.three_card_poker import showdown


def test_pair_plus_text_table_edge_is_exact() -> None:
    """Pair Plus 1/3/6/30/40: the known 7.28% edge, as the exact fraction of 22,100 hands."""
    result = pair_plus(AnalysisRequest("three-card-poker"))
    assert result.total == 22100
    assert result.combinations["straight-flush"] == 48
    assert result.combinations["three-of-a-kind"] == 52
    assert result.combinations["straight"] == 720
    assert result.combinations["flush"] == 1096
    assert result.combinations["pair"] == 3744
    assert result.house_edge == Fraction(1608, 22100)
    assert round(float(result.house_edge), 4) == 0.0728


def test_pair_plus_original_table_edge() -> None:
    """Pair Plus 1/4/6/30/40: about 2.32%."""
    result = pair_plus(AnalysisRequest("three-card-poker", paytable="pair-plus-1-4-6-30-40"))
    assert result.paytable == "pair-plus-1-4-6-30-40"
    assert round(float(result.house_edge), 4) == 0.0232


@pytest.mark.slow
def test_ante_play_with_optimal_strategy_matches_the_published_edge() -> None:
    """Ante/Play with Ante Bonus 1/4/5 and the best play-or-fold choice: about 3.37% of the Ante;
    the strategy found is the well-known 'play Q-6-4 or better'."""
    result = ante_play(AnalysisRequest("three-card-poker"))
    assert result.total == 22100 * 18424
    assert sum(result.combinations.values()) == result.total
    assert round(float(result.house_edge), 4) == 0.0337
    assert result.extra["weakest_hand_played"] == "Q-6-4"


def test_cli_json_prints_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "three-card-poker", "--bet", "pair-plus", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "three-card-poker"
    bet = out["bets"]["pair-plus"]
    assert set(bet) == {"house_edge", "hit_frequency", "combinations", "total"}
    assert bet["total"] == 22100


def test_registry_lists_both_bets() -> None:
    results = analyze(AnalysisRequest("three-card-poker"), ["pair-plus"])
    assert list(results) == ["pair-plus"]


def test_vectorized_outcomes_agree_with_showdown_hand_by_hand() -> None:
    """The ante-play counts must be exactly what the live ``showdown`` says, dealer hand by dealer
    hand, for sample player hands (strong, marginal, weak)."""
    hands = hand_table()
    players = [0, 5000, 11111, 17000, len(hands.values) - 1]
    counts = outcome_counts(hands, players, lambda done, total: None)
    for row, player in zip(counts.tolist(), players, strict=True):
        mine = hands.values[player]
        tally = dict.fromkeys(OUTCOMES, 0)
        for dealer in hands.values:
            if not set(dealer.held) & set(mine.held):
                tally[showdown(mine, dealer)] += 1
        assert row == [tally[o] for o in OUTCOMES]
        assert sum(row) == 18424
