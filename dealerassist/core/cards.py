"""Playing cards as dealers and logs write them.

A card is a rank (2..14, ace high) and a suit letter, or the joker. The text forms accepted are
the ones seen on a pit: ``As``, ``AS``, ``10h``, ``Th``, ``JK``, ``joker``. Formatting is always the
canonical two-character code (``AS``, ``TH``, ``JK``) used in the event log and on the wire.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from dealerassist.errors import CardError

SUITS: Final = ("S", "H", "D", "C")
SUIT_NAMES: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED_SUITS: Final = frozenset({"H", "D"})

RANK_CHARS: Final = "23456789TJQKA"
RANK_NAMES: Final = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
ACE: Final = 14
JOKER_RANK: Final = 15

_RANK_BY_TEXT: Final = {c: i + 2 for i, c in enumerate(RANK_CHARS)} | {"10": 10}
_JOKER_TEXTS: Final = frozenset({"JK", "JOKER", "JKR", "XX"})


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card face. ``suit`` is ``None`` only for the joker."""

    rank: int
    suit: str | None
    # Dense index 0..51 (rank-major: 2S=0, 2H=1, ... AC=51), the joker 52. Stored rather than
    # computed because the hand evaluators' hot loops read one table entry per card by it.
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit is not None:
                raise CardError(f"the joker has no suit, got suit {self.suit!r}")
            object.__setattr__(self, "index", 52)
            return
        if not isinstance(self.rank, int) or not 2 <= self.rank <= ACE:
            raise CardError(f"rank must be 2..14 (ace high), got {self.rank!r}")
        if self.suit not in SUITS:
            raise CardError(f"suit must be one of S H D C, got {self.suit!r}")
        object.__setattr__(self, "index", (self.rank - 2) * 4 + SUITS.index(self.suit))

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def code(self) -> str:
        """Canonical two-character code: ``AS``, ``TD``, ``JK``."""
        if self.is_joker:
            return "JK"
        return RANK_CHARS[self.rank - 2] + str(self.suit)

    @classmethod
    def from_index(cls, index: int) -> Card:
        if index == 52:
            return JOKER
        if not 0 <= index < 52:
            raise CardError(f"card index must be 0..52, got {index!r}")
        return cls(index // 4 + 2, SUITS[index % 4])

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from any accepted form; anything else raises ``CardError`` quoting it."""
        if not isinstance(text, str):
            raise CardError(f"a card must be text like 'AS' or '10h', got {text!r}")
        cleaned = text.strip().upper()
        if cleaned in _JOKER_TEXTS:
            return JOKER
        if len(cleaned) < 2:
            raise CardError(f"cannot read card {text!r}: expected rank then suit, like 'AS' or '10h'")
        rank_text, suit_text = cleaned[:-1], cleaned[-1]
        rank = _RANK_BY_TEXT.get(rank_text)
        if rank is None:
            raise CardError(
                f"cannot read card {text!r}: unknown rank {rank_text!r} (ranks: 2-9, 10 or T, J, Q, K, A)"
            )
        if suit_text not in SUITS:
            raise CardError(f"cannot read card {text!r}: unknown suit {suit_text!r} (suits: S H D C)")
        return cls(rank, suit_text)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


JOKER: Final = Card(JOKER_RANK, None)
FULL_DECK: Final = tuple(Card(rank, suit) for rank in range(2, ACE + 1) for suit in SUITS)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"AS KD 10h"`` (spaces or commas) or an iterable of card texts."""
    if isinstance(text, str):
        parts = [p for p in text.replace(",", " ").split() if p]
    else:
        parts = list(text)
    return [Card.parse(p) for p in parts]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in cards)
