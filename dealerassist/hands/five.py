"""Five-card poker, with the pai gow joker (the bug) and the pai gow wheel option."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from dealerassist.core.cards import Card
from dealerassist.hands.classify import classify_five, classify_five_joker
from dealerassist.hands.value import FIVE_CLASSES, HandValue, check_cards


def _strength(five: tuple[Card, ...], wheel_second: bool) -> int:
    naturals = [c for c in five if not c.is_joker]
    ranks = [c.rank for c in naturals]
    suited = len({c.suit for c in naturals}) == 1
    if len(naturals) == 5:
        return classify_five(ranks, suited, wheel_second=wheel_second)
    return classify_five_joker(ranks, suited, wheel_second=wheel_second)


def evaluate_five(cards: Iterable[Card], *, wheel_second: bool = False) -> HandValue:
    """Judge five cards; ``wheel_second`` ranks A-2-3-4-5 just below A-K-Q-J-T (pai gow)."""
    held = check_cards(cards, (5,), "a five-card hand", joker=True)
    strength = _strength(held, wheel_second)
    return HandValue(strength, FIVE_CLASSES[strength >> 20], held, 5)


def best_five(cards: Iterable[Card], *, wheel_second: bool = False) -> HandValue:
    """The best five of five to seven cards (joker allowed)."""
    held = check_cards(cards, range(5, 8), "a best-five hand", joker=True)
    strength = max(_strength(five, wheel_second) for five in combinations(held, 5))
    return HandValue(strength, FIVE_CLASSES[strength >> 20], held, 5)
