"""Deck compositions (``decks/*.toml`` in the configuration folders) and the cards dealt from them in a round.

A composition says how many copies of each card exist; the Pairs & Up deck has seven aces of
spades, a six-deck shoe six of each card. ``RoundCards`` is what the shoe has given up in the
current round: it refuses a card that the composition cannot supply, which is how a misread or a
foreign card becomes a misdeal instead of a payout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dealerassist.core.cards import FULL_DECK, JOKER, Card
from dealerassist.core.configfiles import named_file
from dealerassist.core.tomlfile import read_toml, reject_unknown_keys
from dealerassist.errors import CardError, ConfigError, DeckError

DECK_KEYS = ("name", "description", "size", "standard_decks", "jokers", "cards")


@dataclass(frozen=True)
class DeckComposition:
    """How many copies of each card face a deck (or shoe) holds."""

    name: str
    counts: Mapping[Card, int]
    description: str = ""

    @property
    def size(self) -> int:
        return sum(self.counts.values())

    def copies(self, card: Card) -> int:
        return self.counts.get(card, 0)

    def cards(self) -> list[Card]:
        """Every physical card, in a fixed order (for shuffling and enumeration)."""
        return [card for card in sorted(self.counts) for _ in range(self.counts[card])]

    @property
    def single_copy(self) -> bool:
        """True when no face appears twice: a duplicate face is then proof of a misdeal."""
        return all(n == 1 for n in self.counts.values())

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], source: str) -> DeckComposition:
        """Build from parsed TOML; ``source`` names the file in every error."""
        reject_unknown_keys(data, source, "", DECK_KEYS)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(source, "name", "must be a non-empty string")
        counts: Counter[Card] = Counter()
        standard = data.get("standard_decks", 0)
        if not isinstance(standard, int) or isinstance(standard, bool) or standard < 0:
            raise ConfigError(source, "standard_decks", f"must be a whole number >= 0, got {standard!r}")
        for card in FULL_DECK:
            counts[card] += standard
        jokers = data.get("jokers", 0)
        if not isinstance(jokers, int) or isinstance(jokers, bool) or jokers < 0:
            raise ConfigError(source, "jokers", f"must be a whole number >= 0, got {jokers!r}")
        if jokers:
            counts[JOKER] += jokers
        extra = data.get("cards", {})
        if not isinstance(extra, Mapping):
            raise ConfigError(source, "cards", "must be a table of card = copies")
        for text, copies in extra.items():
            try:
                card = Card.parse(text)
            except CardError as exc:
                raise ConfigError(source, f"cards.{text}", str(exc)) from None
            if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
                raise ConfigError(
                    source, f"cards.{text}", f"copies must be a whole number >= 0, got {copies!r}"
                )
            counts[card] += copies
        expected = data.get("size")
        total = sum(counts.values())
        if total == 0:
            raise ConfigError(source, "cards", "the deck holds no cards")
        if expected is not None and expected != total:
            raise ConfigError(source, "size", f"declares {expected} cards but the composition holds {total}")
        description = data.get("description", "")
        return cls(name=name, counts={c: n for c, n in counts.items() if n}, description=str(description))


def load_deck(name_or_path: str | Path) -> DeckComposition:
    """Load a deck by name (``pairs-and-up-52``) from the configuration folders, or by file path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = named_file("decks", str(name_or_path), "deck file")
    if not path.is_file():
        raise ConfigError(str(path), "-", "no such deck file")
    data = read_toml(path)
    return DeckComposition.from_mapping(data, str(path))


@dataclass
class RoundCards:
    """The cards taken from one composition during one round."""

    composition: DeckComposition
    dealt: Counter[Card] = field(default_factory=Counter)

    def check(self, card: Card) -> None:
        """Raise ``DeckError`` if the composition cannot supply one more ``card``."""
        held = self.composition.copies(card)
        if held == 0:
            raise DeckError(f"{card.code} is not in the {self.composition.name} deck")
        if self.dealt[card] >= held:
            raise DeckError(
                f"{card.code} seen {self.dealt[card] + 1} times but the "
                f"{self.composition.name} deck holds only {held}"
            )

    def take(self, card: Card) -> None:
        self.check(card)
        self.dealt[card] += 1

    def give_back(self, card: Card) -> None:
        """Undo a ``take`` (a supervisor's card correction)."""
        if self.dealt[card] <= 0:
            raise DeckError(f"{card.code} was not dealt this round")
        self.dealt[card] -= 1

    def remaining(self) -> Counter[Card]:
        return Counter(
            {c: n - self.dealt[c] for c, n in self.composition.counts.items() if n > self.dealt[c]}
        )

    def __iter__(self) -> Iterator[Card]:
        return iter(self.dealt.elements())

    def reset(self) -> None:
        self.dealt.clear()


def take_all(composition: DeckComposition, cards: Iterable[Card]) -> RoundCards:
    """Deal ``cards`` in order from a fresh round; raises on the first impossible one."""
    state = RoundCards(composition)
    for card in cards:
        state.take(card)
    return state
