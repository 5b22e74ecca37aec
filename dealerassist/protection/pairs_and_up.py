"""Pairs & Up decisions priced exactly: fold or play one of the hands, over the dealer's hidden card.

The player sees their two cards and the dealer's turned card; the hidden card is any card the deck
still holds, weighted by its copies, and every hand is priced with the table's own Play pay table
and ``play_outcome``, the function that settles live rounds. The informed choice is the best
against the hidden card as dealt; ``follow_chance`` weighs every card it could have been by
whether the player's choice is best against it. The simulated players decide with the same values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

from dealerassist.core.cards import Card
from dealerassist.games.base import TableRules
from dealerassist.games.pairs_and_up import HANDS, PairsAndUpOptions, play_outcome
from dealerassist.protection.decisions import DecisionPoint, Review


def unseen_cards(rules: TableRules, seen: Sequence[Card]) -> dict[Card, int]:
    """The cards the hidden card may be, with the copies of each the deck still holds."""
    left = Counter(rules.deck.cards())
    left.subtract(Counter(seen))
    return {card: n for card, n in left.items() if n > 0}


def choice_values(
    rules: TableRules, ante: int, seen: Sequence[Card], unseen: Mapping[Card, int]
) -> dict[str, Fraction]:
    """Expected net cents of folding and of playing each hand the pay table pays, over ``unseen``."""
    options = PairsAndUpOptions.from_rules(rules)
    play = ante * options.play_ratio
    total = sum(unseen.values())
    values: dict[str, Fraction] = {"fold": Fraction(-ante)}
    pays = rules.paytables["play"]
    for hand in HANDS:
        award = pays.award(hand)
        if award is None:
            continue
        won = award.pay(ante, rules.chip).amount + award.pay(play, rules.chip).amount
        net = Fraction(0)
        for card, copies in unseen.items():
            outcome = play_outcome(hand, [*seen, card], options.precedence)
            net += copies * (won if outcome == "win" else 0 if outcome == "push" else -(ante + play))
        values[hand] = net / total
    return values


def best(values: Mapping[str, Fraction]) -> frozenset[str]:
    top = max(values.values())
    return frozenset(option for option, value in values.items() if value == top)


def review(point: DecisionPoint, rules: TableRules) -> Review:
    seen = (*point.cards, *point.dealer_up)
    ante = point.wagers.get("ante", 0)
    unseen = unseen_cards(rules, seen)
    chosen = point.choice if point.action == "play" and point.choice else "fold"
    against = {card: best(choice_values(rules, ante, seen, {card: 1})) for card in unseen}
    follow = sum(copies for card, copies in unseen.items() if chosen in against[card]) / sum(unseen.values())
    values = choice_values(rules, ante, seen, unseen)
    hidden = point.dealer_hidden
    informed = against.get(hidden[0]) if len(hidden) == 1 else None
    return Review(point, values, chosen, informed or frozenset(values), follow)
