"""How one wager's result is written, so every game settles a win, a loss or a pay-table bet the
same way: the stake comes back on a win or push, a payout is already rounded to the table's chip
and keeps its remainder for the audit, and the position defaults to the seat's own hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dealerassist.core.money import Odds, Payout
from dealerassist.core.paytables import MeterAward, PayTable
from dealerassist.errors import RuleViolation
from dealerassist.games.base import Outcome, TableRules, WagerResult, seat_position

EVEN_MONEY: Final = Odds(1, 1)


def wager_result(
    seat: int,
    bet: str,
    stake: int,
    outcome: Outcome,
    win: int = 0,
    returned: int = 0,
    hand: str = "",
    remainder: Fraction | int = 0,
    note: str = "",
    position: str = "",
) -> WagerResult:
    """One wager's result; the position defaults to the seat's own hand."""
    return WagerResult(
        seat=seat,
        bet=bet,
        stake=stake,
        outcome=outcome,
        win=win,
        returned=returned,
        hand=hand,
        remainder=Fraction(remainder),
        note=note,
        position=position or seat_position(seat),
    )


def won(
    seat: int, bet: str, stake: int, payout: Payout, hand: str = "", note: str = "", position: str = ""
) -> WagerResult:
    """A winning wager: the stake comes back with the payout."""
    return wager_result(seat, bet, stake, "win", payout.amount, stake, hand, payout.remainder, note, position)


def lost(seat: int, bet: str, stake: int, hand: str = "", note: str = "", position: str = "") -> WagerResult:
    return wager_result(seat, bet, stake, "lose", hand=hand, note=note, position=position)


def pushed(
    seat: int, bet: str, stake: int, hand: str = "", note: str = "", position: str = ""
) -> WagerResult:
    return wager_result(seat, bet, stake, "push", returned=stake, hand=hand, note=note, position=position)


def paytable(rules: TableRules, bet: str) -> PayTable:
    """The table's pay table for ``bet``; a bet without one is not offered here."""
    try:
        return rules.paytables[bet]
    except KeyError:
        raise RuleViolation("bet-offered", f"no pay table is configured for {bet!r}") from None


def pay_by_table(
    seat: int, bet: str, stake: int, hand_class: str, rules: TableRules, hand: str | None = None
) -> WagerResult:
    """A bet paid on a hand class at the bet's pay table; a class the table does not list (or no
    class, ``""``) loses. ``hand`` is what the result shows, the class itself unless given."""
    shown = hand_class if hand is None else hand
    award = paytable(rules, bet).award(hand_class) if hand_class else None
    if award is None:
        return lost(seat, bet, stake, shown)
    return won(seat, bet, stake, award.pay(stake, rules.chip), shown)


def progressive_result(
    seat: int, stake: int, hand_class: str, table: PayTable, position: str = ""
) -> WagerResult:
    """A progressive wager. The game's settlement tells the dealer what to pay, so a fixed award is
    the result's ``win`` (the progressive controller only accounts it against its reserve). A share
    of the meter is a win of 0 with the note ``meter award N%``: the controller locks the meter and
    pays the amount once a supervisor confirms. The stake is the jackpot's contribution and never
    comes back."""
    award = table.award(hand_class) if hand_class else None
    if award is None:
        return lost(seat, "progressive", stake, hand_class, position=position)
    if isinstance(award, MeterAward):
        note = f"meter award {float(award.percent):g}%"
        return wager_result(seat, "progressive", stake, "win", hand=hand_class, note=note, position=position)
    return wager_result(
        seat, "progressive", stake, "win", award.pay(stake).amount, hand=hand_class, position=position
    )
