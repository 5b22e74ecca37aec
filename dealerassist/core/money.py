"""Money in integer cents.

Every amount in the system is an ``int`` number of cents. Exact intermediate values (3:2 on an odd
stake, a percentage of a meter, a pro-rata share) are ``Fraction`` and are rounded **down** to the
table's smallest chip; what rounding took away is returned beside the amount so it can be logged.
Floats never touch money.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from dealerassist.errors import DealerAssistError


class MoneyError(DealerAssistError, ValueError):
    """An amount or odds text that cannot be read as money."""


_AMOUNT = re.compile(r"^\s*\$?\s*([0-9][0-9,]*)(?:\.([0-9]{1,2}))?\s*$")


def parse_amount(text: str) -> int:
    """``"$1,250.50"`` / ``"25"`` / ``"0.5"`` to cents; anything else raises ``MoneyError``."""
    match = _AMOUNT.match(text) if isinstance(text, str) else None
    if match is None:
        raise MoneyError(f"cannot read amount {text!r}: expected dollars like '25' or '$12.50'")
    whole = int(match.group(1).replace(",", ""))
    frac = (match.group(2) or "0").ljust(2, "0")
    return whole * 100 + int(frac)


def format_amount(cents: int) -> str:
    """``123456`` to ``"$1,234.56"``; negative amounts keep their sign in front."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


def decimal_to_cents(value: str | int | Decimal) -> int:
    """An exact decimal dollar value from config (never a float) to cents."""
    try:
        dec = Decimal(str(value))
    except InvalidOperation:
        raise MoneyError(f"cannot read amount {value!r}") from None
    cents = dec * 100
    if cents != cents.to_integral_value():
        raise MoneyError(f"amount {value!r} is not a whole number of cents")
    return int(cents)


@dataclass(frozen=True, slots=True)
class Odds:
    """Payout odds "``win`` to ``per``": 3 to 2 pays 3 for every 2 staked."""

    win: int
    per: int = 1

    def __post_init__(self) -> None:
        if self.win < 0 or self.per <= 0:
            raise MoneyError(f"odds must be N to M with N >= 0 and M > 0, got {self.win} to {self.per}")

    @classmethod
    def parse(cls, text: str | int) -> Odds:
        """``25`` / ``"25"`` / ``"25 to 1"`` / ``"3:2"`` / ``"3-2"``."""
        if isinstance(text, int) and not isinstance(text, bool):
            return cls(text, 1)
        if not isinstance(text, str):
            raise MoneyError(f"cannot read odds {text!r}")
        match = re.fullmatch(r"\s*([0-9][0-9,]*)\s*(?:(?:to|:|-|/)\s*([0-9]+))?\s*", text, re.I)
        if match is None:
            raise MoneyError(f"cannot read odds {text!r}: expected 'N to M' or 'N'")
        win = int(match.group(1).replace(",", ""))
        per = int(match.group(2) or 1)
        if per == 0:
            raise MoneyError(f"cannot read odds {text!r}: cannot pay per zero")
        return cls(win, per)

    def exact(self, stake: int) -> Fraction:
        return Fraction(stake * self.win, self.per)

    def __str__(self) -> str:
        return f"{self.win} to {self.per}"


@dataclass(frozen=True, slots=True)
class Payout:
    """An amount actually paid (cents, whole chips) and what chip rounding withheld."""

    amount: int
    remainder: Fraction = Fraction(0)

    @property
    def exact(self) -> Fraction:
        return self.amount + self.remainder


def round_down_to_chip(exact: Fraction | int, chip: int = 1) -> Payout:
    """Round a non-negative exact amount down to a multiple of ``chip`` cents."""
    if chip <= 0:
        raise MoneyError(f"the smallest chip must be a positive number of cents, got {chip}")
    exact = Fraction(exact)
    if exact < 0:
        raise MoneyError(f"cannot pay a negative amount {exact}")
    chips = exact // chip
    amount = int(chips) * chip
    return Payout(amount, exact - amount)


def pay_odds(stake: int, odds: Odds, chip: int = 1) -> Payout:
    """Winnings (not counting the returned stake) for ``stake`` at ``odds``."""
    return round_down_to_chip(odds.exact(stake), chip)


def percent_of(amount: int, percent: Fraction | int | str, chip: int = 1) -> Payout:
    """``percent`` (exact: ``Fraction``, int, or a decimal string like ``"1.25"``) of ``amount``."""
    pct = Fraction(percent) if not isinstance(percent, str) else Fraction(Decimal(percent))
    if pct < 0:
        raise MoneyError(f"percent must not be negative, got {percent}")
    return round_down_to_chip(Fraction(amount) * pct / 100, chip)


def cap_pro_rata(wins: Sequence[int], cap: int, chip: int = 1) -> list[Payout]:
    """Scale ``wins`` so they total at most ``cap``, each share rounded down to the chip.

    When the wins already fit, each is paid in full. Otherwise each win gets
    ``win * cap / total`` rounded down, so the sum never exceeds the cap.
    """
    if cap < 0:
        raise MoneyError(f"an aggregate cap cannot be negative, got {cap}")
    if any(w < 0 for w in wins):
        raise MoneyError("wins to cap must not be negative")
    total = sum(wins)
    if total <= cap:
        return [Payout(w) for w in wins]
    return [round_down_to_chip(Fraction(w * cap, total), chip) for w in wins]
