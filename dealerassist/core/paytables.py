"""Pay tables as data (``paytables/<game>.toml`` in the configuration folders).

Each game's file holds named tables, one bet each, and the default table per bet. A line maps a
hand class (the evaluators' class names) to an award:

* ``"N to M"`` — odds on the stake (``OddsAward``);
* ``"$5,000"`` — a fixed amount whatever the stake (``FixedAward``; Envy, progressive fixed prizes);
* ``"10% meter"`` — a share of a progressive meter (``MeterAward``);
* ``"push"`` — the stake comes back (``PushAward``).

Loading checks every line and names the file, the key and the problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from dealerassist.core.money import MoneyError, Odds, Payout, parse_amount, pay_odds, percent_of
from dealerassist.errors import ConfigError, DealerAssistError


class AwardError(DealerAssistError, ValueError):
    """An award that cannot be paid as asked (a meter award without a meter)."""


@dataclass(frozen=True)
class OddsAward:
    odds: Odds

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return pay_odds(stake, self.odds, chip)

    def __str__(self) -> str:
        return str(self.odds)


@dataclass(frozen=True)
class FixedAward:
    cents: int

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return Payout(self.cents)

    def __str__(self) -> str:
        from dealerassist.core.money import format_amount

        return format_amount(self.cents)


@dataclass(frozen=True)
class MeterAward:
    percent: Fraction

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        if meter is None:
            raise AwardError("a share of the progressive meter needs the meter amount")
        return percent_of(meter, self.percent, chip)

    def __str__(self) -> str:
        return f"{float(self.percent):g}% meter"


@dataclass(frozen=True)
class PushAward:
    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return Payout(0)

    def __str__(self) -> str:
        return "push"


Award = OddsAward | FixedAward | MeterAward | PushAward


def parse_award(text: object) -> Award:
    """Read one pay line's award; raises ``ValueError`` with the reason."""
    if isinstance(text, int) and not isinstance(text, bool):
        return OddsAward(Odds(text))
    if not isinstance(text, str):
        raise ValueError(f"an award must be text like '3 to 1', '$500', '10% meter' or 'push', got {text!r}")
    cleaned = text.strip().lower()
    if cleaned == "push":
        return PushAward()
    if cleaned.endswith("meter"):
        number = cleaned.removesuffix("meter").strip().removesuffix("%").strip()
        try:
            pct = Fraction(Decimal(number))
        except (InvalidOperation, ValueError):
            raise ValueError(f"cannot read meter share {text!r}: expected like '10% meter'") from None
        if not 0 < pct <= 100:
            raise ValueError(f"meter share {text!r} must be above 0% and at most 100%")
        return MeterAward(pct)
    if cleaned.startswith("$"):
        try:
            return FixedAward(parse_amount(cleaned))
        except MoneyError as exc:
            raise ValueError(str(exc)) from None
    try:
        return OddsAward(Odds.parse(cleaned))
    except MoneyError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True)
class PayTable:
    name: str
    game: str
    bet: str
    label: str
    pays: Mapping[str, Award]
    example: bool = False

    def award(self, hand_class: str) -> Award | None:
        return self.pays.get(hand_class)


@dataclass(frozen=True)
class PayTableSet:
    """All pay tables of one game, from one file."""

    game: str
    source: str
    tables: Mapping[str, PayTable]
    defaults: Mapping[str, str] = field(default_factory=dict)

    def names(self) -> list[str]:
        return sorted(self.tables)

    def get(self, name: str) -> PayTable:
        try:
            return self.tables[name]
        except KeyError:
            known = ", ".join(self.names())
            raise ConfigError(self.source, name, f"no such pay table (known: {known})") from None

    def default(self, bet: str) -> PayTable:
        name = self.defaults.get(bet)
        if name is None:
            raise ConfigError(self.source, f"defaults.{bet}", f"no default pay table for bet {bet!r}")
        return self.get(name)

    def for_bet(self, bet: str) -> list[PayTable]:
        return [t for t in self.tables.values() if t.bet == bet]
