"""Three Card Poker by complete enumeration of one 52-card deck.

* ``pair-plus``: all 22,100 three-card hands, judged by ``evaluate_three`` and priced by the Pair
  Plus table.
* ``ante-play``: every player hand against every dealer hand from the 49 cards left (22,100 x
  18,424 pairs), judged and compared by the evaluator and ``dealer_qualifies``; each outcome is
  priced by ``settle_ante_play``, the function that settles live rounds. The player's strategy is
  found here, not assumed: a hand plays when playing loses less than folding (the Ante).

Also home of the small helpers the other analyses share (pay-table choice, pricing of a class).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import combinations
from math import lcm

import numpy as np

from dealerassist.analysis import AnalysisRequest, BetAnalysis
from dealerassist.core.cards import FULL_DECK, RANK_CHARS
from dealerassist.core.paytables import PayTable, load_paytables
from dealerassist.games.base import WagerResult
from dealerassist.games.three_card_poker import dealer_qualifies, settle_ante_play, showdown
from dealerassist.hands import THREE_CLASSES, evaluate_three
from dealerassist.hands.value import HandValue

GAME = "three-card-poker"
OUTCOMES = ("no-qualify", "win", "tie", "loss")
OUTCOME_NAMES = {
    "no-qualify": "dealer-does-not-qualify",
    "win": "win",
    "tie": "tie",
    "loss": "loss",
}
CHUNK = 400


# --- Shared helpers -----------------------------------------------------------------------------


def chosen_paytable(game: str, bet: str, request: AnalysisRequest) -> PayTable:
    """The table ``--paytable`` names when it pays ``bet``, else the game's default for ``bet``."""
    tables = load_paytables(game)
    if request.paytable:
        table = tables.get(request.paytable)
        if table.bet == bet:
            return table
    return tables.default(bet)


def unit_win(table: PayTable, hand_class: str) -> Fraction | None:
    """Exact winnings per unit staked on ``hand_class`` (None: the bet loses), via the award."""
    award = table.award(hand_class)
    if award is None:
        return None
    return award.pay(1, 1).exact


def pay_table_analysis(bet: str, table: PayTable, counts: Mapping[str, int], notes: str = "") -> BetAnalysis:
    """A one-stake bet paid on a hand class: edge and hit frequency from class counts."""
    total = sum(counts.values())
    expected = Fraction(0)
    hits = 0
    for hand_class, count in counts.items():
        win = unit_win(table, hand_class)
        if win is None:
            expected -= count
        else:
            expected += count * win
            hits += count if win > 0 else 0
    return BetAnalysis(
        bet=bet,
        house_edge=-expected / total,
        hit_frequency=Fraction(hits, total),
        combinations=dict(counts),
        total=total,
        paytable=table.name,
        notes=notes,
    )


def net_of(results: list[WagerResult]) -> Fraction:
    """Exact player gain of settled wagers, counting what chip rounding withheld."""
    return sum((r.win + r.remainder + r.returned - r.stake for r in results), Fraction(0))


def rank_text(value: HandValue) -> str:
    """``Q-6-4``: the ranks a strength decides on (an ace low is still written A)."""
    return "-".join(RANK_CHARS[(r if r > 1 else 14) - 2] for r in value.ranks)


# --- Three Card Poker ---------------------------------------------------------------------------


def all_hands() -> list[HandValue]:
    return [evaluate_three(cards) for cards in combinations(FULL_DECK, 3)]


def pair_plus(request: AnalysisRequest) -> BetAnalysis:
    table = chosen_paytable(GAME, "pair-plus", request)
    counts = dict.fromkeys(THREE_CLASSES, 0)
    for value in all_hands():
        counts[value.name] += 1
    return pay_table_analysis("pair-plus", table, counts)


def ante_play(request: AnalysisRequest) -> BetAnalysis:
    """Ante and Play of one unit each, with the best play-or-fold choice for every player hand."""
    bonus = chosen_paytable(GAME, "ante-bonus", request)
    values = all_hands()
    n = len(values)
    masks = np.array([sum(1 << c.index for c in v.held) for v in values], dtype=np.uint64)
    strength = np.array([v.strength for v in values], dtype=np.int64)
    qualifies = np.array([dealer_qualifies(v) for v in values], dtype=bool)
    class_of = np.array([THREE_CLASSES.index(v.name) for v in values], dtype=np.int64)

    counts = outcome_counts(masks, strength, qualifies, request)
    dealer_hands = int(counts[0].sum())

    # Net of one played hand per (outcome, class), priced by the live settlement code, made whole.
    nets = [
        [net_of(settle_ante_play(1, 1, 1, outcome, name, bonus, 1)) for name in THREE_CLASSES]
        for outcome in OUTCOMES
    ]
    scale = lcm(*(x.denominator for row in nets for x in row))
    net_table = np.array([[int(x * scale) for x in row] for row in nets], dtype=np.int64)
    per_hand = net_table[:, class_of].T  # (n, outcome)
    play_value = (counts * per_hand).sum(axis=1)
    fold_value = -scale * counts.sum(axis=1)
    plays = play_value > fold_value

    expected = int(np.where(plays, play_value, fold_value).sum())
    total = n * dealer_hands
    combos = {"fold": int(counts[~plays].sum())}
    for j, outcome in enumerate(OUTCOMES):
        combos[OUTCOME_NAMES[outcome]] = int(counts[plays, j].sum())
    hits = int((counts * (per_hand > 0))[plays].sum())
    weakest = min((values[i] for i in np.flatnonzero(plays)), key=lambda v: v.strength)
    _check_against_evaluator(values, strength, qualifies)
    return BetAnalysis(
        bet="ante-play",
        house_edge=-Fraction(expected, scale * total),
        hit_frequency=Fraction(hits, total),
        combinations=combos,
        total=total,
        paytable=bonus.name,
        notes=f"optimal strategy: play {rank_text(weakest)} or better, fold the rest",
        extra={"weakest_hand_played": rank_text(weakest), "hands_played": int(plays.sum())},
    )


def outcome_counts(
    masks: np.ndarray, strength: np.ndarray, qualifies: np.ndarray, request: AnalysisRequest
) -> np.ndarray:
    """For every player hand, how many disjoint dealer hands give each of ``OUTCOMES``."""
    n = len(masks)
    counts = np.zeros((n, len(OUTCOMES)), dtype=np.int64)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        disjoint = (masks[start:stop, None] & masks[None, :]) == 0
        mine = strength[start:stop, None]
        live = disjoint & qualifies[None, :]
        counts[start:stop, 0] = (disjoint & ~qualifies[None, :]).sum(axis=1)
        counts[start:stop, 1] = (live & (mine > strength[None, :])).sum(axis=1)
        counts[start:stop, 2] = (live & (mine == strength[None, :])).sum(axis=1)
        counts[start:stop, 3] = (live & (mine < strength[None, :])).sum(axis=1)
        request.progress(stop, n)
    return counts


def _check_against_evaluator(values: list[HandValue], strength: np.ndarray, qualifies: np.ndarray) -> None:
    """The vectorized comparison must agree with ``showdown`` (sampled, cheap)."""
    for i, j in ((0, len(values) - 1), (len(values) // 3, len(values) // 2), (17, 9000)):
        vec = "no-qualify" if not qualifies[j] else None
        if vec is None:
            vec = "win" if strength[i] > strength[j] else "tie" if strength[i] == strength[j] else "loss"
        assert vec == showdown(values[i], values[j]), (values[i], values[j])


BETS = {"pair-plus": pair_plus, "ante-play": ante_play}
