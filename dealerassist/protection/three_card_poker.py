"""Three Card Poker decisions priced exactly: Play or fold over every dealer hand the deck allows.

The dealer's three cards are all hidden when a player decides, so the uninformed value of Play is
the mean over the 18,424 dealer hands of the 49 cards left, each outcome priced by the live
settlement code (``analysis.three_card_poker.played_nets``, the same nets the ``analyze`` command
sums to the published house edge). The informed choice is the better of Play and fold against the
dealer hand actually dealt; ``follow_chance`` is the share of dealer hands against which the
player's choice would have been informed-best.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import permutations

import numpy as np

from dealerassist.analysis.three_card_poker import hand_table, played_nets
from dealerassist.core.cards import SUITS, Card
from dealerassist.core.paytables import PayTable
from dealerassist.errors import DealerAssistError
from dealerassist.games.base import TableRules
from dealerassist.protection.decisions import DecisionPoint, Review


def card_mask(cards: tuple[Card, ...]) -> int:
    return sum(1 << c.index for c in cards)


@cache
def suit_class(cards: tuple[Card, ...]) -> tuple[tuple[int, str], ...]:
    """The hand up to a relabelling of suits: hands of one class have the same decision values."""
    return min(
        tuple(sorted((c.rank, dict(zip(SUITS, order, strict=True))[c.suit]) for c in cards))
        for order in permutations(SUITS)
    )


_NETS: dict[int, tuple[PayTable, tuple[int, np.ndarray]]] = {}


def nets_for(bonus: PayTable) -> tuple[int, np.ndarray]:
    """``played_nets`` of a pay table, priced once per table object (a session reviews thousands
    of decisions against the same table; pay tables are not hashable, so keyed by identity)."""
    hit = _NETS.get(id(bonus))
    if hit is None or hit[0] is not bonus:
        hit = _NETS[id(bonus)] = (bonus, played_nets(bonus))
    return hit[1]


@cache
def hand_index() -> dict[int, int]:
    """Row of each three-card hand (by card mask) in ``hand_table``."""
    return {int(mask): row for row, mask in enumerate(hand_table().masks.tolist())}


def review(point: DecisionPoint, rules: TableRules) -> Review:
    hands = hand_table()
    try:
        row = hand_index()[card_mask(point.cards)]
    except KeyError:
        raise DealerAssistError(
            f"round {point.round_id} seat {point.seat}: a Three Card Poker hand needs three different "
            f"cards, the record has {' '.join(c.code for c in point.cards) or 'none'}"
        ) from None
    disjoint = (hands.masks & np.uint64(card_mask(point.cards))) == 0
    theirs = hands.strength[disjoint]
    mine = hands.strength[row]
    outcome = np.where(
        ~hands.qualifies[disjoint], 0, np.where(mine > theirs, 1, np.where(mine == theirs, 2, 3))
    )
    scale, nets = nets_for(rules.paytables["ante-bonus"])
    play = nets[outcome, hands.class_of[row]]
    fold = -scale
    ante = point.wagers.get("ante", 0)
    values = {
        "play": Fraction(int(play.sum()) * ante, scale * len(play)),
        "fold": Fraction(-ante),
    }
    chosen = "play" if point.action == "play" else "fold"
    best_here = play >= fold if chosen == "play" else play <= fold
    return Review(
        point=point,
        values=values,
        chosen=chosen,
        informed=_informed(point, hands.masks[disjoint], play, fold),
        follow_chance=float(best_here.mean()),
    )


def _informed(point: DecisionPoint, masks: np.ndarray, play: np.ndarray, fold: int) -> frozenset[str]:
    """The best choices against the dealer's hand as dealt; every choice when it is not all known."""
    if len(point.dealer_hidden) != 3:
        return frozenset({"play", "fold"})
    where = np.flatnonzero(masks == np.uint64(card_mask(point.dealer_hidden)))
    if len(where) != 1:
        return frozenset({"play", "fold"})
    net = int(play[where[0]])
    return frozenset(option for option, best in (("play", net >= fold), ("fold", net <= fold)) if best)
