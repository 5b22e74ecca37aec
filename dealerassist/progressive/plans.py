"""The progressive's rules as plans: pure functions of (meter, parameters, keys already done).

A store runs a plan inside its transaction against the meter as committed and commits the events
it returns; the keys the plan names are the idempotency keys, so a plan run twice (a retry after a
crash or a lost link) returns nothing for what is already done. Each builder returns the keys it
will ask about and the plan.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from fractions import Fraction

from dealerassist.core.paytables import MeterAward
from dealerassist.errors import RuleViolation
from dealerassist.events import Event
from dealerassist.progressive import meter
from dealerassist.progressive.events import (
    ProgressiveContribution,
    ProgressiveCorrection,
    ProgressiveHit,
    ProgressivePaid,
    ProgressiveParamsChanged,
    ProgressiveReset,
    apply_event,
    contribution_key,
    hit_key,
    refund_key,
)
from dealerassist.progressive.params import ProgressiveParams, award_text

Plan = Callable[[meter.MeterState, ProgressiveParams, frozenset[str]], list[Event]]
Planned = tuple[list[str], Plan]


def opening(table: str, params: ProgressiveParams) -> Planned:
    """The first parameters of a progressive: the house seeds the base."""
    key = f"params:{params.name}:opening"

    def plan(state: meter.MeterState, _: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        if key in done:
            return []
        return [
            ProgressiveParamsChanged(
                table=table, progressive=params.name, user="config", old={}, new=params.to_dict(), key=key
            )
        ]

    return [key], plan


def contributions(table: str, round_id: int, due: Mapping[int, int]) -> Planned:
    """One contribution per qualifying wager (seat -> cents) at betting close, seat order."""
    keys = {seat: contribution_key(table, round_id, seat) for seat in due}

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        events: list[Event] = []
        for seat in sorted(due):
            if keys[seat] in done:
                continue
            c = meter.contribution(state, params.rates, due[seat])
            state = meter.apply_contribution(state, c)
            events.append(
                ProgressiveContribution(
                    table=table,
                    progressive=params.name,
                    round_id=round_id,
                    seat=seat,
                    wager=c.wager,
                    to_meter=str(c.to_meter),
                    to_reserve=str(c.to_reserve),
                    to_overflow=str(c.to_overflow),
                    amount_after=state.amount,
                    key=keys[seat],
                )
            )
        return events

    return list(keys.values()), plan


def hits(table: str, round_id: int, winners: Mapping[int, str]) -> Planned:
    """The round's hits (seat -> hand class) in seat order from the dealer's left, each paid from
    the meter as the previous hit and its reset left it; a meter share that empties the meter
    below the reset value is followed by its reset (under a parameter change waiting for it)."""
    keys = {seat: hit_key(table, round_id, seat) for seat in winners}

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        events: list[Event] = []
        for order, seat in enumerate(sorted(winners), start=1):
            award = params.award(winners[seat])
            if keys[seat] in done or award is None:
                continue
            shares_meter = isinstance(award, MeterAward)
            if isinstance(award, MeterAward):
                payment = meter.meter_payment(state, award.percent)
            else:
                payment = meter.fixed_payment(state, award.cents)
            hit_id = f"{table}:{round_id}:{seat}"
            hit = ProgressiveHit(
                table=table,
                progressive=params.name,
                round_id=round_id,
                seat=seat,
                order=order,
                hand=winners[seat],
                award=award_text(award),
                paid=payment.paid,
                from_meter=str(payment.from_meter),
                from_reserve=str(payment.from_reserve),
                from_house=str(payment.from_house),
                meter_before=payment.meter_before,
                hit_id=hit_id,
                key=keys[seat],
                locks=shares_meter,
            )
            state = apply_event(state, hit)
            events.append(hit)
            cycle = params.next or params
            reset = meter.reset_after_payment(state, cycle.rates) if shares_meter else None
            if reset is None:
                continue
            state, params = meter.apply_reset(state, reset), cycle
            events.append(
                ProgressiveReset(
                    table=table,
                    progressive=params.name,
                    hit_id=hit_id,
                    seed=str(reset.seed),
                    from_reserve=str(reset.from_reserve),
                    from_overflow=str(reset.from_overflow),
                    amount_after=reset.amount_after,
                    key=f"reset:{hit_id}",
                )
            )
        return events

    return list(keys.values()), plan


def refunds(table: str, round_id: int, due: Mapping[int, ProgressiveContribution], why: str) -> Planned:
    """Give back exactly what each withdrawn wager contributed (a documented correction)."""
    keys = {seat: refund_key(table, round_id, seat) for seat in due}

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        events: list[Event] = []
        for seat in sorted(due):
            if keys[seat] in done:
                continue
            back = meter.reverse(due[seat].contribution())
            events.append(
                ProgressiveCorrection(
                    table=table,
                    progressive=params.name,
                    meter=str(back.meter),
                    reserve=str(back.reserve),
                    overflow=str(back.overflow),
                    wager=back.wager,
                    round_id=round_id,
                    seat=seat,
                    user="tracker",
                    reason=f"{why}: the progressive wager's contribution is given back",
                    key=keys[seat],
                )
            )
        return events

    return list(keys.values()), plan


def payment_confirmed(table: str, hit_id: str, user: str) -> Planned:
    """A supervisor's confirmation that the jackpot ``hit_id`` was paid."""
    key = f"paid:{hit_id}"

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        if hit_id not in state.pending:
            waiting = ", ".join(state.pending) or "none"
            raise RuleViolation(
                "progressive-no-hit", f"no jackpot {hit_id!r} waits for payment (waiting: {waiting})"
            )
        paid = next((int(h["amount"]) for h in state.recent if h.get("hit_id") == hit_id), 0)
        return [
            ProgressivePaid(
                table=table, progressive=params.name, hit_id=hit_id, paid=paid, user=user, key=key
            )
        ]

    return [key], plan


def params_changed(table: str, new: ProgressiveParams, user: str, reason: str) -> Planned:
    """A supervisor's parameter change (in force from the next jackpot's reset)."""
    key = f"params:{new.name}:{uuid.uuid4().hex}"

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        return [
            ProgressiveParamsChanged(
                table=table,
                progressive=new.name,
                user=user,
                old=params.to_dict(),
                new=new.to_dict(),
                reason=reason,
                key=key,
            )
        ]

    return [key], plan


def meter_corrected(table: str, cents: Fraction, user: str, reason: str) -> Planned:
    """A supervisor's documented correction of the meter (signed cents)."""
    key = f"correction:{uuid.uuid4().hex}"

    def plan(state: meter.MeterState, params: ProgressiveParams, done: frozenset[str]) -> list[Event]:
        if state.meter + cents < 0:
            raise RuleViolation("progressive-correction", "a correction cannot take the meter below zero")
        return [
            ProgressiveCorrection(
                table=table, progressive=params.name, meter=str(cents), user=user, reason=reason, key=key
            )
        ]

    return [key], plan
