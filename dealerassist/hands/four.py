"""Four Card Poker: four of a kind > straight flush > three of a kind > flush > straight > two
pair > pair > high card; A-2-3-4 is the lowest straight and nothing wraps round the ace."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from dealerassist.core.cards import Card
from dealerassist.hands.tables import (
    FACE_BY_INDEX,
    FOUR_PLAIN,
    FOUR_SUITED,
    KEY_MASK,
    RANK_MASK,
    best_of,
    best_plain_table,
    by_index,
    combined,
    first_card_codes,
)
from dealerassist.hands.value import HandValue, hold, refuse

WHAT: Final = "a Four Card Poker hand"
WHAT_BEST: Final = "a Four Card Poker best-four hand"
BEST_COUNTS: Final = range(4, 8)
_TABLE: Final = combined(FOUR_PLAIN, FOUR_SUITED)
_FIRST: Final = by_index(first_card_codes(4))


def evaluate_four(cards: Iterable[Card]) -> HandValue:
    """Judge exactly four cards from one 52-card deck (face-code sum, as in ``evaluate_three``)."""
    held = cards if type(cards) is tuple else hold(cards, (4,), WHAT)
    codes = FACE_BY_INDEX
    try:
        a, b, c, d = held
        total = _FIRST[a.index] + codes[b.index] + codes[c.index] + codes[d.index]
        strength = _TABLE[total & KEY_MASK]
        if strength < 0:  # a repeated rank: make sure no card is there twice
            if (total >> 64 & RANK_MASK).bit_count() != 4:
                raise KeyError(total)
            strength = -strength
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, (4,), WHAT)
    return HandValue((strength, held, 4))


def best_four(cards: Iterable[Card]) -> HandValue:
    """The best four of four to seven cards (the player holds five, the dealer six).

    The unsuited reading is one lookup keyed by all the ranks; only a suit holding four or more
    cards is searched for a flush or straight flush.
    """
    held = cards if type(cards) is tuple else hold(cards, BEST_COUNTS, WHAT_BEST)
    size = len(held)
    if size == 4:
        return evaluate_four(held)
    if size not in BEST_COUNTS:
        refuse(held, BEST_COUNTS, WHAT_BEST)
    try:
        strength = best_of(held, 4, best_plain_table(size, 4), FOUR_SUITED)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        refuse(held, BEST_COUNTS, WHAT_BEST)
    return HandValue((strength, held, 4))
