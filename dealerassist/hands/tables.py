"""Lookup tables from rank patterns to strengths, and the face codes the fast paths add up.

Every card has a *face code*, one integer with three fields, so that the plain sum of a hand's
codes says everything a table lookup needs:

* bits 0-63, the rank counts: 4 bits per rank (``count << 4 * rank``; the joker is rank 15).
  ``sum & RANK_MASK`` is the *rank key*, the same for every ordering and suit of a hand.
* bits 64-127, one bit per card face (16 per suit, the joker on bit 64). A repeated face carries
  into the next bit, so ``popcount`` of this field is below the card count exactly when the hand
  holds a duplicate card (or two jokers).
* bits 128-147, 4 bits per suit counting its cards (the joker counts in every suit, as it can
  join any flush) and a joker counter at bit 144; the field above gives a flush suit's ranks.

A fixed-size evaluator adds ``flush_offset(n)`` to the sum (folded into its first card's code,
``first_card_codes``): it lifts every suit count so that
exactly a flush (n cards of a suit, the joker included) sets bit 3 of that suit's count. Masking
the sum with ``KEY_MASK`` then yields the rank key plus, for a flush, its suit's flush bit, and
one ``combined`` table answers both readings with a single lookup.

Tables map a rank key to a packed strength (``value.py``). ``plain`` tables read a hand as not
suited; ``suited`` tables read a one-suit hand (distinct ranks only). Three-, four- and five-card
tables are built at import (tens of milliseconds); the best-of-six and best-of-seven tables on
first use, with numpy (``arrays.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Final, NamedTuple

from dealerassist.core.cards import ACE, FULL_DECK, JOKER_RANK, SUITS, Card
from dealerassist.hands.classify import (
    classify_five,
    classify_five_joker,
    classify_four,
    classify_three,
)

NATURAL_RANKS: Final = tuple(range(2, ACE + 1))
RANK_MASK: Final = (1 << 64) - 1
FACE_SHIFT: Final = 64
SUIT_SHIFT: Final = 128
JOKER_COUNT: Final = 1 << 16  # the joker's unit within the suit-count field

Table = dict[int, int]


def _face_codes() -> dict[str | None, tuple[int, ...]]:
    codes: dict[str | None, tuple[int, ...]] = {}
    for s, suit in enumerate(SUITS):
        faces = [
            (1 << 4 * r) | (1 << (FACE_SHIFT + 16 * s + r)) | (1 << (SUIT_SHIFT + 4 * s))
            for r in NATURAL_RANKS
        ]
        codes[suit] = (0, 0, *faces)
    every_suit = sum(1 << (SUIT_SHIFT + 4 * s) for s in range(len(SUITS)))
    joker = (1 << 4 * JOKER_RANK) | (1 << FACE_SHIFT) | every_suit | (JOKER_COUNT << SUIT_SHIFT)
    codes[None] = (*([0] * JOKER_RANK), joker)
    return codes


# FACE_CODES[card.suit][card.rank]; anything that is not a real card misses or adds nothing.
FACE_CODES: Final = _face_codes()


def by_index(codes: Mapping[str | None, tuple[int, ...]]) -> tuple[int, ...]:
    """The same codes as one flat tuple read by ``Card.index`` (0..51, the joker 52): the fast
    paths' per-card cost is then one attribute read and one tuple index."""
    return (*(codes[card.suit][card.rank] for card in FULL_DECK), codes[None][JOKER_RANK])


FACE_BY_INDEX: Final = by_index(FACE_CODES)


FLUSH_BITS: Final = sum(8 << (SUIT_SHIFT + 4 * s) for s in range(len(SUITS)))
KEY_MASK: Final = RANK_MASK | FLUSH_BITS
# A rank key with some natural rank counted twice or more: only such a hand can hide a duplicate.
REPEATS_MASK: Final = sum(0xE << 4 * r for r in NATURAL_RANKS)


def flush_offset(count: int) -> int:
    """Added to a ``count``-card face-code sum so that only a flush reaches 8 in a suit count."""
    return sum((8 - count) << (SUIT_SHIFT + 4 * s) for s in range(len(SUITS)))


def first_card_codes(count: int) -> dict[str | None, tuple[int, ...]]:
    """``FACE_CODES`` with ``flush_offset(count)`` already added: a fast path reads its first card
    from these, so the offset costs no extra addition per hand."""
    offset = flush_offset(count)
    return {suit: tuple(c + offset if c else 0 for c in codes) for suit, codes in FACE_CODES.items()}


def flag_repeats(table: Table) -> Table:
    """The table with strengths negated where the rank key repeats a rank: a fast path then runs
    its duplicate-card check only on those (one sign test for every other hand)."""
    return {k: -v if k & REPEATS_MASK else v for k, v in table.items()}


def combined(plain: Table, suited: Table) -> Table:
    """One table for a fixed-size fast path, keyed by ``(sum + flush_offset) & KEY_MASK``: plain
    readings (repeats flagged, see ``flag_repeats``) and suited readings under each suit's bit."""
    table = flag_repeats(plain)
    for key, strength in suited.items():
        for s in range(len(SUITS)):
            table[key | 8 << (SUIT_SHIFT + 4 * s)] = strength
    return table


def suit_ranks(total: int, suit_index: int) -> list[int]:
    """Ranks of one suit's cards in a face-code sum, from its face bits."""
    bits = total >> (FACE_SHIFT + 16 * suit_index) & 0xFFFF
    return [r for r in NATURAL_RANKS if bits >> r & 1]


def rank_key(ranks: Iterable[int]) -> int:
    key = 0
    for rank in ranks:
        key += 1 << 4 * rank
    return key


def rank_multisets(size: int, jokers: int = 0) -> list[tuple[int, ...]]:
    """Every multiset of ``size`` natural ranks (at most four of a rank) plus ``jokers`` jokers."""
    out = []
    for ranks in combinations_with_replacement(NATURAL_RANKS, size):
        if max(Counter(ranks).values()) <= 4:
            out.append((*ranks, *([JOKER_RANK] * jokers)))
    return out


def _table(multisets: Iterable[tuple[int, ...]], judge: Callable[[list[int]], int]) -> Table:
    return {rank_key(ranks): judge(list(ranks)) for ranks in multisets}


def _naturals(ranks: list[int]) -> list[int]:
    return [r for r in ranks if r != JOKER_RANK]


THREE_PLAIN: Final = _table(rank_multisets(3), lambda r: classify_three(r, False))
THREE_SUITED: Final = _table(combinations(NATURAL_RANKS, 3), lambda r: classify_three(r, True))
FOUR_PLAIN: Final = _table(rank_multisets(4), lambda r: classify_four(r, False))
FOUR_SUITED: Final = _table(combinations(NATURAL_RANKS, 4), lambda r: classify_four(r, True))


class FiveTables(NamedTuple):
    """Five-card tables for one wheel rule, each covering hands with and without the joker."""

    plain: Table
    suited: Table


@cache
def five_tables(wheel_second: bool) -> FiveTables:
    def judge(suited: bool) -> Callable[[list[int]], int]:
        def reading(ranks: list[int]) -> int:
            if JOKER_RANK in ranks:
                return classify_five_joker(_naturals(ranks), suited, wheel_second=wheel_second)
            return classify_five(ranks, suited, wheel_second=wheel_second)

        return reading

    suited_sets = [
        *combinations(NATURAL_RANKS, 5),
        *((*c, JOKER_RANK) for c in combinations(NATURAL_RANKS, 4)),
    ]
    return FiveTables(
        plain=_table([*rank_multisets(5), *rank_multisets(4, 1)], judge(False)),
        suited=_table(suited_sets, judge(True)),
    )


five_tables(False)  # the default rule's tables at import; the pai gow wheel's on first use


@cache
def best_plain_table(size: int, keep: int, wheel_second: bool = False) -> Table:
    """Best ``keep``-card plain reading of every ``size``-card rank multiset (five-card ones with a
    joker too): for best-four of five to seven cards and best-five of six or seven."""
    # numpy builds these in a blink; imported here so ``import dealerassist.hands`` stays light.
    from dealerassist.hands.arrays import build_best_plain

    return build_best_plain(size, keep, wheel_second)


def best_of(held: tuple[Card, ...], keep: int, plain: Table, suited: Table) -> int:
    """Strength of the best ``keep`` of ``held`` (more than ``keep`` cards).

    ``plain`` is the best-of-N table for ``len(held)`` cards (``best_plain_table``), ``suited``
    the ``keep``-card one-suit table. Only a suit counting ``keep`` or more cards (the joker counts
    in every suit) is searched for a flush. Bad input raises ``KeyError`` (a duplicate card, a rank
    pattern the tables lack) or the error of a non-card; callers turn that into ``HandError``.
    """
    codes = FACE_CODES
    total = 0
    for card in held:
        total += codes[card.suit][card.rank]
    if (total >> FACE_SHIFT & RANK_MASK).bit_count() != len(held):
        raise KeyError(total)
    strength = plain[total & RANK_MASK]
    counts = total >> SUIT_SHIFT
    if counts & 0xCCCC:  # a suit counts 4 or more (bit 2 or 3 of its 4-bit count is set)
        jokers = counts >> 16
        for s in range(len(SUITS)):
            if counts >> 4 * s & 15 >= keep:
                ranks = suit_ranks(total, s) + [JOKER_RANK] * jokers
                strength = max(strength, best_suited(ranks, keep, suited))
    return strength


def best_suited(ranks: list[int], keep: int, suited: Table) -> int:
    """Best one-suit reading of any ``keep`` of ``ranks`` (a flush suit's cards, rarely > 7)."""
    return max(suited[rank_key(chosen)] for chosen in combinations(ranks, keep))
