"""Four Card Poker: four of a kind > straight flush > three of a kind > flush > straight > two
pair > pair > high card; A-2-3-4 is the lowest straight and nothing wraps round the ace."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from dealerassist.core.cards import Card
from dealerassist.hands.classify import classify_four
from dealerassist.hands.value import FOUR_CLASSES, HandValue, check_cards


def evaluate_four(cards: Iterable[Card]) -> HandValue:
    """Judge exactly four cards from one 52-card deck."""
    held = check_cards(cards, (4,), "a Four Card Poker hand")
    strength = classify_four([c.rank for c in held], len({c.suit for c in held}) == 1)
    return HandValue(strength, FOUR_CLASSES[strength >> 16], held, 4)


def best_four(cards: Iterable[Card]) -> HandValue:
    """The best four of four to seven cards (the player holds five, the dealer six)."""
    held = check_cards(cards, range(4, 8), "a Four Card Poker best-four hand")
    strength = max(
        classify_four([c.rank for c in four], len({c.suit for c in four}) == 1)
        for four in combinations(held, 4)
    )
    return HandValue(strength, FOUR_CLASSES[strength >> 16], held, 4)
