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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import lcm

import numpy as np

from dealerassist.analysis import AnalysisRequest, BetAnalysis, Progress
from dealerassist.core.cards import FULL_DECK, RANK_CHARS
from dealerassist.core.paytables import PayTable
from dealerassist.games.ante_round import settle_ante_play
from dealerassist.games.base import WagerResult
from dealerassist.games.three_card_poker import dealer_qualifies
from dealerassist.hands import THREE_CLASSES, evaluate_three
from dealerassist.hands.value import HandValue
from dealerassist.tablefiles.paytables import load_paytables

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
    """The table ``--paytable`` names when it pays ``bet``, else the table file's choice for it
    (``--table``), else the game's default for ``bet``."""
    tables = load_paytables(game)
    if request.paytable:
        table = tables.get(request.paytable)
        if table.bet == bet:
            return table
    if bet in request.paytables:
        return tables.get(request.paytables[bet])
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


@dataclass(frozen=True)
class HandTable:
    """All 22,100 three-card hands as the evaluator judged them, in arrays for vector work."""

    values: list[HandValue]
    masks: np.ndarray  # one bit per card held
    strength: np.ndarray
    qualifies: np.ndarray  # dealer_qualifies, per hand
    class_of: np.ndarray  # index into THREE_CLASSES


@cache
def hand_table() -> HandTable:
    values = all_hands()
    return HandTable(
        values=values,
        masks=np.array([sum(1 << c.index for c in v.held) for v in values], dtype=np.uint64),
        strength=np.array([v.strength for v in values], dtype=np.int64),
        qualifies=np.array([dealer_qualifies(v) for v in values], dtype=bool),
        class_of=np.array([THREE_CLASSES.index(v.name) for v in values], dtype=np.int64),
    )


def ante_play(request: AnalysisRequest) -> BetAnalysis:
    """Ante and Play of one unit each, with the best play-or-fold choice for every player hand."""
    bonus = chosen_paytable(GAME, "ante-bonus", request)
    hands = hand_table()
    n = len(hands.values)
    counts = outcome_counts(hands, range(n), request.progress)
    dealer_hands = int(counts[0].sum())

    scale, net_table = played_nets(bonus)
    per_hand = net_table[:, hands.class_of].T  # (hand, outcome)
    play_value = (counts * per_hand).sum(axis=1)
    fold_value = -scale * counts.sum(axis=1)
    plays = play_value > fold_value

    expected = int(np.where(plays, play_value, fold_value).sum())
    total = n * dealer_hands
    combos = {"fold": int(counts[~plays].sum())}
    for j, outcome in enumerate(OUTCOMES):
        combos[OUTCOME_NAMES[outcome]] = int(counts[plays, j].sum())
    hits = int((counts * (per_hand > 0))[plays].sum())
    weakest = min((hands.values[i] for i in np.flatnonzero(plays)), key=lambda v: v.strength)
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


def played_nets(bonus: PayTable) -> tuple[int, np.ndarray]:
    """Net of one played unit (Ante and Play) per (outcome, hand class), priced by the live
    settlement code and made whole: ``(scale, table)`` with ``table[o, c] / scale`` the exact net."""
    nets = [
        [net_of(settle_ante_play(1, 1, 1, outcome, name, bonus, 1)) for name in THREE_CLASSES]
        for outcome in OUTCOMES
    ]
    scale = lcm(*(x.denominator for row in nets for x in row))
    return scale, np.array([[int(x * scale) for x in row] for row in nets], dtype=np.int64)


def outcome_counts(hands: HandTable, players: Sequence[int], progress: Progress) -> np.ndarray:
    """For each player hand (row index), how many dealer hands from the cards left give each of
    ``OUTCOMES``; the same answer ``showdown`` gives, one dealer hand at a time."""
    rows = np.asarray(players, dtype=np.int64)
    counts = np.zeros((len(rows), len(OUTCOMES)), dtype=np.int64)
    dealer_plays = hands.qualifies[None, :]
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        disjoint = (hands.masks[chunk, None] & hands.masks[None, :]) == 0
        mine = hands.strength[chunk, None]
        live = disjoint & dealer_plays
        block = counts[start : start + CHUNK]
        block[:, 0] = (disjoint & ~dealer_plays).sum(axis=1)
        block[:, 1] = (live & (mine > hands.strength[None, :])).sum(axis=1)
        block[:, 2] = (live & (mine == hands.strength[None, :])).sum(axis=1)
        block[:, 3] = (live & (mine < hands.strength[None, :])).sum(axis=1)
        progress(start + len(chunk), len(rows))
    return counts


BETS = {"pair-plus": pair_plus, "ante-play": ante_play}
