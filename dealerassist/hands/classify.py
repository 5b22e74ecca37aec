"""Rank-level hand classification: the one place that knows each game's hand ranking.

Every function takes the ranks of a hand (order free) and whether it is suited, and returns the
packed strength described in ``value.py``. The per-hand evaluators and the numpy batch tables are
both built from these functions, so the rules live once.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealerassist.core.cards import ACE
from dealerassist.hands.value import FIVE_CLASSES, FOUR_CLASSES, THREE_CLASSES, TWO_CLASSES, pack

_T3 = {name: i for i, name in enumerate(THREE_CLASSES)}
_T4 = {name: i for i, name in enumerate(FOUR_CLASSES)}
_T5 = {name: i for i, name in enumerate(FIVE_CLASSES)}
_T2 = {name: i for i, name in enumerate(TWO_CLASSES)}


def rank_counts(ranks: Sequence[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    return counts


def shape(ranks: Sequence[int]) -> list[int]:
    """Group sizes, biggest first: [2, 1, 1, 1] is a pair, [3, 2] a full house."""
    return sorted(rank_counts(ranks).values(), reverse=True)


def grouped(ranks: Sequence[int]) -> list[int]:
    """Ranks ordered for tie-breaks: bigger groups first, higher rank first within a group size."""
    counts = rank_counts(ranks)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    return [r for r in order for _ in range(counts[r])]


def straight_ranks(ranks: Sequence[int], *, wheel_second: bool = False) -> list[int] | None:
    """The straight's ranks high to low (an ace playing low is 1), or None.

    A straight is ``len(ranks)`` distinct consecutive ranks; the ace plays high or low, never
    in the middle (no wrap-around). With ``wheel_second`` the five-card wheel keeps its ace on top.
    """
    distinct = sorted(set(ranks), reverse=True)
    n = len(ranks)
    if len(distinct) != n:
        return None
    if distinct[0] - distinct[-1] == n - 1:
        return distinct
    low = [*distinct[1:], 1] if distinct[0] == ACE else None
    if low is not None and low[0] - low[-1] == n - 1:
        return distinct if wheel_second and n == 5 else low
    return None


def classify_two(ranks: Sequence[int]) -> int:
    """Pai gow two-card hand (the joker has already become an ace)."""
    hi, lo = sorted(ranks, reverse=True)
    return pack(_T2["pair"] if hi == lo else _T2["high-card"], (hi, lo), 2)


def classify_three(ranks: Sequence[int], suited: bool) -> int:
    counts = shape(ranks)
    straight = straight_ranks(ranks)
    if straight and suited:
        return pack(_T3["straight-flush"], straight, 3)
    if counts[0] == 3:
        return pack(_T3["three-of-a-kind"], ranks, 3)
    if straight:
        return pack(_T3["straight"], straight, 3)
    if suited:
        return pack(_T3["flush"], sorted(ranks, reverse=True), 3)
    name = "pair" if counts[0] == 2 else "high-card"
    return pack(_T3[name], grouped(ranks), 3)


def classify_four(ranks: Sequence[int], suited: bool) -> int:
    counts = shape(ranks)
    straight = straight_ranks(ranks)
    if counts[0] == 4:
        return pack(_T4["four-of-a-kind"], ranks, 4)
    if straight and suited:
        return pack(_T4["straight-flush"], straight, 4)
    if counts[0] == 3:
        return pack(_T4["three-of-a-kind"], grouped(ranks), 4)
    if suited:
        return pack(_T4["flush"], sorted(ranks, reverse=True), 4)
    if straight:
        return pack(_T4["straight"], straight, 4)
    if counts[:2] == [2, 2]:
        return pack(_T4["two-pair"], grouped(ranks), 4)
    name = "pair" if counts[0] == 2 else "high-card"
    return pack(_T4[name], grouped(ranks), 4)


def classify_five(ranks: Sequence[int], suited: bool, *, wheel_second: bool = False) -> int:
    """Five natural cards (the joker is resolved by ``classify_five_joker``)."""
    counts = shape(ranks)
    if counts[0] == 5:
        return pack(_T5["five-aces"], ranks, 5)
    straight = straight_ranks(ranks, wheel_second=wheel_second)
    if straight and suited:
        royal = sorted(ranks) == [10, 11, 12, 13, ACE]
        return pack(_T5["royal-flush" if royal else "straight-flush"], straight, 5)
    if counts[0] == 4:
        return pack(_T5["four-of-a-kind"], grouped(ranks), 5)
    if counts[:2] == [3, 2]:
        return pack(_T5["full-house"], grouped(ranks), 5)
    if suited:
        return pack(_T5["flush"], sorted(ranks, reverse=True), 5)
    if straight:
        return pack(_T5["straight"], straight, 5)
    if counts[0] == 3:
        return pack(_T5["three-of-a-kind"], grouped(ranks), 5)
    if counts[:2] == [2, 2]:
        return pack(_T5["two-pair"], grouped(ranks), 5)
    name = "pair" if counts[0] == 2 else "high-card"
    return pack(_T5[name], grouped(ranks), 5)


# Every five-rank straight as a set of ranks (the wheel holds the ace).
_STRAIGHT_SETS = (
    frozenset({ACE, 2, 3, 4, 5}),
    *(frozenset(range(top - 4, top + 1)) for top in range(6, ACE + 1)),
)


def classify_five_joker(ranks: Sequence[int], suited: bool, *, wheel_second: bool = False) -> int:
    """Four natural ranks plus the pai gow joker (the bug).

    The joker plays as an ace, or as any rank that completes a straight, or (when the four are
    suited) as any rank the suit lacks to complete a flush or straight flush. The best reading
    wins, which puts a flush's joker on the highest missing rank.
    """
    held = set(ranks)
    readings = [classify_five([*ranks, ACE], False, wheel_second=wheel_second)]
    fillers = {next(iter(s - held)) for s in _STRAIGHT_SETS if len(held) == 4 and held < s}
    if suited:
        fillers.add(max(r for r in range(2, ACE + 1) if r not in held))
    for rank in fillers:
        readings.append(classify_five([*ranks, rank], suited, wheel_second=wheel_second))
    return max(readings)
