"""Four Card Poker decisions priced exactly: fold or Play 1x to 3x the Ante, over every dealer hand.

The player sees their five cards and the dealer's face-up card; the dealer's five hidden cards are
any five of the 46 cards left (1,370,754 hands). The dealer always plays and the player wins ties,
so every option's value rests on one count: how many of those hands beat the player's best four.
It is counted exactly by a compiled walk over all of them (``dealer_hands_above``), each dealer
hand judged as the best four of its six cards with strengths from the evaluators' batch API (bit
for bit ``best_four``), stopping a branch as soon as its first cards already beat the player.
Outcomes are priced by the live settlement code (``settle_ante_play`` with the table's Ante Bonus
table, which pays whether the player wins or loses), so the values are the ones a table pays.

A Play is linear in its amount, so the best Play is always 1x or 3x (2x never beats both); the
options are ``fold``, ``1x``, ``2x`` and ``3x``, and a recorded Play of another amount is priced as
it was made. Not priced: the Bad Beat side bet, which a fold also loses (a $1-$5 bet beside the
Ante), and the aggregate payout cap (never reached by one seat's Ante and Play at table limits).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache
from itertools import permutations
from math import comb

import numpy as np

from dealerassist.analysis.three_card_poker import net_of
from dealerassist.compiled import compiled
from dealerassist.core.cards import Card
from dealerassist.core.paytables import PayTable
from dealerassist.errors import DealerAssistError
from dealerassist.games.ante_round import settle_ante_play
from dealerassist.games.base import TableRules
from dealerassist.games.four_card_poker import player_outcome
from dealerassist.hands import best_four
from dealerassist.hands.batch import combinations_array, four_card_strengths
from dealerassist.protection.decisions import DecisionPoint, Review

RAISES = (1, 2, 3)
HIDDEN = 5


@cache
def four_card_ranks() -> tuple[np.ndarray, np.ndarray]:
    """(every distinct four-card strength, sorted; the rank in it of every ordered four-card hand,
    indexed ``((a * 52 + b) * 52 + c) * 52 + d``): one lookup per hand whatever the card order."""
    hands = combinations_array(52, 4).astype(np.int64)
    strengths, ranks = np.unique(four_card_strengths(hands, check=False), return_inverse=True)
    table = np.zeros(52**4, dtype=np.uint16)
    for a, b, c, d in permutations(range(4)):
        table[((hands[:, a] * 52 + hands[:, b]) * 52 + hands[:, c]) * 52 + hands[:, d]] = ranks
    return strengths, table


@compiled()
def _count_above(unseen: np.ndarray, up: int, table: np.ndarray, mine: int) -> int:  # pragma: no cover
    """Hands of five of ``unseen`` (sorted) whose best four with ``up`` ranks above ``mine``.

    Walked card by card: the four-card hands a level adds are judged there, and a level that
    already beats ``mine`` counts all its completions at once."""
    n = len(unseen)
    above = 0
    for i in range(n - 4):
        a = unseen[i]
        for j in range(i + 1, n - 3):
            b = unseen[j]
            for k in range(j + 1, n - 2):
                c = unseen[k]
                abc = a * 140608 + b * 2704 + c * 52
                abu = a * 140608 + b * 2704 + up * 52
                acu = a * 140608 + c * 2704 + up * 52
                bcu = b * 140608 + c * 2704 + up * 52
                if table[abc + up] > mine:
                    rest = n - 1 - k
                    above += rest * (rest - 1) // 2
                    continue
                for m in range(k + 1, n - 1):
                    d = unseen[m]
                    abd = a * 140608 + b * 2704 + d * 52
                    acd = a * 140608 + c * 2704 + d * 52
                    bcd = b * 140608 + c * 2704 + d * 52
                    if (
                        table[abc + d] > mine
                        or table[abd + up] > mine
                        or table[acd + up] > mine
                        or table[bcd + up] > mine
                    ):
                        above += n - 1 - m
                        continue
                    adu = a * 140608 + d * 2704 + up * 52
                    bdu = b * 140608 + d * 2704 + up * 52
                    cdu = c * 140608 + d * 2704 + up * 52
                    for q in range(m + 1, n):
                        e = unseen[q]
                        if (
                            table[abc + e] > mine
                            or table[abd + e] > mine
                            or table[acd + e] > mine
                            or table[bcd + e] > mine
                            or table[abu + e] > mine
                            or table[acu + e] > mine
                            or table[bcu + e] > mine
                            or table[adu + e] > mine
                            or table[bdu + e] > mine
                            or table[cdu + e] > mine
                        ):
                            above += 1
    return above


def rank_of(strength: int) -> int:
    strengths, _ = four_card_ranks()
    at = int(np.searchsorted(strengths, strength))
    if at == len(strengths) or strengths[at] != strength:
        raise DealerAssistError(f"four-card strength {strength} is no four-card hand's")
    return at


@lru_cache(maxsize=4096)
def dealer_hands_above(own: frozenset[Card], up: Card) -> tuple[int, int]:
    """(dealer hands that beat the player's best four, all dealer hands) over the 46 cards left.

    Cached by the cards, so the simulated player and the review of its decision count once."""
    _, table = four_card_ranks()
    mine = rank_of(best_four(tuple(own)).strength)
    dead = {c.index for c in own} | {up.index}
    unseen = np.array([i for i in range(52) if i not in dead], dtype=np.int64)
    return _count_above(unseen, up.index, table, mine), comb(len(unseen), HIDDEN)


_NETS: dict[int, tuple[PayTable, dict[tuple[str, str], Fraction]]] = {}


def play_net(bonus: PayTable, hand: str, outcome: str, ante: int, play: int) -> Fraction:
    """Net cents of a played hand, by the live settlement code (chip of one cent: exact)."""
    return net_of(settle_ante_play(1, ante, play, outcome, hand, bonus, 1))


def option_values(
    rules: TableRules, ante: int, hand: str, p_loss: Fraction, amounts: dict[str, int]
) -> dict[str, Fraction]:
    """Expected net cents of folding and of each Play amount, given the chance the dealer wins."""
    bonus = rules.paytables["ante-bonus"]
    values = {"fold": Fraction(-ante)}
    for option, play in amounts.items():
        win = play_net(bonus, hand, "win", ante, play)
        loss = play_net(bonus, hand, "loss", ante, play)
        values[option] = (1 - p_loss) * win + p_loss * loss
    return values


def play_amounts(ante: int, recorded: int | None) -> dict[str, int]:
    """The options a player has: 1x, 2x and 3x the Ante, and the recorded Play if it is another."""
    amounts = {f"{k}x": k * ante for k in RAISES}
    if recorded is not None and recorded not in amounts.values():
        amounts[f"play {recorded}"] = recorded
    return amounts


def _best(values: dict[str, Fraction]) -> frozenset[str]:
    top = max(values.values())
    return frozenset(option for option, value in values.items() if value == top)


def review(point: DecisionPoint, rules: TableRules) -> Review:
    if len(point.cards) != 5 or len(point.dealer_up) != 1 or len(set(point.cards) | {*point.dealer_up}) != 6:
        raise DealerAssistError(
            f"round {point.round_id} seat {point.seat}: a Four Card Poker decision needs the seat's five "
            f"cards and the dealer's face-up card, the record has "
            f"{' '.join(c.code for c in point.cards) or 'none'} / "
            f"{' '.join(c.code for c in point.dealer_up) or 'none'}"
        )
    ante = point.wagers.get("ante", 0)
    # A Play that names no amount is the Ante again (``AnteRound.default_play``).
    recorded = (ante if point.amount is None else point.amount) if point.action == "play" else None
    amounts = play_amounts(ante, recorded)
    hand = best_four(point.cards)
    above, total = dealer_hands_above(frozenset(point.cards), point.dealer_up[0])
    p_loss = Fraction(above, total)
    values = option_values(rules, ante, hand.name, p_loss, amounts)
    chosen = "fold" if recorded is None else next(o for o, a in amounts.items() if a == recorded)
    if_win = _best(option_values(rules, ante, hand.name, Fraction(0), amounts))
    if_loss = _best(option_values(rules, ante, hand.name, Fraction(1), amounts))
    follow = (1 - p_loss) * (chosen in if_win) + p_loss * (chosen in if_loss)
    informed = frozenset(values)
    if len(point.dealer_hidden) == HIDDEN:
        dealer = best_four((*point.dealer_hidden, *point.dealer_up))
        informed = if_win if player_outcome(hand, dealer) == "win" else if_loss
    return Review(point, values, chosen, informed, float(follow))
