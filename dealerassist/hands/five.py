"""Five-card poker, with the pai gow joker (the bug) and the pai gow wheel option."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Final

from dealerassist.core.cards import Card
from dealerassist.hands.tables import (
    FACE_BY_INDEX,
    FACE_CODES,
    KEY_MASK,
    RANK_MASK,
    Table,
    best_of,
    best_plain_table,
    by_index,
    combined,
    first_card_codes,
    five_tables,
    flush_offset,
)
from dealerassist.hands.value import HandError, HandValue, check_cards, hold, refuse

WHAT: Final = "a five-card hand"
WHAT_BEST: Final = "a best-five hand"
BEST_COUNTS: Final = range(5, 8)


@cache
def _table(wheel_second: bool) -> Table:
    """The fast path's one table (``tables.combined``) for a wheel rule."""
    plain, suited = five_tables(wheel_second)
    return combined(plain, suited)


_DEFAULT: Final = _table(False)
_FIRST: Final = by_index(first_card_codes(5))
_OFFSET: Final = flush_offset(5)


def evaluate_five(cards: Iterable[Card], *, wheel_second: bool = False) -> HandValue:
    """Judge five cards; ``wheel_second`` ranks A-2-3-4-5 just below A-K-Q-J-T (pai gow).

    Fast path: one sum of face codes (``tables.py``) gives the key of one table lookup (rank
    pattern and flush bit, joker included) and, for a repeated rank, the duplicate check.
    """
    held = cards if type(cards) is tuple else hold(cards, (5,), WHAT)
    table = _table(True) if wheel_second else _DEFAULT
    codes = FACE_BY_INDEX
    try:
        a, b, c, d, e = held
        total = _FIRST[a.index] + codes[b.index] + codes[c.index] + codes[d.index] + codes[e.index]
        strength = table[total & KEY_MASK]
        if strength < 0:  # a repeated rank: make sure no card is there twice
            if (total >> 64 & RANK_MASK).bit_count() != 5:
                raise KeyError(total)
            strength = -strength
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, (5,), WHAT, joker=True)
    return HandValue((strength, held, 5))


def card_codes(cards: Iterable[Card]) -> tuple[int, ...]:
    """Integer codes of the cards, in order, for ``five_card_strength``: encode a deck or a shoe
    once, then judge hands of its codes in a hot loop without touching a ``Card``."""
    held = check_cards(cards, range(1 << 16), "card_codes", joker=True, duplicates=True)
    return tuple(FACE_CODES[card.suit][card.rank] for card in held)


def five_card_strength(codes: Iterable[int], *, wheel_second: bool = False) -> int:
    """The integer fast path: five cards given as ``card_codes``, their strength out.

    The same integer as ``evaluate_five(cards).strength``, with no ``Card`` read and no
    ``HandValue`` built (like treys, which also takes pre-encoded ints). A card there twice, two
    jokers and a count other than five still raise ``HandError``; other ints are not proven to be
    codes, so pass only codes from ``card_codes``.
    """
    table = _table(True) if wheel_second else _DEFAULT
    try:
        a, b, c, d, e = codes
        total = a + b + c + d + e + _OFFSET
        strength = table[total & KEY_MASK]
        if strength < 0:  # a repeated rank: make sure no card is there twice
            if (total >> 64 & RANK_MASK).bit_count() != 5:
                raise KeyError(total)
            return -strength
        return strength
    except (TypeError, ValueError, KeyError):
        raise HandError(
            f"five_card_strength: cannot judge {codes!r}: expected the codes (card_codes) of five"
            " different cards"
        ) from None


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
