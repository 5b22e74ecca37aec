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


def test_fortune_edge_follows_the_trips_and_straight_option(results) -> None:
    """Trips with a straight at the straight's 2 to 1 (the default) or the trips' 3 to 1."""
    best_five = results["fortune"]
    higher = BETS["fortune"](
        AnalysisRequest("face-up-pai-gow", options={"fortune_trips_and_straight": "higher-pay"})
    )
    assert round(float(best_five.house_edge), 6) == 0.078965
    assert round(float(higher.house_edge), 6) == 0.077656
    moved = higher.extra["trips_and_straight"]["hands"]
    assert moved > 0
    assert higher.combinations["straight"] == best_five.combinations["straight"] - moved
    assert higher.combinations["three-of-a-kind"] == best_five.combinations["three-of-a-kind"] + moved
    assert Fraction(best_five.house_edge) - Fraction(higher.house_edge) == Fraction(moved, best_five.total)


def test_envy_per_qualifying_bettor_grows_with_each_other_player(results) -> None:
    envy = results["envy"]
    counts = results["fortune"].combinations
    fixed = {  # paytables.md, in dollars
        "seven-card-straight-flush": 5000,
        "royal-flush-royal-match": 1000,
        "seven-card-straight-flush-joker": 500,
        "five-aces": 250,
        "royal-flush": 50,
        "straight-flush": 20,
        "four-of-a-kind": 5,
    }
    per_hand = Fraction(sum(counts[name] * dollars for name, dollars in fixed.items()), comb(53, 7))
    by_others = envy.extra["envy_by_others"]
    assert sorted(by_others, key=int) == ["1", "2", "3", "4", "5", "6"]
    for n, row in by_others.items():
        assert row["dollars_per_round"] == pytest.approx(float(int(n) * per_hand), rel=1e-12)
        assert row["share_of_fortune"] == pytest.approx(float(int(n) * per_hand / 5), rel=1e-12)
    assert Fraction(envy.house_edge) == -per_hand / 5
    assert envy.combinations == counts  # the other hand's classes, as Fortune counts them
    assert envy.hit_frequency == Fraction(sum(counts[name] for name in fixed), envy.total)


def test_analyze_command_follows_a_table_files_option(tmp_path) -> None:
    import json
    import subprocess
    import sys

    from dealerassist.core.configfiles import bundled_dir

    text = (bundled_dir() / "tables" / "face-up-pai-gow.toml").read_text()
    table = tmp_path / "higher-pay.toml"
    shipped = 'fortune_trips_and_straight = "best-five"'
    assert shipped in text
    table.write_text(text.replace(shipped, 'fortune_trips_and_straight = "higher-pay"'))
    args = [
        "analyze",
        "face-up-pai-gow",
        "--bet",
        "fortune",
        "--bet",
        "envy",
        "--json",
        "--table",
        str(table),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "dealerassist", *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    bets = json.loads(done.stdout)["bets"]
    assert round(bets["fortune"]["house_edge"], 6) == 0.077656
    assert bets["fortune"]["trips_and_straight"]["paid_as"] == "three-of-a-kind"
    assert bets["envy"]["envy_by_others"]["6"]["dollars_per_round"] == pytest.approx(
        6 * bets["envy"]["envy_by_others"]["1"]["dollars_per_round"]
    )
