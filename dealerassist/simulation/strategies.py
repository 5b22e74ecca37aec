"""How the simulated players decide: one plain, published-style strategy per game.

The demo's players are not meant to be clever, only plausible and legal, so that the rounds a
visitor watches look like a real table: Three Card Poker plays Q-6-4 or better, Four Card Poker
raises 3x with a pair or better and 1x with king high, blackjack follows a short basic strategy
and never insures, pai gow asks for the house way, and Pairs & Up picks the hand with the best
expected value over the cards it cannot see, priced with the table's own pay table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dealerassist.core.cards import ACE, Card
from dealerassist.games.base import TableRules
from dealerassist.hands import best_four, blackjack_total, evaluate_three
from dealerassist.protection.pairs_and_up import choice_values, unseen_cards

THREE_CARD_MINIMUM = (12, 6, 4)  # Q-6-4: the classic break-even playing hand


@dataclass(frozen=True)
class View:
    """What one player may know when it is their turn."""

    position: str
    actions: Sequence[str]
    cards: Sequence[Card]
    dealer_up: Sequence[Card]
    wagers: Mapping[str, int]
    rules: TableRules


@dataclass(frozen=True)
class Choice:
    """The decision to send: fields as ``tracker.events.PlayerDecision``."""

    action: str
    amount: int | None = None
    choice: str | None = None


def three_card_poker(view: View) -> Choice:
    value = evaluate_three(view.cards)
    plays = value.name != "high-card" or tuple(value.ranks) >= THREE_CARD_MINIMUM
    return Choice("play", view.wagers.get("ante")) if plays else Choice("fold")


def four_card_poker(view: View) -> Choice:
    value = best_four(view.cards)
    ante = view.wagers.get("ante", 0)
    if value.name != "high-card":
        return Choice("play", 3 * ante)
    if value.ranks[0] >= 13:
        return Choice("play", ante)
    return Choice("fold")


def _points(card: Card) -> int:
    return 11 if card.rank == ACE else min(card.rank, 10)


def blackjack(view: View) -> Choice:
    """A short basic strategy (dealer stands on soft 17); insurance and even money declined."""
    actions = set(view.actions)
    if "decline" in actions:
        return Choice("decline")
    up = _points(view.dealer_up[0]) if view.dealer_up else 10
    cards = list(view.cards)
    if (
        "split" in actions
        and len(cards) == 2
        and cards[0].rank == cards[1].rank
        and cards[0].rank in (ACE, 8)
    ):
        return Choice("split")
    hand = blackjack_total(cards)
    total = hand.total
    if hand.soft:
        if total >= 19 or (total == 18 and up <= 8):
            return Choice("stand")
        return Choice("hit")
    can_double = "double" in actions
    if can_double and (total == 11 or (total == 10 and up <= 9) or (total == 9 and 3 <= up <= 6)):
        return Choice("double")
    if total >= 17 or (13 <= total <= 16 and up <= 6) or (total == 12 and 4 <= up <= 6):
        return Choice("stand")
    return Choice("hit")


def pai_gow(view: View) -> Choice:
    return Choice("house-way")


def pairs_and_up_values(view: View) -> dict[str, Fraction]:
    """Expected net cents of folding and of playing each hand, over the dealer's unseen card
    (priced exactly by ``protection.pairs_and_up.choice_values``)."""
    seen = (*view.cards, *view.dealer_up)
    unseen = unseen_cards(view.rules, seen)
    return choice_values(view.rules, view.wagers.get("ante", 0), seen, unseen)


def pairs_and_up(view: View) -> Choice:
    values = pairs_and_up_values(view)
    best = max(values, key=lambda name: (values[name], name == "fold"))
    if best == "fold":
        return Choice("fold")
    return Choice("play", choice=best)


STRATEGIES: dict[str, Callable[[View], Choice]] = {
    "three-card-poker": three_card_poker,
    "four-card-poker": four_card_poker,
    "perfect-pairs-blackjack": blackjack,
    "face-up-pai-gow": pai_gow,
    "pairs-and-up": pairs_and_up,
}


def decide(game: str, view: View) -> Choice:
    """The simulated player's decision; the first legal action when the game has no strategy."""
    strategy = STRATEGIES.get(game)
    if strategy is None:
        return Choice(view.actions[0])
    choice = strategy(view)
    return choice if choice.action in view.actions else Choice(view.actions[0])
