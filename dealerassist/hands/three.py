"""Three Card Poker: straight flush > three of a kind > straight > flush > pair > high card."""

from __future__ import annotations

from collections.abc import Iterable

from dealerassist.core.cards import Card
from dealerassist.hands.classify import classify_three
from dealerassist.hands.value import THREE_CLASSES, HandValue, check_cards


def evaluate_three(cards: Iterable[Card]) -> HandValue:
    """Judge a three-card hand from one 52-card deck (A-2-3 is the lowest straight)."""
    held = check_cards(cards, (3,), "a Three Card Poker hand")
    strength = classify_three([c.rank for c in held], len({c.suit for c in held}) == 1)
    return HandValue(strength, THREE_CLASSES[strength >> 12], held, 3)
