"""The progressive's own events, logged into the table's event log beside the tracker's.

Exact amounts are ``"n/d"`` fraction text (``str(Fraction)``) so the log replays to the very same
meter; whole-cent amounts are ints. ``key`` is the idempotency key: a contribution, a hit or a void
refund of one seat in one round at one table exists once, however often a crash makes us retry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

from dealerassist.events import Event, EventError
from dealerassist.progressive import meter
from dealerassist.progressive.params import ProgressiveParams, params_from_dict

# Inside ProgressiveCorrection the name ``meter`` is its field (the meter's signed change), not this
# module's arithmetic, so its annotations reach the arithmetic's Correction by this name.
MeterCorrection = meter.Correction


def _fraction(where: str, text: str) -> Fraction:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise EventError(f"{where}: not an exact amount like '12/5', got {text!r}") from None


def contribution_key(table: str, round_id: int, seat: int) -> str:
    return f"contribution:{table}:{round_id}:{seat}"


def hit_key(table: str, round_id: int, seat: int) -> str:
    return f"hit:{table}:{round_id}:{seat}"


def refund_key(table: str, round_id: int, seat: int) -> str:
    return f"refund:{table}:{round_id}:{seat}"


ROUND_KEY_PREFIXES = ("contribution:", "hit:", "refund:")


def key_round(key: str) -> int | None:
    """The round a contribution, hit or refund key belongs to; None for any other key."""
    if not key.startswith(ROUND_KEY_PREFIXES):
        return None
    parts = key.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


@dataclass(frozen=True, kw_only=True)
class ProgressiveContribution(Event):
    """A qualifying wager's share, taken at betting close."""

    kind: ClassVar[str] = "progressive-contribution"
    progressive: str
    round_id: int
    seat: int
    wager: int
    to_meter: str
    to_reserve: str
    to_overflow: str
    amount_after: int
    key: str

    def __post_init__(self) -> None:
        for name in ("to_meter", "to_reserve", "to_overflow"):
            _fraction(f"{self.kind}.{name}", getattr(self, name))

    def contribution(self) -> meter.Contribution:
        return meter.Contribution(
            self.wager, Fraction(self.to_meter), Fraction(self.to_reserve), Fraction(self.to_overflow)
        )


@dataclass(frozen=True, kw_only=True)
class ProgressiveHit(Event):
    """A qualifying hand won an award; the meter is locked until a supervisor confirms payment.

    Hits of one round are logged in seat order from the dealer's left (``order`` 1, 2, ...), each
    paid from the meter as the previous hit (and its reset) left it. A share of the meter locks the
    meter until a supervisor confirms the payment; a fixed prize (which the game's settlement
    already tells the dealer to pay) is only accounted against the reserve and locks nothing.
    """

    kind: ClassVar[str] = "progressive-hit"
    progressive: str
    round_id: int
    seat: int
    order: int
    hand: str
    award: str
    paid: int
    from_meter: str
    from_reserve: str
    from_house: str
    meter_before: int
    hit_id: str
    key: str
    locks: bool = True

    def __post_init__(self) -> None:
        for name in ("from_meter", "from_reserve", "from_house"):
            _fraction(f"{self.kind}.{name}", getattr(self, name))

    def payment(self) -> meter.Payment:
        return meter.Payment(
            self.paid,
            Fraction(self.from_meter),
            Fraction(self.from_reserve),
            Fraction(self.from_house),
            self.meter_before,
        )

    def summary(self) -> dict[str, Any]:
        return {
            "hit_id": self.hit_id,
            "table": self.table,
            "round_id": self.round_id,
            "seat": self.seat,
            "hand": self.hand,
            "award": self.award,
            "amount": self.paid,
        }


@dataclass(frozen=True, kw_only=True)
class ProgressiveReset(Event):
    """The refill after an award emptied the meter below its reset value."""

    kind: ClassVar[str] = "progressive-reset"
    progressive: str
    hit_id: str
    seed: str
    from_reserve: str
    from_overflow: str
    amount_after: int
    key: str = ""

    def __post_init__(self) -> None:
        for name in ("seed", "from_reserve", "from_overflow"):
            _fraction(f"{self.kind}.{name}", getattr(self, name))

    def reset(self) -> meter.Reset:
        return meter.Reset(
            Fraction(self.seed), Fraction(self.from_reserve), Fraction(self.from_overflow), self.amount_after
        )


@dataclass(frozen=True, kw_only=True)
class ProgressivePaid(Event):
    """A supervisor confirmed that the player was paid; the last confirmation unlocks the meter."""

    kind: ClassVar[str] = "progressive-paid"
    progressive: str
    hit_id: str
    paid: int
    user: str
    key: str = ""


@dataclass(frozen=True, kw_only=True)
class ProgressiveParamsChanged(Event):
    """A supervisor changed the parameters between rounds; ``old`` and ``new`` are the full sets.

    The first parameters of a progressive (``opening``, no old values) are in force at once; a
    later change waits for the next jackpot: it takes over at the next reset (``params_after``)."""

    kind: ClassVar[str] = "progressive-params"
    progressive: str
    user: str
    old: dict[str, Any] = field(default_factory=dict)
    new: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    key: str = ""

    @property
    def opening(self) -> bool:
        """The first parameters of a progressive (no old values): the house seeds the base."""
        return not self.old


@dataclass(frozen=True, kw_only=True)
class ProgressiveCorrection(Event):
    """A documented change of the pools outside play: a voided round's contributions given back, or
    a supervisor's correction. Signed exact amounts; ``wager`` leaves the wager meters."""

    kind: ClassVar[str] = "progressive-correction"
    progressive: str
    meter: str
    reserve: str = "0"
    overflow: str = "0"
    wager: int = 0
    round_id: int | None = None
    seat: int | None = None
    user: str = ""
    reason: str
    key: str = ""

    def __post_init__(self) -> None:
        for name in ("meter", "reserve", "overflow"):
            _fraction(f"{self.kind}.{name}", getattr(self, name))
        if not self.reason.strip():
            raise EventError(f"{self.kind}.reason: a correction must say why")

    def correction(self) -> MeterCorrection:
        return MeterCorrection(
            Fraction(self.meter), Fraction(self.reserve), Fraction(self.overflow), self.wager
        )


PROGRESSIVE_KINDS = frozenset(
    cls.kind
    for cls in (
        ProgressiveContribution,
        ProgressiveHit,
        ProgressiveReset,
        ProgressivePaid,
        ProgressiveParamsChanged,
        ProgressiveCorrection,
    )
)


def apply_event(state: meter.MeterState, event: Event) -> meter.MeterState:
    """Replay one progressive event onto the meter; other events leave it unchanged."""
    if isinstance(event, ProgressiveContribution):
        return meter.apply_contribution(state, event.contribution())
    if isinstance(event, ProgressiveHit):
        state = meter.apply_payment(state, event.payment(), event.summary())
        return meter.lock(state, event.hit_id) if event.locks else state
    if isinstance(event, ProgressiveReset):
        return meter.apply_reset(state, event.reset())
    if isinstance(event, ProgressivePaid):
        return meter.unlock(state, event.hit_id)
    if isinstance(event, ProgressiveCorrection):
        return meter.apply_correction(state, event.correction())
    if isinstance(event, ProgressiveParamsChanged) and event.opening:
        return meter.open_meter(state, params_from_dict(event.new).rates)
    return state


def params_after(params: ProgressiveParams | None, event: Event) -> ProgressiveParams | None:
    """The parameters in force after ``event``: an opening sets them, a change waits in ``next``
    and the next reset (a jackpot that emptied the meter) puts it in force."""
    if isinstance(event, ProgressiveParamsChanged):
        new = params_from_dict(event.new)
        return new if event.opening or params is None else replace(params, next=new)
    if isinstance(event, ProgressiveReset) and params is not None and params.next is not None:
        return params.next
    return params


def replay(events: Iterable[Event], progressive: str | None = None) -> meter.MeterState:
    """The meter exactly as the logged events of ``progressive`` (all when ``None``) leave it; an
    idempotency key met again (two writers racing on one log) counts once."""
    state = meter.EMPTY
    keys: set[str] = set()
    for event in events:
        name = getattr(event, "progressive", None)
        if name is None or progressive not in (None, name):
            continue
        key = str(getattr(event, "key", ""))
        if key and key in keys:
            continue
        keys.add(key)
        state = apply_event(state, event)
    return state
