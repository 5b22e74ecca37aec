"""numpy forms of the hand tables: sorted key/strength arrays and the best-of-N builders.

Shared by ``batch.py`` (whole arrays of hands) and by ``tables.best_plain_table`` (the per-hand
best-four and best-five tables, built here on first use).
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

import numpy as np

from dealerassist.core.cards import JOKER_RANK
from dealerassist.hands.tables import FOUR_PLAIN, Table, five_tables, rank_multisets

# RANK_UNITS[rank] is the rank's unit in a rank key; rank keys fit int64 (the joker count <= 1).
RANK_UNITS: Final = np.array([0, 0, *(1 << 4 * r for r in range(2, JOKER_RANK + 1))], dtype=np.int64)


def sorted_arrays(*tables: Table) -> tuple[np.ndarray, np.ndarray]:
    """(keys, strengths) as int64 arrays sorted by key, for ``np.searchsorted`` lookups."""
    merged: Table = {}
    for table in tables:
        merged.update(table)
    keys = np.fromiter(merged.keys(), dtype=np.int64, count=len(merged))
    values = np.fromiter(merged.values(), dtype=np.int64, count=len(merged))
    order = np.argsort(keys)
    return keys[order], values[order]


def lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Strengths for ``wanted`` keys; every key must be present (callers build them so)."""
    pos = np.searchsorted(keys, wanted)
    np.minimum(pos, len(keys) - 1, out=pos)
    if not np.array_equal(keys[pos], wanted):
        raise KeyError("a rank pattern is missing from a hand table")
    return values[pos]


def build_best_plain(size: int, keep: int, wheel_second: bool = False) -> Table:
    """See ``tables.best_plain_table``: the best ``keep`` of ``size`` ranks, for every multiset."""
    if keep == 4:
        base_keys, base_values = sorted_arrays(FOUR_PLAIN)
        multisets = rank_multisets(size)
    else:
        base_keys, base_values = sorted_arrays(five_tables(wheel_second).plain)
        multisets = [*rank_multisets(size), *rank_multisets(size - 1, 1)]
    ranks = np.array(multisets, dtype=np.int64)
    units = RANK_UNITS[ranks]
    best = np.zeros(len(ranks), dtype=np.int64)
    for chosen in combinations(range(size), keep):
        sub_keys = units[:, chosen].sum(axis=1)
        np.maximum(best, lookup(base_keys, base_values, sub_keys), out=best)
    return dict(zip(units.sum(axis=1).tolist(), best.tolist(), strict=True))
