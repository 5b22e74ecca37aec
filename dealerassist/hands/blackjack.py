"""Blackjack totals and the Perfect Pairs side bet (six-deck shoe: duplicate cards are normal)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dealerassist.core.cards import ACE, Card
from dealerassist.hands.value import check_cards


@dataclass(frozen=True, slots=True)
class BlackjackTotal:
    """A hand's count. ``soft`` means an ace is counting 11; ``blackjack`` is a two-card 21 that
    is not a split hand; ``bust`` is over 21."""

    total: int
    soft: bool
    blackjack: bool
    bust: bool


def card_points(card: Card) -> int:
    """Face value; tens and pictures 10; an ace 1 (``blackjack_total`` decides when it is 11)."""
    if card.rank == ACE:
        return 1
    return min(card.rank, 10)


def blackjack_total(cards: Iterable[Card], split: bool = False) -> BlackjackTotal:
    """Count a hand; ``split`` says it came from a split, so a two-card 21 is not a blackjack."""
    held = check_cards(cards, range(1, 23), "a blackjack hand", duplicates=True)
    hard = sum(card_points(c) for c in held)
    soft = hard <= 11 and any(c.rank == ACE for c in held)
    total = hard + 10 if soft else hard
    return BlackjackTotal(
        total=total,
        soft=soft,
        blackjack=total == 21 and len(held) == 2 and not split,
        bust=total > 21,
    )


def perfect_pair(card1: Card, card2: Card) -> str | None:
    """The Perfect Pairs result of a player's first two cards: ``perfect`` (same face and suit),
    ``coloured`` (same face, same colour), ``mixed`` (same face, other colour) or None.

    A pair is the same face: a king and a queen are both worth ten but are no pair.
    """
    first, second = check_cards((card1, card2), (2,), "a Perfect Pairs hand", duplicates=True)
    if first.rank != second.rank:
        return None
    if first.suit == second.suit:
        return "perfect"
    if first.is_red == second.is_red:
        return "coloured"
    return "mixed"
