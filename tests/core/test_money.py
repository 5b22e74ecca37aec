"""Money is integer cents; payouts round down to the table's smallest chip and record the rest."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealerassist.core.money import (
    MoneyError,
    Odds,
    cap_pro_rata,
    format_amount,
    parse_amount,
    pay_odds,
    percent_of,
    round_down_to_chip,
)


@pytest.mark.parametrize(
    ("text", "cents"), [("25", 2500), ("$12.50", 1250), ("$1,250.5", 125050), ("0.05", 5), (" 3 ", 300)]
)
def test_parse_amount(text: str, cents: int) -> None:
    assert parse_amount(text) == cents


@pytest.mark.parametrize("text", ["", "-5", "1.234", "abc", "$", "5 dollars"])
def test_parse_amount_rejects_and_quotes(text: str) -> None:
    with pytest.raises(MoneyError, match=repr(text).replace("$", r"\$")):
        parse_amount(text)


def test_format_amount() -> None:
    assert format_amount(123456) == "$1,234.56"
    assert format_amount(-5) == "-$0.05"


def test_blackjack_three_to_two_on_five_dollars_rounds_down_to_the_chip() -> None:
    """3:2 on $5 is $7.50; with $1 chips the player gets $7 and 50 cents is recorded."""
    payout = pay_odds(500, Odds.parse("3 to 2"), chip=100)
    assert payout.amount == 700 and payout.remainder == 50


def test_odds_forms() -> None:
    assert Odds.parse("25 to 1") == Odds(25, 1) == Odds.parse(25) == Odds.parse("25")
    assert Odds.parse("3:2") == Odds(3, 2)
    with pytest.raises(MoneyError):
        Odds.parse("3 to 0")


def test_percent_of_meter_is_exact_then_rounded() -> None:
    payout = percent_of(1_234_567, "10", chip=1)
    assert payout.amount == 123_456 and payout.remainder == Fraction(7, 10)


def test_aggregate_cap_pays_pro_rata() -> None:
    shares = cap_pro_rata([3_000_000, 1_000_000], 2_500_000, chip=100)
    assert [s.amount for s in shares] == [1_875_000, 625_000]
    assert cap_pro_rata([100, 200], 1000) == [p for p in cap_pro_rata([100, 200], 1000)]
    assert [s.amount for s in cap_pro_rata([100, 200], 1000)] == [100, 200]


WINS = st.lists(st.integers(0, 10**9), min_size=1, max_size=8)


@given(WINS, st.integers(0, 10**9), st.sampled_from([1, 25, 100, 500]))
def test_cap_never_exceeds_and_loses_nothing(wins: list[int], cap: int, chip: int) -> None:
    shares = cap_pro_rata(wins, cap, chip)
    if sum(wins) <= cap:
        assert [s.amount for s in shares] == wins
    else:
        assert sum(s.amount for s in shares) <= cap
        assert sum(s.exact for s in shares) == cap
        assert all(s.amount % chip == 0 for s in shares)


@given(st.fractions(min_value=0, max_value=10**7), st.sampled_from([1, 5, 25, 100]))
def test_round_down_never_overpays(exact: Fraction, chip: int) -> None:
    payout = round_down_to_chip(exact, chip)
    assert payout.amount % chip == 0
    assert 0 <= payout.remainder < chip
    assert payout.amount + payout.remainder == exact
