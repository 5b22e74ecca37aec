"""The small interface every game implements and the round tracker drives.

A ``Game`` is configured once per table (``TableRules``: limits, pay tables, options) and makes a
``GameRound`` per round. A round is an explicit state machine in the spirit of pokerkit: it is in
one ``phase`` at a time, every action checks that the phase and the rules allow it and raises
``RuleViolation`` naming the rule when they do not, and nothing happens implicitly.

The tracker's loop is:

1. ``place_wager`` while the phase is ``betting``; then ``close_betting``.
2. Feed cards: ``next_deal()`` says which position the next card from the shoe belongs to and
   whether it lands face up; ``deal(card)`` assigns it. Games with dice (pai gow) take
   ``set_dice(total)`` before the first card.
3. ``decide(Decision(...))`` for each player decision that ``pending_decisions()`` asks for; the
   game deals dealer draws and advances phases itself as cards and decisions arrive.
4. ``must_be_hidden()`` at any moment lists the dealer cards that must not yet be seen face up:
   a face-up read of one of them is an exposed dealer card.
5. When ``complete`` is true, ``settle()`` returns every wager's result to the cent. ``void()``
   and ``forfeit()`` may be applied by a supervisor at any time before settlement.

Positions are strings: ``"dealer"``, ``"seat-3"`` and, for a split blackjack hand, ``"seat-3.2"``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Literal

from dealerassist.core.cards import Card
from dealerassist.core.decks import DeckComposition
from dealerassist.errors import RuleViolation

DEALER = "dealer"

Outcome = Literal["win", "lose", "push", "void", "forfeit"]


def seat_position(seat: int, hand: int = 1) -> str:
    """``seat_position(3)`` is ``"seat-3"``; a second (split) hand is ``"seat-3.2"``."""
    return f"seat-{seat}" if hand == 1 else f"seat-{seat}.{hand}"


def parse_position(position: str) -> tuple[int, int] | None:
    """``"seat-3.2"`` to ``(3, 2)``; ``"dealer"`` to ``None``; anything else raises."""
    if position == DEALER:
        return None
    if position.startswith("seat-"):
        seat_text, _, hand_text = position[5:].partition(".")
        if seat_text.isdigit() and (not hand_text or hand_text.isdigit()):
            return int(seat_text), int(hand_text or 1)
    raise ValueError(f"not a position: {position!r} (expected 'dealer' or 'seat-N[.H]')")


@dataclass(frozen=True)
class DealStep:
    """Where the next card from the shoe goes: position, the card's index there, face up or not."""

    position: str
    index: int
    face_up: bool


@dataclass(frozen=True)
class Decision:
    """A player's (or the player-dealer's) choice.

    ``action`` is game-specific (``fold``, ``play``, ``hit``, ``stand``, ``double``, ``split``,
    ``insurance``, ``even-money``, ``set-hand``...). ``amount`` is cents where the action carries a
    wager (Play, double, insurance); ``choice`` names a chosen hand (Pairs & Up); ``cards`` holds a
    pai gow setting's two-card hand.
    """

    position: str
    action: str
    amount: int | None = None
    choice: str | None = None
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class WagerResult:
    """How one wager ended. ``win`` excludes the returned stake; ``returned`` is the stake given
    back (the stake on a win or push, all of it on a void, nothing on a loss)."""

    seat: int
    bet: str
    stake: int
    outcome: Outcome
    win: int = 0
    returned: int = 0
    hand: str = ""
    remainder: Fraction = Fraction(0)
    note: str = ""
    position: str = ""
    # The other position whose hand earned this stake-less bonus (Face Up Pai Gow's Envy).
    earned_by: str = ""

    @property
    def net(self) -> int:
        """Player's gain in cents: ``win`` on a win, ``-stake`` on a loss, 0 on push/void."""
        return self.win + self.returned - self.stake

    @property
    def to_pay(self) -> int:
        """Chips the dealer hands over for this wager (stake back plus winnings)."""
        return self.win + self.returned


@dataclass(frozen=True)
class Settlement:
    """Every wager of a round, settled. Sums are always derived, never stored twice."""

    results: tuple[WagerResult, ...]
    void: bool = False
    reason: str = ""
    hands: Mapping[str, str] = field(default_factory=dict)
    # Position -> its hands' cards as played, where a game splits the cards into several hands
    # (pai gow: ``{"two-card": (...), "five-card": (...)}``), so an audit can check each setting.
    settings: Mapping[str, Mapping[str, tuple[Card, ...]]] = field(default_factory=dict)

    def for_seat(self, seat: int) -> list[WagerResult]:
        return [r for r in self.results if r.seat == seat]

    def total_to_pay(self, seat: int) -> int:
        return sum(r.to_pay for r in self.for_seat(seat))

    @property
    def house_net(self) -> int:
        return -sum(r.net for r in self.results)


# Options any table may set whatever its game, read by the round tracker (``tracker/engine.py``).
TABLE_OPTIONS: Mapping[str, str] = {
    "recognition_threshold": "card reads below this confidence wait for the dealer to confirm (0.9)",
    "camera_must_match_shoe": "a camera read may only confirm a shoe card, never deal one (true)",
}


@dataclass(frozen=True)
class BetLimit:
    minimum: int
    maximum: int


@dataclass(frozen=True)
class TableRules:
    """What a game needs to know about one table; loaded from a table file (``tablefiles.tables``)."""

    table_id: str
    game: str
    seats: int
    deck: DeckComposition
    chip: int = 100
    limits: Mapping[str, BetLimit] = field(default_factory=dict)
    paytables: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    exposure_policy: Literal["void", "flag"] = "void"

    def limit(self, bet: str) -> BetLimit:
        try:
            return self.limits[bet]
        except KeyError:
            raise RuleViolation("bet-offered", f"the {bet!r} bet is not offered at this table") from None

    def option(self, name: str, default: Any) -> Any:
        return self.options.get(name, default)


class GameRound(ABC):
    """One round of one game: a pure, deterministic state machine (no I/O, no clock)."""

    phase: str

    @abstractmethod
    def place_wager(self, seat: int, bet: str, amount: int) -> None:
        """Place or change a wager while betting is open (amount 0 removes it)."""

    @abstractmethod
    def close_betting(self) -> None:
        """No more wagers; checks every seat's prerequisites first."""

    @abstractmethod
    def next_deal(self) -> DealStep | None:
        """Where the next shoe card goes, or ``None`` when no card is expected now."""

    @abstractmethod
    def deal(self, card: Card) -> DealStep:
        """Give ``card`` to the position ``next_deal()`` names; raises ``DeckError`` or
        ``RuleViolation`` (misdeal material) when the card cannot be dealt now."""

    @abstractmethod
    def pending_decisions(self) -> Sequence[str]:
        """Positions whose decision the round is waiting for, in the order they act."""

    @abstractmethod
    def legal_actions(self, position: str) -> Sequence[str]:
        """The actions ``position`` may take now (empty when it is not their turn)."""

    @abstractmethod
    def decide(self, decision: Decision) -> None:
        """Apply a decision or raise ``RuleViolation`` naming the rule that forbids it."""

    @abstractmethod
    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        """Dealer cards (position, index) that must not be seen face up in the current phase."""

    @property
    @abstractmethod
    def complete(self) -> bool:
        """True when every card and decision is in and ``settle()`` may be called."""

    @abstractmethod
    def settle(self) -> Settlement:
        """Settle every wager of the round to the cent (only when ``complete``)."""

    @abstractmethod
    def void(self, reason: str) -> Settlement:
        """Return every wager of the round (misdeal, exposed dealer card, supervisor)."""

    @abstractmethod
    def forfeit(self, seat: int, reason: str) -> None:
        """A supervisor forfeits a seat's hand: its wagers lose at settlement."""

    @abstractmethod
    def hands(self) -> Mapping[str, Sequence[Card]]:
        """Cards held by each position so far, for display and audit."""

    def set_dice(self, total: int) -> None:
        """Dice total picking the first seat dealt (only games with dice override this)."""
        raise RuleViolation("no-dice", "this game does not use dice")


class Game(ABC):
    """A game's rules, configured for one table. One module per game subclasses this."""

    slug: ClassVar[str]
    name: ClassVar[str]
    default_deck: ClassVar[str]
    bets: ClassVar[tuple[str, ...]]
    # Bet -> every hand class its evaluator can name. Pay-table files are checked against it, so a
    # misspelt class (a hand that would then never be paid) is refused at load. Empty: unchecked.
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # Pay tables the game pays without a stake of their own (Face Up Pai Gow's Envy): a table file
    # selects a pay table for them but gives them no limits, and no wager of that name is placed.
    bonuses: ClassVar[tuple[str, ...]] = ()
    # A former bet name -> the one line a table file (or a wager) still using it is refused with.
    retired_bets: ClassVar[Mapping[str, str]] = {}
    # Option name -> what it sets: every name this game reads from ``[options]``. ``load_table``
    # refuses any other name, so a misspelt option cannot silently leave its default in force.
    options: ClassVar[Mapping[str, str]] = {}

    def __init__(self, rules: TableRules) -> None:
        self.rules = rules

    @classmethod
    def paid_bets(cls) -> tuple[str, ...]:
        """Every name a pay table may pay: the bets placed and the bonuses paid without a stake."""
        return (*cls.bets, *cls.bonuses)

    @classmethod
    def known_options(cls) -> Mapping[str, str]:
        """Every option a table of this game may set: the tracker's and the game's own."""
        return {**TABLE_OPTIONS, **cls.options}

    @abstractmethod
    def new_round(self) -> GameRound:
        """Start a round in its betting phase."""
