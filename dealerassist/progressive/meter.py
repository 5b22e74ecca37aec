"""Pure progressive meter arithmetic: exact money in, exact money out, no I/O.

Every pool (the meter the sign shows, the hidden reserve and the overflow above the cap) is kept as
an exact ``Fraction`` of cents. A wager's increment is a percentage of it, so it is rarely a whole
cent; keeping the exact running total means the sum of the contributions never drifts. The sign
shows the meter rounded **down** to the cent (``MeterState.amount``) and the sub-cent ``carry``
stays in the pool for the next wager.

Money only enters or leaves the pools through four doors, each recorded in the log:

* a contribution (a share of a qualifying wager),
* a payment (an award paid to a player, from the meter or, for a fixed award, the reserve),
* a house seed (the base when the progressive opens, the reset value after a top award),
* a documented correction (e.g. contributions given back when a round is voided).

So ``meter + reserve + overflow == seeded + contributed - paid_from_pools + corrected`` always
holds (``MeterState.balanced``), and a reconciliation can name whichever term disagrees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from dealerassist.core.money import MoneyError

RECENT_HITS = 25


@dataclass(frozen=True)
class MeterRates:
    """The parameters the arithmetic needs (the rest of the configuration lives in ``params``)."""

    base: int
    reset: int
    increment: Fraction
    reserve: Fraction = Fraction(0)
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.base < 0 or self.reset < 0:
            raise MoneyError("the base and reset values must not be negative")
        if self.increment < 0 or self.reserve < 0 or self.increment + self.reserve > 100:
            raise MoneyError("the increment and reserve rates must be 0..100% together")
        if self.limit is not None and self.limit < max(self.base, self.reset):
            raise MoneyError("the meter limit must be at least the base and the reset values")


@dataclass(frozen=True)
class Contribution:
    """Where one qualifying wager's contribution went (exact cents)."""

    wager: int
    to_meter: Fraction
    to_reserve: Fraction
    to_overflow: Fraction

    @property
    def total(self) -> Fraction:
        return self.to_meter + self.to_reserve + self.to_overflow


@dataclass(frozen=True)
class Payment:
    """One award paid: ``paid`` cents to the player, taken from the meter, the reserve or the house.

    ``from_house`` is what a fixed award needed beyond the reserve; it never touches the pools.
    """

    paid: int
    from_meter: Fraction
    from_reserve: Fraction
    from_house: Fraction
    meter_before: int

    @property
    def from_pools(self) -> Fraction:
        return self.from_meter + self.from_reserve


@dataclass(frozen=True)
class Reset:
    """The meter refilled after a top award: the house seeds up to the reset value and the reserve
    (then the overflow) moves onto the meter, up to the limit."""

    seed: Fraction
    from_reserve: Fraction
    from_overflow: Fraction
    amount_after: int


@dataclass(frozen=True)
class Correction:
    """A documented change of the pools outside play (signed exact cents).

    ``wager`` is a qualifying wager taken back out of the wager meters (a voided round's)."""

    meter: Fraction = Fraction(0)
    reserve: Fraction = Fraction(0)
    overflow: Fraction = Fraction(0)
    wager: int = 0

    @property
    def total(self) -> Fraction:
        return self.meter + self.reserve + self.overflow


@dataclass(frozen=True)
class MeterState:
    """Every meter a regulator asks for, exact. ``recent`` holds the last 25 hits, newest first."""

    meter: Fraction
    reserve: Fraction = Fraction(0)
    overflow: Fraction = Fraction(0)
    wagers: int = 0
    handle: int = 0
    hits: int = 0
    won: int = 0
    seeded: Fraction = Fraction(0)
    contributed: Fraction = Fraction(0)
    paid_from_pools: Fraction = Fraction(0)
    corrected: Fraction = Fraction(0)
    pending: tuple[str, ...] = ()
    recent: tuple[Mapping[str, Any], ...] = field(default=())

    @property
    def amount(self) -> int:
        """What the sign shows: the meter rounded down to the cent."""
        return int(self.meter // 1)

    @property
    def carry(self) -> Fraction:
        """The sub-cent part of the meter not yet shown."""
        return self.meter - self.amount

    @property
    def locked(self) -> bool:
        return bool(self.pending)

    @property
    def pools(self) -> Fraction:
        return self.meter + self.reserve + self.overflow

    @property
    def balanced(self) -> bool:
        return self.pools == self.seeded + self.contributed - self.paid_from_pools + self.corrected

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (exact values as ``"n/d"`` text) for the shared meter row and snapshots."""
        return {
            "meter": str(self.meter),
            "reserve": str(self.reserve),
            "overflow": str(self.overflow),
            "wagers": self.wagers,
            "handle": self.handle,
            "hits": self.hits,
            "won": self.won,
            "seeded": str(self.seeded),
            "contributed": str(self.contributed),
            "paid_from_pools": str(self.paid_from_pools),
            "corrected": str(self.corrected),
            "pending": list(self.pending),
            "recent": [dict(h) for h in self.recent],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MeterState:
        return cls(
            meter=Fraction(data["meter"]),
            reserve=Fraction(data["reserve"]),
            overflow=Fraction(data["overflow"]),
            wagers=int(data["wagers"]),
            handle=int(data["handle"]),
            hits=int(data["hits"]),
            won=int(data["won"]),
            seeded=Fraction(data["seeded"]),
            contributed=Fraction(data["contributed"]),
            paid_from_pools=Fraction(data["paid_from_pools"]),
            corrected=Fraction(data["corrected"]),
            pending=tuple(data.get("pending", ())),
            recent=tuple(data.get("recent", ())),
        )


EMPTY = MeterState(meter=Fraction(0))


def open_meter(state: MeterState, rates: MeterRates) -> MeterState:
    """A progressive opening (or re-opening after an audit): the house seeds the base amount."""
    return replace(state, meter=state.meter + rates.base, seeded=state.seeded + rates.base)


def contribution(state: MeterState, rates: MeterRates, wager: int) -> Contribution:
    """Split one qualifying wager's contribution; what would pass the limit goes to overflow."""
    if wager <= 0:
        raise MoneyError(f"a qualifying wager must be positive, got {wager}")
    increment = Fraction(wager) * rates.increment / 100
    to_reserve = Fraction(wager) * rates.reserve / 100
    to_meter = increment
    if rates.limit is not None:
        to_meter = max(Fraction(0), min(increment, rates.limit - state.meter))
    return Contribution(wager, to_meter, to_reserve, increment - to_meter)


def apply_contribution(state: MeterState, c: Contribution) -> MeterState:
    return replace(
        state,
        meter=state.meter + c.to_meter,
        reserve=state.reserve + c.to_reserve,
        overflow=state.overflow + c.to_overflow,
        wagers=state.wagers + 1,
        handle=state.handle + c.wager,
        contributed=state.contributed + c.total,
    )


def meter_payment(state: MeterState, percent: Fraction) -> Payment:
    """A share of the meter as the sign shows it, rounded down to the cent."""
    if not 0 < percent <= 100:
        raise MoneyError(f"a meter award must be above 0% and at most 100%, got {percent}%")
    paid = int(Fraction(state.amount) * percent / 100 // 1)
    return Payment(paid, Fraction(paid), Fraction(0), Fraction(0), state.amount)


def fixed_payment(state: MeterState, cents: int) -> Payment:
    """A fixed prize paid from the reserve; the house covers whatever the reserve cannot."""
    if cents < 0:
        raise MoneyError(f"a fixed award must not be negative, got {cents}")
    from_reserve = min(Fraction(cents), max(state.reserve, Fraction(0)))
    return Payment(cents, Fraction(0), from_reserve, cents - from_reserve, state.amount)


def apply_payment(state: MeterState, p: Payment, summary: Mapping[str, Any]) -> MeterState:
    """Take a payment from the pools and remember the hit (``summary``) among the recent ones."""
    return replace(
        state,
        meter=state.meter - p.from_meter,
        reserve=state.reserve - p.from_reserve,
        hits=state.hits + 1,
        won=state.won + p.paid,
        paid_from_pools=state.paid_from_pools + p.from_pools,
        recent=(dict(summary), *state.recent)[:RECENT_HITS],
    )


def reset_after_payment(state: MeterState, rates: MeterRates) -> Reset | None:
    """The refill due once a meter award left less than the reset value (or emptied the meter)."""
    if state.meter >= max(rates.reset, 1):
        return None
    seed = max(rates.reset - state.meter, Fraction(0))
    level = state.meter + seed
    from_reserve = max(state.reserve, Fraction(0))
    from_overflow = state.overflow
    if rates.limit is not None:
        room = max(rates.limit - level, Fraction(0))
        from_reserve = min(from_reserve, room)
        from_overflow = min(from_overflow, room - from_reserve)
    after = level + from_reserve + from_overflow
    return Reset(seed, from_reserve, from_overflow, int(after // 1))


def apply_reset(state: MeterState, r: Reset) -> MeterState:
    return replace(
        state,
        meter=state.meter + r.seed + r.from_reserve + r.from_overflow,
        reserve=state.reserve - r.from_reserve,
        overflow=state.overflow - r.from_overflow,
        seeded=state.seeded + r.seed,
    )


def apply_correction(state: MeterState, c: Correction) -> MeterState:
    return replace(
        state,
        meter=state.meter + c.meter,
        reserve=state.reserve + c.reserve,
        overflow=state.overflow + c.overflow,
        wagers=state.wagers - (1 if c.wager else 0),
        handle=state.handle - c.wager,
        corrected=state.corrected + c.total,
    )


def reverse(c: Contribution) -> Correction:
    """The correction that gives a contribution back exactly (a voided round's wager)."""
    return Correction(-c.to_meter, -c.to_reserve, -c.to_overflow, c.wager)


def lock(state: MeterState, hit_id: str) -> MeterState:
    return replace(state, pending=(*state.pending, hit_id))


def unlock(state: MeterState, hit_id: str) -> MeterState:
    if hit_id not in state.pending:
        raise MoneyError(f"hit {hit_id!r} is not waiting for payment confirmation")
    return replace(state, pending=tuple(h for h in state.pending if h != hit_id))
