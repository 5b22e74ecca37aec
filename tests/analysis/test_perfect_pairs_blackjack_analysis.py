"""Perfect Pairs analysis against exact pair counts and the published edges."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dealerassist.analysis import AnalysisError, AnalysisRequest
from dealerassist.analysis.perfect_pairs_blackjack import perfect_pairs
from dealerassist.cli import main


def test_six_deck_text_table_matches_the_texts_own_return() -> None:
    """25/12/6 from six decks: the second card pairs the first 23 times in 311 (5 perfect, 6
    coloured, 12 mixed), an edge of 19/311 = 6.11%, i.e. the text's '93.89% on Perfect Pairs'."""
    result = perfect_pairs(AnalysisRequest("perfect-pairs-blackjack"))
    assert result.total == 312 * 311 // 2
    assert result.combinations == {
        "perfect-pair": 52 * 15,
        "coloured-pair": 13 * 2 * 36,
        "mixed-pair": 13 * 4 * 36,
        "no-pair": result.total - 52 * 15 - 13 * 6 * 36,
    }
    assert result.house_edge == Fraction(19, 311)
    assert round(1 - float(result.house_edge), 4) == 0.9389


def test_eight_decks_give_the_published_four_point_one_percent() -> None:
    """The published 4.10% for 25/12/6 is the eight-deck figure (17/415)."""
    result = perfect_pairs(AnalysisRequest("perfect-pairs-blackjack", decks=8))
    assert result.house_edge == Fraction(17, 415)
    assert round(float(result.house_edge), 4) == 0.0410


def test_other_pay_tables_and_bad_deck_counts() -> None:
    result = perfect_pairs(AnalysisRequest("perfect-pairs-blackjack", paytable="perfect-pairs-25-12-5"))
    assert result.paytable == "perfect-pairs-25-12-5"
    assert result.house_edge == Fraction(19 + 12, 311)
    with pytest.raises(AnalysisError):
        perfect_pairs(AnalysisRequest("perfect-pairs-blackjack", decks=0))


def test_cli_json_for_the_shoe_size(capsys: pytest.CaptureFixture[str]) -> None:
    """``dealerassist analyze perfect-pairs-blackjack --decks 8 --json`` prints one object."""
    assert main(["analyze", "perfect-pairs-blackjack", "--decks", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    bet = out["bets"]["perfect-pairs"]
    assert out["game"] == "perfect-pairs-blackjack"
    assert bet["total"] == 416 * 415 // 2
    assert abs(bet["house_edge"] - 17 / 415) < 1e-12
