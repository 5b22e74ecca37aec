"""Three Card Poker: straight flush > three of a kind > straight > flush > pair > high card."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from dealerassist.core.cards import Card
from dealerassist.hands.tables import (
    FACE_BY_INDEX,
    KEY_MASK,
    RANK_MASK,
    THREE_PLAIN,
    THREE_SUITED,
    by_index,
    combined,
    first_card_codes,
)
from dealerassist.hands.value import HandValue, hold, refuse

WHAT: Final = "a Three Card Poker hand"
_TABLE: Final = combined(THREE_PLAIN, THREE_SUITED)
_FIRST: Final = by_index(first_card_codes(3))


def evaluate_three(cards: Iterable[Card]) -> HandValue:
    """Judge a three-card hand from one 52-card deck (A-2-3 is the lowest straight).

    Fast path: the hand's face codes plus the flush offset are summed (``tables.py``) and the
    masked sum indexes one table; anything odd (a duplicate, a joker, a wrong count, not a card)
    drops to ``refuse``, which names the problem.
    """
    held = cards if type(cards) is tuple else hold(cards, (3,), WHAT)
    codes = FACE_BY_INDEX
    try:
        a, b, c = held
        total = _FIRST[a.index] + codes[b.index] + codes[c.index]
        strength = _TABLE[total & KEY_MASK]
        if strength < 0:  # a repeated rank: make sure no card is there twice
            if (total >> 64 & RANK_MASK).bit_count() != 3:
                raise KeyError(total)
            strength = -strength
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, (3,), WHAT)
    return HandValue((strength, held, 3))
