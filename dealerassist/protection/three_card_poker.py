"""Three Card Poker decisions priced exactly: Play or fold over every dealer hand the deck allows.

The dealer's three cards are all hidden when a player decides, so the uninformed value of Play is
the mean over the 18,424 dealer hands of the 49 cards left, each outcome priced by the live
settlement code (``analysis.three_card_poker.played_nets``, the same nets the ``analyze`` command
sums to the published house edge). The informed choice is the better of Play and fold against the
dealer hand actually dealt; ``follow_chance`` is the share of dealer hands against which the
player's choice would have been informed-best.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import permutations

import numpy as np

from dealerassist.analysis.three_card_poker import hand_table, played_nets
from dealerassist.core.cards import SUITS, Card
from dealerassist.core.paytables import PayTable
from dealerassist.errors import DealerAssistError
from dealerassist.games.base import TableRules
from dealerassist.protection.decisions import DecisionPoint, DecisionReviewer, Review


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


@cache
def card_members() -> np.ndarray:
    """Which cards (by index, 0-51) each hand of ``hand_table`` holds: one row per hand."""
    masks = hand_table().masks
    return ((masks[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(np.int64)


@dataclass(frozen=True)
class Deal:
    """A player's hand priced against every dealer hand the deck allows, and against every card the
    dealer could hold as the one a player saw: the Play net over the rest, in ``scale`` units."""

    possible: np.ndarray  # per hand_table row: a dealer hand the deck allows
    play: np.ndarray  # per hand_table row (0 where impossible): Play's net against it
    play_by_card: np.ndarray  # per card index: Play's mean net over the dealer hands holding it
    live: np.ndarray  # per card index: a card the dealer may hold
    scale: int

    def best(self, option: str, play: np.ndarray) -> np.ndarray:
        """Where ``option`` is a best choice, given Play's nets ``play`` (fold loses the Ante)."""
        return play >= -self.scale if option == "play" else play <= -self.scale


_DEALS: dict[tuple[int, int], tuple[PayTable, Deal]] = {}
DEALS_KEPT = 16  # one decision's deal serves each alternative's reviewer in turn


def deal_of(point: DecisionPoint, rules: TableRules) -> Deal:
    mask = card_mask(point.cards)
    bonus = rules.paytables["ante-bonus"]
    hit = _DEALS.get((mask, id(bonus)))
    if hit is not None and hit[0] is bonus:
        return hit[1]
    hands = hand_table()
    try:
        row = hand_index()[mask]
    except KeyError:
        raise DealerAssistError(
            f"round {point.round_id} seat {point.seat}: a Three Card Poker hand needs three different "
            f"cards, the record has {' '.join(c.code for c in point.cards) or 'none'}"
        ) from None
    possible = (hands.masks & np.uint64(mask)) == 0
    theirs = hands.strength[possible]
    mine = hands.strength[row]
    outcome = np.where(
        ~hands.qualifies[possible], 0, np.where(mine > theirs, 1, np.where(mine == theirs, 2, 3))
    )
    scale, nets = nets_for(bonus)
    play = np.zeros(len(hands.masks), dtype=np.int64)
    play[possible] = nets[outcome, hands.class_of[row]]
    held = card_members()[possible]
    per_card = held.sum(axis=0)
    live = per_card > 0
    play_by_card = np.zeros(52)
    play_by_card[live] = (play[possible] @ held)[live] / per_card[live]
    if len(_DEALS) >= DEALS_KEPT:
        _DEALS.clear()
    deal = Deal(possible, play, play_by_card, live, scale)
    _DEALS[(mask, id(bonus))] = (bonus, deal)
    return deal


def _values(point: DecisionPoint, deal: Deal) -> tuple[dict[str, Fraction], str]:
    ante = point.wagers.get("ante", 0)
    values = {
        "play": Fraction(int(deal.play[deal.possible].sum()) * ante, deal.scale * int(deal.possible.sum())),
        "fold": Fraction(-ante),
    }
    return values, "play" if point.action == "play" else "fold"


def review(point: DecisionPoint, rules: TableRules) -> Review:
    """Against a player who sees all three of the dealer's cards."""
    deal = deal_of(point, rules)
    values, chosen = _values(point, deal)
    informed = frozenset({"play", "fold"})
    if len(point.dealer_hidden) == 3:
        row = hand_index().get(card_mask(point.dealer_hidden))
        if row is not None and deal.possible[row]:
            informed = frozenset(o for o in ("play", "fold") if deal.best(o, deal.play[row : row + 1])[0])
    follow = deal.best(chosen, deal.play[deal.possible])
    return Review(
        point=point, values=values, chosen=chosen, informed=informed, follow_chance=float(follow.mean())
    )


def review_one_card(point: DecisionPoint, rules: TableRules, index: int) -> Review:
    """Against a player who sees only the dealer's card ``index`` (0-2 in the order dealt), one
    flashed in the deal: the informed choice is the best given that card, over the rest."""
    deal = deal_of(point, rules)
    values, chosen = _values(point, deal)
    informed = frozenset({"play", "fold"})
    if len(point.dealer_hidden) == 3 and deal.live[point.dealer_hidden[index].index]:
        seen = deal.play_by_card[point.dealer_hidden[index].index : point.dealer_hidden[index].index + 1]
        informed = frozenset(o for o in ("play", "fold") if deal.best(o, seen)[0])
    follow = deal.best(chosen, deal.play_by_card[deal.live])
    return Review(
        point=point, values=values, chosen=chosen, informed=informed, follow_chance=float(follow.mean())
    )


def one_card_reviewer(index: int) -> DecisionReviewer:
    """``review_one_card`` for the dealer's card ``index``, as a reviewer of its own."""
    return functools.partial(review_one_card, index=index)
