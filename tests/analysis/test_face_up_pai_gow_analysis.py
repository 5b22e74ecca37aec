"""Face Up Pai Gow analysis over all 154,143,080 seven-card hands of the 53-card deck: totals and
the rare classes checked against counts derived by hand, and the pricing against the pay tables."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from dealerassist.analysis import AnalysisRequest
from dealerassist.analysis.face_up_pai_gow import BETS, rank_patterns, spread_hand
from dealerassist.tablefiles.paytables import load_paytables

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    return {bet: analyze(AnalysisRequest("face-up-pai-gow")) for bet, analyze in BETS.items()}


def test_every_seven_card_hand_is_counted_once(results) -> None:
    for analysis in results.values():
        assert analysis.total == comb(53, 7) == 154_143_080
        assert sum(analysis.combinations.values()) == analysis.total


def test_rare_fortune_classes_match_hand_counts(results) -> None:
    counts = results["fortune"].combinations
    assert counts["seven-card-straight-flush"] == 8 * 4, "A-7 up to 8-A, four suits"
    # six suited naturals inside a seven-rank window plus the joker: 8 windows x 5 inner gaps,
    # plus 9 runs of six that the joker extends, in four suits
    assert counts["seven-card-straight-flush-joker"] == (8 * 5 + 9) * 4
    assert counts["five-aces"] == comb(48, 2), "four aces, the joker and any two others"
    # a natural royal or four royal cards with the joker, beside a suited K-Q of another suit
    assert counts["royal-flush-royal-match"] == 4 * 3 + 4 * 5 * 3


def test_fortune_edge_is_the_pay_table_priced_over_the_counts(results) -> None:
    fortune = results["fortune"]
    table = load_paytables("face-up-pai-gow").get(fortune.paytable)
    net = Fraction(0)
    for name, n in fortune.combinations.items():
        award = table.award(name)
        net += n * (award.pay(100).exact / 100 if award else -1)
    assert Fraction(fortune.house_edge) == -net / fortune.total
    assert 0.05 < float(fortune.house_edge) < 0.10


def test_ace_high_counts_only_hands_with_nothing_but_an_ace_on_top(results) -> None:
    ace_high = results["ace-high"]
    assert ace_high.combinations["ace-high"] < results["fortune"].combinations["high-card"]
    assert ace_high.combinations["ace-high"] + ace_high.combinations["lose"] == ace_high.total


def test_representative_hands_never_hold_a_flush() -> None:
    for counts in rank_patterns(7):
        hand = spread_hand(counts, 0)
        assert max(sum(1 for c in hand if c.suit == s) for s in "SHDC") <= 2
