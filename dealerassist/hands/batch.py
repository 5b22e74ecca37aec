"""numpy batch evaluators for the analyzer: whole arrays of hands at once.

Hands are ``int`` arrays of shape ``(N, k)`` holding card indices as ``Card.index`` gives them
(0..51 rank-major: ``(rank - 2) * 4 + suit``, spades hearts diamonds clubs; the joker is 52).
Every function returns an ``int64`` array of strengths that are *bit for bit* the ``strength`` the
per-hand evaluator gives the same cards, so counts, comparisons and pay-table class names
(``class_names``) agree between the analyzer and the table.

How it works: each row's rank key (``tables.py``) is the sum of per-rank units, looked up with
``np.searchsorted`` in the sorted key array of the matching table; a one-suit row is looked up in the
suited table instead. Best-of-N rows take the best-of-N plain table and, where a suit holds enough
cards, the best one-suit reading from an array indexed by that suit's rank bits (plus a joker bit).

Counting best-five-of-seven over all 154,143,080 seven-card hands from 53 cards: walk
``iter_combinations(53, 7)`` (chunks of a few million rows, rank-major order) and feed each chunk
to ``best_five_strengths(chunk, wheel_second=True, check=False)`` (the enumeration is trusted),
then ``np.bincount(class_ids(s, 5))``. On one core here that is about 0.1 us per five-card row and
0.2-0.35 us per seven-card row, so the whole pai gow count takes under a minute.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from itertools import combinations
from math import comb
from typing import Final

import numpy as np

from dealerassist.core.cards import JOKER_RANK, Card
from dealerassist.hands.arrays import RANK_UNITS, lookup, sorted_arrays
from dealerassist.hands.tables import (
    FOUR_PLAIN,
    FOUR_SUITED,
    THREE_PLAIN,
    THREE_SUITED,
    best_plain_table,
    best_suited,
    five_tables,
)
from dealerassist.hands.value import CLASSES_BY_SIZE, HandError

JOKER_INDEX: Final = 52
# Per card index: its rank (joker 15), suit (joker -1), rank-key unit, suit bit and rank bit.
RANK_OF: Final = np.array([*(i // 4 + 2 for i in range(52)), JOKER_RANK], dtype=np.intp)
SUIT_OF: Final = np.array([*(i % 4 for i in range(52)), -1], dtype=np.intp)
KEY_OF: Final = RANK_UNITS[RANK_OF]
SUIT_BIT_OF: Final = np.array([*(1 << (i % 4) for i in range(52)), 0], dtype=np.uint8)
RANK_BIT_OF: Final = np.array([*(1 << (i // 4 + 2) for i in range(52)), 0], dtype=np.int64)
CARD_BIT_OF: Final = np.array([1 << i for i in range(53)], dtype=np.uint64)
EVERY_SUIT: Final = 0x01010101  # one in each suit's byte of a packed suit count
SUIT_UNIT_OF: Final = np.array([*(1 << (8 * (i % 4)) for i in range(52)), EVERY_SUIT], dtype=np.int32)
JOKER_FLAG: Final = 1 << 15  # beside the rank bits 2..14 in a suit's rank-bit index


def card_indices(hands: list[list[Card]] | list[tuple[Card, ...]]) -> np.ndarray:
    """Card objects to the index array the batch functions take."""
    return np.array([[card.index for card in hand] for hand in hands], dtype=np.intp)


def class_ids(strengths: np.ndarray, size: int) -> np.ndarray:
    """Class index of each strength (position in the evaluator's ``*_CLASSES`` tuple)."""
    return (np.asarray(strengths) >> (4 * size)).astype(np.intp)


def class_names(size: int) -> tuple[str, ...]:
    """Names for ``class_ids`` of a ``size``-card evaluator (2, 3, 4 or 5)."""
    return CLASSES_BY_SIZE[size]


def _checked(indices: np.ndarray, widths: tuple[int, ...], joker: bool, what: str) -> np.ndarray:
    hands = np.asarray(indices)
    if hands.ndim != 2 or hands.shape[1] not in widths:
        shapes = " or ".join(f"(N, {w})" for w in widths)
        raise HandError(f"{what}: expected an array of shape {shapes}, got {hands.shape}")
    if not np.issubdtype(hands.dtype, np.integer):
        raise HandError(f"{what}: card indices must be integers, got dtype {hands.dtype}")
    top = JOKER_INDEX if joker else JOKER_INDEX - 1
    if hands.size and (hands.min() < 0 or hands.max() > top):
        bad = hands[(hands < 0) | (hands > top)][0]
        raise HandError(f"{what}: card index {bad} is outside 0..{top}" + ("" if joker else " (no joker)"))
    # One bit per card: a row's bits add up to their union exactly when no card repeats.
    bits = CARD_BIT_OF[hands]
    repeats = np.bitwise_or.reduce(bits, axis=1) != bits.sum(axis=1)
    if repeats.any():
        row = int(np.flatnonzero(repeats)[0])
        raise HandError(f"{what}: row {row} holds a card twice: {hands[row].tolist()}")
    return hands


def _rank_keys(hands: np.ndarray) -> np.ndarray:
    return KEY_OF[hands].sum(axis=1)


def _one_suit(hands: np.ndarray) -> np.ndarray:
    """Rows whose natural cards all share a suit (the joker has no suit bit): one bit set."""
    bits = np.bitwise_or.reduce(SUIT_BIT_OF[hands], axis=1)
    return (bits & (bits - 1)) == 0


def _judge(hands: np.ndarray, plain: dict[int, int], suited: dict[int, int]) -> np.ndarray:
    keys = _rank_keys(hands)
    flush = _one_suit(hands)
    out = lookup(*_arrays(id(plain), plain), keys)
    if flush.any():
        out[flush] = lookup(*_arrays(id(suited), suited), keys[flush])
    return out


_ARRAY_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _arrays(table_id: int, table: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    # Tables live for the whole process (module constants or cached builders), so their id is a
    # stable cache key.
    if table_id not in _ARRAY_CACHE:
        _ARRAY_CACHE[table_id] = sorted_arrays(table)
    return _ARRAY_CACHE[table_id]


def three_card_strengths(indices: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Three Card Poker strengths of ``(N, 3)`` hands (as ``evaluate_three``)."""
    hands = _checked(indices, (3,), False, "three_card_strengths") if check else np.asarray(indices)
    return _judge(hands, THREE_PLAIN, THREE_SUITED)


def four_card_strengths(indices: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Four Card Poker strengths of ``(N, 4)`` hands (as ``evaluate_four``)."""
    hands = _checked(indices, (4,), False, "four_card_strengths") if check else np.asarray(indices)
    return _judge(hands, FOUR_PLAIN, FOUR_SUITED)


def five_card_strengths(indices: np.ndarray, *, wheel_second: bool = False, check: bool = True) -> np.ndarray:
    """Five-card strengths of ``(N, 5)`` hands, joker (52) allowed (as ``evaluate_five``).

    ``check=False`` skips the input checks (shape, range, duplicates) for trusted enumerations.
    """
    hands = _checked(indices, (5,), True, "five_card_strengths") if check else np.asarray(indices)
    plain, suited = five_tables(wheel_second)
    return _judge(hands, plain, suited)


@cache
def suited_best(keep: int, wheel_second: bool = False) -> np.ndarray:
    """Best one-suit ``keep``-card reading indexed by a suit's rank bits (``1 << rank``) plus
    ``JOKER_FLAG``; 0 where the suit cannot make a ``keep``-card hand. Covers up to seven cards."""
    suited = FOUR_SUITED if keep == 4 else five_tables(wheel_second).suited
    out = np.zeros(1 << 16, dtype=np.int64)
    ranks = range(2, JOKER_RANK)
    jokers = (0, 1) if keep == 5 else (0,)
    for joker in jokers:
        for count in range(keep - joker, 8 - joker):
            for chosen in combinations(ranks, count):
                index = sum(1 << r for r in chosen) | (JOKER_FLAG if joker else 0)
                out[index] = best_suited([*chosen, *([JOKER_RANK] * joker)], keep, suited)
    return out


def _best_of(hands: np.ndarray, keep: int, wheel_second: bool) -> np.ndarray:
    size = hands.shape[1]
    table = best_plain_table(size, keep, wheel_second)
    out = lookup(*_arrays(id(table), table), _rank_keys(hands))
    # One byte per suit counts its cards (the joker counts in every suit); adding 8 - keep to
    # each byte sets its bit 3 exactly when the suit can make a ``keep``-card flush.
    counts = SUIT_UNIT_OF[hands].sum(axis=1, dtype=np.int32)
    flush_rows = np.flatnonzero((counts + (8 - keep) * EVERY_SUIT) & (8 * EVERY_SUIT))
    if len(flush_rows) == 0:
        return out
    some = hands[flush_rows]
    suits = SUIT_OF[some]
    joker_flag = np.where((suits < 0).any(axis=1), JOKER_FLAG, 0)
    rank_bits = RANK_BIT_OF[some]
    best_suited_table = suited_best(keep, wheel_second)
    for suit in range(4):
        in_suit = suits == suit
        enough = np.flatnonzero(in_suit.sum(axis=1) + (joker_flag > 0) >= keep)
        if len(enough) == 0:
            continue
        index = np.where(in_suit[enough], rank_bits[enough], 0).sum(axis=1) | joker_flag[enough]
        rows = flush_rows[enough]
        out[rows] = np.maximum(out[rows], best_suited_table[index])
    return out


def best_five_strengths(indices: np.ndarray, *, wheel_second: bool = False, check: bool = True) -> np.ndarray:
    """Best-five strengths of ``(N, 6)`` or ``(N, 7)`` hands, joker allowed (as ``best_five``)."""
    hands = _checked(indices, (5, 6, 7), True, "best_five_strengths") if check else np.asarray(indices)
    if hands.shape[1] == 5:
        return five_card_strengths(hands, wheel_second=wheel_second, check=False)
    return _best_of(hands, 5, wheel_second)


def best_four_strengths(indices: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Best-four strengths of ``(N, 5)`` to ``(N, 7)`` hands (as ``best_four``)."""
    hands = _checked(indices, (4, 5, 6, 7), False, "best_four_strengths") if check else np.asarray(indices)
    if hands.shape[1] == 4:
        return four_card_strengths(hands, check=False)
    return _best_of(hands, 4, False)


def combinations_array(n: int, k: int, dtype: type = np.uint8) -> np.ndarray:
    """All ``k``-subsets of ``range(n)`` as rows, in ``itertools.combinations`` order.

    Built a column at a time: the ``j``-subsets starting at ``f`` are ``f`` followed by the
    ``(j-1)``-subsets of the cards above ``f``, which are a suffix of the previous array.
    """
    if not 0 <= k <= n:
        raise ValueError(f"cannot choose {k} of {n}")
    previous = np.zeros((1, 0), dtype=dtype)
    for j in range(1, k + 1):
        current = np.empty((comb(n, j), j), dtype=dtype)
        row = 0
        for first in range(n - j + 1):
            tail = previous[len(previous) - comb(n - first - 1, j - 1) :]
            current[row : row + len(tail), 0] = first
            current[row : row + len(tail), 1:] = tail
            row += len(tail)
        previous = current
    return previous


def iter_combinations(n: int, k: int, *, fixed: int = 2) -> Iterator[np.ndarray]:
    """All ``k``-subsets of ``range(n)`` in chunks, in ``itertools.combinations`` order.

    The first ``fixed`` cards are walked in Python and the rest come from one precomputed array,
    so 154 million seven-card hands stream in chunks of at most C(n - fixed, k - fixed) rows.
    """
    fixed = min(fixed, k)
    tail_k = k - fixed
    tail = combinations_array(n, tail_k)
    for prefix in combinations(range(n), fixed):
        start = prefix[-1] + 1 if prefix else 0
        # Rows of ``tail`` whose first card is >= start are a suffix of the array.
        first = len(tail) - comb(n - start, tail_k)
        rows = tail[first:]
        if len(rows) == 0:
            continue
        chunk = np.empty((len(rows), k), dtype=np.uint8)
        chunk[:, :fixed] = prefix
        chunk[:, fixed:] = rows
        yield chunk
