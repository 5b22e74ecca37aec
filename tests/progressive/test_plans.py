"""The plans on their own: pure, idempotent by key, ordered by seat."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.errors import RuleViolation
from dealerassist.progressive import meter, plans
from dealerassist.progressive.events import apply_event, params_after
from tests.progressive.support import make_params

PARAMS = make_params()


def opened() -> meter.MeterState:
    return meter.open_meter(meter.EMPTY, PARAMS.rates)


def test_a_plan_run_again_returns_nothing_for_the_keys_already_done() -> None:
    keys, plan = plans.contributions("t1", 7, {3: 100, 1: 100})
    assert keys == ["contribution:t1:7:3", "contribution:t1:7:1"]
    first = plan(opened(), PARAMS, frozenset())
    assert [e.seat for e in first] == [1, 3]
    assert plan(opened(), PARAMS, frozenset(keys)) == []
    assert [e.seat for e in plan(opened(), PARAMS, frozenset({keys[1]}))] == [3]


def test_hits_pay_in_seat_order_and_the_top_award_resets_before_the_next() -> None:
    _, plan = plans.hits("t1", 2, {5: "royal-match", 2: "seven-card-straight-flush"})
    events = plan(opened(), PARAMS, frozenset())
    assert [(e.kind, getattr(e, "seat", None)) for e in events] == [
        ("progressive-hit", 2),
        ("progressive-reset", None),
        ("progressive-hit", 5),
        ("progressive-reset", None),
    ]
    assert events[0].paid == 1_000_000 and events[1].amount_after == 500_000
    assert events[2].meter_before == 500_000 and events[2].paid == 50_000
    # 10% of a meter at its reset value leaves it below: the house seeds it back up.
    assert Fraction(events[3].seed) == 50_000 and events[3].amount_after == 500_000


def test_a_waiting_parameter_change_sets_the_reset_of_the_jackpot_it_waits_for() -> None:
    waiting = params_after(
        PARAMS,
        plans.params_changed("t1", make_params(reset="6000"), "sam", "")[1](opened(), PARAMS, frozenset())[0],
    )
    assert waiting is not None and waiting.next is not None
    _, plan = plans.hits("t1", 1, {1: "seven-card-straight-flush"})
    reset = plan(opened(), waiting, frozenset())[1]
    assert reset.amount_after == 600_000 and params_after(waiting, reset) == waiting.next


def test_confirming_and_correcting_check_the_meter_first() -> None:
    _, confirm = plans.payment_confirmed("t1", "t1:1:1", "sam")
    with pytest.raises(RuleViolation, match="no jackpot"):
        confirm(opened(), PARAMS, frozenset())
    locked = apply_event(
        opened(), plans.hits("t1", 1, {1: "royal-match"})[1](opened(), PARAMS, frozenset())[0]
    )
    assert confirm(locked, PARAMS, frozenset())[0].paid == 100_000
    _, correct = plans.meter_corrected("t1", Fraction(-2_000_000), "sam", "audit")
    with pytest.raises(RuleViolation, match="below zero"):
        correct(opened(), PARAMS, frozenset())
