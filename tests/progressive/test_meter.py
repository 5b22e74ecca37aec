"""The pure meter arithmetic: exact contributions, caps, awards, resets, corrections."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerassist.core.money import MoneyError
from dealerassist.progressive import meter

RATES = meter.MeterRates(base=1_000_000, reset=500_000, increment=Fraction(3, 2) * 10, reserve=Fraction(5))


def opened(rates: meter.MeterRates = RATES) -> meter.MeterState:
    return meter.open_meter(meter.EMPTY, rates)


def contribute(state: meter.MeterState, rates: meter.MeterRates, wager: int) -> meter.MeterState:
    return meter.apply_contribution(state, meter.contribution(state, rates, wager))


def test_opening_seeds_the_base() -> None:
    state = opened()
    assert (state.amount, state.seeded, state.balanced) == (1_000_000, 1_000_000, True)


def test_sub_cent_increments_carry_forward_and_never_drift() -> None:
    rates = meter.MeterRates(base=0, reset=0, increment=Fraction("2.37"), reserve=Fraction("0.41"))
    state = opened(rates)
    for _ in range(1000):
        state = contribute(state, rates, 100)
    # 1000 wagers of $1 at 2.37% is exactly $23.70, although each increment is 2.37 cents.
    assert state.meter == Fraction(2370)
    assert state.amount == 2370 and state.carry == 0
    assert state.reserve == Fraction(410)
    assert (state.wagers, state.handle) == (1000, 100_000)


def test_the_sign_rounds_down_and_keeps_the_remainder() -> None:
    rates = meter.MeterRates(base=0, reset=0, increment=Fraction("2.37"))
    state = contribute(opened(rates), rates, 100)
    assert state.amount == 2
    assert state.carry == Fraction(37, 100)


def test_increments_above_the_limit_go_to_overflow() -> None:
    rates = meter.MeterRates(base=990, reset=500, increment=Fraction(10), limit=1000)
    state = opened(rates)
    c = meter.contribution(state, rates, 150)
    assert (c.to_meter, c.to_overflow) == (Fraction(10), Fraction(5))
    state = meter.apply_contribution(state, c)
    c2 = meter.contribution(state, rates, 100)
    assert (c2.to_meter, c2.to_overflow) == (0, 10)
    state = meter.apply_contribution(state, c2)
    assert (state.amount, state.overflow, state.balanced) == (1000, 15, True)


def test_top_award_pays_the_shown_meter_and_resets_to_reset_plus_reserve() -> None:
    rates = meter.MeterRates(base=10_000, reset=5_000, increment=Fraction("1.5"), reserve=Fraction("0.5"))
    state = opened(rates)
    for _ in range(3):
        state = contribute(state, rates, 100)
    assert state.amount == 10_004 and state.carry == Fraction(1, 2)
    pay = meter.meter_payment(state, Fraction(100))
    assert (pay.paid, pay.meter_before) == (10_004, 10_004)
    state = meter.apply_payment(state, pay, {"hit_id": "t:1:1", "amount": pay.paid})
    reset = meter.reset_after_payment(state, rates)
    assert reset is not None
    # The half cent the sign never showed is kept: the house seeds only what is missing.
    assert reset.seed == Fraction(5_000) - Fraction(1, 2)
    assert reset.from_reserve == Fraction(3, 2)
    state = meter.apply_reset(state, reset)
    assert state.meter == Fraction(5_000) + Fraction(3, 2)
    assert (state.amount, state.reserve, state.hits, state.won) == (5_001, 0, 1, 10_004)
    assert state.balanced


def test_partial_award_leaves_the_meter_above_reset_without_a_reset() -> None:
    state = opened()
    pay = meter.meter_payment(state, Fraction(10))
    assert pay.paid == 100_000
    state = meter.apply_payment(state, pay, {})
    assert meter.reset_after_payment(state, RATES) is None
    assert state.amount == 900_000


def test_fixed_award_comes_from_the_reserve_and_the_house_covers_the_rest() -> None:
    state = meter.replace(opened(), reserve=Fraction(30_000))
    pay = meter.fixed_payment(state, 100_000)
    assert (pay.from_reserve, pay.from_house, pay.from_meter) == (30_000, 70_000, 0)
    after = meter.apply_payment(state, pay, {})
    assert (after.reserve, after.amount, after.won) == (0, 1_000_000, 100_000)


def test_recent_hits_keep_the_last_25_newest_first() -> None:
    state = opened()
    for i in range(30):
        state = meter.apply_payment(state, meter.fixed_payment(state, 100), {"hit_id": str(i)})
    assert len(state.recent) == 25
    assert [h["hit_id"] for h in state.recent[:2]] == ["29", "28"]


def test_lock_and_unlock_follow_pending_hits() -> None:
    state = meter.lock(meter.lock(opened(), "a"), "b")
    assert state.locked
    state = meter.unlock(state, "a")
    assert state.pending == ("b",)
    with pytest.raises(MoneyError, match="not waiting"):
        meter.unlock(state, "a")


def test_bad_rates_and_awards_are_refused() -> None:
    with pytest.raises(MoneyError, match="limit"):
        meter.MeterRates(base=1000, reset=10, increment=Fraction(1), limit=999)
    with pytest.raises(MoneyError, match="rates"):
        meter.MeterRates(base=0, reset=0, increment=Fraction(90), reserve=Fraction(20))
    with pytest.raises(MoneyError, match="positive"):
        meter.contribution(opened(), RATES, 0)
    with pytest.raises(MoneyError, match="0%"):
        meter.meter_payment(opened(), Fraction(0))


def test_state_round_trips_through_plain_data() -> None:
    state = contribute(opened(), RATES, 333)
    state = meter.lock(meter.apply_payment(state, meter.fixed_payment(state, 7), {"hit_id": "x"}), "x")
    assert meter.MeterState.from_dict(state.to_dict()) == state


operation = st.one_of(
    st.tuples(st.just("wager"), st.integers(1, 50_000)),
    st.tuples(st.just("meter"), st.sampled_from([Fraction(100), Fraction(10), Fraction(1, 3), Fraction(50)])),
    st.tuples(st.just("fixed"), st.integers(0, 200_000)),
    st.tuples(st.just("void"), st.integers(1, 50_000)),
)


@settings(max_examples=200, deadline=None)
@given(
    ops=st.lists(operation, max_size=60),
    increment=st.fractions(0, 50, max_denominator=1000),
    reserve=st.fractions(0, 50, max_denominator=1000),
    limit=st.one_of(st.none(), st.integers(2_000_000, 3_000_000)),
)
def test_money_is_conserved_and_the_meter_moves_only_through_recorded_doors(
    ops: list[tuple[str, object]], increment: Fraction, reserve: Fraction, limit: int | None
) -> None:
    rates = meter.MeterRates(base=1_000_000, reset=500_000, increment=increment, reserve=reserve, limit=limit)
    state = opened(rates)
    contributed = Fraction(0)
    for op, value in ops:
        before = state
        if op == "wager":
            c = meter.contribution(state, rates, int(value))  # type: ignore[call-overload]
            contributed += c.total
            state = meter.apply_contribution(state, c)
            assert state.meter >= before.meter, "a contribution never lowers the meter"
            assert limit is None or state.meter <= limit
        elif op == "void":
            c = meter.contribution(state, rates, int(value))  # type: ignore[call-overload]
            state = meter.apply_correction(meter.apply_contribution(state, c), meter.reverse(c))
            assert state.pools == before.pools
        else:
            pay = (
                meter.meter_payment(state, value)  # type: ignore[arg-type]
                if op == "meter"
                else meter.fixed_payment(state, int(value))  # type: ignore[call-overload]
            )
            state = meter.apply_payment(state, pay, {})
            if op == "meter":
                reset = meter.reset_after_payment(state, rates)
                if reset is not None:
                    state = meter.apply_reset(state, reset)
                    assert state.amount >= rates.reset
        assert state.balanced
        assert state.reserve >= 0 and state.overflow >= 0 and state.meter >= 0
    assert state.contributed + state.corrected == contributed
