"""Pai gow's two-card front hand and the rule that the five-card back hand must outrank it."""

from __future__ import annotations

from collections.abc import Iterable

from dealerassist.core.cards import ACE, Card
from dealerassist.hands.classify import classify_two
from dealerassist.hands.value import HandError, HandValue, check_cards


def evaluate_two(cards: Iterable[Card]) -> HandValue:
    """Judge the two-card hand: a pair or high cards; the joker plays as an ace."""
    held = check_cards(cards, (2,), "a pai gow two-card hand", joker=True)
    strength = classify_two([ACE if c.is_joker else c.rank for c in held])
    return HandValue((strength, held, 2))


def front_outranks_back(two: HandValue, five: HandValue) -> bool:
    """True when the setting is a foul: the two-card hand beats the five-card hand.

    A five-card hand of two pair or better always outranks the front. Otherwise both are a pair
    or both high cards (or the back is high cards under a front pair, a foul): compare the front's
    two ranks with the back's two leading ranks; equal leading ranks leave the back ahead, since it
    holds more cards.
    """
    if two.size != 2 or five.size != 5:
        raise HandError(
            f"front_outranks_back takes a two-card and a five-card hand, got {two.size} and {five.size} cards"
        )
    back_class = five.strength >> 20
    front_class = two.strength >> 8
    if back_class > 1:
        return False
    if front_class != back_class:
        return front_class > back_class
    return two.ranks > five.ranks[:2]
