"""Slow, obviously correct hand evaluators that the fast ones are checked against.

Written straight from the rule statements, sharing no code with ``dealerassist.hands``: each hand
class is a plain predicate, tried strongest first, and ties are broken by a tuple of ranks. A
reference value is ``(class name, key)`` where ``key`` sorts like the hand (bigger is better);
the pai gow wheel that ranks second uses the key 13.5, between A-high and K-high straights.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

from dealerassist.core.cards import FULL_DECK, Card

ACE = 14

THREE_ORDER = ["high-card", "pair", "flush", "straight", "three-of-a-kind", "straight-flush"]
FOUR_ORDER = [
    "high-card",
    "pair",
    "two-pair",
    "straight",
    "flush",
    "three-of-a-kind",
    "straight-flush",
    "four-of-a-kind",
]
FIVE_ORDER = [
    "high-card",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "full-house",
    "four-of-a-kind",
    "straight-flush",
    "royal-flush",
    "five-aces",
]

RefValue = tuple[str, tuple[float, ...]]


def _high_first(ranks: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(ranks, reverse=True))


def _by_groups(ranks: Sequence[int]) -> tuple[int, ...]:
    """Ranks of the biggest group first, then the next; equal group sizes higher rank first."""
    counts = Counter(ranks)
    out: list[int] = []
    for size in (5, 4, 3, 2, 1):
        for rank in sorted((r for r, n in counts.items() if n == size), reverse=True):
            out.extend([rank] * size)
    return tuple(out)


def _shape(ranks: Sequence[int]) -> list[int]:
    return sorted(Counter(ranks).values(), reverse=True)


def _one_suit(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def _straight_top(ranks: Sequence[int], wheel_key: float | None = None) -> float | None:
    """Top of a straight of all the ranks: ace high, or ace low (then the top is the next card)."""
    distinct = sorted(set(ranks))
    n = len(ranks)
    if len(distinct) != n:
        return None
    if distinct == list(range(distinct[0], distinct[0] + n)):
        return distinct[-1]
    low = sorted(1 if r == ACE else r for r in distinct)
    if low == list(range(1, n + 1)):
        return wheel_key if wheel_key is not None else n
    return None


def ref_three(cards: Sequence[Card]) -> RefValue:
    ranks = [c.rank for c in cards]
    top = _straight_top(ranks)
    if top and _one_suit(cards):
        return "straight-flush", (top,)
    if _shape(ranks) == [3]:
        return "three-of-a-kind", _by_groups(ranks)
    if top:
        return "straight", (top,)
    if _one_suit(cards):
        return "flush", _high_first(ranks)
    if _shape(ranks) == [2, 1]:
        return "pair", _by_groups(ranks)
    return "high-card", _high_first(ranks)


def three_key(cards: Sequence[Card]) -> tuple[int, tuple[float, ...]]:
    name, key = ref_three(cards)
    return THREE_ORDER.index(name), key


def ref_four(cards: Sequence[Card]) -> RefValue:
    ranks = [c.rank for c in cards]
    top = _straight_top(ranks)
    shape = _shape(ranks)
    if shape == [4]:
        return "four-of-a-kind", _by_groups(ranks)
    if top and _one_suit(cards):
        return "straight-flush", (top,)
    if shape == [3, 1]:
        return "three-of-a-kind", _by_groups(ranks)
    if _one_suit(cards):
        return "flush", _high_first(ranks)
    if top:
        return "straight", (top,)
    if shape == [2, 2]:
        return "two-pair", _by_groups(ranks)
    if shape == [2, 1, 1]:
        return "pair", _by_groups(ranks)
    return "high-card", _high_first(ranks)


def four_key(cards: Sequence[Card]) -> tuple[int, tuple[float, ...]]:
    name, key = ref_four(cards)
    return FOUR_ORDER.index(name), key


@cache
def _five_by_ranks(ranks: tuple[int, ...], suited: bool, wheel_second: bool) -> RefValue:
    """A natural five-card hand is decided by its ranks and whether it is one suit (nothing else
    of a card is read), so readings are cached on exactly that."""
    top = _straight_top(ranks, 13.5 if wheel_second else None)
    shape = _shape(ranks)
    if shape == [5]:
        return "five-aces", ()
    if top and suited and _high_first(ranks) == (14, 13, 12, 11, 10):
        return "royal-flush", ()
    if top and suited:
        return "straight-flush", (top,)
    if shape == [4, 1]:
        return "four-of-a-kind", _by_groups(ranks)
    if shape == [3, 2]:
        return "full-house", _by_groups(ranks)
    if suited:
        return "flush", _high_first(ranks)
    if top:
        return "straight", (top,)
    if shape == [3, 1, 1]:
        return "three-of-a-kind", _by_groups(ranks)
    if shape == [2, 2, 1]:
        return "two-pair", _by_groups(ranks)
    if shape == [2, 1, 1, 1]:
        return "pair", _by_groups(ranks)
    return "high-card", _high_first(ranks)


def ref_five_natural(cards: Sequence[Card], wheel_second: bool = False) -> RefValue:
    return _five_by_ranks(tuple(sorted(c.rank for c in cards)), _one_suit(cards), wheel_second)


def five_key(value: RefValue) -> tuple[int, tuple[float, ...]]:
    return FIVE_ORDER.index(value[0]), value[1]


def ref_five(cards: Sequence[Card], wheel_second: bool = False) -> RefValue:
    """Five cards; a joker is tried as every card it may stand for and the best reading kept.

    It may stand for any ace, or for any card that turns the hand into a straight, flush,
    straight flush or royal flush. Four aces and the joker are five aces.
    """
    naturals = [c for c in cards if not c.is_joker]
    if len(naturals) == 5:
        return ref_five_natural(cards, wheel_second)
    if [c.rank for c in naturals] == [ACE] * 4:
        return "five-aces", ()
    readings = []
    for stand_in in FULL_DECK:
        if stand_in in naturals:
            continue
        value = ref_five_natural([*naturals, stand_in], wheel_second)
        if stand_in.rank == ACE or value[0] in ("straight", "flush", "straight-flush", "royal-flush"):
            readings.append(value)
    return max(readings, key=five_key)


def ref_two(cards: Sequence[Card]) -> RefValue:
    ranks = sorted((ACE if c.is_joker else c.rank for c in cards), reverse=True)
    return ("pair" if ranks[0] == ranks[1] else "high-card"), tuple(ranks)


def ref_pairs_and_up_made(cards: Sequence[Card]) -> set[str]:
    ranks = sorted(c.rank for c in cards)
    shape = _shape(ranks)
    suited = _one_suit(cards)
    made = set()
    if shape == [2, 2] and not suited:
        made.add("two-pair")
    if shape == [2, 2] and suited:
        made.add("two-pair-flush")
    if shape == [3, 1]:
        made.add("three-of-a-kind")
    if shape == [4]:
        made.add("four-of-a-kind")
    if ranks == [2, 3, 4, ACE]:
        made.add("straight")
    if suited:
        made.add("flush")
    if ranks == [2, 3, 4, ACE] and suited:
        made.add("straight-flush")
    if ranks == [ACE] * 4 and suited:
        made.add("four-aces-flush")
    return made


def ref_blackjack(cards: Sequence[Card], split: bool = False) -> tuple[int, bool, bool, bool]:
    """(total, soft, blackjack, bust): every way of counting the aces, best total not over 21."""
    readings = [0]
    for card in cards:
        options = (1, 11) if card.rank == ACE else (min(card.rank, 10),)
        readings = [t + o for t in readings for o in options]
    hard = min(readings)
    fitting = [t for t in readings if t <= 21]
    total = max(fitting) if fitting else hard
    soft = total != hard
    return total, soft, total == 21 and len(cards) == 2 and not split, total > 21


def order_mismatches(pairs: Sequence[tuple[object, int]]) -> list[str]:
    """Problems (empty when none) between reference keys and fast strengths of the same hands.

    The orders agree when each reference key maps to one strength and sorting the distinct keys
    sorts their strengths strictly: then both evaluators rank every pair of hands alike.
    """
    by_key: dict[object, set[int]] = {}
    for key, strength in pairs:
        by_key.setdefault(key, set()).add(strength)
    problems = [f"{key}: several strengths {sorted(s)}" for key, s in by_key.items() if len(s) != 1]
    ordered = sorted(by_key)
    strengths = [min(by_key[k]) for k in ordered]
    for low, high, s_low, s_high in zip(ordered, ordered[1:], strengths, strengths[1:], strict=False):
        if not s_low < s_high:
            problems.append(f"{low} < {high} but strengths {s_low:#x} >= {s_high:#x}")
    strength_owner: dict[int, object] = {}
    for key, s in zip(ordered, strengths, strict=True):
        if s in strength_owner:
            problems.append(f"{key} and {strength_owner[s]} share strength {s:#x}")
        strength_owner[s] = key
    return problems[:20]
