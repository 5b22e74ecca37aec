"""Pairs & Up Poker: which of the eight layout hands four cards (two player, two dealer) make.

The deck has only aces, twos, threes and fours, with duplicate faces. Patterns (rule-decisions.md):
straight = A-2-3-4; straight flush = A-2-3-4 in one suit; two pair flush = two pairs all one suit;
four aces flush = four aces of one suit; three of a kind = exactly three of a rank. Four of a kind
is never two pair and a two pair flush is never two pair.

Four cards may satisfy several patterns (a straight flush is also a straight and a flush). Which
one they *are* follows a precedence: every four-card hand beats the only three-card hand (three of
a kind), and among four-card hands the rarer beats the commoner. Rarity is counted on the table's
configured deck composition, so a casino that changes the suit split gets the matching order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations_with_replacement
from math import comb
from typing import Final

from dealerassist.core.cards import ACE, Card
from dealerassist.core.decks import DeckComposition, load_deck
from dealerassist.hands.value import HandError, check_cards, describe

PATTERNS: Final = (
    "two-pair",
    "three-of-a-kind",
    "four-of-a-kind",
    "straight",
    "flush",
    "straight-flush",
    "two-pair-flush",
    "four-aces-flush",
)
THREE_CARD_PATTERNS: Final = frozenset({"three-of-a-kind"})
PAIRS_AND_UP_RANKS: Final = frozenset({ACE, 2, 3, 4})
DEFAULT_DECK: Final = "pairs-and-up-52"


def _made(ranks: Sequence[int], suits: Sequence[str | None]) -> frozenset[str]:
    counts = sorted(Counter(ranks).values(), reverse=True)
    suited = len(set(suits)) == 1
    straight = set(ranks) == PAIRS_AND_UP_RANKS
    made: set[str] = set()
    if counts == [2, 2]:
        made.add("two-pair-flush" if suited else "two-pair")
    if counts[0] == 3:
        made.add("three-of-a-kind")
    if counts[0] == 4:
        made.add("four-of-a-kind")
        if suited and ranks[0] == ACE:
            made.add("four-aces-flush")
    if straight:
        made.add("straight")
    if suited:
        made.add("flush")
        if straight:
            made.add("straight-flush")
    return frozenset(made)


def _check(cards: Iterable[Card]) -> tuple[Card, ...]:
    held = check_cards(cards, (4,), "a Pairs & Up hand", duplicates=True)
    for card in held:
        if card.rank not in PAIRS_AND_UP_RANKS:
            raise HandError(
                f"a Pairs & Up deck holds only aces, twos, threes and fours, got {describe(held)}"
            )
    return held


def pairs_and_up_made(cards: Iterable[Card]) -> frozenset[str]:
    """Every one of the eight patterns the four cards satisfy (before precedence)."""
    held = _check(cards)
    return _made([c.rank for c in held], [c.suit for c in held])


def pattern_counts(deck: DeckComposition) -> dict[str, int]:
    """How many four-card hands dealt from ``deck`` satisfy each pattern (copies counted)."""
    faces = sorted(c for c in deck.counts if c.rank in PAIRS_AND_UP_RANKS)
    totals = dict.fromkeys(PATTERNS, 0)
    for four in combinations_with_replacement(faces, 4):
        ways = 1
        for face, k in Counter(four).items():
            ways *= comb(deck.counts[face], k)
        if not ways:
            continue
        for name in _made([c.rank for c in four], [c.suit for c in four]):
            totals[name] += ways
    return totals


def pairs_and_up_precedence(deck: DeckComposition) -> tuple[str, ...]:
    """The eight hands, strongest first: four-card hands rarest first, then three of a kind.

    Hands that cannot be dealt from ``deck`` at all sort first (they never decide anything).
    Equal counts put the hand listed later on the layout first (the layout lists them weakest
    first), so the result is stable.
    """
    counts = pattern_counts(deck)
    four_card = [p for p in PATTERNS if p not in THREE_CARD_PATTERNS]
    ordered = sorted(four_card, key=lambda p: (counts[p], -PATTERNS.index(p)))
    return (*ordered, *sorted(THREE_CARD_PATTERNS))


@cache
def default_precedence() -> tuple[str, ...]:
    """Precedence on the shipped ``pairs-and-up-52`` deck (tables pass their own)."""
    return pairs_and_up_precedence(load_deck(DEFAULT_DECK))


def pairs_and_up_hand(cards: Iterable[Card], precedence: Sequence[str] | None = None) -> str | None:
    """The one hand the four cards are under ``precedence`` (default: the shipped deck's), or None."""
    order = default_precedence() if precedence is None else tuple(precedence)
    unknown = set(order) - set(PATTERNS)
    if unknown or len(order) != len(PATTERNS):
        raise HandError(f"a Pairs & Up precedence lists each of {', '.join(PATTERNS)} once, got {order}")
    made = pairs_and_up_made(cards)
    return next((name for name in order if name in made), None)
