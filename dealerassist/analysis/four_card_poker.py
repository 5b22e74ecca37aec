"""Four Card Poker by complete enumeration of the player's five cards (2,598,960 hands).

The best four of five is found for every hand at numpy speed from a table that ``evaluate_four``
itself fills (one entry per four-card rank pattern, plain and suited), so the ranking is the
evaluator's. Every distinct strength is then named once by the live code (``best_four`` on a hand
that has it, then ``aces_up_class``) and priced through the pay table's awards.

* ``aces-up``: the Aces Up side bet.
* ``ante-bonus``: what the automatic Ante Bonus returns per unit of Ante, for a player who plays
  every hand it pays on (trips or better are always played). It gives money back, so its "house
  edge" is negative: the amount it knocks off the Ante/Play game's edge.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from dealerassist.analysis import AnalysisError, AnalysisRequest, BetAnalysis, Progress
from dealerassist.analysis.three_card_poker import chosen_paytable, pay_table_analysis, unit_win
from dealerassist.core.cards import FULL_DECK, SUITS, Card
from dealerassist.games.four_card_poker import aces_up_class
from dealerassist.hands import HandValue, best_four, evaluate_four

GAME = "four-card-poker"
RANKS = 13


@cache
def combination_array(n: int, k: int) -> np.ndarray:
    """Every ``k``-subset of ``range(n)`` in lexicographic order, as an (C(n,k), k) int8 array."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int8)
    parts = []
    for first in range(n - k + 1):
        rest = combination_array(n - first - 1, k - 1) + np.int8(first + 1)
        parts.append(np.column_stack([np.full(len(rest), first, dtype=np.int8), rest]))
    return np.concatenate(parts)


def four_card_table() -> np.ndarray:
    """Strength of every four-card rank pattern: ``table[suited, key]`` with key the four rank
    indexes (ascending) in base 13. Filled by ``evaluate_four`` on a hand with that pattern."""
    table = np.full((2, RANKS**4), -1, dtype=np.int64)
    for ranks in combinations_with_replacement(range(RANKS), 4):
        if max(Counter(ranks).values()) > 4:
            continue
        key = ((ranks[0] * RANKS + ranks[1]) * RANKS + ranks[2]) * RANKS + ranks[3]
        table[0, key] = evaluate_four(_cards(ranks, suited=False)).strength
        if len(set(ranks)) == 4:
            table[1, key] = evaluate_four(_cards(ranks, suited=True)).strength
    return table


def _cards(ranks: tuple[int, ...], suited: bool) -> list[Card]:
    """Cards with these rank indexes: all spades, or one suit per card so no flush can form."""
    return [Card(r + 2, SUITS[0] if suited else SUITS[i]) for i, r in enumerate(ranks)]


def best_four_of(hands: np.ndarray, progress: Progress) -> np.ndarray:
    """Strength of the best four cards of each five-card hand (rows of ascending card indexes)."""
    ranks = (hands // 4).astype(np.int64)  # FULL_DECK indexes are rank-major: ranks come out sorted
    suits = hands % 4
    table = four_card_table()
    best = np.full(len(hands), -1, dtype=np.int64)
    for dropped in range(5):
        keep = [i for i in range(5) if i != dropped]
        r, s = ranks[:, keep], suits[:, keep]
        key = ((r[:, 0] * RANKS + r[:, 1]) * RANKS + r[:, 2]) * RANKS + r[:, 3]
        suited = ((s[:, 0] == s[:, 1]) & (s[:, 1] == s[:, 2]) & (s[:, 2] == s[:, 3])).astype(np.int64)
        np.maximum(best, table[suited, key], out=best)
        progress(dropped + 1, 5)
    return best


_HISTOGRAM: list[tuple[HandValue, int]] = []


def strength_histogram(request: AnalysisRequest) -> list[tuple[HandValue, int]]:
    """Every distinct best-four value with its number of five-card hands (computed once per
    process: both bets read the same enumeration). Each value is a real ``best_four`` result."""
    if not _HISTOGRAM:
        hands = combination_array(52, 5)
        strengths = best_four_of(hands, request.progress)
        _, first, counts = np.unique(strengths, return_index=True, return_counts=True)
        for index, count in zip(first.tolist(), counts.tolist(), strict=True):
            value = best_four(FULL_DECK[i] for i in hands[index])
            if value.strength != strengths[index]:
                raise AnalysisError(f"vectorized best four disagrees with best_four on {value!r}")
            _HISTOGRAM.append((value, count))
    return _HISTOGRAM


def class_counts(request: AnalysisRequest, name_of: Callable[[HandValue], str]) -> dict[str, int]:
    """Hands per pay-table class, each distinct hand value named by the live game's function."""
    totals: Counter[str] = Counter()
    for value, count in strength_histogram(request):
        totals[name_of(value)] += count
    return dict(totals)


def aces_up(request: AnalysisRequest) -> BetAnalysis:
    table = chosen_paytable(GAME, "aces-up", request)
    return pay_table_analysis("aces-up", table, class_counts(request, aces_up_class))


def ante_bonus(request: AnalysisRequest) -> BetAnalysis:
    table = chosen_paytable(GAME, "ante-bonus", request)
    counts = class_counts(request, lambda value: value.name)
    total = sum(counts.values())
    bonus, hits = Fraction(0), 0
    for hand_class, count in counts.items():
        win = unit_win(table, hand_class)
        if win is not None:
            bonus += count * win
            hits += count
    return BetAnalysis(
        bet="ante-bonus",
        house_edge=-bonus / total,
        hit_frequency=Fraction(hits, total),
        combinations=counts,
        total=total,
        paytable=table.name,
        notes="per unit of Ante, paid on top of the Ante/Play result whenever the player plays",
    )


BETS = {"aces-up": aces_up, "ante-bonus": ante_bonus}
