"""What was done to the open round, kept so the round can be re-run.

A ``GameRound`` has no undo and no "change a card". The book keeps every accepted action in order;
a supervisor's correction (or a refused action that a game had half applied) re-runs the actions
into a fresh round from the game, so the round is always exactly what its actions make it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.core.decks import RoundCards
from dealerassist.events import CardSource
from dealerassist.games.base import Decision, Game, GameRound, Settlement, WagerResult


@dataclass(frozen=True)
class PlaceWager:
    seat: int
    bet: str
    amount: int


@dataclass(frozen=True)
class CloseBetting:
    pass


@dataclass(frozen=True)
class SetDice:
    total: int


@dataclass(frozen=True)
class DealCard:
    card: Card
    source: CardSource
    confidence: float
    read_id: str | None = None


@dataclass(frozen=True)
class Decide:
    decision: Decision


@dataclass(frozen=True)
class ForfeitSeat:
    seat: int
    reason: str


Action = PlaceWager | CloseBetting | SetDice | DealCard | Decide | ForfeitSeat


@dataclass
class DealtCard:
    """A card on the layout: where the game put it and how it was read."""

    position: str
    index: int
    card: Card
    face_up: bool
    source: CardSource
    confidence: float
    read_id: str | None
    action_no: int
    seen_face_up: bool = False
    camera_checked: bool = False
    camera_track: str | None = None


@dataclass
class RoundBook:
    game: Game
    round: GameRound
    cards: RoundCards
    actions: list[Action] = field(default_factory=list)
    dealt: list[DealtCard] = field(default_factory=list)
    # Cards the last action moved to another hand (a split): (card, from position, from index).
    moved: list[tuple[DealtCard, str, int]] = field(default_factory=list)

    @classmethod
    def start(cls, game: Game) -> RoundBook:
        return cls(game, game.new_round(), RoundCards(game.rules.deck))

    def apply(self, action: Action) -> DealtCard | None:
        """Apply one action to the round; on any error the round is re-run without it."""
        try:
            placed = _apply(self.round, self.cards, action, len(self.actions))
        except Exception:
            self.rerun(self.actions)
            raise
        self.actions.append(action)
        if placed is not None:
            self.dealt.append(placed)
        self.moved = self._follow_hands()
        return placed

    def _follow_hands(self) -> list[tuple[DealtCard, str, int]]:
        """Keep every dealt card where the game holds it now: a split moves a card to a new hand.
        Returns the cards moved with the place each left."""
        held = [(p, i, card) for p, cards in self.round.hands().items() for i, card in enumerate(cards)]
        at = {(d.position, d.index): d for d in self.dealt}
        if all((same := at.get((p, i))) is not None and same.card == card for p, i, card in held):
            return []
        free = {id(d): d for d in self.dealt}
        moves = []
        for p, i, card in held:
            same = at.get((p, i))
            if same is None or same.card != card or id(same) not in free:
                same = next((d for d in free.values() if d.card == card), None)
            if same is not None:
                del free[id(same)]
                moves.append((same, p, i))
        left = []
        for dealt, position, index in moves:
            if (dealt.position, dealt.index) != (position, index):
                left.append((dealt, dealt.position, dealt.index))
            dealt.position, dealt.index = position, index
        return left

    def rerun(self, actions: list[Action]) -> None:
        """Make the round what ``actions`` make it; raises (leaving the book unchanged) if one fails."""
        fresh, cards, dealt = self.game.new_round(), RoundCards(self.game.rules.deck), []
        for number, action in enumerate(actions):
            placed = _apply(fresh, cards, action, number)
            if placed is not None:
                dealt.append(placed)
        seen = {(d.position, d.index, d.card): d for d in self.dealt}
        for index, card in enumerate(dealt):
            old = seen.get((card.position, card.index, card.card))
            if old is not None:
                dealt[index] = replace(
                    card,
                    seen_face_up=old.seen_face_up,
                    camera_checked=old.camera_checked,
                    camera_track=old.camera_track,
                )
        self.round, self.cards, self.actions, self.dealt = fresh, cards, list(actions), dealt
        self.moved = []
        self._follow_hands()

    def at(self, position: str, index: int) -> DealtCard | None:
        return next((d for d in self.dealt if d.position == position and d.index == index), None)

    def wagers(self) -> dict[int, dict[str, int]]:
        """Wagers as placed during betting (the last amount per seat and bet; zero removes)."""
        book: dict[int, dict[str, int]] = {}
        for action in self.actions:
            if isinstance(action, PlaceWager):
                seat = book.setdefault(action.seat, {})
                if action.amount:
                    seat[action.bet] = action.amount
                else:
                    seat.pop(action.bet, None)
        return {seat: bets for seat, bets in sorted(book.items()) if bets}


def _apply(round_: GameRound, cards: RoundCards, action: Action, number: int) -> DealtCard | None:
    match action:
        case PlaceWager(seat, bet, amount):
            round_.place_wager(seat, bet, amount)
        case CloseBetting():
            round_.close_betting()
        case SetDice(total):
            round_.set_dice(total)
        case DealCard(card, source, confidence, read_id):
            cards.check(card)
            step = round_.deal(card)
            cards.take(card)
            return DealtCard(
                step.position, step.index, card, step.face_up, source, confidence, read_id, number
            )
        case Decide(decision):
            round_.decide(decision)
        case ForfeitSeat(seat, reason):
            round_.forfeit(seat, reason)
    return None


def result_dict(result: WagerResult) -> dict[str, Any]:
    """A wager's result as plain data; the chip-rounding remainder as an exact fraction text.
    ``earned_by`` appears only on a bonus another position's hand earned (Envy)."""
    data: dict[str, Any] = {
        "seat": result.seat,
        "position": result.position,
        "bet": result.bet,
        "stake": result.stake,
        "outcome": result.outcome,
        "win": result.win,
        "returned": result.returned,
        "hand": result.hand,
        "remainder": str(Fraction(result.remainder)),
        "note": result.note,
    }
    if result.earned_by:
        data["earned_by"] = result.earned_by
    return data


def settlement_dicts(settlement: Settlement) -> tuple[dict[str, Any], ...]:
    return tuple(result_dict(r) for r in settlement.results)
