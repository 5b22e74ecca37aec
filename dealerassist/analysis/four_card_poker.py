"""Four Card Poker by complete enumeration of the player's five cards (2,598,960 hands).

The best four of five is counted for every hand with the evaluators' numpy batch API (strengths
bit for bit those of ``best_four``). Every distinct strength is then named once by the live code
(``best_four`` on a hand that has it, then ``aces_up_class``) and priced through the pay table's
awards.

* ``aces-up``: the Aces Up side bet.
* ``ante-bonus``: what the automatic Ante Bonus returns per unit of Ante, for a player who plays
  every hand it pays on (trips or better are always played). It gives money back, so its "house
  edge" is negative: the amount it knocks off the Ante/Play game's edge.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from dealerassist.analysis import AnalysisError, AnalysisRequest, BetAnalysis, Progress
from dealerassist.analysis.three_card_poker import chosen_paytable, pay_table_analysis, unit_win
from dealerassist.core.cards import FULL_DECK
from dealerassist.games.four_card_poker import aces_up_class
from dealerassist.hands import HandValue, best_four
from dealerassist.hands.batch import best_four_strengths, combinations_array

GAME = "four-card-poker"
CHUNK = 400_000


def best_four_of_all(progress: Progress) -> tuple[np.ndarray, np.ndarray]:
    """(every five-card hand as card indexes, the strength of its best four), by the evaluators'
    batch API in chunks so progress can be shown."""
    hands = combinations_array(52, 5)
    strengths = np.empty(len(hands), dtype=np.int64)
    for start in range(0, len(hands), CHUNK):
        stop = min(start + CHUNK, len(hands))
        strengths[start:stop] = best_four_strengths(hands[start:stop], check=False)
        progress(stop, len(hands))
    return hands, strengths


_HISTOGRAM: list[tuple[HandValue, int]] = []


def strength_histogram(request: AnalysisRequest) -> list[tuple[HandValue, int]]:
    """Every distinct best-four value with its number of five-card hands (computed once per
    process: both bets read the same enumeration). Each value is a real ``best_four`` result."""
    if not _HISTOGRAM:
        hands, strengths = best_four_of_all(request.progress)
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
