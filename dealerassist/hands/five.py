"""Five-card poker, with the pai gow joker (the bug) and the pai gow wheel option."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Final

from dealerassist.core.cards import Card
from dealerassist.hands.tables import (
    FACE_CODES,
    KEY_MASK,
    RANK_MASK,
    Table,
    best_of,
    best_plain_table,
    combined,
    first_card_codes,
    five_tables,
)
from dealerassist.hands.value import HandValue, hold, refuse

WHAT: Final = "a five-card hand"
WHAT_BEST: Final = "a best-five hand"
BEST_COUNTS: Final = range(5, 8)


@cache
def _table(wheel_second: bool) -> Table:
    """The fast path's one table (``tables.combined``) for a wheel rule."""
    plain, suited = five_tables(wheel_second)
    return combined(plain, suited)


_DEFAULT: Final = _table(False)
_FIRST: Final = first_card_codes(5)


def evaluate_five(cards: Iterable[Card], *, wheel_second: bool = False) -> HandValue:
    """Judge five cards; ``wheel_second`` ranks A-2-3-4-5 just below A-K-Q-J-T (pai gow).

    Fast path: one sum of face codes (``tables.py``) gives the key of one table lookup (rank
    pattern and flush bit, joker included) and, for a repeated rank, the duplicate check.
    """
    held = cards if type(cards) is tuple else hold(cards, (5,), WHAT)
    table = _table(True) if wheel_second else _DEFAULT
    codes = FACE_CODES
    try:
        a, b, c, d, e = held
        total = (
            _FIRST[a.suit][a.rank]
            + codes[b.suit][b.rank]
            + codes[c.suit][c.rank]
            + codes[d.suit][d.rank]
            + codes[e.suit][e.rank]
        )
        strength = table[total & KEY_MASK]
        if strength < 0:  # a repeated rank: make sure no card is there twice
            if (total >> 64 & RANK_MASK).bit_count() != 5:
                raise KeyError(total)
            strength = -strength
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, (5,), WHAT, joker=True)
    return HandValue((strength, held, 5))


def best_five(cards: Iterable[Card], *, wheel_second: bool = False) -> HandValue:
    """The best five of five to seven cards (joker allowed).

    The unsuited reading is one lookup keyed by all the ranks; only a suit holding five cards, or
    four and the joker, is searched for a flush or straight flush.
    """
    held = cards if type(cards) is tuple else hold(cards, BEST_COUNTS, WHAT_BEST)
    size = len(held)
    if size == 5:
        return evaluate_five(held, wheel_second=wheel_second)
    if size not in BEST_COUNTS:
        refuse(held, BEST_COUNTS, WHAT_BEST, joker=True)
    try:
        tables = five_tables(wheel_second)
        strength = best_of(held, 5, best_plain_table(size, 5, wheel_second), tables.suited)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, BEST_COUNTS, WHAT_BEST, joker=True)
    return HandValue((strength, held, 5))
