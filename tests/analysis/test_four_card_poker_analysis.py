"""Four Card Poker analysis: best four of five class counts and the pay tables' edges."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.analysis import AnalysisRequest
from dealerassist.analysis.four_card_poker import aces_up, ante_bonus, strength_histogram
from dealerassist.games.four_card_poker import aces_up_class

# Best four of five cards, all 2,598,960 hands (published Four Card Poker frequencies).
BEST_FOUR_OF_FIVE = {
    "four-of-a-kind": 624,
    "straight-flush": 2072,
    "three-of-a-kind": 58656,
    "flush": 114616,
    "straight": 101808,
    "two-pair": 123552,
    "high-card": 1150080,
}


@pytest.mark.slow
def test_aces_up_text_table() -> None:
    """Aces Up 50/30/7/6/5/2/1 on the best four of five cards; a pair below aces loses."""
    result = aces_up(AnalysisRequest("four-card-poker"))
    assert result.total == 2598960
    for name, count in BEST_FOUR_OF_FIVE.items():
        assert result.combinations[name] == count
    assert result.combinations["pair-of-aces"] + result.combinations["pair"] == 1047552
    paid = {"four-of-a-kind": 50, "straight-flush": 30, "three-of-a-kind": 7, "flush": 6, "straight": 5}
    paid |= {"two-pair": 2, "pair-of-aces": 1}
    won = sum(result.combinations[c] * odds for c, odds in paid.items())
    lost = result.total - sum(result.combinations[c] for c in paid)
    assert result.house_edge == Fraction(lost - won, result.total)
    assert 0.03 < float(result.house_edge) < 0.04


@pytest.mark.slow
def test_ante_bonus_gives_back_a_fixed_share_of_the_ante() -> None:
    """Automatic bonus 25/20/2: what it pays per unit of Ante is a negative edge."""
    result = ante_bonus(AnalysisRequest("four-card-poker"))
    expected = Fraction(624 * 25 + 2072 * 20 + 58656 * 2, 2598960)
    assert result.house_edge == -expected


@pytest.mark.slow
def test_every_distinct_best_four_is_named_by_the_live_code() -> None:
    """The histogram covers all 2,598,960 hands; its values are real ``best_four`` results, each
    named as the live round names it."""
    histogram = strength_histogram(AnalysisRequest("four-card-poker"))
    assert sum(count for _, count in histogram) == 2598960
    strengths = [value.strength for value, _ in histogram]
    assert strengths == sorted(set(strengths))
    names = {aces_up_class(value) for value, _ in histogram}
    assert "pair-of-aces" in names and "pair" in names
