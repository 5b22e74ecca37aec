"""The corner-index classifiers' shared reading interface: their classes and heads, and the
committee whose majority names a card.

A classifier (``index_cnn.IndexCNN``) looks at the whole index window of a corner (rank, suit and
a little of the card edge) sampled at a fixed size and answers with three heads: rank, suit, and
what the corner is (nothing, an index, a card back). Rank and suit are learnt separately (every
queen teaches the queen, whatever its suit); a card's probability is rank x suit x index.

Every candidate corner of a frame is sampled by one ``cv2.remap`` call (``index_window``) and
classified in one batch: the per-frame cost does not grow with Python work per corner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

SURE = 0.9  # card probability from which the reader names a card (its default accept level)
SCREENED = 0.9  # a committee's first member this sure a window holds nothing settles it alone
NONE = "none"  # the class of a window that holds no index of this design
BACK = "back"  # the class of a window at the corner of a card lying face down
RANKS = "A23456789TJQK"
SUITS = "SHDC"
_CARD_CODES = [r + s for r in RANKS for s in SUITS]  # rank by rank, each in SUITS order
HEADS = (len(RANKS), len(SUITS), 3)  # rank, suit, and what the corner is: nothing, an index, a back


class Member(Protocol):
    """One classifier of a committee: it describes sampled windows (what it reads of them) and
    names the most likely card of each."""

    def describe(self, windows: np.ndarray) -> np.ndarray: ...

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]: ...

    def probability_of(self, features: np.ndarray, cards: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Committee:
    """Index classifiers trained apart, each on its own draw of training windows, whose majority decides.

    One network's confident mistakes mostly come from its own draw of training scenes: another
    trained on a different draw rarely makes the same one. A card is named where a majority of
    the members name it (both of two, two of three: ``needed``), and its probability is the
    geometric mean of the ``needed`` surest of those; where no majority names one card it is 0.
    With three, one member's slip no longer silences two that agree.
    """

    members: tuple[Member, ...]

    def describe(self, windows: np.ndarray) -> np.ndarray:
        """What the members read of sampled windows (all read the same: they are of one kind)."""
        return self.members[0].describe(windows)

    @property
    def needed(self) -> int:
        """Members that must name a card: a majority."""
        return len(self.members) // 2 + 1

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The most likely card of each row as the committee names it (the majority's names),
        its probability (rank x suit x index, the ``needed`` surest members' geometric mean),
        and the members' mean kind probabilities (nothing, index, back).

        The first member screens: a window it is sure holds nothing (most windows of a frame,
        and none it could name) is not shown to the others, and keeps its probabilities.
        """
        names, probability, kind = self.members[0].best(features)
        shown = np.flatnonzero(kind[:, 0] < SCREENED)
        if not len(shown) or len(self.members) == 1:
            return names, probability, kind
        named = [[names[i] for i in shown.tolist()]]
        each = [probability[shown].astype(np.float64)]
        kinds = kind[shown].astype(np.float64)
        for member in self.members[1:]:
            other_names, other_probability, other_kind = member.best(features[shown])
            named.append(other_names)
            each.append(other_probability.astype(np.float64))
            kinds += other_kind
        votes = np.array(named)  # (members, rows) of card codes
        same = votes[:, None, :] == votes[None, :, :]  # [m, k, row]: member k names m's card
        chosen = same.sum(axis=1).argmax(axis=0)  # the member whose card most name, the first of equals
        rows = np.arange(len(shown))
        backing = same[chosen, :, rows].T  # (members, rows): who names the chosen card
        surest = np.sort(np.where(backing, np.array(each), 0.0), axis=0)[len(self.members) - self.needed :]
        product = np.prod(surest, axis=0)
        product[backing.sum(axis=0) < self.needed] = 0.0
        names = list(names)
        for k in np.flatnonzero(chosen).tolist():  # rows where the first member is outvoted
            names[int(shown[k])] = str(votes[chosen[k], k])
        probability, kind = probability.copy(), kind.copy()
        probability[shown] = product ** (1.0 / self.needed)
        kind[shown] = kinds * (1.0 / len(self.members))
        return names, probability, kind

    def probability_of(self, features: np.ndarray, cards: Sequence[str], at_least: float) -> np.ndarray:
        """Each row's committee probability of its card of ``cards`` where that can reach
        ``at_least``; where it cannot, that or 0 (the members left are not asked).

        The geometric mean of the ``needed`` surest members reaches ``at_least`` only where each
        of them reaches ``at_least`` to the power of ``needed`` (and is not 0), so a member sees
        only the rows where enough members are left, or have reached that, to make a majority.
        """
        floor = at_least**self.needed
        count = len(self.members)
        each = np.zeros((count, len(features)))
        rows = np.arange(len(features))
        for m, member in enumerate(self.members):
            if len(rows):
                each[m, rows] = member.probability_of(features[rows], [cards[i] for i in rows.tolist()])
            so_far = each[: m + 1]
            reached = ((so_far >= floor) & (so_far > 0.0)).sum(axis=0)
            rows = np.flatnonzero(reached + (count - m - 1) >= self.needed)
        surest = np.sort(each, axis=0)[count - self.needed :]
        return np.prod(surest, axis=0) ** (1.0 / self.needed)


def best_of(rank: np.ndarray, suit: np.ndarray, kind: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each row's most likely card, its probability (rank x suit x index), and its kinds."""
    r, s = rank.argmax(axis=1), suit.argmax(axis=1)
    rows = np.arange(len(rank))
    probability = rank[rows, r] * suit[rows, s] * kind[:, 1]
    return [_CARD_CODES[k] for k in (r * len(SUITS) + s).tolist()], probability, kind


def probability_of(rank: np.ndarray, suit: np.ndarray, kind: np.ndarray, cards: Sequence[str]) -> np.ndarray:
    """Each row's probability (rank x suit x index) that it shows its card of ``cards``."""
    rows = np.arange(len(rank))
    ranks = [RANKS.index(card[0]) for card in cards]
    suits = [SUITS.index(card[1]) for card in cards]
    return rank[rows, ranks] * suit[rows, suits] * kind[:, 1]


def softmax_heads(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = []
    start = 0
    for size in HEADS:
        part = logits[:, start : start + size]
        part = np.exp(part - part.max(axis=1, keepdims=True))
        out.append(part / part.sum(axis=1, keepdims=True))
        start += size
    return out[0], out[1], out[2]
