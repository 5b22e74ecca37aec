"""Reconciliation: the controller's meter vs the sign vs the sums of the logged events.

The log (a standalone table's event log, or the shared ledger of a linked progressive) is summed
door by door — house seeds, contributions, awards, corrections — independently of the replay, and
the replay is checked step by step against the amount every contribution and reset recorded at
the time. Any disagreement is named with the event (and log record) where it first appears.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealerassist.core.money import format_amount
from dealerassist.events import Event
from dealerassist.progressive import meter
from dealerassist.progressive.events import (
    ProgressiveContribution,
    ProgressiveCorrection,
    ProgressiveHit,
    ProgressiveParamsChanged,
    ProgressiveReset,
    apply_event,
)
from dealerassist.progressive.params import params_from_dict


def exact_text(value: Fraction) -> str:
    """Cents shown as money, with any sub-cent part kept exactly: ``$1.23 + 1/2¢``."""
    whole = value.numerator // value.denominator
    rest = value - whole
    return format_amount(whole) if rest == 0 else f"{format_amount(whole)} + {rest}¢"


NO_SIGN = "not checked (give --sign-amount as read off the sign)"


@dataclass
class Reconciliation:
    name: str
    events: int = 0
    seeds: Fraction = Fraction(0)
    contributions: Fraction = Fraction(0)
    wagers: int = 0
    awards: Fraction = Fraction(0)
    house_paid: Fraction = Fraction(0)
    corrections: Fraction = Fraction(0)
    replayed: meter.MeterState = meter.EMPTY
    controller_amount: int | None = None
    sign_amount: int | None = None
    variances: list[str] = field(default_factory=list)

    @property
    def expected_pools(self) -> Fraction:
        return self.seeds + self.contributions - self.awards + self.corrections

    @property
    def ok(self) -> bool:
        return not self.variances

    def lines(self) -> list[str]:
        r = self.replayed
        sums = [
            ("  house seeds (base and resets)", self.seeds),
            (f"+ contributions ({self.wagers} wagers)", self.contributions),
            ("- awards paid from meter and reserve", self.awards),
            ("+ corrections", self.corrections),
            ("= meter + reserve + overflow expected", self.expected_pools),
        ]
        out = [
            f"progressive {self.name}: {self.events} logged events",
            *(f"{label:40} {exact_text(value)}" for label, value in sums),
            f"  replayed: meter {exact_text(r.meter)}, reserve {exact_text(r.reserve)}, "
            f"overflow {exact_text(r.overflow)}",
            f"  (house paid beyond the reserve: {exact_text(self.house_paid)}; hits {r.hits}, "
            f"won {format_amount(r.won)})",
            f"  controller meter  {_shown(self.controller_amount)}",
            f"  sign              {_shown(self.sign_amount, NO_SIGN)}",
        ]
        if r.pending:
            out.append(f"  jackpots waiting for confirmation: {', '.join(r.pending)}")
        out.append("variances: none" if self.ok else "variances:")
        out.extend(f"  - {v}" for v in self.variances)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "events": self.events,
            "seeds": str(self.seeds),
            "contributions": str(self.contributions),
            "wagers": self.wagers,
            "awards": str(self.awards),
            "house_paid": str(self.house_paid),
            "corrections": str(self.corrections),
            "expected_pools": str(self.expected_pools),
            "replayed": self.replayed.to_dict(),
            "controller_amount": self.controller_amount,
            "sign_amount": self.sign_amount,
            "variances": list(self.variances),
            "ok": self.ok,
        }


def _shown(amount: int | None, missing: str = "not available") -> str:
    return missing if amount is None else format_amount(amount)


def reconcile(
    events: Iterable[tuple[int | None, Event]],
    name: str,
    *,
    controller: meter.MeterState | None = None,
    sign_amount: int | None = None,
    complete: bool = True,
) -> Reconciliation:
    """Check ``(record seq, event)`` pairs of progressive ``name``.

    ``controller`` is the meter as the controller holds it (the shared row of a linked meter);
    without it, the log's replay stands for it. ``complete`` is
    false for one linked table's own log, which holds only its share: the step checks are skipped.
    """
    rec = Reconciliation(name)
    state = meter.EMPTY
    keys: set[str] = set()
    for seq, event in events:
        if getattr(event, "progressive", None) != name:
            continue
        key = str(getattr(event, "key", ""))
        where = f"record {seq} ({event.kind} {key})" if seq is not None else f"{event.kind} {key}"
        if key and key in keys:
            rec.variances.append(f"{where}: logged twice; counted once")
            continue
        keys.add(key)
        rec.events += 1
        _add(rec, event)
        state = apply_event(state, event)
        if isinstance(event, ProgressiveContribution | ProgressiveReset):
            if complete and event.amount_after != state.amount:
                rec.variances.append(
                    f"{where}: recorded the meter at {format_amount(event.amount_after)} but the log "
                    f"replays to {format_amount(state.amount)}"
                )
    rec.replayed = state
    if state.pools != rec.expected_pools and complete:
        rec.variances.append(
            f"the pools replay to {exact_text(state.pools)} but the sums of the logged events give "
            f"{exact_text(rec.expected_pools)} (difference {exact_text(state.pools - rec.expected_pools)})"
        )
    if controller is not None:
        rec.controller_amount = controller.amount
        if controller != state and complete:
            rec.variances.append(
                f"controller meter {exact_text(controller.meter)} (reserve {exact_text(controller.reserve)}) "
                f"differs from the log's {exact_text(state.meter)} (reserve {exact_text(state.reserve)})"
            )
    else:
        # A standalone controller's meter is its log's replay; what it computed at every step was
        # checked above against the amount each contribution and reset recorded.
        rec.controller_amount = state.amount
    rec.sign_amount = sign_amount
    if sign_amount is not None and sign_amount != state.amount:
        rec.variances.append(
            f"the sign shows {format_amount(sign_amount)} but the meter is {format_amount(state.amount)} "
            f"(difference {format_amount(sign_amount - state.amount)})"
        )
    return rec


def _add(rec: Reconciliation, event: Event) -> None:
    if isinstance(event, ProgressiveContribution):
        rec.contributions += event.contribution().total
        rec.wagers += 1
    elif isinstance(event, ProgressiveHit):
        payment = event.payment()
        rec.awards += payment.from_pools
        rec.house_paid += payment.from_house
    elif isinstance(event, ProgressiveReset):
        rec.seeds += Fraction(event.seed)
    elif isinstance(event, ProgressiveCorrection):
        rec.corrections += event.correction().total
    elif isinstance(event, ProgressiveParamsChanged) and event.opening:
        rec.seeds += params_from_dict(event.new).rates.base
