"""What every evaluator returns: a ``HandValue`` with a totally ordered strength and a class slug.

Strength packing (shared by every evaluator, so tables, batch arrays and per-hand values agree):
``strength = class_index << (4 * size) | r1 << 4*(size-1) | ... | r_size`` where ``class_index``
is the position of the hand's class in that evaluator's ``*_CLASSES`` tuple (weakest first) and
``r1..r_size`` are the ranks of the hand's cards in the order that decides ties (grouped cards
first, then kickers). An ace playing low in a straight is written as rank 1, so A-2-3-4-5 sorts
below 6-high. A pai gow ``wheel_second`` wheel is written ``A 5 4 3 2``, which lands it exactly
between A-K-Q-J-T and K-Q-J-T-9. A strength is therefore decodable (``strength_ranks``) and the
same integer everywhere: the numpy batch module reproduces it bit for bit.

``HandValue`` is an immutable tuple underneath (fast to build in tight loops); use its named
attributes. Values compare by strength only, and only with values of the same evaluator size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Final, NoReturn

from dealerassist.core.cards import ACE, Card
from dealerassist.errors import CardError

TWO_CLASSES: Final = ("high-card", "pair")
THREE_CLASSES: Final = ("high-card", "pair", "flush", "straight", "three-of-a-kind", "straight-flush")
FOUR_CLASSES: Final = (
    "high-card",
    "pair",
    "two-pair",
    "straight",
    "flush",
    "three-of-a-kind",
    "straight-flush",
    "four-of-a-kind",
)
FIVE_CLASSES: Final = (
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
)
CLASSES_BY_SIZE: Final = {2: TWO_CLASSES, 3: THREE_CLASSES, 4: FOUR_CLASSES, 5: FIVE_CLASSES}
_SUITED_CLASSES: Final = frozenset({"flush", "straight-flush", "royal-flush"})


class HandError(CardError):
    """Cards an evaluator cannot judge: wrong count, a duplicate a single deck cannot hold, a joker
    where the game has none, or something that is not a card. The message names the cards."""


def pack(class_index: int, ranks: Iterable[int], size: int) -> int:
    """Strength for a class and its tie-breaking ranks (see the module docstring)."""
    value = class_index
    count = 0
    for rank in ranks:
        value = value << 4 | rank
        count += 1
    if count != size:
        raise ValueError(f"a {size}-card strength needs {size} ranks, got {count}")
    return value


def strength_ranks(strength: int, size: int) -> tuple[int, ...]:
    """The tie-breaking ranks packed in a strength, best first (1 is an ace playing low)."""
    return tuple((strength >> (4 * (size - 1 - i))) & 15 for i in range(size))


class HandValue(tuple):
    """A judged hand: ``strength`` (bigger is better), ``name`` (class slug, pay-table key) and
    ``cards`` (the cards that make the hand, best first). Built by the evaluators only.

    Only ``(strength, cards given, size)`` is stored, built as ``HandValue((strength, held,
    size))`` by the tuple constructor itself; the name and the display order are derived on
    access. That keeps building one, the evaluators' hot path, to a single C-level call.
    """

    __slots__ = ()

    @property
    def strength(self) -> int:
        return self[0]

    @property
    def name(self) -> str:
        return CLASSES_BY_SIZE[self[2]][self[0] >> (4 * self[2])]

    @property
    def size(self) -> int:
        """How many cards make the hand (2, 3, 4 or 5): values compare only within one size."""
        return self[2]

    @property
    def held(self) -> tuple[Card, ...]:
        """Every card the evaluator was given (for best-of-N, more than ``size``)."""
        return self[1]

    @property
    def cards(self) -> tuple[Card, ...]:
        """The ``size`` cards that make the hand, in tie-break order (for display)."""
        return arrange(self[1], self[0], self.name, self[2])

    @property
    def ranks(self) -> tuple[int, ...]:
        """Tie-break ranks packed in the strength (1 is an ace playing low)."""
        return strength_ranks(self[0], self[2])

    def _other(self, other: object) -> HandValue:
        if not isinstance(other, HandValue):
            raise TypeError(f"cannot compare a hand value with {type(other).__name__}")
        if other[2] != self[2]:
            raise TypeError(f"cannot compare a {self[2]}-card hand with a {other[2]}-card hand")
        return other

    # A plain tuple with the same items is not a hand value: no fallback to tuple equality.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandValue) and self[2] == other[2] and self[0] == other[0]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Any) -> bool:
        return self[0] < self._other(other)[0]

    def __le__(self, other: Any) -> bool:
        return self[0] <= self._other(other)[0]

    def __gt__(self, other: Any) -> bool:
        return self[0] > self._other(other)[0]

    def __ge__(self, other: Any) -> bool:
        return self[0] >= self._other(other)[0]

    def __hash__(self) -> int:
        return hash((self[2], self[0]))

    def __repr__(self) -> str:
        shown = " ".join(c.code for c in self.cards)
        return f"HandValue({self.name}, {shown}, strength={self[0]:#x})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (HandValue, ((self[0], self[1], self[2]),))


def arrange(held: tuple[Card, ...], strength: int, name: str, size: int) -> tuple[Card, ...]:
    """Pick and order the cards matching the strength's ranks; the joker fills the rank it plays.

    Suited classes draw from the suit the hand is made in, so a best-five flush shows the flush.
    """
    wanted = [ACE if r == 1 else r for r in strength_ranks(strength, size)]
    pool = [c for c in held if not c.is_joker]
    jokers = [c for c in held if c.is_joker]
    if name in _SUITED_CLASSES:
        suit, _ = Counter(c.suit for c in pool).most_common(1)[0]
        pool = [c for c in pool if c.suit == suit]
    pool.sort(key=lambda c: c.rank, reverse=True)
    shown: list[Card] = []
    for rank in wanted:
        match = next((c for c in pool if c.rank == rank), None)
        if match is not None:
            pool.remove(match)
            shown.append(match)
        elif jokers:
            shown.append(jokers.pop())
    return tuple(shown)


def describe(cards: Iterable[Any]) -> str:
    return " ".join(c.code if isinstance(c, Card) else repr(c) for c in cards)


def check_cards(
    cards: Iterable[Card], counts: Iterable[int], what: str, *, joker: bool = False, duplicates: bool = False
) -> tuple[Card, ...]:
    """Validate evaluator input; ``what`` names the hand in every message."""
    try:
        held = tuple(cards)
    except TypeError:
        raise HandError(f"{what}: expected a sequence of cards, got {cards!r}") from None
    allowed = tuple(counts)
    if len(held) not in allowed:
        need = " or ".join(str(n) for n in allowed)
        raise HandError(f"{what} takes {need} cards, got {len(held)}: {describe(held)}")
    for card in held:
        if not isinstance(card, Card):
            raise HandError(f"{what}: {card!r} is not a card (parse texts with Card.parse first)")
    jokers = sum(1 for c in held if c.is_joker)
    if jokers and not joker:
        raise HandError(f"{what} has no joker in its deck, got {describe(held)}")
    if jokers > 1:
        raise HandError(f"{what}: only one joker exists in the deck, got {describe(held)}")
    if not duplicates:
        seen: set[Card] = set()
        for card in held:
            if card in seen:
                raise HandError(f"{what}: {card.code} appears twice but the deck holds one: {describe(held)}")
            seen.add(card)
    return held


def refuse(cards: Iterable[Card], counts: Iterable[int], what: str, *, joker: bool = False) -> NoReturn:
    """Raise the precise ``HandError`` for input a fast path could not judge."""
    check_cards(cards, counts, what, joker=joker)
    raise HandError(f"{what}: cannot judge {describe(cards)}")


def hold(cards: Iterable[Card], counts: Iterable[int], what: str) -> tuple[Card, ...]:
    """The cards as a tuple (free when they already are one)."""
    if type(cards) is tuple:
        return cards
    try:
        return tuple(cards)
    except TypeError:
        refuse(cards, counts, what)
